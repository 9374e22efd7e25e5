"""The report section "Is it a good game?" (``meeplab quality``'s data in a run directory) and the line every report
of one-step bots carries (``skill_note``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import PercentFormatter

from meeplab.analysis.quality import (
    DECIDED,
    THRESHOLDS,
    band,
    calibrated,
    has_quality,
    load_quality,
    raw_miscalibrated,
)

from . import charts
from .format import b, ci, code, figure, num, pct, table
from .views import Figure, Fragment, QualitySection, QualitySettings, Table


def _iv(rec: dict, f=pct) -> str:
    return f"{f(rec.get('value'))} ({ci(rec.get('lo'), rec.get('hi'), f)})"


def _n2(x: Any) -> str:
    return num(x, 2)


def _panels(n: int):
    fig, axes = plt.subplots(1, n, figsize=(4.6 * n, 3.1), squeeze=False, sharey=True, layout="constrained")
    return fig, list(axes.ravel())


def _pct_axis(ax, top: float | None = None):
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_ylim(0, top if top is not None else ax.get_ylim()[1])


# -- charts -----------------------------------------------------------------------------------------------------------


def fan_chart(traj: pd.DataFrame, players: list[int]) -> str:
    """Per player count: the eventual winner's win probability over the game (median and 10-90 % band) against the
    other seats', from the estimates before the end (the result, 1 or 0, is not pooled into the last bin); the legend
    below the panels, clear of the curves."""
    fig, axes = _panels(len(players))
    bins = np.linspace(0, 1, 11)
    for ax, p in zip(axes, players):
        d = traj[traj["n_players"] == p]
        fin = d[d["final"]]
        winner = fin.loc[fin.groupby("game")["p_win"].idxmax(), ["game", "seat"]].rename(columns={"seat": "w"})
        d = d[~d["final"]].merge(winner, on="game")
        d = d.assign(is_w=d["seat"] == d["w"], bin=np.clip(np.digitize(d["progress"], bins) - 1, 0, len(bins) - 2))
        for is_w, color, label in ((True, charts.PALETTE[0], "eventual winner"), (False, charts.PALETTE[1], "others")):
            g = d[d["is_w"] == is_w].groupby("bin")["p_win"]
            x = (bins[:-1] + bins[1:])[g.median().index] / 2
            ax.fill_between(x, g.quantile(0.1), g.quantile(0.9), color=color, alpha=0.2, lw=0)
            ax.plot(x, g.median(), color=color, lw=2, label=label)
        ax.axhline(1 / p, color=charts.FAIR, ls="--", lw=1)
        ax.axhline(DECIDED, color=charts.FAIR, ls=":", lw=1)
        ax.set_title(f"{p} players")
        ax.set_xlabel("share of the game played")
        ax.set_xlim(0, 1)
        _pct_axis(ax, 1.02)
    axes[0].set_ylabel("win probability")
    charts.fit_legend(fig, *axes[0].get_legend_handles_labels(), ncol=2)
    return charts.to_uri(fig)


def histograms(q: dict, players: list[int]) -> str:
    """Lead changes per game and winning margins, one row per player count."""
    fig, axes = plt.subplots(len(players), 2, figsize=(8.4, 2.6 * len(players)), squeeze=False, layout="constrained")
    for row, p in zip(axes, players):
        rec = q["players"][str(p)]
        h = rec["lead_changes"]["histogram"]
        ks = sorted(int(k) for k in h)
        n = sum(h.values())
        row[0].bar(ks, [h[str(k)] / n for k in ks], color=charts.PALETTE[0])
        row[0].set_title(f"{p} players: lead changes per game")
        row[0].set_xticks(ks)
        _pct_axis(row[0])
        m = rec["margin"]
        edges = np.asarray(m["edges"])
        cnt = np.asarray(m["counts"], dtype=float)
        row[1].bar(edges[:-1], cnt / cnt.sum(), width=np.diff(edges), align="edge", color=charts.PALETTE[2])
        row[1].set_title(f"{p} players: winning margin (points)")
        _pct_axis(row[1])
    return charts.to_uri(fig)


def calibration_chart(q: dict, players: list[int]) -> str:
    """Per player count: the observed win rate (with its interval) against the estimated win probability, by bin of
    the estimate; on the diagonal the estimates are calibrated."""
    fig, axes = _panels(len(players))
    for ax, p in zip(axes, players):
        cal = q["players"][str(p)].get("calibration") or {}
        rows = cal.get("bins") or []
        ax.plot([0, 1], [0, 1], color=charts.FAIR, ls="--", lw=1, label="calibrated")
        if rows:
            x = np.array([r["predicted"] for r in rows])
            y = np.array([r["observed"] for r in rows])
            lo = np.array([r["observed_lo"] for r in rows])
            hi = np.array([r["observed_hi"] for r in rows])
            ax.errorbar(x, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], fmt="o-", color=charts.PALETTE[0],
                        capsize=3, lw=1.5, label="recalibrated" if cal.get("raw") else "observed")  # fmt: skip
        raw = (cal.get("raw") or {}).get("bins") or []
        if raw:  # recalibrated: the playouts' own estimates beside, dotted
            ax.plot([r["predicted"] for r in raw], [r["observed"] for r in raw], "s:", color=charts.PALETTE[1],
                    lw=1.2, ms=4, label="playouts' own estimates")  # fmt: skip
        err = cal.get("value")
        ax.set_title(
            f"{p} players"
            + (f": error {pct(err)}" if err is not None else "")
            + (f" ({pct(cal['raw']['value'])} before recalibration)" if raw else "")
        )
        ax.set_xlabel("estimated win probability")
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        _pct_axis(ax, 1.02)
    axes[0].set_ylabel("observed win rate")
    axes[0].legend(loc="upper left")
    return charts.to_uri(fig)


def skill_bar(q: dict, players: list[int]) -> str:
    """Relative skill per player count: a bar split into skill (RS) and luck (1 - RS), with RS's interval."""
    fig, ax = plt.subplots(figsize=(6.4, 0.6 + 0.55 * len(players)), layout="constrained")
    for i, p in enumerate(players):
        rs = q["players"][str(p)].get("relative_skill") or {}
        v = rs.get("value")
        if v is None:
            continue
        v = min(max(v, 0.0), 1.0)
        ax.barh(i, v, color=charts.PALETTE[0], label="skill" if i == 0 else None)
        ax.barh(i, 1 - v, left=v, color=charts.PALETTE[1], alpha=0.6, label="luck" if i == 0 else None)
        lo, hi = rs.get("lo"), rs.get("hi")
        if lo is not None and hi is not None:
            ax.errorbar(v, i, xerr=[[max(v - lo, 0)], [max(hi - v, 0)]], color=charts.INK, capsize=4)
    ax.set_yticks(range(len(players)), [f"{p} players" for p in players])
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("relative skill RS = learning effect / (learning + random effect)")
    charts.fit_legend(fig, *ax.get_legend_handles_labels(), ncol=2)
    return charts.to_uri(fig)


