"""Two-parameter sweeps: runs of one game that differ in exactly two parameters, on a grid of their values.
The report draws, per player count, a heat map of the largest seat gap (the best seat's win probability minus
the worst seat's among equally strong bots: the lineup-aware seat model) over the grid, so a designer sees which
corner of the two rules is fairest
(``templates/grid.html.j2``, :class:`reports.views.GridSection`; the numbers: :mod:`meeplab.analysis.compare`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from meeplab.analysis.compare import grid_cells, grid_values
from meeplab.analysis.load import Run
from meeplab.analysis.stats import RunStats

from . import charts
from .format import code, figure, fmt_value, pct, table
from .views import FairestCell, Fragment, GridCount, GridSection


def heatmap(a: str, b: str, xa: list[Any], xb: list[Any], gap: np.ndarray, n_players: int) -> str:
    plt = charts.plt
    fig, ax = plt.subplots(figsize=(1.6 + 0.9 * len(xa), 1.2 + 0.55 * len(xb)), layout="constrained")
    masked = np.ma.masked_invalid(gap)
    im = ax.imshow(
        masked,
        cmap="Reds",
        origin="lower",
        aspect="auto",
        vmin=0.0,
        vmax=max(0.05, float(np.nanmax(gap)) if np.isfinite(gap).any() else 0.05),
    )
    for i in range(gap.shape[0]):
        for j in range(gap.shape[1]):
            if math.isfinite(gap[i, j]):
                ax.text(
                    j,
                    i,
                    f"{100 * gap[i, j]:.1f}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if gap[i, j] > 0.6 * masked.max() else charts.INK,
                )
    ax.set_xticks(range(len(xa)), [fmt_value(x) for x in xa])
    ax.set_yticks(range(len(xb)), [fmt_value(x) for x in xb])
    ax.set_xlabel(a)
    ax.set_ylabel(b)
    ax.grid(False)
    ax.set_title(f"Largest seat gap, {n_players} players (points)")
    fig.colorbar(im, ax=ax, format=charts.PercentFormatter(1.0, decimals=0), shrink=0.8)
    return charts.to_uri(fig)


def grid_section(runs: list[Run], stats: list[RunStats], labels: list[str], params: tuple[str, str]) -> GridSection:
    a, b = params
    xa = grid_values([r.params.get(a) for r in runs])
    xb = grid_values([r.params.get(b) for r in runs])
    common = sorted(set.intersection(*[set(r.players) for r in runs]))
    counts = []
    for p in common:
        g = grid_cells(runs, stats, params, xa, xb, p)
        rows = [
            [
                fmt_value(r.params.get(a)),
                fmt_value(r.params.get(b)),
                lab,
                pct(gap),
                f"seat {best + 1} / seat {worst + 1}",
                ("●" if sig else "") + f" {qq:.3g}" if math.isfinite(qq) else "–",
            ]
            for r, lab, gap, best, worst, qq, sig in zip(runs, labels, g.gaps, g.best, g.worst, g.q, g.significant)
        ]
        fairest = None
        if g.fairest is not None:
            i, j = g.fairest
            fairest = FairestCell(fmt_value(xa[j]), fmt_value(xb[i]), pct(g.gap[i, j]))
        how: list[Fragment] = [
            "the largest seat gap (best minus worst seat among equally strong bots, the seat model) at each pair of "
            "values of ",
            code(a),
            " (across) and ",
            code(b),
        ]
        counts.append(
            GridCount(
                n_players=p,
                figure=figure(
                    heatmap(a, b, xa, xb, g.gap, p),
                    f"seat gap over {a} and {b}",
                    [*how, " (up); the fairest cell is the palest."],
                ),
                fairest=fairest,
                table=table(
                    [a, b, "run", "largest seat gap", "best / worst seat", "seat effect (Holm-adjusted p)"],
                    rows,
                    [True, True, False, True, False, True],
                ),
            )
        )
    return GridSection(a=a, b=b, counts=tuple(counts))
