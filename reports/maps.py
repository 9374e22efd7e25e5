"""Ranking maps or decks (``meeplab maps``/``meeplab decks``): the same game played on each file with the same
seeds, ranked by seat fairness, then score spread and game length."""

from __future__ import annotations

import datetime as _dt
import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from . import charts
from .html import esc, figure, num, pct, table
from .load import load_run
from .stats import holm, run_stats
from .template import page


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


def rank(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Order by seat gap (fairest first), then score spread, then length; Holm across the files' seat tests."""
    q = holm([r["p_seat"] for r in rows])
    for r, qq in zip(rows, q):
        r["q_seat"] = float(qq)
    return sorted(rows, key=lambda r: (r["seat_gap"], r["spread"], r["length"]))


def gap_chart(rows: list[dict[str, Any]], p: int, what: str) -> str:
    plt = charts.plt
    rows = rows[:40]
    fig, ax = plt.subplots(figsize=(6.5, 0.8 + 0.22 * len(rows)), layout="constrained")
    y = np.arange(len(rows))[::-1]
    ax.barh(
        y,
        [r["seat_gap"] for r in rows],
        color=[charts.PALETTE[3] if r["q_seat"] < 0.05 else charts.PALETTE[0] for r in rows],
    )
    ax.set_yticks(y, [r["name"] for r in rows], fontsize=7.5)
    ax.xaxis.set_major_formatter(charts.PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("largest seat gap (best seat's win rate minus the worst's)")
    ax.set_title(f"{what.capitalize()} ranked by seat fairness, {p} players")
    return charts.to_uri(fig)


def write(rec: dict[str, Any], out: Path) -> Path:
    what = rec["what"]
    parts = [
        f'<section class="block" id="ranking"><h2>{esc(what.capitalize())} ranked</h2>',
        f"<p>{len(rec['files'])} {esc(what)} of {esc(rec['title'])}, each played with the same seeds (the same "
        f"shuffles), {rec['games']:,} games per player count, bots {esc(', '.join(rec['bots']))} rotated over the "
        "seats. Ranked by the <b>largest seat gap</b> (the best seat's win rate minus the worst's; fairest "
        "first), then by the <b>score spread</b> (first place's score minus last place's, mean over games) "
        "and the mean <b>game length</b>. ● marks a seat effect that stays significant after Holm's correction "
        "across the files (red bars).</p>",
    ]
    for p in rec["players"]:
        rows = [r for r in rec["ranking"] if r["n_players"] == p]
        parts.append(f"<h3>{p} players</h3>")
        parts.append(figure(gap_chart(rows, p, what), f"{what} by seat gap", "the fairest at the top (first 40)."))
        parts.append(
            table(
                [
                    "rank",
                    "file",
                    "largest seat gap",
                    "best seat",
                    "seat win rates",
                    "seat effect (Holm p)",
                    "score spread",
                    "length",
                ],
                [
                    (
                        i + 1,
                        esc(r["name"]),
                        pct(r["seat_gap"]),
                        r["best_seat"] + 1,
                        " / ".join(pct(x, 0) for x in r["seat_rates"]),
                        ("● " if r["q_seat"] < 0.05 else "")
                        + (f"{r['q_seat']:.3g}" if math.isfinite(r["q_seat"]) else "–"),
                        num(r["spread"], 1),
                        num(r["length"], 1),
                    )
                    for i, r in enumerate(rows)
                ],
                [True, False, True, True, False, True, True, True],
            )
        )
    parts.append("</section>")
    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    doc = page(
        esc(f"{rec['title']}: {what} compared"),
        esc(f"{len(rec['files'])} files · generated {now}"),
        "",
        "\n".join(parts),
        "meeplab · intervals and tests are 95%",
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(doc, encoding="utf-8")
    return out
