"""The sections of one run's report: facts, key findings, win rates, seats, ties, scores, points, length, distinct
games and ranks. Each builder returns a view model (:mod:`reports.views`) that ``templates/run.html.j2`` renders."""

from __future__ import annotations

import math

import polars as pl

from meeplab.analysis.load import Run
from meeplab.analysis.rungs import rung_text
from meeplab.analysis.stats import FAIR_MARGIN, SEAT_METHOD, RunStats, distinct_games, fair_within, run_has_chance

from . import charts
from .format import (
    BR,
    b,
    badge,
    ci,
    code,
    figure,
    fmt_duration,
    fmt_value,
    muted,
    num,
    pct,
    pval,
    seats_text,
    sig_mark,
    spct,
    table,
    tag,
)
from .quality import skill_note
from .views import (
    Fact,
    FigureTable,
    Fragment,
    RunHeader,
    RunSection,
    SeatFairness,
    StatusWarning,
    Tag,
    WinRateTable,
)

SAFETY_WARN = 0.01  # findings from a table where more than this share of games ended by a safety net get a warning


def games_text(run: Run, st: RunStats) -> str:
    req = run.meta.get("games")
    parts = []
    for r in st.games.iter_rows(named=True):
        g = r["games"]
        if isinstance(req, int) and req != g:
            parts.append(f"{num(g, 0)} of {num(req, 0)} ({r['n_players']}P)")
        else:
            parts.append(f"{num(g, 0)} ({r['n_players']}P)")
    return ", ".join(parts)


def status_badge(run: Run) -> Tag:
    return badge("complete", "ok") if run.status == "complete" else badge(run.status, "warn")


def status_warning(run: Run, st: RunStats) -> StatusWarning | None:
    """What an incomplete run's warning says (None for a complete run)."""
    if run.complete:
        return None
    req = run.meta.get("games")
    heads = {"interrupted": "Interrupted run.", "running": "Run still in progress."}
    return StatusWarning(
        head=heads.get(run.status, f"Run status “{run.status}”."),
        done=", ".join(f"{num(r['games'], 0)} at {r['n_players']}P" for r in st.games.iter_rows(named=True)),
        requested=num(req, 0) if isinstance(req, int) else None,
        source=str(run.source),
    )


def lineup_text(run: Run) -> list[Fragment]:
    lu = run.lineups
    out: list[Fragment] = []
    if lu:
        for k, (p, v) in enumerate(sorted(lu.items(), key=lambda kv: int(kv[0]))):
            out += [BR] if k else []
            out.append(f"{p}P: {', '.join(v)}")
    else:
        out.append(", ".join(map(str, run.meta.get("bots", []))) or "–")
    rot = "rotated over seats game by game" if run.rotate else "fixed seats (not rotated)"
    names = [b for v in (lu or {}).values() for b in v] or list(run.meta.get("bots", []))
    rungs = rung_text(run.game, names)
    return [*out, BR, muted(rot)] + ([BR, muted(f"skill ladder: {rungs}")] if rungs else [])


def header(run: Run, st: RunStats) -> RunHeader:
    """The facts of a run, its notes and its parameters."""
    m = run.meta
    gps = m.get("games_per_second")
    wall: list[Fragment] = [fmt_duration(m.get("wall_time_s"))]
    if isinstance(m.get("compile_time_s"), (int, float)):
        wall += [BR, muted(f"of which {fmt_duration(m.get('compile_time_s'))} compile/load")]  # wall_time_s includes it
    facts = [
        Fact("Games played", games_text(run, st)),
        Fact("Player counts", ", ".join(str(p) for p in run.players)),
        Fact("Seed", str(run.seed if run.seed is not None else "–")),
        Fact("Lineup", lineup_text(run), wide=True),
        Fact("Speed", f"{gps:,.0f} games/s" if isinstance(gps, (int, float)) else "–"),
        Fact("Wall time", wall),
        Fact("Threads", str(m.get("threads", "–"))),
        Fact("Started", str(m.get("started", "–")).replace("T", " ")[:19]),
    ]
    if m.get("version"):
        facts.append(Fact("Game version", str(m["version"])))
    notes = m.get("notes") or []
    if isinstance(notes, str):
        notes = [notes]
    changed = run.params_changed
    rows = [(code(k), fmt_value(v)) for k, v in changed.items()]
    all_rows = [
        (code(k), [fmt_value(v), [" ", badge("changed", "info")] if k in changed else ""])
        for k, v in run.params.items()
    ]
    return RunHeader(
        warning=status_warning(run, st),
        facts=tuple(facts),
        notes=tuple(str(n) for n in notes),
        changed=table(["parameter", "value"], rows) if changed else None,
        params=table(["parameter", "value"], all_rows) if run.params else None,
        n_params=len(run.params),
        command=m.get("command") or None,
    )