# -- findings ---------------------------------------------------------------------------------------------------------

#: the findings' lines that rest on the win-probability trajectories (analysis.quality.TRAJECTORY_METRICS)
FROM_TRAJECTORIES = (
    "lead changes",
    "decisiveness",
    "drama",
    "uncertainty",
    "comebacks",
    "runaway leader",
    "kingmaking",
)


def _budget(rec: dict, key: str, f=pct) -> list:
    """The two-budget check of metric ``key`` as a finding's tail: its value at half the playouts and whether the
    two agree (``settled``) or not (``not settled at this budget``); empty without the check."""
    tb = rec.get("two_budgets") or {}
    c = tb.get(key)
    if not c:
        return []
    d = c["difference"]
    half = f"at half the playouts ({num(tb.get('playouts_half'), 0)} per point) {_iv(c['half'], f)}, "
    diff = f"difference {f(d.get('value'))} ({ci(d.get('lo'), d.get('hi'), f)})"
    if c["verdict"] == "settled":
        return [f" Two budgets: {half}{diff}: settled."]
    return [" Two budgets: ", half, diff, ": ", b("not settled at this budget"), " (more playouts per point)."]


def _kind_name(names: list[str], kind: int) -> str:
    return f"{names[kind]} ({kind})" if 0 <= kind < len(names) else str(kind)


