"""Ranking maps or decks (``meeplab maps``/``meeplab decks``): the same game played on each file with the same
seeds, ranked by seat fairness, then score spread and game length (``templates/maps.html.j2``,
:class:`reports.views.RankingSection`; the numbers: :mod:`meeplab.analysis.maps`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from . import charts
from .format import figure, num, pct, table
from .template import now, render_page, write_page
from .views import RankingCount, RankingSection

__all__ = ["gap_chart", "maps_section", "write"]


def gap_chart(rows: list[dict[str, Any]], p: int, what: str) -> str:
    plt = charts.plt
    rows = rows[:40]
    fig, ax = plt.subplots(figsize=(6.5, 0.8 + 0.22 * len(rows)), layout="constrained")
    y = np.arange(len(rows))[::-1]
    ax.barh(
        y,
        [r["seat_gap"] for r in rows],
        color=[charts.PALETTE[3] if r["seat_significant"] else charts.PALETTE[0] for r in rows],
    )
    ax.set_yticks(y, [r["name"] for r in rows], fontsize=7.5)
    ax.xaxis.set_major_formatter(charts.PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("largest seat gap (best seat's win rate minus the worst's)")
    ax.set_title(f"{what.capitalize()} ranked by seat fairness, {p} players")
    return charts.to_uri(fig)


def maps_section(rec: dict[str, Any]) -> RankingSection:
    what = rec["what"]
    counts = []
    for p in rec["players"]:
        rows = [r for r in rec["ranking"] if r["n_players"] == p]
        body = [
            (
                i + 1,
                r["name"],
                pct(r["seat_gap"]),
                r["best_seat"] + 1,
                " / ".join(pct(x, 0) for x in r["seat_rates"]),
                ("● " if r["seat_significant"] else "") + (f"{r['q_seat']:.3g}" if math.isfinite(r["q_seat"]) else "–"),
                num(r["spread"], 1),
                num(r["length"], 1),
            )
            for i, r in enumerate(rows)
        ]
        head = [
            "rank",
            "file",
            "largest seat gap",
            "best seat",
            "seat win rates",
            f"seat effect ({'BH q' if rec.get('adjust') == 'bh' else 'Holm p'})",
            "score spread",
            "length",
        ]
        counts.append(
            RankingCount(
                n_players=p,
                figure=figure(gap_chart(rows, p, what), f"{what} by seat gap", "the fairest at the top (first 40)."),
                table=table(head, body, [True, False, True, True, False, True, True, True]),
            )
        )
    return RankingSection(
        what=what,
        n_files=len(rec["files"]),
        title=rec["title"],
        games=f"{rec['games']:,}",
        bots=", ".join(rec["bots"]),
        adjust_name=(
            "the Benjamini-Hochberg correction (false discovery rate)"
            if rec.get("adjust") == "bh"
            else "Holm's correction"
        ),
        counts=tuple(counts),
    )


def write(rec: dict[str, Any], out: Path) -> Path:
    what = rec["what"]
    doc = render_page(
        f"{rec['title']}: {what} compared",
        f"{len(rec['files'])} files · generated {now()}",
        [],
        [maps_section(rec)],
        "meeplab · intervals and tests are 95%",
    )
    return write_page(out, doc)