def seat_finding(st: RunStats, p: int, seats: pl.DataFrame) -> list[Fragment]:
    """The seat verdict, from the same model, intervals and marks as the seat table."""
    m = st.seat_model.get(p)
    head = b(f"Seats at {p} players:")
    if m is None or not m.estimable:
        best = seats.sort("win_rate", descending=True).row(0, named=True)
        worst = seats.sort("win_rate").row(0, named=True)
        why = m.reason if m is not None else "no seat model"
        return [
            head,
            f" win rates from {pct(worst['win_rate'])} (seat {worst['seat'] + 1}) to {pct(best['win_rate'])} "
            f"(seat {best['seat'] + 1}); the seat effect cannot be estimated: {why}.",
        ]
    best = seats.sort("adj_rate", descending=True).row(0, named=True)
    worst = seats.sort("adj_rate").row(0, named=True)
    sig = m.significant
    marked = [r for r in seats.iter_rows(named=True) if r["sig"]]
    text: list[Fragment] = [
        head,
        f" among equally strong bots the seats would win from {pct(worst['adj_rate'])} (seat {worst['seat'] + 1}) "
        f"to {pct(best['adj_rate'])} (seat {best['seat'] + 1}); score test {pval(m.p)}, ",
    ]
    # a bot that never won leaves the model's choice sets: say so, the seats are compared through the others' games
    idle = [f" {', '.join(m.never_won)} never won at {p} players and adds nothing to the seat model."]
    idle = idle if m.never_won else []
    if not sig:
        fair, ruled = fair_within(seats["adv_lo"].to_list(), seats["adv_hi"].to_list())
        if fair:
            verdict = (
                f"no significant seat effect, and fair within ±{FAIR_MARGIN * 100:.0f} pp: every seat's interval "
                "lies there."
            )
        elif ruled == ruled:
            verdict = (
                f"no significant seat effect found, which is not fairness: the intervals cannot rule out seat "
                f"effects up to ±{ruled * 100:.1f} pp (fair within ±{FAIR_MARGIN * 100:.0f} pp needs more games)."
            )
        else:
            verdict = "no significant seat effect."
        return [*text, verdict, *idle]
    text += ["a ", tag("span", "significant seat effect", "sig")]
    if not marked:
        return [*text, ", though no single seat's interval excludes the fair share.", *idle]
    text.append(": ")
    for k, r in enumerate(marked):
        text += [", "] if k else []
        text += [
            f"seat {r['seat'] + 1} {'advantage' if r['adv'] > 0 else 'handicap'} {spct(r['adv'])} "
            f"(95% CI {ci(r['adv_lo'], r['adv_hi'], spct)})",
            sig_mark(True, "see Seat fairness"),
        ]
    return [*text, ".", *idle]


def safety_finding(st: RunStats, g: dict) -> list[Fragment]:
    """How many games at this player count a safety net ended (not the rule book), by end code."""
    p = g["n_players"]
    codes = ""
    if st.endings is not None:
        e = st.endings.filter((pl.col("n_players") == p) & (pl.col("end") != "rules"))
        codes = ", ".join(f"{r['end']} {num(r['games'], 0)}" for r in e.iter_rows(named=True))
    return [
        b(f"Endings at {p} players:"),
        f" {pct(g['safety_share'])} of games ({num(g['safety_games'], 0)} of {num(g['games'], 0)}) ended by a "
        f'safety net, not by the rule book ({codes}; what each means: docs/user-guide.md, "How games end").',
    ]


