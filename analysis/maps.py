"""Ranking maps or decks (``meeplab maps``/``meeplab decks``): per file and player count the largest seat gap,
the seat-effect test, the score spread and the game length; ranked by seat fairness, then spread and length."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from meeplab.lab.stats import adjust, significant

from .load import load_run
from .stats import run_stats


def measure(path: Path) -> list[dict[str, Any]]:
    """Per player count: largest seat gap, seat-effect p, score spread (first minus last place, mean over
    games) and mean game length of one run."""
    run = load_run(path)
    st = run_stats(run)
    spread = run.collect(
        run.lf.group_by("n_players", "game_index")
        .agg((pl.col("score").max() - pl.col("score").min()).alias("s"))
        .group_by("n_players")
        .agg(pl.col("s").mean().alias("spread"), pl.col("s").std().alias("spread_sd"))
    )
    out = []
    for p in run.players:
        seats = st.by_seat.filter(pl.col("n_players") == p).sort("seat")
        w = seats["win_rate"].to_numpy()
        g = st.games.filter(pl.col("n_players") == p).row(0, named=True)
        sp = spread.filter(pl.col("n_players") == p).row(0, named=True)
        out.append(
            {
                "n_players": p,
                "seat_gap": float(w.max() - w.min()),
                "best_seat": int(np.argmax(w)),
                "seat_rates": [float(x) for x in w],
                "p_seat": float(st.seat_p.get(p, math.nan)),
                "spread": float(sp["spread"]),
                "length": float(g["mean_length"]),
                "games": int(g["games"]),
            }
        )
    return out


def rank(rows: list[dict[str, Any]], method: str = "holm") -> list[dict[str, Any]]:
    """Order by seat gap (fairest first), then score spread, then length; the files' seat tests adjusted as one
    family (``method``: ``holm``, or ``bh`` for Benjamini-Hochberg)."""
    q = adjust([r["p_seat"] for r in rows], method)
    for r, qq in zip(rows, q):
        r["q_seat"] = float(qq)
        r["seat_significant"] = significant(float(qq))
    return sorted(rows, key=lambda r: (r["seat_gap"], r["spread"], r["length"]))
