"""``meeplab view``: one game as a self-contained HTML page with its board, stepped decision by decision.

Three sources: a run directory (``meeplab view RUN_DIR --index I``: the run's game, bots, parameters and
seed from its run.json, checked against the score it recorded), a fresh game (``meeplab view GAME --players P
--bots ... --seed S --index I``) and a saved human game from the play page (``meeplab view SAVED.json``).

Saved games: the play page's module ``meeplab.play.saved`` provides ``trace_saved(path) -> SavedTrace`` with
``spec`` (GameSpec), ``ctx`` (``spec.prepare(values)``), ``trace`` (a ``meeplab.sim.core.draw.Trace`` of the
game as played), ``seat_names`` (who played each seat, seat 0 first) and ``subtitle``; this command only renders
what it returns.
"""

from __future__ import annotations

from pathlib import Path

import click

from meeplab.cli.common import cli, flag_values, lookup_game, param_overrides, parse_bots, with_game_flags
from meeplab.lab.runs.rundir import is_run
from meeplab.sim.core.errors import MeeplabError


def _lineup_names(lineup, index, n_players):
    from meeplab.sim.core.bots import entry_of_seat

    return [lineup.names[entry_of_seat(s, index, n_players, lineup.rotate)] for s in range(n_players)]


def _check_drawable(g):
    if g.draw is None:
        raise MeeplabError(f"{g.id} has no drawing (GameSpec.draw); meeplab view cannot show it")


def _from_run(run_dir: Path, index, players, bot_configs, max_steps):
    from meeplab.analysis.load import load_run
    from meeplab.sim.core.bots import available, make_lineup
    from meeplab.sim.core.draw import trace_spec

    run = load_run(run_dir)
    meta = run.meta
    g = lookup_game(meta.get("game", ""))
    _check_drawable(g)
    counts = [int(p) for p in meta.get("players", [])]
    if players is None:
        if len(counts) != 1:
            raise MeeplabError(f"{run_dir}: the run has player counts {counts}; choose one with --players")
        players = counts[0]
    if players not in counts:
        raise MeeplabError(f"{run_dir}: the run has no {players}-player games (it has {counts})")
    done = int(meta.get("games_completed", {}).get(str(players), meta.get("games", 0)))
    if not 0 <= index < done:
        raise MeeplabError(f"--index {index}: the run holds {players}-player games 0..{done - 1}")
    bots = list(meta.get("bots", []))
    known = available(g.id, bot_configs)
    for b in bots:
        if b not in known:
            raise MeeplabError(f"{run_dir}: the run's bot '{b}' is not known here; pass its --bot-config FILE")
        want = meta.get("bot_weights", {}).get(b)  # its weights at this count: its own there, if the run had them
        want = meta.get("bot_weights_by_players", {}).get(b, {}).get(str(players), want)
        if want is not None and known[b].weights_dict(players) != want:
            raise MeeplabError(
                f"{run_dir}: bot '{b}' has other weights here than in the run; pass the run's --bot-config FILE"
            )
    values = g.params.resolve(dict(meta.get("params", {})), g.id)
    lineup = make_lineup(g.id, bots, players, bool(meta.get("rotate", True)), bot_configs)
    seed = int(meta.get("seed", 1))
    ctx = g.prepare(values)
    tr = trace_spec(g, ctx, lineup, players, seed, index, max_steps=max_steps)
    names = _lineup_names(lineup, index, players)
    import polars as pl

    rows = run.lf.filter((pl.col("n_players") == players) & (pl.col("game_index") == index))
    recorded = run.collect(rows.sort("seat").select("score"))["score"].to_list()
    note = ""
    if recorded and [round(x, 6) for x in recorded] != [round(float(x), 6) for x in tr.score]:
        note = (
            f"this replay ends {list(map(float, tr.score))} but the run recorded {recorded}: the engine or the bots "
            "changed since the run"
        )
        click.echo(f"warning: {note}", err=True)
    label = meta.get("label") or run_dir.name
    subtitle = f"run {label}: game {index} of {players} players, seed {seed}, " + ", ".join(
        f"P{s + 1} {n}" for s, n in enumerate(names)
    )
    if note:
        subtitle += f" (warning: {note})"
    traj = _trajectories(run_dir / "trajectories.parquet", index, players)
    return g, ctx, tr, names, subtitle, traj


def _trajectories(path: Path, index: int, players: int):
    """This game's rows of DIR/trajectories.parquet (``meeplab quality``), or None."""
    if not path.is_file():
        return None
    import polars as pl

    try:
        df = pl.read_parquet(path, glob=False)
    except Exception as exc:  # a damaged file: view the game without the chart
        click.echo(f"warning: {path}: cannot read ({str(exc).splitlines()[0]}); showing the score race", err=True)
        return None
    need = {"game", "step", "seat", "p_win"}
    if not need <= set(df.columns):
        click.echo(f"warning: {path}: lacks columns {sorted(need - set(df.columns))}; showing the score race", err=True)
        return None
    df = df.filter(pl.col("game") == index)
    if "n_players" in df.columns:
        df = df.filter(pl.col("n_players") == players)
    rows = df.to_dicts()
    return rows or None


