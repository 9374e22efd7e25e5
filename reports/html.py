"""Build one self-contained HTML balance report from one or more run directories."""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from meeplab.sim.core.errors import MeeplabError

from . import charts
from .load import Run, load_run
from .stats import (
    SEAT_METHOD,
    RunStats,
    differing_params,
    holm,
    paired_compare,
    pairing,
    run_stats,
    sweep_order,
    sweep_param,
    unpaired_compare,
)
from .template import page

# -- formatting ------------------------------------------------------------------------------


def esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _bad(x: Any) -> bool:
    return x is None or (isinstance(x, float) and not math.isfinite(x))


def pct(x: Any, d: int = 1) -> str:
    return "–" if _bad(x) else f"{100 * x:.{d}f}%"


def spct(x: Any, d: int = 1) -> str:
    """Signed percentage points (more decimals, up to 3, where the value would read as ±0.0)."""
    if _bad(x):
        return "–"
    v = 100 * x
    if abs(v) < 1e-9:  # floating-point noise of an unchanged value
        v = 0.0
    while v != 0 and abs(v) < 0.5 * 10**-d and d < 3:
        d += 1
    return f"{v:+.{d}f} pp"


def num(x: Any, d: int = 2) -> str:
    if _bad(x):
        return "–"
    if isinstance(x, int) or (isinstance(x, float) and d == 0):
        return f"{x:,.0f}"
    return f"{x:,.{d}f}"


def snum(x: Any, d: int = 2) -> str:
    if _bad(x):
        return "–"
    return f"{(0.0 if abs(x) < 1e-12 else x):+,.{d}f}"


def ci(lo: Any, hi: Any, f=pct) -> str:
    """``lo … hi``; with more decimals (up to 2 extra) where the two ends would print the same."""
    if _bad(lo) or _bad(hi):
        return "–"
    a, b = f(lo), f(hi)
    if a == b and lo != hi and f in (snum, num, spct, pct):
        base = 1 if f in (spct, pct) else 2
        for d in (base + 1, base + 2):
            a, b = f(lo, d), f(hi, d)
            if a != b:
                break
    return f"{a} … {b}"


