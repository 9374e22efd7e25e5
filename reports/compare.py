"""The sections of a report on several runs: the runs in it, the comparison against the baseline (paired or
unpaired blocks, category shifts, key changes with Holm's marks) and a one-parameter sweep. Each builder returns a
view model (:mod:`reports.views`) that ``templates/compare.html.j2`` and ``templates/sweep.html.j2`` render."""

from __future__ import annotations

import json

import polars as pl

from meeplab.analysis.compare import (
    category_means,
    differing_params,
    family_size,
    holm_marks,
    paired_compare,
    pairing,
    sweep_frames,
    sweep_order,
    unpaired_compare,
)
from meeplab.analysis.load import Run
from meeplab.analysis.stats import RunStats

from . import charts
from .format import (
    b,
    bad,
    bot_label,
    ci,
    code,
    diff_ci,
    figure,
    fmt_value,
    muted,
    num,
    pct,
    pval,
    sig_mark,
    snum,
    spct,
    table,
    tag,
)
from .gaps import gap_block, sweep_gaps
from .runs import games_text, status_badge
from .sequential import verdict_finding
from .views import (
    CategoryBlock,
    CompareBlock,
    ComparisonSection,
    Fragment,
    NoCommonBots,
    NoCommonGames,
    OverviewSection,
    PairedBlock,
    SweepCount,
    SweepSection,
    UnpairedBlock,
    WhatChanged,
)


def overview_section(runs: list[Run], stats: list[RunStats], labels: list[str], anchors: list[str]) -> OverviewSection:
    """ "Runs in this report": one row per run, linked to its section."""
    rows = []
    for run, st, lab, a in zip(runs, stats, labels, anchors):
        ch = ", ".join(f"{k}={fmt_value(v)}" for k, v in run.params_changed.items()) or "defaults"
        rows.append(
            (
                tag("a", lab, href=f"#{a}"),
                run.title,
                status_badge(run),
                games_text(run, st),
                str(run.seed),
                ", ".join(map(str, run.players)),
                ch,
            )
        )
    head = ["run", "game", "status", "games", "seed", "players", "parameters changed"]
    return OverviewSection(table(head, rows, [False, False, False, True, True, False, False]))


def what_changed(runs: list[Run], labels: list[str]) -> WhatChanged:
    names = differing_params(runs)
    rows = [(code(n), *[fmt_value(r.params.get(n, "–")) for r in runs]) for n in names]
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
    return WhatChanged(table(["parameter", *labels], rows) if names else None, ", ".join(other))


#: for a game whose lowest score wins (``GameSpec.lower_wins``): what a score difference means there
LOWER_IS_BETTER = "lower is better"


def score_head(lower_wins: bool) -> Fragment:
    """The "Δ score" column head; for a lower-wins game it says that a fall is the gain."""
    return ["Δ score", [" ", muted(f"({LOWER_IS_BETTER})")]] if lower_wins else "Δ score"


def lower_wins_finding() -> list[Fragment]:
    """The first key change of a comparison of a game whose lowest score wins."""
    return [
        b("Lowest score wins:"),
        " a bot gains when its mean score falls, so a Δ score below 0 is better (every difference stays other run − "
        "baseline); win rates, ranks and ties read the lowest score as the best.",
    ]


