"""Two-parameter sweeps: runs of one game that differ in exactly two parameters, on a grid of their values.
The report draws, per player count, a heat map of the largest seat gap (the best seat's win rate minus the
worst seat's) over the grid, so a designer sees which corner of the two rules is fairest."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from . import charts
from .html import esc, figure, fmt_value, pct, table
from .load import Run
from .stats import RunStats, _canon, differing_params


def grid_params(runs: Sequence[Run]) -> tuple[str, str] | None:
    """The two parameters a set of runs sweeps over on a grid (same game, exactly two differ), else None."""
    if len(runs) < 3 or len({r.game for r in runs}) != 1:
        return None
    diff = differing_params(runs)
    return (diff[0], diff[1]) if len(diff) == 2 else None


def _order(vals: list[Any]) -> list[Any]:
    uniq = list({_canon(v): v for v in vals}.values())
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in uniq):
        return sorted(uniq)
    return uniq


def seat_gap(st: RunStats, p: int) -> tuple[float, int, int, float]:
    """(largest gap between two seats' win rates, best seat, worst seat, p-value of no seat effect)."""
    s = st.by_seat.filter(pl.col("n_players") == p).sort("seat")
    if s.height == 0:
        return math.nan, -1, -1, math.nan
    w = s["win_rate"].to_numpy()
    return float(w.max() - w.min()), int(np.argmax(w)), int(np.argmin(w)), float(st.seat_p.get(p, math.nan))


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


def grid_section(runs: list[Run], stats: list[RunStats], labels: list[str], params: tuple[str, str]) -> str:
    a, b = params
    xa = _order([r.params.get(a) for r in runs])
    xb = _order([r.params.get(b) for r in runs])
    ia = {_canon(v): i for i, v in enumerate(xa)}
    ib = {_canon(v): i for i, v in enumerate(xb)}
    common = sorted(set.intersection(*[set(r.players) for r in runs]))
    parts = [
        f'<section class="block" id="sweep2"><h2>Two-parameter sweep: <code>{esc(a)}</code> × '
        f"<code>{esc(b)}</code></h2>",
        "<p>Each cell is one run; its colour is the <b>largest seat gap</b>: the best seat's win rate minus "
        "the worst seat's, in percentage points (0 = every seat wins equally often). With bots rotated over "
        "the seats every seat meets the same lineups, so the gap measures the rules' seat advantage for "
        "these bots. Cells whose seat effect is significant (score test, Holm's correction across the "
        "cells of the grid) are marked ● in the table.</p>",
    ]
    from .stats import holm

    for p in common:
        gap = np.full((len(xb), len(xa)), math.nan)
        rows, pvals = [], []
        for r, st, lab in zip(runs, stats, labels):
            g, best, worst, pv = seat_gap(st, p)
            i, j = ib[_canon(r.params.get(b))], ia[_canon(r.params.get(a))]
            gap[i, j] = g
            rows.append(
                [
                    fmt_value(r.params.get(a)),
                    fmt_value(r.params.get(b)),
                    esc(lab),
                    pct(g),
                    f"seat {best + 1} / seat {worst + 1}",
                ]
            )
            pvals.append(pv)
        q = holm(pvals)
        for row, qq in zip(rows, q):
            row.append(("●" if math.isfinite(qq) and qq < 0.05 else "") + f" {qq:.3g}" if math.isfinite(qq) else "–")
        parts.append(f"<h3>{p} players</h3>")
        parts.append(
            figure(
                heatmap(a, b, xa, xb, gap, p),
                f"seat gap over {a} and {b}",
                f"the largest seat gap at each pair of values of <code>{esc(a)}</code> (across) and "
                f"<code>{esc(b)}</code> (up); the fairest cell is the palest.",
            )
        )
        k = int(np.nanargmin(gap)) if np.isfinite(gap).any() else -1
        if k >= 0:
            i, j = divmod(k, gap.shape[1])
            parts.append(
                f"<p>Fairest at {p} players: <code>{esc(a)}</code> = {esc(fmt_value(xa[j]))}, "
                f"<code>{esc(b)}</code> = {esc(fmt_value(xb[i]))} (gap {pct(gap[i, j])}).</p>"
            )
        parts.append(
            table(
                [esc(a), esc(b), "run", "largest seat gap", "best / worst seat", "seat effect (Holm-adjusted p)"],
                rows,
                [True, True, False, True, False, True],
            )
        )
    parts.append("</section>")
    return "\n".join(parts)