def findings(q: dict, p: int) -> list[Fragment]:
    """One line per metric, in plain words, with the thresholds of docs/quality.md."""
    rec = q["players"][str(p)]
    items: list[Fragment] = []
    lab = b(f"{p} players:")
    off = calibrated(rec) == "miscalibrated"
    cal = rec.get("calibration") or {}
    raw = cal.get("raw")
    raw_off = raw_miscalibrated(rec)  # kingmaking reads the playouts' own estimates, recalibrated or not

    def add(metric: str, *text) -> None:
        mark = [b("uncalibrated: "), "rests on win probabilities that do not match the results (see calibration); "]
        marked = (off and metric in FROM_TRAJECTORIES) or (raw_off and metric == "kingmaking")
        items.append([lab, " ", b(f"{metric}: "), *(mark if marked else []), *text])

    if cal.get("value") is not None:
        word = {
            "calibrated": "the estimates match the results",
            "miscalibrated": "the estimates do not match the results; the metrics from them are marked",
            "undecided": "undecided: the interval straddles the threshold",
        }[calibrated(rec)]
        before = []
        if raw and raw.get("value") is not None:
            before = [
                f"the playouts' own estimates were off by {_iv(raw)} on average; the metrics read them ",
                b("recalibrated"),
                " (Platt scaling along the game, each half of the games by a map fitted on the other half), and ",
            ]
        add(
            "calibration",
            *before,
            f"the win probabilities {'they read ' if before else ''}are off by {_iv(cal)} on average ({word}; above "
            f"{pct(THRESHOLDS['calibration_error'], 0)} they do not; {cal['n']:,} estimates of {cal['games']} games).",
        )
    # the check of the win probabilities leads only where it fails; else it closes the list, after the answers
    cal_item = items.pop() if items and not off else None

    rs = rec.get("relative_skill")
    if rs and rs.get("value") is not None:
        lo_t, hi_t = THRESHOLDS["relative_skill"]
        word = {
            "above": "mostly skill",
            "below": "mostly luck",
            "between": "skill and luck both matter",
        }.get(band(rs, "relative_skill"), f"undecided: the interval straddles {lo_t} or {hi_t}")
        ceiling = []
        if rec.get("ceiling"):
            won = (rec.get("win_share") or {}).get("skilled") or {}
            word = "undecided: the field is too weak"
            ceiling = [
                b(" At the ceiling: "),
                f"the skilled player wins {pct(won.get('value'))} of its games against the field, so the clairvoyant "
                "one cannot win much more whatever the luck, and relative skill reads near 1 from the weak field, not "
                "from the game; a stronger --field (e.g. the skilled bot itself) tells.",
            ]
        add(
            "luck vs skill",
            f"{word}, relative skill {_iv(rs, _n2)} ",
            f"(0 = pure chance, 1 = pure skill; below {lo_t} mostly luck, from {hi_t} mostly skill).",
            *ceiling,
        )
    lc = rec["lead_changes"]
    lo_t, hi_t = THRESHOLDS["lead_changes"]
    word = {"below": "the early favourite usually wins", "above": "a seesaw", "between": "some"}.get(
        band(lc, "lead_changes"), "undecided: the interval straddles a threshold"
    )
    add(
        "lead changes",
        f"{_iv(lc, _n2)} per game ({word}; below {lo_t} the early "
        f"favourite usually wins, above {hi_t} the lead seesaws).",
        *_budget(rec, "lead_changes", _n2),
    )
    de = rec["decisiveness"]
    lo_t, hi_t = THRESHOLDS["decisiveness"]
    word = {"below": "decided early: runaway risk", "above": "open to the end", "between": "decided late"}.get(
        band(de, "decisiveness"), "undecided: the interval straddles a threshold"
    )
    add(
        "decisiveness",
        f"the winner is settled (above {pct(DECIDED, 0)} to win for good) "
        f"after {_iv(de)} of the game ({word}; before {pct(lo_t, 0)} is early, after {pct(hi_t, 0)} open).",
    )
    dr = rec["drama"]
    word = {"above": "winners often come from behind", "below": "winners mostly lead throughout"}.get(
        band(dr, "drama"), "undecided: the interval straddles the threshold"
    )
    add(
        "drama",
        f"the eventual winner trailed the favourite by {_iv(dr)} on average ({word}; "
        f"above {pct(THRESHOLDS['drama'], 0)} counts as drama).",
        *_budget(rec, "drama"),
    )
    add(
        "uncertainty",
        f"mean entropy of the win probabilities {_iv(rec['uncertainty'], _n2)} "
        "(0 = the winner is always known, 1 = every seat equally likely).",
    )
    cb = rec["comeback_rate"]
    add(
        "comebacks",
        f"{_iv(cb)} of games are won by a seat that was not the favourite at two "
        f"thirds of the game (fair share of surprises at {p} players: up to {pct(1 - 1 / p, 0)}).",
        *_budget(rec, "comeback_rate"),
    )
    rl = rec["runaway_leader"]
    word = {"above": "runaway leader", "below": "no runaway leader"}.get(
        band(rl, "runaway_leader"), "undecided: the interval straddles the threshold"
    )
    add(
        "runaway leader",
        f"the favourite at half time wins {_iv(rl)} ({word}; above "
        f"{pct(THRESHOLDS['runaway_leader'], 0)} it is settled early).",
    )
    ms = rec["margin_share"]
    med = ms.get("median")
    word = "close games" if med is not None and med < THRESHOLDS["margin_share"] else "clear wins"
    whose = "the runner-up's score (lowest score wins)" if q.get("lower_wins") else "the winner's score"
    add(
        "closeness",
        f"median margin {num(rec['margin']['median'], 1)} points, "
        f"{pct(med)} of {whose} ({word}; below {pct(THRESHOLDS['margin_share'], 0)} is close); "
        f"{_iv(rec['tiebreak_decided'])} decided by the tie-break, {_iv(rec['shared_wins'])} shared.",
    )
    km = rec.get("kingmaking")
    if km and km["games"].get("value") is not None:
        g = km["games"]
        word = {"above": "a real concern", "below": "rare"}.get(
            band(g, "kingmaking_games"), "undecided: the interval straddles the threshold"
        )
        conf = "confirmed" in km
        tail: list = []
        if conf:
            names = kind_names(str(q.get("game", "")))
            un = km.get("unconfirmed_list") or []
            named = ", ".join(
                f"game {u['game']} decision {u['step']} (seat {u['seat']}, {_kind_name(names, u['kind'])})"
                for u in un[:8]
            ) + (f" and {len(un) - 8} more" if len(un) > 8 else "")
            tail = [
                f" {km['confirmed']} of {km['flagged']} flagged decisions confirmed by sequential playouts (the seat "
                "significantly below 2 %, and its choice significantly changing the favourite); "
                + (f"unconfirmed, not counted: {named}." if un else "none unconfirmed.")
            ]
        add(
            "kingmaking",
            f"{_iv(g)} of games hold a {'confirmed ' if conf else ''}decision by a seat below 2 % to win "
            f"that picks the favourite among the others ({word}; above {pct(THRESHOLDS['kingmaking_games'], 0)} "
            "a real concern).",
            *tail,
        )
    wd = rec.get("what_decides") or {}
    if wd:
        top_d = max(wd, key=lambda c: wd[c]["value"] if wd[c]["value"] is not None else -1e9)
        top_p = max(wd, key=lambda c: wd[c]["share_of_points"] or 0)
        add(
            "what decides games",
            b(top_p),
            f" gives the most points ({pct(wd[top_p]['share_of_points'], 0)}), ",
            b(top_d),
            f" decides the most games ({_iv(wd[top_d], lambda x: pct(x, 0))} of the winner's lead).",
        )
    dec = rec["decisions_per_seat"]
    add(
        "decisions",
        f"{num(dec['value'], 1)} per seat and game, "
        f"{num(rec['branching']['mean'], 1)} candidates on average, {pct(rec['forced_share']['value'])} forced.",
    )
    if cal_item is not None:
        items.append(cal_item)
    return items


