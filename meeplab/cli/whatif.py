"""What-if lab commands of the CLI: ``experiment`` (a study in one TOML file), ``fair`` (the fairest value of
a parameter), ``tournament`` (all lineups, match-ups, ratings), ``maps`` and ``decks`` (files ranked by
fairness). Registered on the ``meeplab`` group by ``sim.cli``; ``compare --until-significant`` and sweeps
live in ``sim.cli`` itself."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from meeplab.cli.common import (
    _bots,
    _config,
    _executor,
    _flag_values,
    _game,
    _play,
    _players,
    _report,
    _run_options,
    _sequential,
    cli,
)
from meeplab.sim.core.errors import MeeplabError


@cli.command("experiment")
@click.argument("file", type=click.Path())
@click.option(
    "--out",
    "-o",
    type=click.Path(),
    default=None,
    help="Directory for the runs and OUT/report.html (default: the file's 'out', else runs/<file name>).",
)
@click.option(
    "--games",
    "-n",
    "n_games",
    type=int,
    default=None,
    help="Play at most this many games per player count instead of the file's (a quick look).",
)
@click.option("--threads", "-t", type=int, default=None, help="Worker threads (default: all cores).")
@click.option(
    "--workers", "-w", type=int, default=None, metavar="N", help="Play on a local Dask cluster of N processes."
)
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Play on a running Dask cluster.")
@click.option(
    "--force", is_flag=True, help="Play everything again (default: skip what is complete, finish what was interrupted)."
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary.")
def experiment_cmd(file, out, n_games, threads, workers, scheduler, force, quiet):
    """Play a whole what-if experiment from one TOML file and write one report against its baseline.

    The file names the game, players, bots, games (or SPRT settings), the baseline parameters and named
    variants (parameters or parameter files); see scripts/experiments/ for one per game. Runs already
    complete are not played again, interrupted ones are finished; rerun after editing the file with
    --force.

      meeplab experiment scripts/experiments/schweinebande.toml --out runs/sb-exp
    """
    from meeplab.sim.core import experiment as ex

    exp = ex.load(file)
    root = Path(out) if out else (exp.out or Path("runs") / Path(file).stem)
    if n_games is not None and n_games <= 0:
        raise MeeplabError(f"--games must be a positive number, got {n_games}")
    kw = dict(workers=workers, scheduler=scheduler, threads=threads, quiet=quiet, shard=None, chunk=None)
    title = exp.title or f"{exp.game}: experiment {Path(file).stem}"
    if exp.sprt is None:
        pairs = ex.plan(exp, root, n_games, threads, force, progress=not quiet)
        cfgs = [pairs[0][1]] + [v for _, _, v in pairs]
        _play(cfgs, kw)
        _report([c.out for c in cfgs], root / "report.html", title)
        return
    settings, metric = ex.sprt_settings(exp, n_games)
    pairs = ex.plan(exp, root, n_games, threads, True, progress=False)
    for name, base, var in pairs:
        if not force and ex.sequential_done(root / name, settings, metric, base, var):
            click.echo(f"meeplab: {root / name} is already complete; nothing to play", err=True)
            continue
        _sequential(base, var, kw, root / name, metric=metric, **settings.__dict__)
    bases = [b for _, b, _ in pairs]
    longest = max(bases, key=lambda b: json.loads((b.out / "run.json").read_text())["games"])
    _report([longest.out] + [v.out for _, _, v in pairs], root / "report.html", title)


@cli.command("fair")
@click.argument("game")
@_run_options
@click.option("--param", "fair_param", required=True, help="The numeric rule parameter to tune.")
@click.option("--range", "fair_range", required=True, metavar="LO:HI", help="Values to search, e.g. 8:16.")
@click.option(
    "--target",
    type=click.Choice(["seats", "bots"]),
    default="seats",
    show_default=True,
    help="seats: seat --seat wins 1/P; bots: the first two bots in --bots win equally often.",
)
@click.option(
    "--seat",
    type=int,
    default=0,
    show_default=True,
    help="With --target seats: the seat whose win rate should be the fair share (0 = start player).",
)
@click.option("--steps", type=int, default=8, show_default=True, help="Most values played after the two ends.")
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per value tried (OUT/NAME=VALUE), OUT/fair.json and OUT/report.html.",
)
def fair_cmd(game, fair_param, fair_range, target, seat, steps, out, **kw):
    """Find the value of a rule parameter that makes GAME fairest, with an interval.

    A noisy root search (regula falsi, Illinois step) on the signed imbalance: seat --seat's win rate minus
    1/P, or the first bot's win share minus the second's; every value is played on the same seeds (common
    random numbers). Reports the value, its 95% interval and the win rates there:

      meeplab fair schweinebande --param pig_bonus_farm --range 0:8 --target seats --players 3 \
          --bots heuristic --games 4000 --out runs/fair-pigs
    """
    from meeplab.reports.load import load_run
    from meeplab.reports.stats import run_stats
    from meeplab.sim.core import fair as fr
    from meeplab.sim.core.runner import run as run_batch

    flags = _flag_values(kw)
    g = _game(game)
    prm = g.params.get(fair_param, g.id)
    if prm.kind not in ("int", "float"):
        raise MeeplabError(f"fair: {fair_param} is {prm.describe_type()}; only a number can be searched")
    lo, hi = fr.parse_range(fair_range, prm.kind, prm.lo, prm.hi)
    if steps < 0:
        raise MeeplabError(f"--steps must be >= 0, got {steps}")
    players = _players(kw["players"]) if kw["players"] else [g.default_players]
    bots = _bots(kw["bots"])
    pair = None
    if target == "bots":
        distinct = list(dict.fromkeys(bots))
        if len(distinct) < 2:
            raise MeeplabError("--target bots needs two different bots in --bots, e.g. heuristic,greedy")
        pair = (distinct[0], distinct[1])
    elif not 0 <= seat < min(players):
        raise MeeplabError(f"--seat {seat}: there are only {min(players)} seats at {min(players)} players")
    kw = dict(kw, resume=not kw["force"])
    cache: dict = {}  # value -> (run directory, its rows)

    def config(x: float):
        key = fr.fmt(x, prm.kind)
        return key, _config(
            game,
            flags=flags,
            out=Path(out) / f"{fair_param}={key}",
            label=f"{fair_param}={key}",
            **dict(kw, sets=tuple(kw["sets"]) + (f"{fair_param}={key}",)),
        )

    for x in (lo, hi):  # both ends checked before anything is played
        from meeplab.sim.core.runner import check_config

        check_config(config(x)[1])
    searches = []
    with _executor(kw["workers"], kw["scheduler"], kw["threads"]) as ex:

        def play(x: float):
            key, cfg = config(x)
            if key not in cache:
                cfg.executor = ex
                meta = run_batch(cfg)
                if meta["status"] != "complete":
                    sys.exit(130)
                import polars as pl

                cache[key] = (
                    cfg.out,
                    pl.read_parquet(
                        cfg.out / "results.parquet", columns=["n_players", "game_index", "seat", "bot", "win"]
                    ),
                )
            return cache[key]

        for p in players:

            def evaluate(x: float, p=p):
                where, df = play(x)
                m, se = fr.imbalance(df, p, target, seat, pair)
                return fr.Point(float(x), m, se, str(where))

            s = fr.search(evaluate, lo, hi, prm.kind, steps, p)
            play(s.value)  # the win rates at the answer
            searches.append(s)
    what = f"seat {seat + 1}'s win rate - 1/P" if target == "seats" else f"{pair[0]} - {pair[1]} win share"
    record = {"game": g.id, "param": fair_param, "range": [lo, hi], "target": target, "imbalance": what, "results": []}
    for s in searches:
        where = cache[fr.fmt(s.value, prm.kind)][0]
        st = run_stats(load_run(where))
        bb = st.by_bot.filter(st.by_bot["n_players"] == s.n_players)
        bs = st.by_seat.filter(st.by_seat["n_players"] == s.n_players)
        rec = {
            "n_players": s.n_players,
            "value": s.value,
            "lo": s.lo,
            "hi": s.hi,
            "crossing": s.crossing,
            "note": s.note,
            "run": str(where),
            "points": [{"x": q.x, "imbalance": q.f, "se": q.se} for q in s.points],
            "bots": bb.select("bot", "win_rate", "lo", "hi").to_dicts(),
            "seats": bs.select("seat", "win_rate", "lo", "hi").to_dicts(),
        }
        record["results"].append(rec)
        val = fr.fmt(s.value, prm.kind)
        if s.crossing:
            click.echo(
                f"{s.n_players} players: fairest {fair_param} = {val} (95% interval {s.lo:.3g} .. {s.hi:.3g}; "
                f"imbalance {what}, {len(s.points)} values played)"
            )
            if s.note:
                click.echo(f"  note: {s.note}")
        else:
            click.echo(f"{s.n_players} players, {fair_param}: {s.note}")
        click.echo(
            "  at "
            + val
            + ": "
            + ", ".join(f"{r['bot']} {r['win_rate']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]" for r in rec["bots"])
            + "; seats "
            + ", ".join(f"{r['seat'] + 1}: {r['win_rate']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]" for r in rec["seats"])
            + f" (fair {1 / s.n_players:.3f})"
        )
    fr.save(Path(out), record)
    dirs = sorted({v[0] for v in cache.values()}, key=lambda d: float(str(d.name).split("=", 1)[1]))
    if len(dirs) > 1:
        _report(dirs, Path(out) / "report.html", f"{game}: fairest {fair_param}")


@cli.command("tournament")
@click.argument("game")
@_run_options
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per lineup (OUT/pP/BOTS), OUT/tournament.json and OUT/report.html.",
)
def tournament_cmd(game, out, **kw):
    """Play every lineup of --bots at every --players count and rate the bots.

    Every combination of the bots with at least two different bots, --games games each, seats rotated. The
    report has a match-up matrix (how often each bot finishes ahead of each other) and Bradley-Terry ratings
    with 95% intervals, the seat effect removed:

      meeplab tournament schweinebande --bots heuristic,greedy,random,rollout --players 2-4 --games 500 \
          --out runs/sb-tournament
    """
    import polars as pl

    from meeplab.reports import tournament as rep
    from meeplab.sim.core import tournament as tn

    flags = _flag_values(kw)
    g = _game(game)
    bots = _bots(kw["bots"])
    names = list(dict.fromkeys(bots))
    if len(names) < 2:
        raise MeeplabError("tournament needs at least two different bots in --bots")
    players = _players(kw["players"]) if kw["players"] else [g.default_players]
    kw = dict(kw, resume=not kw["force"])
    cfgs, plan = [], []
    for p in players:
        for lineup in tn.lineups(names, p):
            name = "+".join(lineup)
            cfg = _config(
                game,
                flags=flags,
                out=Path(out) / f"p{p}" / name,
                label=f"{p}p {name}",
                **dict(kw, bots=",".join(lineup), players=str(p)),
            )
            cfgs.append(cfg)
            plan.append((p, lineup))
    _play(cfgs, kw)
    frames = [
        pl.read_parquet(
            c.out / "results.parquet", columns=["n_players", "game_index", "seat", "bot", "rank"]
        ).with_columns(pl.col("bot").cast(pl.String))
        for c in cfgs
    ]
    pairs = tn.pairs_of(frames, names)
    fit = tn.fit(pairs, names)
    rec = {
        "game": g.id,
        "title": g.title,
        "players": players,
        "games_each": kw["n_games"],
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
            {"n_players": p, "bots": list(lu), "games": kw["n_games"], "run": str(c.out)}
            for (p, lu), c in zip(plan, cfgs)
        ],
    }
    Path(out, "tournament.json").write_text(json.dumps(rec, indent=2), encoding="utf-8")
    path = rep.write(rec, Path(out) / "report.html")
    for r in sorted(rec["ratings"], key=lambda r: -r["rating"]):
        click.echo(f"{r['bot']:<20} {r['rating']:+7.0f}  [{r['lo']:+.0f}, {r['hi']:+.0f}]")
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


def _rank_files(game, param, what, paths, glob, out, kw):
    from meeplab.reports import maps as rep

    flags = _flag_values(kw)
    g = _game(game)
    if param not in g.params:
        raise MeeplabError(f"{game} has no '{param}' parameter; '{what}' compares files of games that have one")
    if flags.get(param) is not None or any(s.split("=", 1)[0].strip() == param for s in kw["sets"]):
        raise MeeplabError(f"the {what} come from the files given; do not also set {param}")
    files = _files_of(paths, glob)
    kw = dict(kw, resume=not kw["force"])
    cfgs = [
        _config(
            game,
            flags=flags,
            out=Path(out) / f.stem,
            label=f.stem,
            **dict(kw, sets=tuple(kw["sets"]) + (f"{param}={f.resolve()}",)),
        )
        for f in files
    ]
    _play(cfgs, kw)
    rows = []
    for f, c in zip(files, cfgs):
        for r in rep.measure(c.out):
            rows.append(dict(r, name=f.stem, file=str(f), run=str(c.out)))
    players = sorted({r["n_players"] for r in rows})
    ranking = [r for p in players for r in rep.rank([r for r in rows if r["n_players"] == p])]
    rec = {
        "game": g.id,
        "title": g.title,
        "what": what,
        "param": param,
        "files": [str(f) for f in files],
        "players": players,
        "games": kw["n_games"],
        "bots": _bots(kw["bots"]),
        "ranking": ranking,
    }
    Path(out, f"{what}.json").write_text(json.dumps(rec, indent=2), encoding="utf-8")
    path = rep.write(rec, Path(out) / "report.html")
    for p in players:
        click.echo(f"{p} players, fairest first: seat gap, score spread, length")
        for i, r in enumerate([r for r in ranking if r["n_players"] == p]):
            click.echo(
                f"  {i + 1:>3}. {r['name']:<24} {100 * r['seat_gap']:5.1f} pts  {r['spread']:7.1f}  "
                f"{r['length']:6.1f}{'  (seat effect significant)' if r['q_seat'] < 0.05 else ''}"
            )
    click.echo(f"report written to {path}", err=True)


@cli.command("maps")
@click.argument("game")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@_run_options
@click.option("--glob", default=None, help="Files of a directory to play (default: its most common extension).")
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per map (OUT/NAME), OUT/maps.json and OUT/report.html.",
)
def maps_cmd(game, paths, glob, out, **kw):
    """Play GAME on each map (files, or the files of a directory) on the same seeds and rank the maps.

    Ranked by seat fairness (the largest gap between two seats' win rates), then score spread and game
    length; the game's 'map' parameter takes each file:

      meeplab maps hacienda ../shared/maps/hacienda --players 3 --bots heuristic,greedy --games 2000 --out runs/maps
    """
    _rank_files(game, "map", "maps", paths, glob, out, kw)


@cli.command("decks")
@click.argument("game")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@_run_options
@click.option("--glob", default=None, help="Files of a directory to play (default: its most common extension).")
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per deck (OUT/NAME), OUT/decks.json and OUT/report.html.",
)
def decks_cmd(game, paths, glob, out, **kw):
    """Play GAME with each deck file on the same seeds and rank the decks (as 'maps', by the 'deck' parameter).

    meeplab decks goldrush decks/a.csv decks/b.csv --players 2-3 --bots heuristic,greedy --games 2000 --out runs/decks
    """
    _rank_files(game, "deck", "decks", paths, glob, out, kw)