def paired_block(
    df: pl.DataFrame, lb: str, lo: str, colors: dict[str, str], reason: str, lower_wins: bool = False
) -> PairedBlock | NoCommonGames:
    if df.height == 0:
        return NoCommonGames(lb, lo)
    rows = [
        (
            f"{r['n_players']}",
            bot_label(r["bot"], r["seats"], r["by_game"]),
            num(r["games"], 0),
            f"{num(r['score_base'])} → {num(r['score_other'])}",
            [snum(r["d_score"]), sig_mark(r["sig_score"])],
            ci(r["d_score_lo"], r["d_score_hi"], snum),
            f"{pct(r['win_base'])} → {pct(r['win_other'])}",
            [spct(r["d_win"]), sig_mark(r["sig_win"])],
            diff_ci(r["d_win_lo"], r["d_win_hi"], r["win_base"], r["win_other"]),
            pct(r["changed"], 0),
        )
        for r in df.iter_rows(named=True)
    ]
    head = [
        "players",
        "bot",
        "paired games",
        "mean score",
        score_head(lower_wins),
        "95% CI",
        "win rate",
        "Δ win rate",
        "95% CI",
        "games with changed score",
    ]
    uri = charts.forest_pair(
        df.to_dicts(),
        [
            ("d_win", "d_win_lo", "d_win_hi", "win rate change (percentage points)", True),
            (
                "d_score",
                "d_score_lo",
                "d_score_hi",
                f"mean score change (points per game{'; ' + LOWER_IS_BETTER if lower_wins else ''})",
                False,
            ),
        ],
        colors,
    )
    how: list[Fragment] = [
        "each dot is how much a bot's win rate (left) or mean final score (right) changed from ",
        b(lb),
        " to ",
        b(lo),
        ", with its paired 95% interval. ● in the table marks the changes that stay significant after Holm's "
        "correction (see Key changes).",
    ]
    if lower_wins:
        how.append(" In this game the lowest score wins: a score change left of 0 is a gain for the bot.")
    return PairedBlock(
        base=lb,
        other=lo,
        reason=reason[:1].upper() + reason[1:],
        figure=figure(uri, "paired differences", how),
        table=table(head, rows, [True, False, *[True] * 8], group_col=0),
    )


def unpaired_block(
    df: pl.DataFrame, lb: str, lo: str, colors: dict[str, str], reason: str, lower_wins: bool = False
) -> UnpairedBlock | NoCommonBots:
    if df.height == 0:
        return NoCommonBots(lb, lo)
    rows = [
        (
            f"{r['n_players']}",
            bot_label(r["bot"], r["seats"], r["by_game"]),
            [pct(r["win_base"]), " ", muted(f"[{ci(r['win_base_lo'], r['win_base_hi'])}]")],
            [pct(r["win_other"]), " ", muted(f"[{ci(r['win_other_lo'], r['win_other_hi'])}]")],
            [spct(r["d_win"]), sig_mark(r["sig_win"])],
            diff_ci(r["d_win_lo"], r["d_win_hi"], r["win_base"], r["win_other"]),
            f"{num(r['score_base'])} → {num(r['score_other'])}",
            [snum(r["d_score"]), sig_mark(r["sig_score"])],
            ci(r["d_score_lo"], r["d_score_hi"], snum),
        )
        for r in df.iter_rows(named=True)
    ]
    head = [
        "players",
        "bot",
        f"win rate {lb}",
        f"win rate {lo}",
        "Δ win rate",
        "95% CI",
        "mean score",
        score_head(lower_wins),
        "95% CI",
    ]
    chart_rows = []
    for r in df.iter_rows(named=True):
        for label, k in ((lb, "base"), (lo, "other")):
            chart_rows.append(
                {
                    "label": label,
                    "n_players": r["n_players"],
                    "bot": r["bot"],
                    "win_rate": r[f"win_{k}"],
                    "lo": r[f"win_{k}_lo"],
                    "hi": r[f"win_{k}_hi"],
                }
            )
    return UnpairedBlock(
        base=lb,
        other=lo,
        reason=reason,
        lineups="lineups" in reason,
        figure=figure(
            charts.compare_win_rates(chart_rows, [lb, lo], colors),
            "win rates side by side",
            "win rate per bot in each run with its 95% interval (Wilson; by game for a bot in several "
            "seats). The runs are independent samples, so only clearly separated whiskers indicate a real "
            "difference.",
        ),
        table=table(head, rows, [True, False, *[True] * 7], group_col=0),
    )