def findings(run: Run, st: RunStats) -> list[Fragment]:
    """The key findings of one run, one fragment each."""
    items: list[Fragment] = []
    for g in st.games.iter_rows(named=True):
        p = g["n_players"]
        first = len(items)
        bb = st.by_bot.filter(pl.col("n_players") == p).sort("win_rate", descending=True)
        if bb.height > 1:
            top, second = bb.row(0, named=True), bb.row(1, named=True)
            clear = top["clear_lead"]
            seats = top["seats_per_game"]
            many = f" per seat ({seats:.0f} seats, {pct(top['games_won'])} of all games)" if top["by_game"] else ""
            items.append(
                [
                    b(f"{p} players:"),
                    " ",
                    b(top["bot"]),
                    f" wins most often, {pct(top['win_rate'])}{many} (95% CI {ci(top['lo'], top['hi'])}) against "
                    f"{pct(1 / p)} fair share; next is {second['bot']} at {pct(second['win_rate'])}"
                    + (
                        "; the intervals do not overlap."
                        if clear
                        else "; the intervals overlap, so the lead is not clear."
                    ),
                ]
            )
        seats = st.by_seat.filter(pl.col("n_players") == p).sort("seat")
        if seats.height > 1:
            items.append(seat_finding(st, p, seats))
        items.append([b(f"Ties at {p} players:"), f" {pct(g['tie_share'])} of games end with a shared first place."])
        share = g.get("safety_share") or 0.0
        if share > 0:
            items.append(safety_finding(st, g))
        if share > SAFETY_WARN:
            warn = tag(
                "span",
                f"⚠ {pct(share)} of the {p}-player games ended by a safety net, not the rule book:",
                "warnmark",
                title=f"more than {pct(SAFETY_WARN, 0)} of these games ended by a safety net",
            )
            items[first:] = [[warn, " ", i] for i in items[first:]]
    if run.categories:
        bb = st.by_bot
        tot = {c: float((bb[f"cat_{c}"] * bb["n"]).sum()) for c in run.categories}
        allp = sum(abs(v) for v in tot.values())
        if allp > 0:
            order = sorted(tot, key=lambda c: -tot[c])
            top = order[0]
            rest = f"), then {order[1]} ({pct(tot[order[1]] / allp, 0)})." if len(order) > 1 else ")."
            items.append(
                [
                    b("Points (lowest score wins):" if run.lower_wins else "Points:"),
                    " the largest source is ",
                    b(top),
                    f" ({pct(tot[top] / allp, 0)} of all points{rest}",
                ]
            )
    if run.lower_wins:
        items.insert(0, [b("Lowest score wins:"), " ranks, win rates and ties read the lowest score as the best."])
    return items


def win_section(st: RunStats, colors: dict[str, str]) -> WinRateTable:
    bb = st.by_bot
    rows = [
        (
            f"{r['n_players']}",
            r["bot"],
            seats_text(r["seats_per_game"]),
            num(r["wins"], 1),
            pct(r["win_rate"]),
            ci(r["lo"], r["hi"]) + (" †" if r["by_game"] else ""),
            pct(1 / r["n_players"]),
            pct(r["games_won"]),
            num(r["mean_score"]),
            num(r["sd_score"]),
            num(r["mean_rank"]),
        )
        for r in bb.iter_rows(named=True)
    ]
    head = [
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
    ]
    return WinRateTable(
        figure=figure(
            charts.win_rate_by_bot(bb, colors),
            "win rate per bot",
            "each bar is the share of its seats a bot won (a k-way shared first place counts 1/k); the black "
            "whisker is the 95% interval of the table and the dashed line is the fair share 1/P. A bot whose "
            "whisker stays clear of the dashed line is genuinely stronger or weaker than average.",
        ),
        table=table(head, rows, [True, False, *[True] * 9], group_col=0),
        several_seats=bool(bb["by_game"].any()),
    )


