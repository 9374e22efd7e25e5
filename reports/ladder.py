"""The skill ladder's report, "Does it hold for stronger players?" (``meeplab ladder``): the ladder section
(``templates/ladder.html.j2``, :class:`reports.views.LadderSection`) and then every run of the ladder. The numbers:
:mod:`meeplab.analysis.ladder`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from meeplab.analysis.compare import bot_order, unique_labels
from meeplab.analysis.ladder import (
    LEVEL,
    MOVING,
    Ladder,
    findings,
    gap_rows,
    load_ladder,
    rung_rows,
    settled,
    skill_verdict_text,
)
from meeplab.analysis.stats import run_stats

from . import charts
from .format import ci, code, figure, muted, num, pct, slug, table, tag
from .runs import run_section
from .template import now, output_path, render_page, write_page
from .views import Flag, LadderCount, LadderSection, Table, TopRungs


def num1(x: Any) -> str:
    return num(x, 1)


def finding_text(f: dict[str, Any]) -> str:
    """The lowest and the highest rung's values of one flagged finding."""
    lo, hi = f["low"], f["high"]
    if f["why"] == "changes" and f["finding"] == "leading score category":
        return f"{lo[1]} ({pct(lo[2])} of points) with {lo[0]}, {hi[1]} ({pct(hi[2])}) with {hi[0]}"
    if f.get("length"):
        low = f"{num(lo[1], 1)} {ci(lo[2], lo[3], num1)} with {lo[0]}"
        return f"{low}, {num(hi[1], 1)} {ci(hi[2], hi[3], num1)} with {hi[0]}"
    return f"{pct(lo[1])} {ci(lo[2], lo[3])} with {lo[0]}, {pct(hi[1])} {ci(hi[2], hi[3])} with {hi[0]}"


def settled_value(v: tuple, length: bool = False, category: bool = False) -> str:
    """One rung's value of a finding for the "Has it settled?" table: (rung, value, lo, hi) or (rung, name, share)."""
    if category:
        return f"{v[1]} ({pct(v[2])} of points)"
    if length:
        return f"{num(v[1], 1)} {ci(v[2], v[3], num1)}"
    return f"{pct(v[1])} {ci(v[2], v[3])}"


def settled_table(judged: list[dict[str, Any]]) -> Table | None:
    """The findings of one player count judged on the two strongest rungs: both values and the verdict (its
    caption: how much stronger the strongest rung played, when the ladder has that cross-play)."""
    if not judged:
        return None
    weak, strong = judged[0]["weaker"][0], judged[0]["stronger"][0]
    body = []
    for f in judged:
        flags = {"length": f.get("length", False), "category": f.get("category", False)}
        verdict = f["status"] + (f" ({f['direction']})" if f["direction"] else "")
        body.append([f["finding"], settled_value(f["weaker"], **flags), settled_value(f["stronger"], **flags), verdict])
    return table(["finding", f"with {weak}", f"with {strong}", "verdict"], body, [False, True, True, False])


def skill_note(judged: list[dict[str, Any]]) -> str | None:
    """How much stronger the strongest rung played than the second-strongest (the ladder's cross-play), and what
    that means for the verdicts of one player count; None without that cross-play."""
    sk = judged[0].get("skill") if judged else None
    if not sk:
        return None
    weak, strong = judged[0]["weaker"][0], judged[0]["stronger"][0]
    said = f"{strong} against {weak}: {pct(sk['rate'])} {ci(sk['lo'], sk['hi'])} per seat (fair {pct(sk['fair'])})"
    if sk["stronger_measured"]:
        return said + ": measurably stronger, so a finding the two agree on has settled."
    return (
        said + ": not measurably stronger, so where the two agree the finding is replicated at one strength, not "
        "shown to have stopped moving (verdict: agrees, rungs level); a larger budget (--budgets) is the next check."
    )


def relative_skill_table(skill: dict[str, Any], rungs: list[str], n_players: int) -> Table | None:
    """Each rung's relative skill at one player count (``skill.json``'s rows): RS with its 95 % interval per
    beginner and the games; a plain rung says why it has none. None without rows at that count."""
    rows = [r for r in skill.get("rows", []) if r["n_players"] == n_players]
    beginners = list(dict.fromkeys(r["beginner"] for r in rows))
    if not rows or not any(r["games"] >= 2 for r in rows):
        return None
    body = []
    for rung in rungs:
        at = {r["beginner"]: r for r in rows if r["rung"] == rung}
        if not at:
            continue
        cells: list[Any] = []
        for b in beginners:
            r = at.get(b)
            if r is None or r["relative_skill"] is None:
                cells.append(muted(r["note"] if r and r["note"] else "–"))
            else:
                cells.append(
                    [f"{num(r['relative_skill'])} {ci(r['lo'], r['hi'], num)}"]
                    + ([" ", muted("at the ceiling (the rung wins 95 % or more against the field)")]
                       if r.get("ceiling") else [])
                )  # fmt: skip
        games = max((r["games"] for r in at.values()), default=0)
        body.append([code(rung), *cells, num(games, 0) if games else "–"])
    head = ["skilled rung", *[["RS, beginner ", code(b)] for b in beginners], "games per player"]
    return table(head, body, [False] + [True] * len(beginners) + [True])


