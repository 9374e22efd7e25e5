"""Seat fairness in every what-if report: the seat gap among equally strong bots per run with its interval, its
change against the baseline (paired where the runs share their deals), key-change lines for the changes that stay
significant after Holm's correction, and a chart of the gap against a swept parameter. The numbers come from
:mod:`meeplab.analysis.seatgap`; this module only formats them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from meeplab.analysis.compare import pairing
from meeplab.analysis.load import Run
from meeplab.analysis.seatgap import Gap, gap_changes, seat_gaps

from . import charts
from .format import b, ci, figure, muted, pct, pval, sig_mark, spct, table
from .views import Figure, Fragment, SeatGapTable

_CACHE: dict[tuple, list[Gap]] = {}

GAP_WHAT = (
    "the best seat's minus the worst seat's win probability among equally strong bots (the lineup-aware "
    "seat model: a conditional logit of the winner on seat and bot), 95% intervals by a bootstrap over games"
)


def run_gaps(runs: Sequence[Run], p: int) -> list[Gap]:
    """Every run's seat gap at ``p`` players and its change against ``runs[0]`` (cached per report)."""
    key = (tuple(str(r.path) for r in runs), p)
    if key not in _CACHE:
        paired = [True] + [pairing(runs[0], r)[0] for r in runs[1:]]
        _CACHE[key] = seat_gaps(runs, p, paired)
    return _CACHE[key]


def _players(runs: Sequence[Run]) -> list[int]:
    return sorted(set.intersection(*[set(r.players) for r in runs])) if runs else []


def gap_block(runs: list[Run], labels: list[str]) -> tuple[SeatGapTable | None, list[Fragment], int]:
    """The comparison's seat-gap table, its key-change findings and the size of Holm's family."""
    counts = _players(runs)
    if len(runs) < 2 or not counts:
        return None, [], 0
    per_p = {p: run_gaps(runs, p) for p in counts}
    changes = gap_changes(per_p)
    rows: list[tuple[Fragment, ...]] = []
    findings: list[Fragment] = []
    for p in counts:
        for i, g in enumerate(per_p[p]):
            qq, sig = changes.get((p, i), (math.nan, False))
            rows.append(
                (
                    str(p),
                    labels[i],
                    pct(g.gap),
                    ci(g.lo, g.hi, pct) if not g.reason else muted(g.reason),
                    f"{g.best} / {g.worst}" if g.best > 0 else "–",
                    "baseline" if i == 0 else [spct(g.d), sig_mark(sig)],
                    "" if i == 0 else ci(g.d_lo, g.d_hi, spct),
                    "" if i == 0 else ("paired" if g.paired else "unpaired"),
                    "" if i == 0 else pval(qq),
                )
            )
            if sig:
                base = per_p[p][0]
                findings.append(
                    [
                        b(f"{labels[i]}, {p} players:"),
                        f" the seat gap {'widens' if g.d > 0 else 'narrows'} by {spct(abs(g.d)).lstrip('+')} "
                        f"({pct(base.gap)} → {pct(g.gap)}, change 95% CI {ci(g.d_lo, g.d_hi, spct)}, "
                        f"Holm-adjusted {pval(qq)}; best seat {g.best}, worst seat {g.worst})",
                        sig_mark(True),
                        ".",
                    ]
                )
    head = [
        "players",
        "run",
        "seat gap",
        "95% CI",
        "best / worst seat",
        "change vs baseline",
        "95% CI",
        "",
        "Holm-adjusted p",
    ]
    tab = table(head, rows, [True, False, True, True, True, True, True, False, True], group_col=0)
    return SeatGapTable(tab, GAP_WHAT), findings, len(changes)


def gap_chart(param: str, xs: Sequence[Any], xl: Sequence[str], gaps: Sequence[Gap], n_players: int) -> str:
    """The seat gap at each value of ``param`` with its 95% interval (one panel, one player count)."""
    plt = charts.plt
    fig, ax = plt.subplots(figsize=(6.0, 3.0), layout="constrained")
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    pos = [float(x) for x in xs] if numeric else list(range(len(xs)))
    y = [100 * g.gap for g in gaps]
    err = [
        [max(0.0, 100 * (g.gap - g.lo)) if math.isfinite(g.lo) else 0.0 for g in gaps],
        [max(0.0, 100 * (g.hi - g.gap)) if math.isfinite(g.hi) else 0.0 for g in gaps],
    ]
    ls = "-" if numeric else "none"  # values without an order (files, names): points, no line between them
    ax.errorbar(pos, y, yerr=err, marker="o", ms=4, lw=1.6, ls=ls, capsize=3, color=charts.PALETTE[0])
    ax.axhline(0.0, color=charts.FAIR, ls="--", lw=1)
    if not numeric:
        ax.set_xticks(pos, list(xl), rotation=20, ha="right", fontsize=8)
    ax.set_xlabel(param)
    ax.set_ylabel("seat gap (points)")
    ax.set_title(f"{n_players} players: best − worst seat among equal bots", fontsize=10)
    ax.set_ylim(bottom=0.0)
    ax.grid(axis="y", color=charts.GRID)
    return charts.to_uri(fig)


class SweepGaps(NamedTuple):
    """A sweep's seat gap at one player count: its chart and one table cell per value, in sweep order."""

    figure: Figure
    cells: list[Fragment]


def sweep_gaps(runs: list[Run], order: list[int], param: str, xs: list[Any], xl: list[str], p: int) -> SweepGaps:
    """A sweep's seat gap at ``p`` players in sweep order: the chart and one table cell per value."""
    gaps = run_gaps(runs, p)
    ordered = [gaps[i] for i in order]
    fig = figure(
        gap_chart(param, xs, xl, ordered, p),
        f"seat gap over {param}, {p} players",
        f"the seat gap is {GAP_WHAT}; a flat line means the parameter does not change seat fairness. The change "
        "of each value against the baseline, and whether it is significant, is in the Comparison section.",
    )
    cells = [[pct(g.gap), " ", muted(ci(g.lo, g.hi, pct))] if not g.reason else muted("–") for g in ordered]
    return SweepGaps(fig, cells)
