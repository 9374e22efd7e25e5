"""Rankings on the same seeds: ``tournament`` (every lineup of the bots, match-ups and ratings), ``maps`` and
``decks`` (files of a game's 'map' or 'deck' parameter, fairest first)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from meeplab.cli.common import (
    apply_precision,
    cli,
    default_bots,
    flag_values,
    lookup_game,
    parse_bots,
    play_runs,
    resume_unless_force,
    run_options,
    run_plan,
)
from meeplab.cli.output import echo_plan, echo_table, output_options
from meeplab.lab.runs.rundir import inside, safe_name
from meeplab.lab.studies.experiment import parse_players
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write


@cli.command("tournament")
@click.argument("game")
@run_options
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per lineup (OUT/pP/BOTS), OUT/tournament.json and OUT/report.html.",
)
@output_options
def tournament_cmd(game, out, as_json, dry_run, **kw):
    """Play every lineup of --bots at every --players count and rate the bots.

    Every combination of the bots with at least two different bots, --games games each, seats rotated. The
    report has a match-up matrix (how often each bot finishes ahead of each other) and Bradley-Terry ratings
    with 95% intervals, the seat effect removed:

    \b
      meeplab tournament schweinebande --bots heuristic,greedy,random,rollout --players 2-4 --games 500 \\
          --out runs/sb-tournament
    """
    import polars as pl

    from meeplab.lab.studies import tournament as tn
    from meeplab.reports import tournament as rep

    flags = flag_values(kw)
    g = lookup_game(game)
    bots = parse_bots(default_bots(g.id, kw["bots"]))
    names = list(dict.fromkeys(bots))
    if len(names) < 2:
        raise MeeplabError("tournament needs at least two different bots in --bots")
    players = parse_players(kw["players"]) if kw["players"] else [g.default_players]
    kw = resume_unless_force(apply_precision(kw, game))
    cfgs, plan = [], []
    for p in players:
        for lineup in tn.lineups(names, p):
            name = "+".join(lineup)
            cfg = run_plan(
                game,
                flags=flags,
                out=inside(Path(out), Path(out) / f"p{p}" / safe_name(name), "lineup folder"),
                label=f"{p}p {name}",
                **dict(kw, bots=",".join(lineup), players=str(p)),
            )
            cfgs.append(cfg)
            plan.append((p, lineup))
    if echo_plan(f"tournament of {len(names)} bots, {len(cfgs)} lineups", cfgs, dry_run, kw["quiet"]):
        return
    play_runs(cfgs, kw)
    frames = [
        pl.read_parquet(
            c.out / "results.parquet", glob=False, columns=["n_players", "game_index", "seat", "bot", "rank"]
        ).with_columns(pl.col("bot").cast(pl.String))
        for c in cfgs
    ]
    pairs = tn.pairs_of(frames, names)
    fit = tn.fit(pairs, names)
    rec = {
        "game": g.id,
        "title": g.title,
        "players": players,
        "games_each": cfgs[0].games,
        "games": fit.games,
        "pairs": fit.pairs,
        "converged": fit.converged,
        "ratings": [
            {"bot": b, "rating": float(r), "lo": float(lo), "hi": float(hi), "se": float(se)}
            for b, r, lo, hi, se in zip(names, fit.rating, fit.lo, fit.hi, fit.se)
        ],
        "seats": fit.seats.to_dicts(),
        "matchups": tn.matchups(pairs, names).to_dicts(),
        "lineups": [
            {"n_players": p, "bots": list(lu), "games": c.games, "run": str(c.out)} for (p, lu), c in zip(plan, cfgs)
        ],
    }
    atomic_write(Path(out, "tournament.json"), json.dumps(rec, indent=2))
    path = rep.write(rec, Path(out) / "report.html")
    rows = [
        {"bot": r["bot"], "rating": round(r["rating"]), "95% CI": f"[{r['lo']:+.0f}, {r['hi']:+.0f}]"}
        for r in sorted(rec["ratings"], key=lambda r: -r["rating"])
    ]
    echo_table(f"{g.id}: Bradley-Terry ratings (Elo scale, seat effect removed)", rows, as_json)
    click.echo(f"report written to {path}", err=True)


def _files_of(paths, glob) -> list[Path]:
    """The files named, and the files of each directory named (``glob``, default: its most common extension)."""
    from collections import Counter

    files: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            inside = sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
            if glob:
                inside = sorted(p.glob(glob))
            else:
                common = Counter(f.suffix for f in inside).most_common(1)
                inside = [f for f in inside if common and f.suffix == common[0][0]]
            if not inside:
                raise MeeplabError(f"{p}: no files to play")
            files += inside
        elif p.is_file():
            files.append(p)
        else:
            raise MeeplabError(f"{p}: no such file or directory")
    names = [f.stem for f in files]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise MeeplabError(f"two files share the name '{dup[0]}'; give them different names")
    if len(files) < 2:
        raise MeeplabError("give at least two files to compare")
    return files


ADJUST = click.option(
    "--adjust",
    type=click.Choice(["holm", "bh"]),
    default="holm",
    show_default=True,
    help="How the files' seat tests are corrected as one family: holm (family-wise error) or bh "
    "(Benjamini-Hochberg, false discovery rate; finds more among many files).",
)


def _rank_files(game, param, what, paths, glob, out, adjust, kw):
    from meeplab.analysis.maps import measure, rank
    from meeplab.reports import maps as rep

    flags = flag_values(kw)
    g = lookup_game(game)
    if param not in g.params:
        raise MeeplabError(f"{game} has no '{param}' parameter; '{what}' compares files of games that have one")
    if flags.get(param) is not None or any(s.split("=", 1)[0].strip() == param for s in kw["sets"]):
        raise MeeplabError(f"the {what} come from the files given; do not also set {param}")
    files = _files_of(paths, glob)
    kw = resume_unless_force(apply_precision(kw, game))
    cfgs = [
        run_plan(
            game,
            flags=flags,
            out=inside(Path(out), Path(out) / safe_name(f.stem), f"{what[:-1]} folder"),
            label=f.stem,
            **dict(kw, sets=tuple(kw["sets"]) + (f"{param}={f.resolve()}",)),
        )
        for f in files
    ]
    play_runs(cfgs, kw)
    rows = []
    for f, c in zip(files, cfgs):
        for r in measure(c.out):
            rows.append(dict(r, name=f.stem, file=str(f), run=str(c.out)))
    players = sorted({r["n_players"] for r in rows})
    ranking = [r for p in players for r in rank([r for r in rows if r["n_players"] == p], adjust)]
    rec = {
        "game": g.id,
        "title": g.title,
        "what": what,
        "param": param,
        "files": [str(f) for f in files],
        "players": players,
        "games": cfgs[0].games if cfgs else kw["n_games"],
        "bots": parse_bots(default_bots(g.id, kw["bots"])),
        "adjust": adjust,
        "ranking": ranking,
    }
    atomic_write(Path(out, f"{what}.json"), json.dumps(rec, indent=2))
    path = rep.write(rec, Path(out) / "report.html")
    for p in players:
        click.echo(f"{p} players, fairest first: seat gap, score spread, length")
        for i, r in enumerate([r for r in ranking if r["n_players"] == p]):
            click.echo(
                f"  {i + 1:>3}. {r['name']:<24} {100 * r['seat_gap']:5.1f} pts  {r['spread']:7.1f}  "
                f"{r['length']:6.1f}{'  (seat effect significant)' if r['seat_significant'] else ''}"
            )
    click.echo(f"report written to {path}", err=True)


@cli.command("maps")
@click.argument("game")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@run_options
@click.option("--glob", default=None, help="Files of a directory to play (default: its most common extension).")
@ADJUST
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per map (OUT/NAME), OUT/maps.json and OUT/report.html.",
)
def maps_cmd(game, paths, glob, out, adjust, **kw):
    """Play GAME on each map (files, or the files of a directory) on the same seeds and rank the maps.

    Ranked by seat fairness (the largest gap between two seats' win rates), then score spread and game
    length; the game's 'map' parameter takes each file:

      meeplab maps hacienda ../shared/maps/hacienda --players 3 --bots heuristic,greedy --games 2000 --out runs/maps
    """
    _rank_files(game, "map", "maps", paths, glob, out, adjust, kw)


@cli.command("decks")
@click.argument("game")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@run_options
@click.option("--glob", default=None, help="Files of a directory to play (default: its most common extension).")
@ADJUST
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per deck (OUT/NAME), OUT/decks.json and OUT/report.html.",
)
def decks_cmd(game, paths, glob, out, adjust, **kw):
    """Play GAME with each deck file on the same seeds and rank the decks (as 'maps', by the 'deck' parameter).

    meeplab decks goldrush decks/a.csv decks/b.csv --players 2-3 --bots heuristic,greedy --games 2000 --out runs/decks
    """
    _rank_files(game, "deck", "decks", paths, glob, out, adjust, kw)