def _fresh(game, index, players, bots, seed, sets, params_file, bot_configs, fixed_seats, flags, max_steps):
    from meeplab.sim.core.bots import make_lineup
    from meeplab.sim.core.draw import trace_spec
    from meeplab.sim.core.registry import check_players

    g = lookup_game(game)
    _check_drawable(g)
    p = players or g.default_players
    check_players(g, p)
    values = g.params.resolve(param_overrides(g, sets, params_file, flags), g.id)
    lineup = make_lineup(g.id, parse_bots(bots), p, not fixed_seats, bot_configs)
    ctx = g.prepare(values)
    tr = trace_spec(g, ctx, lineup, p, seed, index, max_steps=max_steps)
    names = _lineup_names(lineup, index, p)
    changed = g.params.changed(values)
    subtitle = f"game {index}, seed {seed}, {p} players: " + ", ".join(f"P{s + 1} {n}" for s, n in enumerate(names))
    if changed:
        subtitle += "; " + ", ".join(f"{k}={v}" for k, v in changed.items())
    return g, ctx, tr, names, subtitle, None


def _saved(path: Path):
    try:
        from meeplab.play.saved import trace_saved
    except ImportError:
        raise MeeplabError(f"{path}: viewing a saved game needs the play page (meeplab.play)") from None
    s = trace_saved(path)
    _check_drawable(s.spec)
    return s.spec, s.ctx, s.trace, list(s.seat_names), s.subtitle, None


@cli.command("view")
@click.argument("source")
@click.option("--index", "-i", type=int, default=0, show_default=True, help="Game index (within the run).")
@click.option("--players", "-p", type=int, default=None, help="Player count (default: the run's, or the game's usual).")
@click.option("--bots", "-b", default="greedy", show_default=True, help="Bots of a fresh game (comma-separated).")
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Seed of a fresh game.")
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Rule parameter of a fresh game.")
@click.option("--params", "params_file", type=click.Path(), default=None, help="TOML file of rule parameters.")
@click.option("--bot-config", "bot_configs", multiple=True, type=click.Path(), help="TOML file of bot variants.")
@click.option("--fixed-seats", is_flag=True, help="A fresh game without seat rotation.")
@click.option(
    "--max-steps", type=int, default=4000, show_default=True, help="Keep at most this many decisions in the page."
)
@click.option("--out", "-o", required=True, type=click.Path(), help="HTML file to write.")
@with_game_flags
def view_cmd(source, index, players, bots, seed, sets, params_file, bot_configs, fixed_seats, max_steps, out, **kw):
    """Write one game as a self-contained HTML page: the board drawn, every decision with its alternatives.

    SOURCE is a run directory (game --index I of that run, with the run's bots, parameters and seed), a
    game name (a fresh game: --players, --bots, --seed, --index, --set as for `meeplab replay`; a folder of
    that name without run.json, such as the one `meeplab new GAME --out GAME` writes, is read as the game),
    or a saved game of the play page (a .json file). Step with the arrow keys, Home/End, Page Up/Down (rounds); switch
    between everything and one seat's view (what that seat can see). Seats are numbered from 1 (P1 starts).

      meeplab view runs/base --index 7 --out game7.html

      meeplab view hacienda --players 3 --bots rollout,heuristic --seed 4 --out h.html
    """
    from meeplab.reports.template import output_path, write_page
    from meeplab.reports.viewer import render, view_data

    flags = flag_values(kw)
    if index < 0:
        raise MeeplabError(f"--index must be >= 0, got {index}")
    if max_steps < 1:
        raise MeeplabError(f"--max-steps must be >= 1, got {max_steps}")
    target = output_path(Path(out))
    src = Path(source)
    from meeplab.sim.core.registry import game_ids

    # a folder named like a game without run.json (meeplab new GAME --out GAME writes one) is the game, not a run
    folder_is_the_game = src.is_dir() and not is_run(src) and "/" not in source and source in game_ids()
    if src.is_dir() and not folder_is_the_game:
        if not is_run(src):
            raise MeeplabError(f"{src}: not a run directory (no run.json)")
        got = _from_run(src, index, players, bot_configs, max_steps)
    elif src.suffix == ".json" and src.is_file():
        got = _saved(src)
    elif src.suffix == ".json" or "/" in source:
        raise MeeplabError(f"{source}: no such run directory or saved game")
    else:
        got = _fresh(source, index, players, bots, seed, sets, params_file, bot_configs, fixed_seats, flags, max_steps)
    g, ctx, tr, names, subtitle, traj = got
    data = view_data(g, ctx, tr, seat_names=names, title=f"{g.title}: one game", subtitle=subtitle, trajectories=traj)
    doc = render(data)
    write_page(target, doc)
    size = len(doc.encode("utf-8"))
    click.echo(f"wrote {target} ({len(tr.states) - 1} decisions, {size / 1e6:.2f} MB)")
    if tr.truncated:
        click.echo(f"note: the game is longer than --max-steps {max_steps}; the page shows its first part", err=True)