def relative_skill_verdict(skill: dict[str, Any], n_players: int) -> Any:
    """The relative skill's verdict at one player count, in the seat findings' words, or None."""
    for v in skill.get("verdicts", []):
        if v["n_players"] == n_players:
            if not v.get("stronger"):
                return tag("b", skill_verdict_text(v))
            return [code(v["weaker"]), " to ", code(v["stronger"]), ": ", tag("b", skill_verdict_text(v))]
    return None


def ladder_section(lad: Ladder) -> LadderSection:
    """The section "Does it hold for stronger players?"."""
    rows = rung_rows(lad)
    gaps = gap_rows(lad)
    flags = [
        Flag(f"{f['n_players']} players, {f['finding']} {f['why']}:", finding_text(f))
        for f in findings(rows, lad.rungs)
    ]
    judged = settled(rows, lad.rungs, gaps)
    moving = [
        Flag(
            f"{f['n_players']} players, {f['finding']}:",
            f"{f['direction']} from {f['weaker'][0]} to {f['stronger'][0]}",
        )
        for f in judged
        if f["status"] == MOVING
    ]
    level = sorted({f["n_players"] for f in judged if f["status"] == LEVEL})
    counts = []
    for p in sorted({r["n_players"] for r in rows}):
        head = [
            "rung",
            "games",
            *[f"seat {s + 1} wins" for s in range(p)],
            "leading category",
            "shared wins",
            "length",
        ]
        body = []
        for r in (r for r in rows if r["n_players"] == p):
            seats = [f"{pct(r['seat_rate'][s])} {ci(r['seat_lo'][s], r['seat_hi'][s])}" for s in range(p)]
            body.append(
                [
                    code(r["rung"]),
                    num(r["games"], 0),
                    *seats,
                    f"{r['category']} ({pct(r['category_share'])})" if r["category"] else "–",
                    f"{pct(r['tie'])} {ci(r['tie_lo'], r['tie_hi'])}",
                    f"{num(r['length'], 1)} {ci(r['length_lo'], r['length_hi'], num1)}",
                ]
            )
        gb = [
            [
                [code(g["stronger"]), " vs ", code(g["weaker"])],
                f"{pct(g['rate'])} {ci(g['lo'], g['hi'])}",
                pct(g["fair"]),
            ]
            for g in gaps
            if g["n_players"] == p
        ]
        counts.append(
            LadderCount(
                n_players=p,
                table=table(head, body, [False, True] + [True] * p + [False, True, True]),
                gaps=table(["skill gap", "stronger rung's win rate per seat", "fair"], gb, [False, True, True])
                if gb
                else None,
                settled=settled_table([f for f in judged if f["n_players"] == p]),
                skill=skill_note([f for f in judged if f["n_players"] == p]),
                relative_skill=relative_skill_table(lad.skill or {}, lad.rungs, p),
                skill_verdict=relative_skill_verdict(lad.skill or {}, p),
            )
        )
    uri = seat_chart(rows, lad.rungs)
    fig = None
    if uri:
        fig = figure(
            uri,
            "start player's advantage by rung",
            "The start player's win rate minus the fair share 1/P, per rung (self-play), with 95 % "
            "Wilson intervals; a line that crosses zero is a finding that depends on skill.",
        )
    spread_uri = spread_chart(gaps)
    spread = None
    if spread_uri:
        spread = figure(
            spread_uri,
            "skill spread: each rung against the rung below",
            "Each rung's win rate per seat against the rung below it (cross-play, the stronger rung in one seat "
            "at a time, seats rotated) minus the fair share 1/P, with 95 % Wilson intervals. Points well above "
            "zero: skill pays at that step; a staircase that stays high up the ladder: a game where being better "
            "keeps paying; points near zero: the stronger bot gains nothing there.",
        )
    return LadderSection(
        rungs=tuple(lad.rungs),
        flags=tuple(flags),
        top=TopRungs(lad.rungs[-2], lad.rungs[-1]) if len(lad.rungs) >= 2 else None,
        level=tuple(level),
        moving=tuple(moving),
        counts=tuple(counts),
        figure=fig,
        spread=spread,
        skill_field=(lad.skill or {}).get("settings", {}).get("field") if (lad.skill or {}).get("rows") else None,
    )