def seat_section(run: Run, st: RunStats) -> SeatFairness:
    bs = st.by_seat
    rows, chart = [], []
    for r in bs.iter_rows(named=True):
        p = r["n_players"]
        m = st.seat_model.get(p)
        est = m is not None and m.estimable
        dev = r["adv"] if est else math.nan
        mark = sig_mark(r["sig"], "seat effect: score test significant and this interval excludes 0")
        rows.append(
            (
                f"{p}",
                f"{r['seat'] + 1}" + (" (start)" if r["seat"] == 0 else ""),
                num(r["n"], 0),
                pct(r["win_rate"]),
                ci(r["lo"], r["hi"]),
                pct(r["adj_rate"]) if est else "–",
                [tag("span", spct(dev), "pos" if dev >= 0 else "neg"), mark] if est else "–",
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
    head = ["players", "seat", "games", "win rate", "95% CI", "among equal bots", "vs fair share", "95% CI"]
    tests = ", ".join(
        f"{p}P: {pval(m.p)}" if m.estimable else f"{p}P: not estimable ({m.reason})" for p, m in st.seat_model.items()
    )
    mixed = any(st.by_bot.filter(pl.col("n_players") == p).height > 1 for p in run.players)
    return SeatFairness(
        unrotated=not run.rotate and mixed,
        figure=figure(
            charts.win_rate_by_seat(pl.DataFrame(chart)),
            "win rate per seat",
            "seat 1 is the start player. Each bar is what the seat would win among equally strong bots "
            "(the seat model below, which takes the lineup into account; the raw win rate where seats and "
            "bots cannot be told apart), with its 95% interval. With a fair game every bar sits on the "
            "dashed fair-share line.",
        ),
        table=table([*head, "mean score"], rows, [True, False, *[True] * 7], group_col=0),
        method=SEAT_METHOD,
        tests=tests,
    )


def tie_section(st: RunStats) -> FigureTable:
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
    return FigureTable(table=table(head, rows, [True] * len(head)))


def score_section(st: RunStats, colors: dict[str, str], lower_wins: bool = False) -> FigureTable:
    fig = None
    if st.score_hist.height:
        fig = figure(
            charts.score_histogram(st.score_hist, colors),
            "score distribution per bot" + (" (lowest score wins)" if lower_wins else ""),
            "the share of a bot's games that ended in each score band (one outline per bot). "
            "Far-apart humps mean the bots play very differently; a long tail shows occasional "
            "runaway scores." + (" In this game the lowest score wins: further left is better." if lower_wins else ""),
        )
    rows = [
        (
            f"{r['n_players']}",
            r["bot"],
            num(r["mean_score"]),
            num(r["sd_score"]),
            num(r["min_score"], 1),
            num(r["max_score"], 1),
        )
        for r in st.by_bot.iter_rows(named=True)
    ]
    head = ["players", "bot", "mean", "sd", "min", "max"]
    return FigureTable(fig, table(head, rows, [True, False, True, True, True, True], group_col=0))


def breakdown_section(run: Run, st: RunStats, colors: dict[str, str]) -> FigureTable | None:
    """Where the points come from (None: the game reports no score categories)."""
    cats = run.categories
    if not cats:
        return None
    rows = []
    for r in st.by_bot.iter_rows(named=True):
        total = sum(r[f"cat_{c}"] for c in cats)
        rows.append((f"{r['n_players']}", r["bot"], *[num(r[f"cat_{c}"]) for c in cats], num(total)))
    return FigureTable(
        figure(
            charts.score_breakdown(st.by_bot, cats, colors),
            "mean score breakdown",
            "each bar is a bot's average final score split into the game's scoring categories; wider "
            "segments are where that bot earns its points (negative categories extend left of zero). "
            + (
                "In this game the lowest score wins: wide positive segments are what a bot is penalised for, "
                "negative ones what saves it. Compare the segments between bots to see how the winners avoid points."
                if run.lower_wins
                else "Compare the segments between bots to see which scoring route the winners use."
            ),
        ),
        table(["players", "bot", *cats, "total"], rows, [True, False, *[True] * len(cats), True], group_col=0),
    )


def length_section(run: Run, st: RunStats) -> FigureTable:
    unit = run.length_unit
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
    return FigureTable(
        figure(
            charts.length_distribution(st.lengths, unit),
            "game length distribution",
            f"share of games lasting each number of {unit}; the dotted line is the mean. A wide spread "
            "means some games end early or drag on.",
        ),
        table(["players", f"mean {unit}", "sd", "min", "max"], rows, [True] * 5),
    )


def variety_section(run: Run) -> FigureTable | None:
    """For a game without chance once it starts: how many distinct games the run holds (else None)."""
    if run_has_chance(run):
        return None
    d = distinct_games(run)
    rows = [
        (f"{r['n_players']}", num(r["games"], 0), num(r["distinct"], 0), pct(r["distinct"] / max(r["games"], 1)))
        for r in d.iter_rows(named=True)
    ]
    return FigureTable(table=table(["players", "games", "distinct games", "share"], rows, [True] * 4))


def rank_section(st: RunStats, colors: dict[str, str]) -> FigureTable:
    return FigureTable(
        figure(
            charts.rank_distribution(st.ranks, colors),
            "rank distribution",
            "how often each bot finished 1st, 2nd, … (shared places count for every player sharing them). "
            "A dominant bot is mostly green; a bot that is often last is mostly red.",
        )
    )


def settled_notes(run: Run, st: RunStats) -> list[Fragment]:
    """The run's seat finding against the settled one its game ships (``analysis.settled``): a bot artefact at the
    default rules, or the advice to confirm away from them; one fragment each."""
    from meeplab.analysis.settled import run_disagreements

    return [[b("Settled finding:"), " ", text] for text in run_disagreements(run, st)]


def run_section(run: Run, st: RunStats, label: str, anchor: str, colors: dict[str, str]) -> RunSection:
    """One run's whole section, for ``run.html.j2``."""
    return RunSection(
        anchor=anchor,
        label=label,
        game=run.title,
        badge=status_badge(run),
        path=str(run.path),
        n_rows=num(run.n_rows, 0),
        header=header(run, st),
        findings=tuple(findings(run, st) + [n for n in [skill_note(run.meta)] if n] + settled_notes(run, st)),
        win=win_section(st, colors),
        seat=seat_section(run, st),
        ties=tie_section(st),
        score=score_section(st, colors, run.lower_wins),
        breakdown=breakdown_section(run, st, colors),
        length=length_section(run, st),
        variety=variety_section(run),
        ranks=rank_section(st, colors),
    )