def kind_names(game: str) -> list[str]:
    """The game's decision kinds by name, in kind order (the kinds of the feature columns it declares; empty for a
    game that declares none or is not installed here)."""
    from meeplab.sim.core.errors import MeeplabError
    from meeplab.sim.core.registry import get_game

    try:
        return list(get_game(game).features)
    except MeeplabError:
        return []


def _decisions_table(q: dict, players: list[int]) -> Table:
    rows = []
    names = kind_names(str(q.get("game", "")))
    for p in players:
        for kind, k in sorted(q["players"][str(p)]["branching"]["by_kind"].items(), key=lambda x: int(x[0])):
            rows.append(
                [
                    str(p),
                    f"{names[int(kind)]} ({kind})" if int(kind) < len(names) else kind,
                    f"{k['decisions']:,}",
                    num(k["mean"], 1),
                    num(k["p10"], 0),
                    num(k["p50"], 0),
                    num(k["p90"], 0),
                ]
            )
    return table(
        ["players", "decision kind", "decisions", "mean candidates", "p10", "median", "p90"],
        rows,
        numeric=[False, False, True, True, True, True, True],
    )


def _decides_table(q: dict, players: list[int]) -> Table:
    rows = []
    for p in players:
        for cat, r in (q["players"][str(p)].get("what_decides") or {}).items():
            rows.append([str(p), cat, pct(r["share_of_points"], 0), _iv(r, lambda x: pct(x, 0))])
    return table(
        ["players", "category", "share of all points", "share of the winner's lead (95% CI)"],
        rows,
        numeric=[False, False, True, True],
    )