def category_shift(
    base: Run, bst: RunStats, other: Run, ost: RunStats, lb: str, lo: str
) -> tuple[CategoryBlock | None, list[Fragment]]:
    """Table of points per player by category, baseline vs other, and finding lines for big shifts."""
    cats = [c for c in base.categories if c in other.categories]
    common = sorted(set(base.players) & set(other.players))
    if not cats or not common:
        return None, []
    rows: list[tuple[Fragment, ...]] = []
    notes: list[Fragment] = []
    for p in common:
        a, o = category_means(bst, p, cats), category_means(ost, p, cats)
        tot_a, tot_b = sum(a.values()), sum(o.values())
        # shares of all points as a run's report gives them: of the categories' absolute sum (a negative category,
        # a penalty or a lower-wins game's chips, would otherwise push another past 100 %)
        abs_a, abs_b = sum(abs(v) for v in a.values()), sum(abs(v) for v in o.values())
        for c in cats:
            rows.append(
                (
                    f"{p}",
                    c,
                    num(a[c]),
                    num(o[c]),
                    snum(o[c] - a[c]),
                    pct(a[c] / abs_a, 0) if abs_a else "–",
                    pct(o[c] / abs_b, 0) if abs_b else "–",
                )
            )
        rows.append((f"{p}", b("total"), b(num(tot_a)), b(num(tot_b)), b(snum(tot_b - tot_a)), "", ""))
        moves = sorted(cats, key=lambda c: -abs(o[c] - a[c]))
        big = [c for c in moves if abs(o[c] - a[c]) >= max(0.05 * abs(tot_a), 1e-9)][:2]
        if big:
            shifts = ", ".join(f"{c} ({snum(o[c] - a[c])} per player)" for c in big)
            sign = " (lowest score wins: points count against a player)" if base.lower_wins else ""
            notes.append(
                [b(f"{lo}, {p} players:"), f" points shift in {shifts}; total {num(tot_a)} → {num(tot_b)}{sign}."]
            )
    head = ["players", "category", lb, lo, "Δ", f"share {lb}", f"share {lo}"]
    return CategoryBlock(lb, lo, table(head, rows, [True, False, True, True, True, True, True], group_col=0)), notes


def win_notes(df: pl.DataFrame, lo: str) -> list[Fragment]:
    """The key changes of one comparison: its win-rate changes that stay significant after Holm's correction."""
    out: list[Fragment] = []
    for r in df.iter_rows(named=True):
        if r["sig_win"]:
            per = f" per seat ({r['seats']:.0f} seats)" if r["by_game"] and not bad(r["seats"]) else ""
            out.append(
                [
                    b(f"{lo}, {r['n_players']} players:"),
                    f" {r['bot']}'s win rate{per} {'rises' if r['d_win'] > 0 else 'falls'} {spct(r['d_win'])} "
                    f"({pct(r['win_base'])} → {pct(r['win_other'])}, 95% CI {ci(r['d_win_lo'], r['d_win_hi'], spct)}, "
                    f"Holm-adjusted {pval(r['q_win'])})",
                    sig_mark(True),
                    ".",
                ]
            )
    return out


def holm_note(m_win: int, m_score: int) -> str:
    return (
        f"Multiple comparisons: a change is marked ● (and listed here) when it stays significant after "
        f"Holm's step-down correction (Holm 1979) across all {m_win} win-rate comparison"
        f"{'s' if m_win != 1 else ''} in this report (mean-score changes: a separate family of {m_score}), "
        "which keeps the chance of any false mark at 5%. The 95% intervals are per comparison, so an interval "
        "that just misses zero may stay unmarked. Win rates of a bot in several seats are per seat."
    )