def spread_chart(gaps: list[dict[str, Any]]) -> str:
    """The skill spread of the ladder in one chart: each neighbouring pair's stronger-rung win rate minus 1/P."""
    if not gaps:
        return ""
    plt = charts.plt
    pairs = list(dict.fromkeys((g["weaker"], g["stronger"]) for g in gaps))
    counts = sorted({g["n_players"] for g in gaps})
    fig, ax = plt.subplots(figsize=(6.4, 3.4), layout="constrained")
    for i, p in enumerate(counts):
        at = {(g["weaker"], g["stronger"]): g for g in gaps if g["n_players"] == p}
        xs = [j for j, pair in enumerate(pairs) if pair in at]
        ys = np.array([at[pairs[j]]["rate"] - 1 / p for j in xs])
        lo = np.array([at[pairs[j]]["lo"] - 1 / p for j in xs])
        hi = np.array([at[pairs[j]]["hi"] - 1 / p for j in xs])
        off = (i - (len(counts) - 1) / 2) * 0.06
        ax.errorbar(
            np.array(xs) + off,
            ys,
            yerr=[np.maximum(ys - lo, 0), np.maximum(hi - ys, 0)],  # the interval may sit beside a rate of 0 or 1
            marker="o",
            capsize=3,
            color=charts.PALETTE[i % len(charts.PALETTE)],
            label=f"{p} players",
        )
    ax.axhline(0, color=charts.FAIR, lw=1, ls="--")
    ax.set_xticks(np.arange(len(pairs)), [f"{s}\nvs {w}" for w, s in pairs], fontsize=8)
    ax.set_ylabel("win rate per seat − 1/P")
    ax.yaxis.set_major_formatter(charts.PercentFormatter(1.0, decimals=0))
    ax.legend(frameon=False, fontsize=8)
    ax.set_title("Skill spread: each rung against the rung below")
    return charts.to_uri(fig)


def seat_chart(rows: list[dict[str, Any]], rungs: list[str]) -> str:
    plt = charts.plt
    counts = sorted({r["n_players"] for r in rows})
    if not counts:
        return ""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    x = np.arange(len(rungs))
    for i, p in enumerate(counts):
        at = {r["rung"]: r for r in rows if r["n_players"] == p}
        xs = [j for j, r in enumerate(rungs) if r in at]
        ys = np.array([at[rungs[j]]["seat_rate"][0] - 1 / p for j in xs])
        lo = np.array([at[rungs[j]]["seat_lo"][0] - 1 / p for j in xs])
        hi = np.array([at[rungs[j]]["seat_hi"][0] - 1 / p for j in xs])
        off = (i - (len(counts) - 1) / 2) * 0.06
        ax.errorbar(
            np.array(xs) + off,
            ys,
            yerr=[ys - lo, hi - ys],
            marker="o",
            capsize=3,
            color=charts.PALETTE[i % len(charts.PALETTE)],
            label=f"{p} players",
        )
    ax.axhline(0, color=charts.FAIR, lw=1, ls="--")
    ax.set_xticks(x, rungs)
    ax.set_ylabel("start player's win rate − 1/P")
    ax.yaxis.set_major_formatter(charts.PercentFormatter(1.0, decimals=0))
    ax.legend(frameon=False, fontsize=8)
    ax.set_title("Start player's advantage by skill")
    return charts.to_uri(fig)


def build_ladder_report(path: str | Path, out: str | Path, title: str | None = None) -> Path:
    """The report of a ladder directory: the ladder section first, then every run of the ladder."""
    out = output_path(Path(out))
    lad = load_ladder(path)
    runs = [lad.selfplay[r] for r in lad.rungs] + [run for _, _, run in lad.cross]
    stats = [run_stats(r) for r in runs]
    labels = unique_labels(runs)
    anchors = ["run-" + slug(lab) for lab in labels]
    colors = charts.colors_for(bot_order(runs, stats))
    game = runs[0].title if runs else lad.meta.get("game", "?")
    sections = [ladder_section(lad)]
    sections += [run_section(run, st, lab, a, colors) for run, st, lab, a in zip(runs, stats, labels, anchors)]
    doc = render_page(
        title or f"{game}: skill ladder",
        f"{len(lad.rungs)} rungs · {len(runs)} runs · "
        f"{sum(int(s.games['games'].sum()) for s in stats):,} games · generated {now()}",
        [("ladder", "Does it hold for stronger players?"), *zip(anchors, labels)],
        sections,
        "meeplab skill ladder · win rates count a k-way shared first place as 1/k · intervals are 95%",
    )
    return write_page(out, doc)
