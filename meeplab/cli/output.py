"""What the playing commands print: their plan and a wall-time estimate before the bulk starts (``--dry-run``: only
that), and at the end a compact table of the main result on stdout (``--json``: the same as JSON), while progress
and notices go to stderr.

The tables are built from the run directories with the analysis layer, the same numbers as the HTML report: win
rates with Wilson intervals, the seat gap among equal bots with its bootstrap interval (seats numbered from 1, the
start player), paired changes against the baseline with Holm's marks, and the sequential test's verdict.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

__all__ = ["compare_rows", "echo_plan", "echo_table", "output_options", "runs_rows"]


def output_options(fn):
    """Decorator: ``--json`` (the result table as JSON on stdout) and ``--dry-run`` (the plan and estimate only)."""
    fn = click.option(
        "--dry-run",
        is_flag=True,
        help="Print the plan and the wall-time estimate (from a short calibration) and play nothing else.",
    )(fn)
    return click.option(
        "--json", "as_json", is_flag=True, help="Print the result table as JSON on stdout (for scripts)."
    )(fn)


def echo_plan(
    what: str, cfgs: Sequence[Any], dry_run: bool, quiet: bool, extra: Any = None, refitted: Sequence[str] = ()
) -> bool:
    """Say what is about to be played and how long it should take; returns True when only a dry run was asked
    (then on stdout, else on stderr). Calibrates each lineup once (about a second in all after the compile; a
    search lineup plays at least one game of its own), and names the slowest lineup when there are several.

    The estimate is the play still to come: the compile is done by then (the calibration did it), so it is named
    apart, and the next run of the game records it as its own compile/load time (``calibration_compile_s``).
    ``extra``: a function of the :class:`~meeplab.lab.runs.estimate.Estimate` giving more lines of the plan (what
    a command plays besides its runs, priced from the runs' measured speeds). ``refitted``: bots the command fits
    again at each run's rules (``--retune``), so their warning that they were fitted at other rules does not apply."""
    from meeplab.lab.runs.estimate import duration, estimate, lineup_name, rate
    from meeplab.lab.runs.runner import compiled_before_run, ready_bots

    cfgs = list(cfgs)
    misfits = (m for cfg in cfgs for m in cfg.misfits() if not any(m.startswith(f"bot '{b}' ") for b in refitted))
    for line in dict.fromkeys(misfits):  # never silent, --quiet or not
        click.echo(f"meeplab: warning: {line}", err=True)
    if quiet and not dry_run:
        for cfg in cfgs:  # what the calibration below does otherwise: a bot that does not compile stops us here
            ready_bots(cfg)
        return False
    if not cfgs:
        return dry_run
    c = cfgs[0]
    lineups = list(dict.fromkeys(lineup_name(cfg) for cfg in cfgs))
    players = ", ".join(str(p) for p in sorted({p for cfg in cfgs for p in cfg.players}))
    est = estimate(cfgs, compile=not dry_run)
    if not dry_run:
        compiled_before_run(c.game.id, est.compile_s)  # one warm-up per lineup and player count, all done by now
    if len(est.lineups) == 1:
        speeds = "; ".join(f"{p} players {rate(s.games_per_s)}" for p, s in sorted(est.speeds.items()))
    else:  # the slowest lineup per player count sets the pace
        speeds = "; ".join(
            f"{p} players {rate(s.games_per_s)} ({name})" for p, (name, s) in sorted(_slowest(est.lineups).items())
        )
    if not est.cold:
        how = f"measured here in a short calibration; compile/load {est.compile_s:.1f} s, done"
    elif math.isfinite(est.seconds):
        how = (
            f"as measured on this machine before; no run of the {est.cold} engine here since its code changed, so "
            "it may compile first"
        )
    else:
        how = ""
    plan_line = (
        f"plan: {what}: {c.game.id}, {len(cfgs)} run{'s' if len(cfgs) != 1 else ''} x {c.games:,} games per "
        f"player count, players {players}, bots {' | '.join(lineups)}: {est.games:,} games"
    )
    if how:
        est_line = (
            f"estimate: about {duration(est.seconds)} of play ({'slowest: ' if len(est.lineups) > 1 else ''}{speeds} "
            f"on one thread, {how})"
        )
    else:
        est_line = (
            f"estimate: unknown: the {est.cold} engine has not run here since its code changed and this machine has "
            "not measured these bots; a dry run does not compile (the first run compiles or loads it, then prices "
            "itself)"
        )
    lines = [plan_line, est_line]
    if extra is not None:
        lines += list(extra(est))
    for line in lines:
        click.echo(line, err=not dry_run)
    return dry_run


def _slowest(lineups: dict[str, dict[int, Any]]) -> dict[int, tuple[str, Any]]:
    """Per player count, the lineup with the fewest games per second and its speed."""
    out: dict[int, tuple[str, Any]] = {}
    for name, speeds in lineups.items():
        for p, s in speeds.items():
            if p not in out or s.games_per_s < out[p][1].games_per_s:
                out[p] = (name, s)
    return out


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return "–" if not math.isfinite(v) else f"{v:.3f}"
    return str(v)


#: the JSON document of the command running now, while :func:`json_document` holds it (None: print at once)
_HELD: list[dict[str, Any]] | None = None


@contextlib.contextmanager
def json_document():
    """Around a command (``meeplab.cli.main``): every table it prints as JSON (``--json``) goes into one document,
    printed when the command ends, so that a command that prints its result and then, say, its confirmation by a
    strong bot gives one valid JSON document: the first table is the document, later ones sit under their ``key``
    (``confirm``)."""
    global _HELD
    outer, _HELD = _HELD, []
    try:
        yield
    finally:
        held, _HELD = _HELD, outer
        if held:
            click.echo(json.dumps(held[0], indent=1, default=_jsonable))


def echo_table(
    title: str, rows: list[dict[str, Any]], as_json: bool, extra: dict[str, Any] | None = None, key: str | None = None
) -> None:
    """The result table on stdout: aligned columns under a title line, or ``{"title", "rows", ...}`` as JSON (within
    :func:`json_document`, the command's one document; a later table under ``key``)."""
    if as_json:
        doc = {"title": title, **(extra or {}), "rows": rows}
        if _HELD is None:
            click.echo(json.dumps(doc, indent=1, default=_jsonable))
        elif not _HELD:
            _HELD.append(doc)
        else:
            _HELD[0][key or f"table_{len(_HELD[0])}"] = doc
        return
    click.echo(title)
    if not rows:
        click.echo("  (nothing)")
        return
    cols = list(rows[0])
    for r in rows[1:]:
        cols += [k for k in r if k not in cols]
    cells = [[_fmt(r.get(k, "")) for k in cols] for r in rows]
    width = [max(len(k), *(len(c[i]) for c in cells)) for i, k in enumerate(cols)]
    click.echo("  " + "  ".join(k.ljust(w) for k, w in zip(cols, width)).rstrip())
    for c in cells:
        click.echo("  " + "  ".join(v.rjust(w) if _numeric(v) else v.ljust(w) for v, w in zip(c, width)).rstrip())


def _numeric(v: str) -> bool:
    return v[:1].isdigit() or v[:1] in "+-–" or v.startswith("[")


def _jsonable(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if hasattr(v, "item"):
        return v.item()
    return str(v)


def _ci(lo: float, hi: float) -> str:
    return "–" if not (math.isfinite(lo) and math.isfinite(hi)) else f"[{lo:.3f}, {hi:.3f}]"


def runs_rows(dirs: Sequence[Path], labels: Sequence[str] | None = None, gaps: bool = True) -> list[dict[str, Any]]:
    """Per run and player count: each bot's win rate (per seat) with its 95% interval (with one bot in every seat, each
    seat's win rate with its interval instead: ``seat 1`` = the start player), and the seat gap among equal bots with
    its interval and the best and worst seat (1 = start player)."""
    import polars as pl

    from meeplab.analysis.compare import pairing
    from meeplab.analysis.load import load_run
    from meeplab.analysis.seatgap import seat_gaps
    from meeplab.analysis.stats import run_stats

    runs = [load_run(d) for d in dirs]
    labels = list(labels) if labels else [r.label for r in runs]
    rows = []
    common = sorted(set.intersection(*[set(r.players) for r in runs])) if runs else []
    paired = [True] + [pairing(runs[0], r)[0] for r in runs[1:]]
    gap_of = {p: seat_gaps(runs, p, paired) for p in common} if gaps else {}
    for i, (run, lab) in enumerate(zip(runs, labels)):
        st = run_stats(run)
        for p in run.players:
            bb = st.by_bot.filter(pl.col("n_players") == p)
            row: dict[str, Any] = {"run": lab, "players": p}
            alone = False
            for r in bb.iter_rows(named=True):
                row[f"win {r['bot']}"] = r["win_rate"]
                # a bot in every seat wins 1/P per seat by construction: no interval to give
                every = r["seats_per_game"] >= p - 1e-9
                alone = alone or every
                row[f"95% CI {r['bot']}"] = "– (every seat)" if every else _ci(r["lo"], r["hi"])
            if alone:  # one bot in every seat: what the run says is each seat's win rate (seat 1 = start player)
                seats = st.by_seat.filter(pl.col("n_players") == p).sort("seat")
                for r in seats.iter_rows(named=True):
                    row[f"seat {int(r['seat']) + 1}"] = f"{r['win_rate']:.3f} {_ci(r['lo'], r['hi'])}"
            g = gap_of.get(p, [None] * len(runs))[i]
            if g is not None:
                row["seat gap"] = g.gap
                row["seat gap 95% CI"] = _ci(g.lo, g.hi)
                row["best/worst seat"] = f"{g.best}/{g.worst}" if g.best > 0 else "–"
                # the gap of the best and worst seat picked from the data never reaches 0: the seat test says
                # whether there is a seat effect at all
                sp = st.seat_p.get(p, math.nan)
                row["seat effect p"] = "–" if not math.isfinite(sp) else "< 0.001" if sp < 0.001 else f"{sp:.3f}"
                if i > 0:
                    row["gap change"] = g.d
                    row["gap change 95% CI"] = _ci(g.d_lo, g.d_hi)
            rows.append(row)
    return rows


def compare_rows(base: Path, variant: Path) -> list[dict[str, Any]]:
    """Per player count and bot: win rates of both runs and the change (paired when the runs share their deals)
    with its 95% interval and Holm-adjusted p; then one row per player count for the seat gap's change. Where one
    bot plays every seat of a player count its win rate is 1/P in both runs by construction: its row gives the mean
    score instead (what a rule change moves there), the seat gap the seats."""
    import polars as pl

    from meeplab.analysis.compare import holm_marks, paired_compare, pairing, unpaired_compare
    from meeplab.analysis.load import load_run
    from meeplab.analysis.seatgap import seat_gaps
    from meeplab.analysis.stats import run_stats, significant

    a, b = load_run(base), load_run(variant)
    ok = pairing(a, b)[0]
    df = paired_compare(a, b) if ok else unpaired_compare(run_stats(a), run_stats(b))
    df = holm_marks([df])[0]
    rows = []
    bots_at = df.group_by("n_players").agg(pl.col("bot").n_unique().alias("n"))
    alone = {int(p) for p, n in bots_at.iter_rows() if n == 1}
    for r in df.iter_rows(named=True):
        k = "score" if r["n_players"] in alone else "win"
        rows.append(
            {
                "players": r["n_players"],
                "what": f"{'mean score' if k == 'score' else 'win'} {r['bot']}",
                "baseline": r[f"{k}_base"],
                "variant": r[f"{k}_other"],
                "change": r[f"d_{k}"],
                "95% CI": _ci(r[f"d_{k}_lo"], r[f"d_{k}_hi"]),
                "Holm p": r[f"q_{k}"],
                "significant": "yes" if r[f"sig_{k}"] else "no",
            }
        )
    for p in sorted(set(a.players) & set(b.players)):
        g0, g1 = seat_gaps([a, b], p, [True, ok])
        rows.append(
            {
                "players": p,
                "what": "seat gap",
                "baseline": g0.gap,
                "variant": g1.gap,
                "change": g1.d,
                "95% CI": _ci(g1.d_lo, g1.d_hi),
                "Holm p": g1.p,
                "significant": "yes" if significant(g1.p) else "no",
            }
        )
    return rows