def pval(p: Any) -> str:
    """``p = 0.071`` / ``p < 0.001``."""
    if _bad(p):
        return "p = –"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def fmt_value(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return ",".join(fmt_value(x) for x in v)
    return str(v)


def fmt_duration(s: Any) -> str:
    if _bad(s) or not isinstance(s, (int, float)):
        return "–"
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{int(s // 60)} min {s % 60:02.0f} s"
    return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"


def table(
    head: Sequence[str],
    rows: Sequence[Sequence[Any]],
    numeric: Sequence[bool] | None = None,
    group_col: int | None = None,
) -> str:
    """An HTML table; ``numeric[i]`` right-aligns column i; cells are pre-escaped HTML strings.
    ``group_col``: draw a separator line where that column's value changes."""
    numeric = numeric or [False] * len(head)
    th = "".join(f'<th class="n">{h}</th>' if n else f"<th>{h}</th>" for h, n in zip(head, numeric))
    body = []
    prev = object()
    for r in rows:
        cls = ""
        if group_col is not None:
            if r[group_col] != prev and prev is not object and body:
                cls = ' class="group"'
            prev = r[group_col]
        tds = "".join(f'<td class="n">{c}</td>' if n else f"<td>{c}</td>" for c, n in zip(r, numeric))
        body.append(f"<tr{cls}>{tds}</tr>")
    return f'<div class="tablewrap"><table><thead><tr>{th}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def figure(uri: str, alt: str, how: str) -> str:
    return f'<figure><img src="{uri}" alt="{esc(alt)}"><figcaption class="how">{how}</figcaption></figure>'


def slug(text: str) -> str:
    s = re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower()
    return s or "run"


def sig_mark(flag: Any, title: str = "significant after Holm's correction for the comparisons marked") -> str:
    """● where ``flag`` is true; every mark in a report comes from a test named next to it."""
    return f' <span class="sig" title="{esc(title)}">●</span>' if flag else ""


def bot_label(name: str, seats: Any) -> str:
    """A bot's name, labelled "per seat" when it fills several seats of each game (its rates are per seat)."""
    if _bad(seats) or seats <= 1.0001:
        return esc(name)
    k = f"{seats:.0f}" if abs(seats - round(seats)) < 1e-9 else num(seats, 2)
    return f"{esc(name)} <span class='muted'>(per seat, {k} seats)</span>"


def diff_ci(lo: Any, hi: Any, base: Any, other: Any, f=spct) -> str:
    """Interval of a win-rate difference; a bot that never won in either run has nothing to compare."""
    if not _bad(base) and not _bad(other) and base == 0 and other == 0:
        return "no wins in either run"
    if not _bad(lo) and lo == hi:
        return "same in every game"
    return ci(lo, hi, f)


# -- one run ---------------------------------------------------------------------------------


def _fact(k: str, v: str, wide: bool = False) -> str:
    cls = "fact wide" if wide else "fact"
    return f'<div class="{cls}"><div class="k">{esc(k)}</div><div class="v">{v}</div></div>'


def _games_text(run: Run, st: RunStats) -> str:
    req = run.meta.get("games")
    parts = []
    for r in st.games.iter_rows(named=True):
        g = r["games"]
        if isinstance(req, int) and req != g:
            parts.append(f"{num(g, 0)} of {num(req, 0)} ({r['n_players']}P)")
        else:
            parts.append(f"{num(g, 0)} ({r['n_players']}P)")
    return esc(", ".join(parts))


def _status_badge(run: Run) -> str:
    s = run.status
    if s == "complete":
        return '<span class="badge ok">complete</span>'
    return f'<span class="badge warn">{esc(s)}</span>'


def _status_warning(run: Run, st: RunStats) -> str:
    if run.complete:
        return ""
    req = run.meta.get("games")
    done = ", ".join(f"{num(r['games'], 0)} at {r['n_players']}P" for r in st.games.iter_rows(named=True))
    req_txt = f" out of {num(req, 0)} requested per player count" if isinstance(req, int) else ""
    if run.status == "interrupted":
        head = "Interrupted run."
    elif run.status == "running":
        head = "Run still in progress."
    else:
        head = f"Run status “{esc(run.status)}”."
    return (
        f'<div class="warning"><strong>{head}</strong> Only {esc(done)} games were played{req_txt} '
        f"(read from <code>{esc(run.source)}</code>). Every number below covers these games only; "
        "intervals are correspondingly wider.</div>"
    )


def _lineup_text(run: Run) -> str:
    lu = run.lineups
    if lu:
        items = [f"{esc(p)}P: {esc(', '.join(v))}" for p, v in sorted(lu.items(), key=lambda kv: int(kv[0]))]
        text = "<br>".join(items)
    else:
        text = esc(", ".join(map(str, run.meta.get("bots", []))) or "–")
    rot = "rotated over seats game by game" if run.rotate else "fixed seats (not rotated)"
    return f"{text}<br><span class='muted'>{rot}</span>"


def _header(run: Run, st: RunStats) -> str:
    m = run.meta
    gps = m.get("games_per_second")
    facts = [
        _fact("Games played", _games_text(run, st)),
        _fact("Player counts", esc(", ".join(str(p) for p in run.players))),
        _fact("Seed", esc(run.seed if run.seed is not None else "–")),
        _fact("Lineup", _lineup_text(run), wide=True),
        _fact("Speed", esc(f"{gps:,.0f} games/s" if isinstance(gps, (int, float)) else "–")),
        _fact(
            "Wall time",
            esc(fmt_duration(m.get("wall_time_s")))
            + (
                f"<br><span class='muted'>+ {esc(fmt_duration(m.get('compile_time_s')))} compile</span>"
                if isinstance(m.get("compile_time_s"), (int, float))
                else ""
            ),
        ),
        _fact("Threads", esc(m.get("threads", "–"))),
        _fact("Started", esc(str(m.get("started", "–")).replace("T", " ")[:19])),
    ]
    if m.get("version"):
        facts.append(_fact("Game version", esc(m["version"])))
    out = [_status_warning(run, st), f'<div class="facts">{"".join(facts)}</div>']
    notes = m.get("notes") or []
    if isinstance(notes, str):
        notes = [notes]
    if notes:
        out.append("<h4>Notes</h4><ul class='notes'>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    changed = run.params_changed
    if changed:
        rows = [(f"<code>{esc(k)}</code>", esc(fmt_value(v))) for k, v in changed.items()]
        out.append("<h4>Parameters changed from the rule book</h4>" + table(["parameter", "value"], rows))
    else:
        out.append("<p class='muted'>All rule parameters at their rule-book defaults.</p>")
    if run.params:
        rows = [
            (
                f"<code>{esc(k)}</code>",
                esc(fmt_value(v)) + (" <span class='badge info'>changed</span>" if k in changed else ""),
            )
            for k, v in run.params.items()
        ]
        out.append(
            f"<details><summary>All {len(run.params)} parameters</summary>"
            + table(["parameter", "value"], rows)
            + "</details>"
        )
    if m.get("command"):
        out.append(f"<p class='muted'>Command: <code>{esc(m['command'])}</code></p>")
    return "\n".join(out)


def _mixed_lineup(run: Run, st: RunStats, p: int) -> bool:
    return st.by_bot.filter(pl.col("n_players") == p).height > 1


def _seat_finding(st: RunStats, p: int, seats: pl.DataFrame) -> str:
    """The seat verdict, from the same model, intervals and marks as the seat table."""
    m = st.seat_model.get(p)
    if m is None or not m.estimable:
        best = seats.sort("win_rate", descending=True).row(0, named=True)
        worst = seats.sort("win_rate").row(0, named=True)
        why = esc(m.reason) if m is not None else "no seat model"
        return (
            f"<b>Seats at {p} players:</b> win rates from {pct(worst['win_rate'])} (seat {worst['seat'] + 1}) "
            f"to {pct(best['win_rate'])} (seat {best['seat'] + 1}); the seat effect cannot be estimated: "
            f"{why}."
        )
    best = seats.sort("adj_rate", descending=True).row(0, named=True)
    worst = seats.sort("adj_rate").row(0, named=True)
    sig = not _bad(m.p) and m.p < 0.05
    marked = [r for r in seats.iter_rows(named=True) if r["sig"]]
    text = (
        f"<b>Seats at {p} players:</b> among equally strong bots the seats would win from "
        f"{pct(worst['adj_rate'])} (seat {worst['seat'] + 1}) to {pct(best['adj_rate'])} "
        f"(seat {best['seat'] + 1}); score test {esc(pval(m.p))}, "
    )
    if not sig:
        return text + "no significant seat effect."
    text += "a <span class='sig'>significant seat effect</span>"
    if marked:
        text += ": " + ", ".join(
            f"seat {r['seat'] + 1} {'advantage' if r['adv'] > 0 else 'handicap'} {spct(r['adv'])} "
            f"(95% CI {ci(r['adv_lo'], r['adv_hi'], spct)}){sig_mark(True, 'see Seat fairness')}"
            for r in marked
        )
        return text + "."
    return text + ", though no single seat's interval excludes the fair share."


SAFETY_WARN = 0.01  # findings from a table where more than this share of games ended by a safety net get a warning


def _safety_finding(st: RunStats, g: dict) -> str:
    """How many games at this player count a safety net ended (not the rule book), by end code."""
    p = g["n_players"]
    codes = ""
    if st.endings is not None:
        e = st.endings.filter((pl.col("n_players") == p) & (pl.col("end") != "rules"))
        codes = ", ".join(f"{esc(r['end'])} {num(r['games'], 0)}" for r in e.iter_rows(named=True))
    return (
        f"<b>Endings at {p} players:</b> {pct(g['safety_share'])} of games ({num(g['safety_games'], 0)} of "
        f"{num(g['games'], 0)}) ended by a safety net, not by the rule book ({codes}; the game's README "
        "says what each means)."
    )


def _findings(run: Run, st: RunStats) -> str:
    items = []
    for g in st.games.iter_rows(named=True):
        p = g["n_players"]
        first = len(items)
        bb = st.by_bot.filter(pl.col("n_players") == p).sort("win_rate", descending=True)
        if bb.height > 1:
            top, second = bb.row(0, named=True), bb.row(1, named=True)
            clear = top["lo"] > second["hi"]
            seats = top["seats_per_game"]
            many = f" per seat ({seats:.0f} seats, {pct(top['games_won'])} of all games)" if seats > 1.0001 else ""
            items.append(
                f"<b>{p} players:</b> <b>{esc(top['bot'])}</b> wins most often, {pct(top['win_rate'])}{many} "
                f"(95% CI {ci(top['lo'], top['hi'])}) against {pct(1 / p)} fair share; next is "
                f"{esc(second['bot'])} at {pct(second['win_rate'])}"
                + ("; the intervals do not overlap." if clear else "; the intervals overlap, so the lead is not clear.")
            )
        seats = st.by_seat.filter(pl.col("n_players") == p).sort("seat")
        if seats.height > 1:
            items.append(_seat_finding(st, p, seats))
        items.append(f"<b>Ties at {p} players:</b> {pct(g['tie_share'])} of games end with a shared first place.")
        share = g.get("safety_share") or 0.0
        if share > 0:
            items.append(_safety_finding(st, g))
        if share > SAFETY_WARN:
            warn = (
                f"<span class='warnmark' title='more than {pct(SAFETY_WARN, 0)} of these games ended by a "
                f"safety net'>&#9888; {pct(share)} of the {p}-player games ended by a safety net, not the "
                "rule book:</span> "
            )
            items[first:] = [warn + i for i in items[first:]]
    if run.categories:
        bb = st.by_bot
        tot = {c: float((bb[f"cat_{c}"] * bb["n"]).sum()) for c in run.categories}
        allp = sum(abs(v) for v in tot.values())
        if allp > 0:
            order = sorted(tot, key=lambda c: -tot[c])
            top = order[0]
            items.append(
                f"<b>Points:</b> the largest source is <b>{esc(top)}</b> ({pct(tot[top] / allp, 0)} of all points"
                + (f"), then {esc(order[1])} ({pct(tot[order[1]] / allp, 0)})." if len(order) > 1 else ").")
            )
    return "<div class='findings'><h4>Key findings</h4><ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul></div>"


def _win_section(run: Run, st: RunStats, colors: dict[str, str]) -> str:
    bb = st.by_bot
    multi = bool((bb["seats_per_game"] > 1.0001).any())
    rows = []
    for r in bb.iter_rows(named=True):
        seats = r["seats_per_game"]
        rows.append(
            (
                f"{r['n_players']}",
                esc(r["bot"]),
                num(seats, 2) if abs(seats - round(seats)) > 1e-9 else f"{seats:.0f}",
                num(r["wins"], 1),
                pct(r["win_rate"]),
                ci(r["lo"], r["hi"]) + (" †" if r["by_game"] else ""),
                pct(1 / r["n_players"]),
                pct(r["games_won"]),
                num(r["mean_score"]),
                num(r["sd_score"]),
                num(r["mean_rank"]),
            )
        )
    tbl = table(
        [
            "players",
            "bot",
            "seats per game",
            "wins",
            "win rate per seat",
            "95% CI",
            "fair share",
            "games won by the bot",
            "mean score",
            "sd",
            "mean rank",
        ],
        rows,
        [True, False, True, True, True, True, True, True, True, True, True],
        group_col=0,
    )
    fig = figure(
        charts.win_rate_by_bot(bb, colors),
        "win rate per bot",
        "each bar is the share of its seats a bot won (a k-way shared first place counts 1/k); the black "
        "whisker is the 95% interval of the table and the dashed line is the fair share 1/P. A bot whose "
        "whisker stays clear of the dashed line is genuinely stronger or weaker than average.",
    )
    note = ""
    if multi:
        note = (
            "<p class='muted'>Some bots fill several seats per game: their win rate is per seat (comparable "
            "with the fair share 1/P); “games won by the bot” adds up all its seats. † Their interval takes the "
            "game as the unit (two seats of one game cannot both win): Wilson at the effective sample size of "
            "the by-game variance of their win share, stratified by rotation offset (Kish design effect; "
            "Korn &amp; Graubard 1998).</p>"
        )
    return (
        f"<h3>Win rate per bot</h3>{fig}{tbl}{note}<p class='muted'>Intervals: Wilson score (Wilson 1927) "
        "for a bot in one seat per game.</p>"
    )


def _seat_section(run: Run, st: RunStats) -> str:
    bs = st.by_seat
    rows, chart = [], []
    for r in bs.iter_rows(named=True):
        p = r["n_players"]
        m = st.seat_model.get(p)
        est = m is not None and m.estimable
        dev = r["adv"] if est else math.nan
        rows.append(
            (
                f"{p}",
                f"{r['seat'] + 1}" + (" (start)" if r["seat"] == 0 else ""),
                num(r["n"], 0),
                pct(r["win_rate"]),
                ci(r["lo"], r["hi"]),
                pct(r["adj_rate"]) if est else "–",
                (
                    f"<span class='{'pos' if dev >= 0 else 'neg'}'>{spct(dev)}</span>"
                    + sig_mark(r["sig"], "seat effect: score test significant and this interval excludes 0")
                    if est
                    else "–"
                ),
                ci(r["adv_lo"], r["adv_hi"], spct) if est else "–",
                num(r["mean_score"]),
            )
        )
        if est:
            chart.append(
                {
                    "n_players": p,
                    "seat": r["seat"],
                    "win_rate": r["adj_rate"],
                    "lo": r["adv_lo"] + 1 / p,
                    "hi": r["adv_hi"] + 1 / p,
                }
            )
        else:
            chart.append({k: r[k] for k in ("n_players", "seat", "win_rate", "lo", "hi")})
    tbl = table(
        ["players", "seat", "games", "win rate", "95% CI", "among equal bots", "vs fair share", "95% CI", "mean score"],
        rows,
        [True, False, True, True, True, True, True, True, True],
        group_col=0,
    )
    tests = ", ".join(
        f"{p}P: {pval(m.p)}" if m.estimable else f"{p}P: not estimable ({m.reason})" for p, m in st.seat_model.items()
    )
    caveat = ""
    if not run.rotate and any(_mixed_lineup(run, st, p) for p in run.players):
        caveat = (
            "<div class='warning'><strong>Seats not rotated.</strong> Each lineup entry kept the same "
            "seat, so these seat numbers mix the seat effect with the strength of the bot in that seat. "
            "Rerun with rotation (or identical bots) to measure seat fairness.</div>"
        )
    fig = figure(
        charts.win_rate_by_seat(pl.DataFrame(chart)),
        "win rate per seat",
        "seat 1 is the start player. Each bar is what the seat would win among equally strong bots "
        "(the seat model below, which takes the lineup into account; the raw win rate where seats and "
        "bots cannot be told apart), with its 95% interval. With a fair game every bar sits on the "
        "dashed fair-share line.",
    )
    return (
        f"<h3>Seat fairness</h3>{caveat}{fig}{tbl}"
        f"<p class='muted'>Seat model: {SEAT_METHOD}; “among equal bots” is a seat's win probability "
        "when all bots are equally strong, “vs fair share” that minus 1/P, with a delta-method 95% "
        "interval; with one bot in every seat this is the raw win rate and the test is Pearson's χ² "
        f"against 1/P. Test of “no seat effect”: {esc(tests)} (small p = uneven). ● marks a seat whose "
        "interval excludes the fair share when that test is significant (p &lt; 0.05), so the marks and "
        "the verdict agree. The raw win-rate interval is Wilson, under rotation by game and stratified by "
        "rotation offset.</p>"
    )


def _tie_section(st: RunStats) -> str:
    ks = sorted({k for k in st.ties["k"].to_list() if k > 1})
    rows = []
    for g in st.games.iter_rows(named=True):
        p = g["n_players"]
        t = st.ties.filter(pl.col("n_players") == p)
        kcells = []
        for k in ks:
            n = int(t.filter(pl.col("k") == k)["games"].sum())
            kcells.append(f"{num(n, 0)} ({pct(n / g['games'])})")
        rows.append((f"{p}", num(g["games"], 0), num(round(g["tie_games"]), 0), pct(g["tie_share"]), *kcells))
    head = ["players", "games", "shared first place", "share", *[f"{k}-way tie" for k in ks]]
    return (
        "<h3>Ties</h3>"
        + table(head, rows, [True] * len(head))
        + "<p class='how'>a game counts as tied when two or more players share first place after the "
        "tie-break; each of the k winners is credited 1/k of a win in every win rate above.</p>"
    )


def _score_section(run: Run, st: RunStats, colors: dict[str, str]) -> str:
    out = ["<h3>Score distribution</h3>"]
    if st.score_hist.height:
        out.append(
            figure(
                charts.score_histogram(st.score_hist, colors),
                "score distribution per bot",
                "the share of a bot's games that ended in each score band (one outline per bot). "
                "Far-apart humps mean the bots play very differently; a long tail shows occasional "
                "runaway scores.",
            )
        )
    rows = [
        (
            f"{r['n_players']}",
            esc(r["bot"]),
            num(r["mean_score"]),
            num(r["sd_score"]),
            num(r["min_score"], 1),
            num(r["max_score"], 1),
        )
        for r in st.by_bot.iter_rows(named=True)
    ]
    out.append(
        table(["players", "bot", "mean", "sd", "min", "max"], rows, [True, False, True, True, True, True], group_col=0)
    )
    return "".join(out)


def _breakdown_section(run: Run, st: RunStats, colors: dict[str, str]) -> str:
    cats = run.categories
    if not cats:
        return "<h3>Where the points come from</h3><p class='muted'>This game reports no score categories.</p>"
    fig = figure(
        charts.score_breakdown(st.by_bot, cats, colors),
        "mean score breakdown",
        "each bar is a bot's average final score split into the game's scoring categories; wider "
        "segments are where that bot earns its points (negative categories extend left of zero). "
        "Compare the segments between bots to see which scoring route the winners use.",
    )
    rows = []
    for r in st.by_bot.iter_rows(named=True):
        total = sum(r[f"cat_{c}"] for c in cats)
        rows.append((f"{r['n_players']}", esc(r["bot"]), *[num(r[f"cat_{c}"]) for c in cats], num(total)))
    head = ["players", "bot", *[esc(c) for c in cats], "total"]
    tbl = table(head, rows, [True, False, *[True] * len(cats), True], group_col=0)
    return f"<h3>Where the points come from</h3>{fig}{tbl}"


def _length_section(run: Run, st: RunStats) -> str:
    unit = run.length_unit
    fig = figure(
        charts.length_distribution(st.lengths, unit),
        "game length distribution",
        f"share of games lasting each number of {esc(unit)}; the dotted line is the mean. A wide spread "
        "means some games end early or drag on.",
    )
    rows = [
        (
            f"{g['n_players']}",
            num(g["mean_length"], 1),
            num(g["sd_length"], 1),
            num(g["min_length"], 0),
            num(g["max_length"], 0),
        )
        for g in st.games.iter_rows(named=True)
    ]
    tbl = table(["players", f"mean {esc(unit)}", "sd", "min", "max"], rows, [True] * 5)
    return f"<h3>Game length</h3>{fig}{tbl}"


def _variety_section(run: Run) -> str:
    """For a game without chance once it starts: how many distinct games the run holds."""
    from .stats import distinct_games, run_has_chance

    if run_has_chance(run):
        return ""
    d = distinct_games(run)
    rows = [
        (f"{r['n_players']}", num(r["games"], 0), num(r["distinct"], 0), pct(r["distinct"] / max(r["games"], 1)))
        for r in d.iter_rows(named=True)
    ]
    return (
        "<h3>Distinct games</h3><p>This game has no chance once it starts (no deck, die or hidden tile): two "
        "games differ only where a bot draws at random. A game counts once for every identical sequence of "
        "results (each seat's bot, score, tie-break and score breakdown, the game's length and ending), so the "
        "rates above rest on this many different games, not on the number played.</p>"
        + table(["players", "games", "distinct games", "share"], rows, [True] * 4)
    )


def _rank_section(st: RunStats, colors: dict[str, str]) -> str:
    fig = figure(
        charts.rank_distribution(st.ranks, colors),
        "rank distribution",
        "how often each bot finished 1st, 2nd, … (shared places count for every player sharing them). "
        "A dominant bot is mostly green; a bot that is often last is mostly red.",
    )
    return f"<h3>Finishing ranks</h3>{fig}"


def run_section(run: Run, st: RunStats, label: str, anchor: str, colors: dict[str, str]) -> str:
    parts = [
        f'<section class="run" id="{anchor}">',
        f"<h2>{esc(label)}<span class='game'>{esc(run.title)}</span>{_status_badge(run)}</h2>",
        f"<p class='muted'>Run directory <code>{esc(run.path)}</code> · {num(run.n_rows, 0)} result rows</p>",
        _header(run, st),
        _findings(run, st),
        _win_section(run, st, colors),
        _seat_section(run, st),
        _tie_section(st),
        _score_section(run, st, colors),
        _breakdown_section(run, st, colors),
        _length_section(run, st),
        _variety_section(run),
        _rank_section(st, colors),
        "</section>",
    ]
    return "\n".join(parts)


# -- several runs ----------------------------------------------------------------------------


def _overview(runs: list[Run], stats: list[RunStats], labels: list[str], anchors: list[str]) -> str:
    rows = []
    for run, st, lab, a in zip(runs, stats, labels, anchors):
        ch = ", ".join(f"{k}={fmt_value(v)}" for k, v in run.params_changed.items()) or "defaults"
        rows.append(
            (
                f"<a href='#{a}'>{esc(lab)}</a>",
                esc(run.title),
                _status_badge(run),
                _games_text(run, st),
                esc(run.seed),
                esc(", ".join(map(str, run.players))),
                esc(ch),
            )
        )
    return table(
        ["run", "game", "status", "games", "seed", "players", "parameters changed"],
        rows,
        [False, False, False, True, True, False, False],
    )


def _what_changed(runs: list[Run], labels: list[str]) -> str:
    names = differing_params(runs)
    out = []
    if names:
        rows = [(f"<code>{esc(n)}</code>", *[esc(fmt_value(r.params.get(n, "–"))) for r in runs]) for n in names]
        out.append(table(["parameter", *[esc(l) for l in labels]], rows))
    else:
        out.append("<p>All runs use the same rule parameters.</p>")
    other = []
    for what, get in (
        ("game", lambda r: r.game),
        ("seed", lambda r: r.seed),
        ("player counts", lambda r: r.players),
        ("lineups", lambda r: r.lineups),
        ("rotation", lambda r: r.rotate),
    ):
        vals = [json.dumps(get(r), sort_keys=True, default=str) for r in runs]
        if len(set(vals)) > 1:
            other.append(what)
    if other:
        out.append(f"<p class='muted'>The runs also differ in: {esc(', '.join(other))}.</p>")
    return "".join(out)


def _paired_block(df: pl.DataFrame, lb: str, lo: str, colors: dict[str, str], reason: str) -> str:
    if df.height == 0:
        return (
            f"<h4>{esc(lo)} vs {esc(lb)}</h4><p class='warning'>Paired comparison possible in principle, "
            "but the runs share no games (no common game index).</p>"
        )
    rows = []
    for r in df.iter_rows(named=True):
        rows.append(
            (
                f"{r['n_players']}",
                bot_label(r["bot"], r["seats"]),
                num(r["games"], 0),
                f"{num(r['score_base'])} → {num(r['score_other'])}",
                snum(r["d_score"]) + sig_mark(r["sig_score"]),
                ci(r["d_score_lo"], r["d_score_hi"], snum),
                f"{pct(r['win_base'])} → {pct(r['win_other'])}",
                spct(r["d_win"]) + sig_mark(r["sig_win"]),
                diff_ci(r["d_win_lo"], r["d_win_hi"], r["win_base"], r["win_other"]),
                pct(r["changed"], 0),
            )
        )
    tbl = table(
        [
            "players",
            "bot",
            "paired games",
            "mean score",
            "Δ score",
            "95% CI",
            "win rate",
            "Δ win rate",
            "95% CI",
            "games with changed score",
        ],
        rows,
        [True, False, True, True, True, True, True, True, True, True],
        group_col=0,
    )
    recs = df.to_dicts()
    fig = charts.forest_pair(
        recs,
        [
            ("d_win", "d_win_lo", "d_win_hi", "win rate change (percentage points)", True),
            ("d_score", "d_score_lo", "d_score_hi", "mean score change (points per game)", False),
        ],
        colors,
    )
    return (
        f"<h4>{esc(lo)} vs {esc(lb)} <span class='badge ok'>paired</span></h4>"
        f"<p class='muted'>{esc(reason[:1].upper() + reason[1:])}. Both runs played the same games (common "
        "random numbers), so each difference is measured game by game and the game-to-game luck cancels: the "
        "intervals are much narrower than comparing two independent runs.</p>"
        + figure(
            fig,
            "paired differences",
            f"each dot is how much a bot's win rate (left) or mean final score (right) changed from "
            f"<b>{esc(lb)}</b> to <b>{esc(lo)}</b>, with its paired 95% interval. ● in the table marks "
            "the changes that stay significant after Holm's correction (see Key changes).",
        )
        + tbl
    )


def _unpaired_block(df: pl.DataFrame, lb: str, lo: str, colors: dict[str, str], reason: str) -> str:
    if df.height == 0:
        return (
            f"<h4>{esc(lo)} vs {esc(lb)} <span class='badge info'>unpaired</span></h4>"
            "<p class='muted'>No bot at a common player count appears in both runs; nothing to compare.</p>"
        )
    rows = []
    for r in df.iter_rows(named=True):
        rows.append(
            (
                f"{r['n_players']}",
                bot_label(r["bot"], r["seats"]),
                f"{pct(r['win_base'])} <span class='muted'>[{ci(r['win_base_lo'], r['win_base_hi'])}]</span>",
                f"{pct(r['win_other'])} <span class='muted'>[{ci(r['win_other_lo'], r['win_other_hi'])}]</span>",
                spct(r["d_win"]) + sig_mark(r["sig_win"]),
                diff_ci(r["d_win_lo"], r["d_win_hi"], r["win_base"], r["win_other"]),
                f"{num(r['score_base'])} → {num(r['score_other'])}",
                snum(r["d_score"]) + sig_mark(r["sig_score"]),
                ci(r["d_score_lo"], r["d_score_hi"], snum),
            )
        )
    tbl = table(
        [
            "players",
            "bot",
            f"win rate {esc(lb)}",
            f"win rate {esc(lo)}",
            "Δ win rate",
            "95% CI",
            "mean score",
            "Δ score",
            "95% CI",
        ],
        rows,
        [True, False, True, True, True, True, True, True, True],
        group_col=0,
    )
    chart_rows = []
    for r in df.iter_rows(named=True):
        chart_rows.append(
            {
                "label": lb,
                "n_players": r["n_players"],
                "bot": r["bot"],
                "win_rate": r["win_base"],
                "lo": r["win_base_lo"],
                "hi": r["win_base_hi"],
            }
        )
        chart_rows.append(
            {
                "label": lo,
                "n_players": r["n_players"],
                "bot": r["bot"],
                "win_rate": r["win_other"],
                "lo": r["win_other_lo"],
                "hi": r["win_other_hi"],
            }
        )
    fig = figure(
        charts.compare_win_rates(chart_rows, [lb, lo], colors),
        "win rates side by side",
        "win rate per bot in each run with its 95% interval (Wilson; by game for a bot in several "
        "seats). The runs are independent samples, so only clearly separated whiskers indicate a real "
        "difference.",
    )
    return (
        f"<h4>{esc(lo)} vs {esc(lb)} <span class='badge info'>unpaired</span></h4>"
        f"<p class='muted'>Not paired ({esc(reason)}): the runs did not play the same games, so they are "
        "compared as independent samples (Newcombe interval for win-rate differences, Welch interval for "
        "score differences). Use the same seed, player counts and lineup to get a sharper paired comparison.</p>"
        + (
            "<p class='muted'>The lineups differ: a bot's win rate also depends on its opponents, so part of "
            "any difference may come from the opposition rather than the rules.</p>"
            if "lineups" in reason
            else ""
        )
        + fig
        + tbl
    )


def _cat_means(st: RunStats, p: int, cats: Sequence[str]) -> dict[str, float]:
    """Mean points per player from each category at player count ``p`` (all seats)."""
    bb = st.by_bot.filter(pl.col("n_players") == p)
    n = float(bb["n"].sum())
    return {c: float((bb[f"cat_{c}"] * bb["n"]).sum() / n) for c in cats} if n else {}


def _category_shift(base: Run, bst: RunStats, other: Run, ost: RunStats, lb: str, lo: str) -> tuple[str, list[str]]:
    """Table of points per player by category, baseline vs other, and finding lines for big shifts."""
    cats = [c for c in base.categories if c in other.categories]
    common = sorted(set(base.players) & set(other.players))
    if not cats or not common:
        return "", []
    rows, notes = [], []
    for p in common:
        a, b = _cat_means(bst, p, cats), _cat_means(ost, p, cats)
        tot_a, tot_b = sum(a.values()), sum(b.values())
        for c in cats:
            rows.append(
                (
                    f"{p}",
                    esc(c),
                    num(a[c]),
                    num(b[c]),
                    snum(b[c] - a[c]),
                    pct(a[c] / tot_a, 0) if tot_a else "–",
                    pct(b[c] / tot_b, 0) if tot_b else "–",
                )
            )
        rows.append(
            (
                f"{p}",
                "<b>total</b>",
                f"<b>{num(tot_a)}</b>",
                f"<b>{num(tot_b)}</b>",
                f"<b>{snum(tot_b - tot_a)}</b>",
                "",
                "",
            )
        )
        moves = sorted(cats, key=lambda c: -abs(b[c] - a[c]))
        big = [c for c in moves if abs(b[c] - a[c]) >= max(0.05 * abs(tot_a), 1e-9)][:2]
        if big:
            notes.append(
                f"<b>{esc(lo)}, {p} players:</b> points shift in "
                + ", ".join(f"{esc(c)} ({snum(b[c] - a[c])} per player)" for c in big)
                + f"; total {num(tot_a)} → {num(tot_b)}."
            )
    tbl = table(
        ["players", "category", esc(lb), esc(lo), "Δ", f"share {esc(lb)}", f"share {esc(lo)}"],
        rows,
        [True, False, True, True, True, True, True],
        group_col=0,
    )
    return (
        "<p class='how'>mean points per player (all seats) from each scoring category; the share "
        "columns show how much of the total each category makes up.</p>" + tbl
    ), notes


def _win_notes(df: pl.DataFrame, lo: str) -> list[str]:
    out = []
    for r in df.iter_rows(named=True):
        if r["sig_win"]:
            a, b = r["d_win_lo"], r["d_win_hi"]
            seats = r["seats"]
            per = f" per seat ({seats:.0f} seats)" if not _bad(seats) and seats > 1.0001 else ""
            out.append(
                f"<b>{esc(lo)}, {r['n_players']} players:</b> {esc(r['bot'])}'s win rate{per} "
                f"{'rises' if r['d_win'] > 0 else 'falls'} {spct(r['d_win'])} "
                f"({pct(r['win_base'])} → {pct(r['win_other'])}, 95% CI {ci(a, b, spct)}, "
                f"Holm-adjusted {esc(pval(r['q_win']))}){sig_mark(True)}."
            )
    return out


def holm_marks(dfs: list[pl.DataFrame]) -> list[pl.DataFrame]:
    """Holm's correction across every win-rate change in ``dfs`` (one family) and, separately, every mean
    score change: adds ``q_win``/``q_score`` (adjusted p) and ``sig_win``/``sig_score`` (marked, q < 0.05)."""
    sizes = [d.height for d in dfs]
    q = {
        k: holm(np.concatenate([d[f"p_{k}"].to_numpy() for d in dfs])) if sum(sizes) else np.zeros(0)
        for k in ("win", "score")
    }
    out, i = [], 0
    for d, n in zip(dfs, sizes):
        cols = []
        for k in ("win", "score"):
            qk = q[k][i : i + n]
            cols += [pl.Series(f"q_{k}", qk), pl.Series(f"sig_{k}", np.nan_to_num(qk, nan=1.0) < 0.05)]
        out.append(d.with_columns(cols))
        i += n
    return out


def _family_size(dfs: list[pl.DataFrame], k: str) -> int:
    return int(sum(np.isfinite(d[f"p_{k}"].to_numpy()).sum() for d in dfs))


def holm_note(m_win: int, m_score: int) -> str:
    return (
        f"Multiple comparisons: a change is marked ● (and listed here) when it stays significant after "
        f"Holm's step-down correction (Holm 1979) across all {m_win} win-rate comparison"
        f"{'s' if m_win != 1 else ''} in this report (mean-score changes: a separate family of {m_score}), "
        "which keeps the chance of any false mark at 5%. The 95% intervals are per comparison, so an interval "
        "that just misses zero may stay unmarked. Win rates of a bot in several seats are per seat."
    )


def comparison_section(runs: list[Run], stats: list[RunStats], labels: list[str], colors: dict[str, str]) -> str:
    base, lb = runs[0], labels[0]
    blocks, findings = [], []
    seats = stats[0].by_bot.select("n_players", "bot", pl.col("seats_per_game").alias("seats"))
    pairs = [pairing(base, run) for run in runs[1:]]
    dfs = [
        (paired_compare(base, run) if ok else unpaired_compare(stats[0], st)).join(
            seats, on=["n_players", "bot"], how="left"
        )
        for (ok, _), run, st in zip(pairs, runs[1:], stats[1:])
    ]
    dfs = holm_marks(dfs)
    m_win, m_score = _family_size(dfs, "win"), _family_size(dfs, "score")
    for run, st, lab, (ok, reason), df in zip(runs[1:], stats[1:], labels[1:], pairs, dfs):
        if ok:
            blocks.append(_paired_block(df, lb, lab, colors, reason))
        else:
            blocks.append(_unpaired_block(df, lb, lab, colors, reason))
        wn = _win_notes(df, lab) if df.height else []
        findings += wn or [
            f"<b>{esc(lab)}:</b> no bot's win rate changes significantly against {esc(lb)} "
            f"({'paired' if ok else 'unpaired'} comparison, Holm's correction)."
        ]
        cat_html, cat_notes = _category_shift(base, stats[0], run, st, lb, lab)
        findings += cat_notes
        if cat_html:
            blocks.append(f"<h4>{esc(lab)} vs {esc(lb)}: where the points come from</h4>{cat_html}")
    parts = [
        '<section class="block" id="comparison"><h2>Comparison</h2>',
        f"<p>Baseline: <b>{esc(lb)}</b> (the first run given). Every difference is <i>other run − baseline</i>.</p>",
        "<h3>What changed</h3>",
        _what_changed(runs, labels),
        "<div class='findings'><h4>Key changes</h4><ul>"
        + "".join(f"<li>{f}</li>" for f in findings)
        + "</ul>"
        + f"<p class='muted'>{holm_note(m_win, m_score)}</p></div>",
        "<h3>Differences against the baseline</h3>",
        *blocks,
        "</section>",
    ]
    return "\n".join(parts)


def sweep_section(runs: list[Run], stats: list[RunStats], labels: list[str], param: str, colors: dict[str, str]) -> str:
    order = sweep_order(runs, param)
    xs = [runs[i].params.get(param) for i in order]
    xl = [fmt_value(x) for x in xs]
    common = sorted(set.intersection(*[set(r.players) for r in runs]))
    cats = [c for c in runs[0].categories if all(c in r.categories for r in runs)]
    parts = [
        f'<section class="block" id="sweep"><h2>Sweep over <code>{esc(param)}</code></h2>',
        f"<p>The runs differ only in <code>{esc(param)}</code> (values {esc(', '.join(xl))}); the charts "
        "show how the balance moves with it.</p>",
    ]
    if not common:
        parts.append("<p class='muted'>The runs share no player count; nothing to chart.</p></section>")
        return "\n".join(parts)
    for p in common:
        win_rows, cat_rows = [], []
        for j, i in enumerate(order):
            bb = stats[i].by_bot.filter(pl.col("n_players") == p)
            win_rows.append(
                bb.select("bot", "win_rate", "lo", "hi", "mean_score", "seats_per_game").with_columns(
                    pl.lit(j).alias("i")
                )
            )
            n = bb["n"].sum()
            cat_rows.append(
                {
                    "i": j,
                    **{f"cat_{c}": float((bb[f"cat_{c}"] * bb["n"]).sum() / n) for c in cats},
                    "score": float((bb["mean_score"] * bb["n"]).sum() / n),
                }
            )
        win = pl.concat(win_rows)
        catdf = pl.DataFrame(cat_rows)
        parts.append(f"<h3>{p} players</h3>")
        if cats:
            parts.append(
                figure(
                    charts.sweep_chart(param, xs, xl, win, catdf, cats, colors, p),
                    f"sweep over {param}",
                    f"left: win rate per bot at each value of {esc(param)} with 95% intervals (Wilson; by game for a "
                    f"bot in several seats; dashed = fair share); right: average points per player from each scoring category. Steep lines show what the "
                    f"parameter really drives.",
                )
            )
        bots = [b for b in colors if b in set(win["bot"].to_list())]
        rows = []
        for j, x in enumerate(xl):
            w = win.filter(pl.col("i") == j)
            cells = []
            for b in bots:
                wb = w.filter(pl.col("bot") == b)
                cells.append(pct(wb["win_rate"][0]) if wb.height else "–")
            cr = catdf.filter(pl.col("i") == j).row(0, named=True)
            rows.append((esc(x), esc(labels[order[j]]), *cells, *[num(cr[f"cat_{c}"]) for c in cats], num(cr["score"])))
        multi = {b for b in bots if (win.filter(pl.col("bot") == b)["seats_per_game"] > 1.0001).any()}
        head = [
            esc(param),
            "run",
            *[f"win {esc(b)}" + (" <span class='muted'>(per seat)</span>" if b in multi else "") for b in bots],
            *[esc(c) for c in cats],
            "mean score",
        ]
        parts.append(table(head, rows, [True, False, *[True] * (len(bots) + len(cats) + 1)]))
    parts.append(
        "<p class='muted'>Which changes against the baseline are significant is marked in the "
        "Comparison section, with Holm's correction across all the comparisons it marks; a sweep makes "
        "many comparisons, so single points outside the whiskers are not by themselves evidence.</p>"
    )
    parts.append("</section>")
    return "\n".join(parts)


# -- entry point -----------------------------------------------------------------------------


def _unique_labels(runs: list[Run]) -> list[str]:
    out: list[str] = []
    for r in runs:
        lab = r.label
        base, k = lab, 2
        while lab in out:
            lab = f"{base} ({k})"
            k += 1
        out.append(lab)
    return out


def _bot_order(runs: list[Run], stats: list[RunStats]) -> list[str]:
    names: list[str] = []
    for r, st in zip(runs, stats):
        for _, lineup in sorted(r.lineups.items(), key=lambda kv: int(kv[0])):
            for b in lineup:
                if b not in names:
                    names.append(b)
        for b in st.by_bot["bot"].to_list():
            if b not in names:
                names.append(b)
    return names


def _output_path(out: Path) -> Path:
    """Where the report goes (``OUT/report.html`` for an existing directory); checked before any work."""
    if out.is_dir():
        out = out / "report.html"
    anc = out.parent
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    if not anc.is_dir():
        raise MeeplabError(f"{out}: cannot write report ({anc} is not a directory)")
    if not os.access(anc, os.W_OK):
        raise MeeplabError(f"{out}: cannot write report ({anc} is not writable)")
    return out


def build_report(paths: list[str | Path], out: str | Path, title: str | None = None) -> Path:
    """Write one self-contained HTML report for the run directories ``paths`` to ``out``.

    With several runs the first is the baseline of the comparison section. Returns the path written.
    Bad inputs raise :class:`MeeplabError` naming the path."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    paths = list(paths)
    if not paths:
        raise MeeplabError("report: no run directories given")
    from .ladder import build_ladder_report, is_ladder

    if len(paths) == 1 and is_ladder(paths[0]):  # meeplab ladder's directory: its own report
        return build_ladder_report(paths[0], out, title)
    from .options import build_options_report, is_options

    if len(paths) == 1 and is_options(paths[0]):  # meeplab options' directory: its own report
        return build_options_report(paths[0], out, title)
    out = _output_path(Path(out))
    runs = [load_run(p) for p in paths]
    stats = [run_stats(r) for r in runs]
    labels = _unique_labels(runs)
    anchors = []
    for lab in labels:
        a = "run-" + slug(lab)
        while a in anchors:
            a += "-x"
        anchors.append(a)
    colors = charts.colors_for(_bot_order(runs, stats))

    games = sorted({r.title for r in runs})
    if title is None:
        title = (
            f"{' / '.join(games)} balance report"
            if len(runs) == 1
            else (f"{' / '.join(games)}: {len(runs)} runs compared")
        )
    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    subtitle = esc(
        f"{len(runs)} run{'s' if len(runs) > 1 else ''} · "
        f"{sum(int(s.games['games'].sum()) for s in stats):,} games · generated {now}"
    )

    sweep = sweep_param(runs) if len(runs) > 1 else None
    from .sweep2 import grid_params, grid_section

    grid = grid_params(runs) if len(runs) > 2 and not sweep else None
    toc_links = []
    body = []
    if len(runs) > 1:
        toc_links.append(("comparison", "Comparison"))
        if sweep:
            toc_links.append(("sweep", f"Sweep: {sweep}"))
        if grid:
            toc_links.append(("sweep2", f"Sweep: {grid[0]} × {grid[1]}"))
        body.append(
            '<section class="block" id="overview"><h2>Runs in this report</h2>'
            + _overview(runs, stats, labels, anchors)
            + "</section>"
        )
    toc_links += [(a, lab) for a, lab in zip(anchors, labels)]
    if len(runs) > 1:  # the comparison first: it is what a multi-run report is for
        seq = [(i, r.meta["sprt"]) for i, r in enumerate(runs) if i and isinstance(r.meta.get("sprt"), dict)]
        if seq:  # compare --until-significant: the sequential test's verdict leads
            from .sequential import sprt_section

            toc_links.insert(0, ("sequential", "Sequential test"))
            body += [sprt_section(rec, labels[0], labels[i]) for i, rec in seq]
        body.append(comparison_section(runs, stats, labels, colors))
        if sweep:
            body.append(sweep_section(runs, stats, labels, sweep, colors))
        if grid:
            body.append(grid_section(runs, stats, labels, grid))
    for run, st, lab, a in zip(runs, stats, labels, anchors):
        body.append(run_section(run, st, lab, a, colors))
    toc = ""
    if len(toc_links) > 1:
        toc = "<nav class='toc'>" + "".join(f"<a href='#{a}'>{esc(t)}</a>" for a, t in toc_links) + "</nav>"
    doc = page(
        esc(title),
        subtitle,
        toc,
        "\n".join(body),
        "meeplab balance report · win rates count a k-way shared first place as 1/k · intervals are 95%",
    )

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(doc, encoding="utf-8")
    except OSError as exc:
        raise MeeplabError(f"{out}: cannot write report ({exc.strerror or exc})") from None
    return out
