"""The tournament report (``meeplab tournament``): ratings with intervals, seat effects, match-up matrix
(``templates/tournament.html.j2``, :class:`reports.views.TournamentSection`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from . import charts
from .format import figure, pct, table
from .template import now, render_page, write_page
from .views import TournamentSection


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


def tournament_sections(rec: dict[str, Any]) -> TournamentSection:
    """Ratings, seat effects, the match-up matrix and the lineups played, for ``tournament.html.j2``."""
    names = [r["bot"] for r in rec["ratings"]]
    rat = sorted(rec["ratings"], key=lambda r: -r["rating"])
    rows = [(i + 1, r["bot"], f"{r['rating']:+.0f}", f"[{r['lo']:+.0f}, {r['hi']:+.0f}]") for i, r in enumerate(rat)]
    mrows = [
        (
            m["bot"],
            m["opponent"],
            f"{m.get('games', m['pairs']):,}",
            pct(m["share"]),
            f"[{pct(m['lo'])}, {pct(m['hi'])}]",
        )
        for m in rec["matchups"]
    ]
    srows = [
        (
            s["n_players"],
            s["seat"],  # 1 = the start player
            f"{s['effect']:+.0f}",
            "reference" if s["seat"] == 1 else f"[{s['lo']:+.0f}, {s['hi']:+.0f}]",
        )
        for s in rec["seats"]
    ]
    lrows = [(l["n_players"], ", ".join(l["bots"]), f"{l['games']:,}", l["run"]) for l in rec["lineups"]]
    share = {(m["bot"], m["opponent"]): m["share"] for m in rec["matchups"]}
    return TournamentSection(
        n_lineups=len(rec["lineups"]),
        n_bots=len(names),
        players=", ".join(str(p) for p in rec["players"]),
        games_each=f"{rec['games_each']:,}",
        pairs=f"{rec['pairs']:,}",
        games=f"{rec['games']:,}",
        rating_figure=figure(rating_chart(rec), "ratings", "each bot's rating with its 95% interval."),
        ratings=table(["rank", "bot", "rating", "95% CI"], rows, [True, False, True, True]),
        seats=table(["players", "seat", "effect", "95% CI"], srows, [True, True, True, True], group_col=0),
        matrix_figure=figure(
            matrix_chart(names, share),
            "match-up matrix",
            "how often the row bot finished ahead of the column bot when they met (ties a half; a game counts "
            "once, its seat pairs of the two bots averaged), over all lineups and player counts.",
        ),
        matchups=table(
            ["bot", "opponent", "games met", "won (mean per game)", "95% CI (Wilson, the game the unit)"],
            mrows,
            [False, False, True, True, True],
        ),
        lineups=table(["players", "bots", "games", "run directory"], lrows, [True, False, True, False], group_col=0),
    )


def write(rec: dict[str, Any], out: Path) -> Path:
    doc = render_page(
        f"{rec['title']}: tournament",
        f"{len(rec['ratings'])} bots · {rec['games']:,} games · generated {now()}",
        [],
        [tournament_sections(rec)],
        "meeplab tournament · intervals are 95%",
    )
    return write_page(out, doc)