def comparison_section(
    runs: list[Run], stats: list[RunStats], labels: list[str], colors: dict[str, str]
) -> ComparisonSection:
    base, lb = runs[0], labels[0]
    blocks: list[CompareBlock] = []
    findings: list[Fragment] = []
    seats = stats[0].by_bot.select("n_players", "bot", pl.col("seats_per_game").alias("seats"), "by_game")
    pairs = [pairing(base, run) for run in runs[1:]]
    dfs = [
        (paired_compare(base, run) if ok else unpaired_compare(stats[0], st)).join(
            seats, on=["n_players", "bot"], how="left"
        )
        for (ok, _), run, st in zip(pairs, runs[1:], stats[1:])
    ]
    dfs = holm_marks(dfs)
    for run, st, lab, (ok, reason), df in zip(runs[1:], stats[1:], labels[1:], pairs, dfs):
        blocks.append((paired_block if ok else unpaired_block)(df, lb, lab, colors, reason, base.lower_wins))
        wn = win_notes(df, lab) if df.height else []
        seq = run.meta.get("sprt") if isinstance(run.meta.get("sprt"), dict) else None
        if seq:  # the sequential test decides: its verdict, word for word as in its own section
            findings += [verdict_finding(t, seq, f"{lab}, ") for t in seq.get("tests", [])]
        # one bot in every seat wins 1/P per seat by construction: saying its win rate did not change says nothing
        alone = df.height > 0 and "seats" in df.columns and bool((df["seats"] >= df["n_players"] - 1e-9).all())
        findings += wn or (
            []
            if seq or alone
            else [
                [
                    b(f"{lab}:"),
                    f" no bot's win rate changes significantly against {lb} "
                    f"({'paired' if ok else 'unpaired'} comparison, Holm's correction).",
                ]
            ]
        )
        cat_block, cat_notes = category_shift(base, stats[0], run, st, lb, lab)
        findings += cat_notes
        if cat_block:
            blocks.append(cat_block)
    gblock, gnotes, m_gap = gap_block(runs, labels)
    findings += gnotes or (
        [[b("Seat gap:"), " no run's seat gap changes significantly against the baseline (Holm's correction)."]]
        if m_gap
        else []
    )
    if base.lower_wins:
        findings.insert(0, lower_wins_finding())
    note = holm_note(family_size(dfs, "win"), family_size(dfs, "score"))
    if m_gap:
        note += f" Seat-gap changes are a family of their own ({m_gap} comparison{'s' if m_gap != 1 else ''})."
    return ComparisonSection(
        baseline=lb,
        changed=what_changed(runs, labels),
        findings=tuple(findings),
        holm_note=note,
        gaps=gblock,
        blocks=tuple(blocks),
    )


def sweep_section(
    runs: list[Run], stats: list[RunStats], labels: list[str], param: str, colors: dict[str, str]
) -> SweepSection:
    order = sweep_order(runs, param)
    xs = [runs[i].params.get(param) for i in order]
    xl = [fmt_value(x) for x in xs]
    common = sorted(set.intersection(*[set(r.players) for r in runs]))
    cats = [c for c in runs[0].categories if all(c in r.categories for r in runs)]
    counts = []
    for p in common:
        win, catdf = sweep_frames(stats, order, p, cats)
        fig = None
        if cats:
            fig = figure(
                charts.sweep_chart(param, xs, xl, win, catdf, cats, colors, p),
                f"sweep over {param}",
                f"left: win rate per bot at each value of {param} with 95% intervals (Wilson; by game for a "
                "bot in several seats; dashed = fair share); right: average points per player from each scoring "
                "category. Steep lines show what the parameter really drives.",
            )
        bots = [bot for bot in colors if bot in set(win["bot"].to_list())]
        sg = sweep_gaps(runs, order, param, xs, xl, p)
        rows = []
        for j, x in enumerate(xl):
            w = win.filter(pl.col("i") == j)
            cells = []
            for bot in bots:
                wb = w.filter(pl.col("bot") == bot)
                cells.append(pct(wb["win_rate"][0]) if wb.height else "–")
            cr = catdf.filter(pl.col("i") == j).row(0, named=True)
            rows.append(
                (
                    x,
                    labels[order[j]],
                    *cells,
                    sg.cells[j],
                    *[num(cr[f"cat_{c}"]) for c in cats],
                    num(cr["score"]),
                )
            )
        multi = {
            r["bot"]
            for i in order
            for r in stats[i].by_bot.filter((pl.col("n_players") == p) & pl.col("by_game")).iter_rows(named=True)
        }
        head = [
            param,
            "run",
            *[[f"win {bot}", [" ", muted("(per seat)")] if bot in multi else ""] for bot in bots],
            ["seat gap ", muted("(95% CI)")],
            *cats,
            ["mean score", [" ", muted(f"({LOWER_IS_BETTER})")]] if runs[0].lower_wins else "mean score",
        ]
        counts.append(
            SweepCount(
                n_players=p,
                figure=fig,
                gap_figure=sg.figure,
                table=table(head, rows, [True, False, *[True] * (len(bots) + len(cats) + 2)]),
            )
        )
    return SweepSection(param=param, value_text=", ".join(xl), counts=tuple(counts))