def _ludii_table(q: dict, players: list[int]) -> Table | None:
    """Per player count: Ludii's Lead Change, Decisiveness Threshold, Decisiveness and Drama beside ours."""
    rows = []
    for p in players:
        rec = q["players"][str(p)]
        lu = rec.get("ludii")
        if not lu:
            continue
        pairs = (
            ("lead change", _iv(lu["lead_change"], _n2) + " per point", _iv(rec["lead_changes"], _n2) + " per game"),
            ("decisiveness threshold", _iv(lu["decisiveness_threshold"]), f"{pct(DECIDED, 0)} (fixed)"),
            ("decisiveness", _iv(lu["decisiveness"]) + " of the game", _iv(rec["decisiveness"]) + " of the game"),
            ("drama", _iv(lu["drama"]), _iv(rec["drama"])),
        )
        rows += [[str(p), name, ludii, ours] for name, ludii, ours in pairs]
    if not rows:
        return None
    return table(["players", "metric", "Ludii's definition", "meeplab's"], rows, numeric=[False, False, True, True])


def quality_section(path: str | Path, anchor: str) -> QualitySection | None:
    """The section for a directory holding ``quality.json`` (None otherwise)."""
    if not has_quality(path):
        return None
    data = load_quality(path)
    q = data["json"]
    players = sorted(int(p) for p in q["players"])
    traj = data["frames"].get("trajectories")
    s = q["settings"]
    figs: list[Figure] = []
    if traj is not None and len(traj):
        figs.append(
            figure(
                fan_chart(traj, players),
                "win probability over the game",
                f"Median (line) and 10-90 % band of each seat's estimated win probability over the first "
                f"{s['trajectory_games']} games ({s['points']} points per game, {s['playouts']} playouts "
                + (
                    f"each, more up to {s.get('max_playouts')} until every seat's standard error is at most "
                    f"{s['se_target']:g}"
                    if s.get("se_target")
                    else "each"
                )
                + "): the eventual winner against the others, before the end; dashed = fair share, dotted = "
                f"{pct(DECIDED, 0)}."
                + (
                    " The intervals of the metrics from them include the playout noise (games and each point's "
                    "playouts resampled); lead changes, drama and comebacks are also measured at half the playouts."
                    if any(q["players"][str(p)].get("noise_aware") for p in players)
                    else ""
                ),
            )
        )
    if any((q["players"][str(p)].get("calibration") or {}).get("bins") for p in players):
        figs.append(
            figure(
                calibration_chart(q, players),
                "calibration of the win probabilities",
                "Observed win rate (95 % Wilson interval) against the estimated win probability, in ten bins of the "
                "estimate, every estimate before the end of the trajectories' games; on the dashed diagonal the "
                "estimates are calibrated. The error in the title is the calibration error: the root of the bins' "
                "mean squared distance from the diagonal, less what the finite games alone give (docs/quality.md)."
                + (
                    " Where the playouts' own estimates were miscalibrated, the metrics read them recalibrated (Platt "
                    "scaling along the game, each half of the games by a map fitted on the other half): the points "
                    "are the recalibrated estimates, the dotted squares the playouts' own."
                    if any((q["players"][str(p)].get("calibration") or {}).get("raw") for p in players)
                    else ""
                ),
            )
        )
    figs.append(
        figure(
            histograms(q, players),
            "lead changes and margins",
            "Lead changes per game (changes of the most likely winner) and the winning margin in points "
            f"({'runner-up minus winner: the lowest score wins' if q.get('lower_wins') else 'winner minus runner-up'})"
            " over the run's games.",
        )
    )
    if any(q["players"][str(p)].get("relative_skill") for p in players):
        figs.append(
            figure(
                skill_bar(q, players),
                "luck and skill",
                f"Relative skill (Dreef, Borm & van der Genugten 2004) with its 95 % bootstrap interval: "
                f"{s['beginner']} (beginner), {s['skilled']} (skilled) and {s['skilled']} searching the true "
                f"state (fictive, knows the chance outcomes), each in one seat against {s['field']} on the "
                f"same {s['skill_games']} games.",
            )
        )
    return QualitySection(
        anchor=anchor,
        findings=tuple(f for p in players for f in findings(q, p)),
        figures=tuple(figs),
        decides=_decides_table(q, players),
        decisions=_decisions_table(q, players),
        settings=QualitySettings(
            playouts=s["playouts"],
            redraw=s.get("redraw", ""),
            redraw_note=s.get("redraw_note", ""),
            skill_games=s["skill_games"],
            evaluator=str(s.get("evaluator") or ""),
        ),
        command=code(reproduce_command(path, q, players)),
        ludii=_ludii_table(q, players),
    )


