"""The tournament report (``meeplab tournament``): ratings with intervals, seat effects, match-up matrix."""

from __future__ import annotations

import datetime as _dt
import math
from pathlib import Path
from typing import Any

import numpy as np

from . import charts
from .html import esc, figure, num, pct, table
from .template import page


def matrix_chart(names: list[str], share: dict[tuple[str, str], float]) -> str:
    plt = charts.plt
    k = len(names)
    m = np.full((k, k), np.nan)
    for (a, b), v in share.items():
        m[names.index(a), names.index(b)] = v
    fig, ax = plt.subplots(figsize=(1.8 + 0.9 * k, 1.2 + 0.7 * k), layout="constrained")
    im = ax.imshow(np.ma.masked_invalid(m), cmap="RdBu", vmin=0.0, vmax=1.0)
    for i in range(k):
        for j in range(k):
            if math.isfinite(m[i, j]):
                ax.text(
                    j,
                    i,
                    f"{100 * m[i, j]:.0f}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if abs(m[i, j] - 0.5) > 0.3 else charts.INK,
                )
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    ax.set_xlabel("opponent")
    ax.grid(False)
    ax.set_title("Share of meetings won (row vs column, %)")
    fig.colorbar(im, ax=ax, format=charts.PercentFormatter(1.0, decimals=0), shrink=0.8)
    return charts.to_uri(fig)


def rating_chart(rec: dict[str, Any]) -> str:
    plt = charts.plt
    rows = sorted(rec["ratings"], key=lambda r: r["rating"])
    fig, ax = plt.subplots(figsize=(6.0, 0.9 + 0.4 * len(rows)), layout="constrained")
    y = np.arange(len(rows))
    r = np.array([x["rating"] for x in rows])
    ax.errorbar(
        r,
        y,
        xerr=[r - np.array([x["lo"] for x in rows]), np.array([x["hi"] for x in rows]) - r],
        fmt="o",
        color=charts.PALETTE[0],
        capsize=3,
    )
    ax.axvline(0.0, color=charts.FAIR, ls="--", lw=1)
    ax.set_yticks(y, [x["bot"] for x in rows])
    ax.set_xlabel("rating (Elo scale, mean 0), 95% interval")
    ax.set_title("Bradley-Terry ratings, seat effect removed")
    return charts.to_uri(fig)


def write(rec: dict[str, Any], out: Path) -> Path:
    names = [r["bot"] for r in rec["ratings"]]
    rat = sorted(rec["ratings"], key=lambda r: -r["rating"])
    rows = [
        (i + 1, esc(r["bot"]), f"{r['rating']:+.0f}", f"[{r['lo']:+.0f}, {r['hi']:+.0f}]") for i, r in enumerate(rat)
    ]
    mrows = [
        (esc(m["bot"]), esc(m["opponent"]), f"{m['pairs']:,}", pct(m["share"]), f"[{pct(m['lo'])}, {pct(m['hi'])}]")
        for m in rec["matchups"]
    ]
    srows = [
        (
            s["n_players"],
            s["seat"] + 1,
            f"{s['effect']:+.0f}",
            "reference" if s["seat"] == 0 else f"[{s['lo']:+.0f}, {s['hi']:+.0f}]",
        )
        for s in rec["seats"]
    ]
    lrows = [(l["n_players"], esc(", ".join(l["bots"])), f"{l['games']:,}", esc(l["run"])) for l in rec["lineups"]]
    share = {(m["bot"], m["opponent"]): m["share"] for m in rec["matchups"]}
    body = "\n".join(
        [
            '<section class="block" id="ratings"><h2>Ratings</h2>',
            f"<p>{len(rec['lineups'])} lineups (every combination of {len(names)} bots with at least two different "
            f"bots, at {', '.join(str(p) for p in rec['players'])} players), {rec['games_each']:,} games each, seats "
            f"rotated. Each game counts as the pairwise results of its seats of different bots ({rec['pairs']:,} "
            f"pairs in {rec['games']:,} games). Ratings: a Bradley-Terry fit with one seat term per player count "
            "and seat, so the seat advantage is not credited to a bot; Elo scale (a 200-point gap: the stronger "
            "wins about 76% of meetings), centred on the mean; 95% intervals from a cluster-robust covariance "
            "(the game is the cluster).</p>",
            figure(rating_chart(rec), "ratings", "each bot's rating with its 95% interval."),
            table(["rank", "bot", "rating", "95% CI"], rows, [True, False, True, True]),
            "<h3>Seat effects (same scale)</h3>",
            table(["players", "seat", "effect", "95% CI"], srows, [True, True, True, True], group_col=0),
            "</section>",
            '<section class="block" id="matchups"><h2>Match-up matrix</h2>',
            figure(
                matrix_chart(names, share),
                "match-up matrix",
                "how often the row bot finished ahead of the column bot when they met (ties a half), over all "
                "lineups and player counts.",
            ),
            table(
                ["bot", "opponent", "meetings", "won", "95% CI (Wilson, per meeting)"],
                mrows,
                [False, False, True, True, True],
            ),
            "</section>",
            '<section class="block" id="lineups"><h2>Lineups played</h2>',
            table(["players", "bots", "games", "run directory"], lrows, [True, False, True, False], group_col=0),
            "</section>",
        ]
    )
    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    doc = page(
        esc(f"{rec['title']}: tournament"),
        esc(f"{len(names)} bots · {rec['games']:,} games · generated {now}"),
        "",
        body,
        "meeplab tournament · intervals are 95%",
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(doc, encoding="utf-8")
    return out