def reproduce_command(path, q: dict, players: list[int]) -> str:
    """The ``meeplab quality`` command that plays these numbers again: the run's games and changed rules (from its
    run.json, when readable) and every setting ``quality.json`` records."""
    import shlex

    from meeplab.lab.runs.rundir import read_meta
    from meeplab.sim.core.errors import MeeplabError

    s = q["settings"]
    parts = ["meeplab", "quality", q["game"], "--players", ",".join(map(str, players))]
    try:
        meta = read_meta(Path(path))
        parts += ["--games", str(int(meta["games"]))]
        for name, value in (meta.get("params_changed") or {}).items():
            shown = ",".join(map(str, value)) if isinstance(value, list) else str(value)
            parts += ["--set", f"{name}={shown}"]
    except (MeeplabError, KeyError, TypeError, ValueError, AttributeError):
        pass
    parts += ["--bots", ",".join(q["bots"]), "--seed", str(q["seed"])]
    for opt, key in (
        ("--trajectory-games", "trajectory_games"),
        ("--playouts", "playouts"),
        ("--se-target", "se_target"),
        ("--max-playouts", "max_playouts"),
        ("--points", "points"),
        ("--evaluator", "evaluator"),
        ("--recalibrate", "recalibrate"),
        ("--skill-games", "skill_games"),
        ("--beginner", "beginner"),
        ("--skilled", "skilled"),
        ("--field", "field"),
    ):
        if s.get(key) is not None:
            parts += [opt, str(s[key])]
    return " ".join(shlex.quote(x) for x in parts)


def skill_note(meta: dict) -> list[Fragment]:
    """The line a report of one-step bots carries (no bot of the run searches: none has a ``playouts`` weight), with
    the ladder command that checks its findings; empty for a run with a search bot."""
    weights = meta.get("bot_weights") or {}
    bots = [str(x) for x in meta.get("bots") or []]
    if not bots or any("playouts" in (weights.get(n) or {}) for n in bots):
        return []
    if "ladder" in str(meta.get("command", "")).split()[:3]:  # a rung of a ladder: its report is the check
        return []
    game = str(meta.get("game", "GAME"))
    players = [int(p) for p in meta.get("players") or []] or [3]
    rungs = ",".join(dict.fromkeys([*bots, _settling_bot(game, players)]))
    p = ",".join(map(str, players))
    return [
        b("Players' skill:"),
        " these findings come from one-step bots (",
        ", ".join(bots),
        "); stronger players may not show them. Check them with a ladder: ",
        code(f"meeplab ladder {game} --players {p} --bots {rungs} --out runs/ladder"),
        ".",
    ]


def _settling_bot(game: str, players: list[int]) -> str:
    """The search bot behind the game's settled seat finding at the first of ``players`` that has one
    (``ismcts-flat``, ``ismcts``), else ``ismcts``: the rung a ladder that checks a fast bot should reach."""
    from meeplab.analysis.settled import load_settled
    from meeplab.sim.core.errors import MeeplabError
    from meeplab.sim.core.registry import get_game

    try:
        settled = load_settled(get_game(game))
    except (MeeplabError, KeyError):
        return "ismcts"
    for p in players:
        if p in settled:
            return settled[p].bot
    return "ismcts"
