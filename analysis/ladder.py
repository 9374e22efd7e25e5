"""The skill ladder's numbers behind "Does it hold for stronger players?" (``meeplab ladder``).

A ladder directory holds ``ladder.json`` and one ordinary run per rung (self-play: every seat the same bot, the
pure seat effect at that skill) and per pair of neighbouring rungs (cross-play: the skill gap). This module reads
them and computes, per player count and rung: seat win rates with intervals, the leading score category and its
share of the points, ties, game length, and how often the stronger of two neighbouring rungs wins.

A **finding** is a quantity measured at every rung (a seat's advantage over the fair share, the tie rate, the game
length, the leading score category). It is flagged when it changes sign between the lowest and the highest rung
(with at least one of the two intervals clear of zero), when its 95 % intervals at the lowest and highest rung do
not overlap, or (for the leading category) when the category itself changes.

A finding has **settled** when the two strongest rungs agree on it: their 95 % intervals overlap (for the leading
category: the same category). Otherwise it is **still moving**, up or down from the second-strongest rung to the
strongest: stronger play would likely move it further, and the strongest rung's value is not yet the game's.
**Budget rungs** (:func:`budget_variants`) make the strongest rungs the top bot at growing search budgets (e.g.
``ismcts`` at 1x, 4x and 16x its playouts), so that "settled" means "more search no longer changes it".
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

from meeplab.sim.core.bots import BotSpec
from meeplab.sim.core.errors import MeeplabError

from .load import Run, load_run
from .stats import RunStats, run_stats, wilson

LADDER_FILE = "ladder.json"


def is_ladder(path: str | Path) -> bool:
    return (Path(path) / LADDER_FILE).is_file()


@dataclass
class Ladder:
    path: Path
    meta: dict[str, Any]
    rungs: list[str]
    selfplay: dict[str, Run]  # rung -> its self-play run
    cross: list[tuple[str, str, Run]]  # (weaker, stronger, run)


def load_ladder(path: str | Path) -> Ladder:
    path = Path(path)
    try:
        meta = json.loads((path / LADDER_FILE).read_text(encoding="utf-8"))
        rungs = [str(r) for r in meta["rungs"]]
        selfplay = {r: load_run(path / meta["self"][r]) for r in rungs}
        cross = [(a, b, load_run(path / d)) for a, b, d in meta["cross"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MeeplabError(f"{path / LADDER_FILE}: not a readable ladder ({exc})") from None
    return Ladder(path=path, meta=meta, rungs=rungs, selfplay=selfplay, cross=cross)


def _leading_category(run: Run, st: RunStats, p: int) -> tuple[str, float]:
    """The score category with the largest mean and its share of the summed category means."""
    rows = st.by_bot.filter(st.by_bot["n_players"] == p)
    if rows.height == 0 or not run.categories:
        return "", math.nan
    means = {
        c: float(np.nansum(rows[f"cat_{c}"].to_numpy() * rows["n"].to_numpy()) / rows["n"].sum())
        for c in run.categories
    }
    total = sum(v for v in means.values() if v > 0)
    best = max(means, key=means.get)
    return best, (means[best] / total if total > 0 else math.nan)


def rung_rows(lad: Ladder) -> list[dict[str, Any]]:
    """One row per (player count, rung): seat rates and intervals, ties, length, leading category."""
    rows = []
    for r in lad.rungs:
        run = lad.selfplay[r]
        st = run_stats(run)
        for g in st.games.iter_rows(named=True):
            p = int(g["n_players"])
            seats = st.by_seat.filter(st.by_seat["n_players"] == p).sort("seat")
            n = int(g["games"])
            tlo, thi = wilson(float(g["tie_games"]), n)
            sd = float(g["sd_length"]) if g["sd_length"] is not None else 0.0
            half = 1.959964 * sd / math.sqrt(max(n, 1))
            cat, share = _leading_category(run, st, p)
            rows.append(
                {
                    "n_players": p,
                    "rung": r,
                    "games": n,
                    "seat_rate": seats["win_rate"].to_list(),
                    "seat_lo": seats["lo"].to_list(),
                    "seat_hi": seats["hi"].to_list(),
                    "tie": float(g["tie_share"]),
                    "tie_lo": tlo,
                    "tie_hi": thi,
                    "length": float(g["mean_length"]),
                    "length_lo": float(g["mean_length"]) - half,
                    "length_hi": float(g["mean_length"]) + half,
                    "category": cat,
                    "category_share": share,
                }
            )
    return rows


def gap_rows(lad: Ladder) -> list[dict[str, Any]]:
    """Cross-play between neighbouring rungs: the stronger rung's win rate per seat (fair = 1/P) and whether its
    95 % interval lies above the fair share (``stronger_measured``: measurably stronger)."""
    out = []
    for weak, strong, run in lad.cross:
        st = run_stats(run)
        for row in st.by_bot.filter(st.by_bot["bot"] == strong).iter_rows(named=True):
            out.append(
                {
                    "n_players": int(row["n_players"]),
                    "weaker": weak,
                    "stronger": strong,
                    "rate": float(row["win_rate"]),
                    "lo": float(row["lo"]),
                    "hi": float(row["hi"]),
                    "fair": 1.0 / int(row["n_players"]),
                    "stronger_measured": bool(float(row["lo"]) > 1.0 / int(row["n_players"])),
                }
            )
    return out


def _flag(lo_a: float, hi_a: float, v_a: float, lo_b: float, hi_b: float, v_b: float, zero: float) -> str:
    """Why a finding at the lowest rung (a) and the highest (b) disagrees, or ''."""
    clear_a = lo_a > zero or hi_a < zero
    clear_b = lo_b > zero or hi_b < zero
    if (v_a - zero) * (v_b - zero) < 0 and (clear_a or clear_b):
        return "changes sign"
    if hi_a < lo_b or hi_b < lo_a:
        return "intervals do not overlap"
    return ""


def findings(rows: list[dict[str, Any]], rungs: list[str]) -> list[dict[str, Any]]:
    """Flagged findings: compare the lowest and the highest rung present at each player count."""
    out = []
    for p in sorted({r["n_players"] for r in rows}):
        at = {r["rung"]: r for r in rows if r["n_players"] == p}
        present = [r for r in rungs if r in at]
        if len(present) < 2:
            continue
        a, b = at[present[0]], at[present[-1]]
        fair = 1.0 / p
        for s in range(p):
            why = _flag(
                a["seat_lo"][s],
                a["seat_hi"][s],
                a["seat_rate"][s],
                b["seat_lo"][s],
                b["seat_hi"][s],
                b["seat_rate"][s],
                fair,
            )
            if why:
                out.append(
                    {
                        "n_players": p,
                        "finding": f"seat {s + 1}'s win rate (fair {fair:.1%})",
                        "why": why,
                        "low": (present[0], a["seat_rate"][s], a["seat_lo"][s], a["seat_hi"][s]),
                        "high": (present[-1], b["seat_rate"][s], b["seat_lo"][s], b["seat_hi"][s]),
                    }
                )
        why = _flag(a["tie_lo"], a["tie_hi"], a["tie"], b["tie_lo"], b["tie_hi"], b["tie"], -1.0)
        if why:
            out.append(
                {
                    "n_players": p,
                    "finding": "share of games with a shared win",
                    "why": why,
                    "low": (present[0], a["tie"], a["tie_lo"], a["tie_hi"]),
                    "high": (present[-1], b["tie"], b["tie_lo"], b["tie_hi"]),
                }
            )
        why = _flag(a["length_lo"], a["length_hi"], a["length"], b["length_lo"], b["length_hi"], b["length"], -1.0)
        if why:
            out.append(
                {
                    "n_players": p,
                    "finding": "mean game length",
                    "why": why,
                    "length": True,
                    "low": (present[0], a["length"], a["length_lo"], a["length_hi"]),
                    "high": (present[-1], b["length"], b["length_lo"], b["length_hi"]),
                }
            )
        if a["category"] and a["category"] != b["category"]:
            out.append(
                {
                    "n_players": p,
                    "finding": "leading score category",
                    "why": "changes",
                    "low": (present[0], a["category"], a["category_share"]),
                    "high": (present[-1], b["category"], b["category_share"]),
                }
            )
    return out


SETTLED, LEVEL, MOVING = "settled", "agrees, rungs level", "still moving"


def skill_gap(gaps: list[dict[str, Any]], weaker: str, stronger: str, n_players: int) -> dict[str, Any] | None:
    """The cross-play of ``stronger`` against ``weaker`` at ``n_players`` (a :func:`gap_rows` row), or None."""
    for g in gaps:
        if g["n_players"] == n_players and g["weaker"] == weaker and g["stronger"] == stronger:
            return g
    return None


def settled(
    rows: list[dict[str, Any]], rungs: list[str], gaps: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Each finding at each player count, judged on the two strongest rungs present (``rungs`` weakest first):
    ``status`` :data:`SETTLED` (their 95 % intervals overlap; the leading category: the same one) or
    :data:`MOVING`, ``direction`` "up", "down" or "" (the strongest rung's value against the second-strongest's; a
    category that changes: "changes"), ``weaker``/``stronger`` = (rung, value, lo, hi) (the category: (rung, name,
    share)), ``seat`` (from 1) for a seat's win rate, else None.

    With the ladder's cross-play (``gaps``, :func:`gap_rows`), a finding the two rungs agree on has settled only
    if the strongest rung is measurably stronger: its win rate against the second-strongest clears the fair share
    (``skill`` holds that row). Otherwise it is :data:`LEVEL`: two players of one strength agree, which replicates
    the finding but does not show that it stops moving as play gets stronger."""
    out = []
    for p in sorted({r["n_players"] for r in rows}):
        at = {r["rung"]: r for r in rows if r["n_players"] == p}
        present = [r for r in rungs if r in at]
        if len(present) < 2:
            continue
        a, b = at[present[-2]], at[present[-1]]
        skill = skill_gap(gaps or [], present[-2], present[-1], p)
        agree = SETTLED if skill is None or skill["stronger_measured"] else LEVEL
        quantities = [
            (f"seat {s + 1}'s win rate (fair {1 / p:.1%})", ("seat_rate", s), ("seat_lo", s), ("seat_hi", s))
            for s in range(p)
        ]
        quantities += [
            ("share of games with a shared win", ("tie", None), ("tie_lo", None), ("tie_hi", None)),
            ("mean game length", ("length", None), ("length_lo", None), ("length_hi", None)),
        ]
        for name, *cols in quantities:
            va, la, ha = (a[c] if i is None else a[c][i] for c, i in cols)
            vb, lb, hb = (b[c] if i is None else b[c][i] for c, i in cols)
            moving = ha < lb or hb < la
            out.append(
                {
                    "n_players": p,
                    "finding": name,
                    "status": MOVING if moving else agree,
                    "direction": ("up" if vb > va else "down") if moving else "",
                    "weaker": (present[-2], va, la, ha),
                    "stronger": (present[-1], vb, lb, hb),
                    "length": name == "mean game length",
                    "seat": cols[0][1] + 1 if cols[0][0] == "seat_rate" else None,  # seat 1 = the start player
                    "skill": skill,
                }
            )
        if a["category"] and b["category"]:
            same = a["category"] == b["category"]
            out.append(
                {
                    "n_players": p,
                    "finding": "leading score category",
                    "status": agree if same else MOVING,
                    "direction": "" if same else "changes",
                    "weaker": (present[-2], a["category"], a["category_share"]),
                    "stronger": (present[-1], b["category"], b["category_share"]),
                    "category": True,
                    "skill": skill,
                }
            )
    return out


def seat_verdicts(judged: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Per player count, one verdict on the seats' win rates (:func:`settled`'s findings): :data:`MOVING` if any
    seat's is still moving, else :data:`LEVEL` or :data:`SETTLED`; with the two rungs and the seats that moved."""
    out: dict[int, dict[str, Any]] = {}
    for f in judged:
        if f.get("seat") is None:
            continue
        v = out.setdefault(
            f["n_players"],
            {"status": SETTLED, "weaker": f["weaker"][0], "stronger": f["stronger"][0], "moved": []},
        )
        if f["status"] == MOVING:
            v["status"] = MOVING
            v["moved"].append(f"seat {f['seat']} {f['direction']}")
        elif f["status"] == LEVEL and v["status"] == SETTLED:
            v["status"] = LEVEL
    return out


# the weight that is a search bot's budget, per search algorithm (sim.core.bots SEARCH_ALGOS)
BUDGET_WEIGHTS = {"rollout": ("playouts",), "ismcts": ("per_candidate", "iterations")}


def parse_budgets(text: str) -> list[float]:
    """``--budgets 1,4,16``: positive factors, ascending, without repeats."""
    try:
        vals = [float(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        raise MeeplabError(f"--budgets must be numbers separated by commas, e.g. 1,4,16; got {text!r}") from None
    if not vals or any(not (v > 0) or not math.isfinite(v) for v in vals):
        raise MeeplabError(f"--budgets must be positive factors, e.g. 1,4,16; got {text!r}")
    return sorted(set(vals))


def budget_variants(top: BotSpec, factors: list[float]) -> tuple[list[str], str]:
    """Budget rungs of the search bot ``top``: its name at factor 1 and a variant ``<name>-x<f>`` per other factor
    with its budget weight (``rollout``: playouts; ``ismcts``: per_candidate, else iterations) times ``f``. Returns
    the rung names (in the order of ``factors``) and the TOML defining the variants (``--bot-config``)."""
    if not top.search or top.search not in BUDGET_WEIGHTS:
        raise MeeplabError(
            f"--budgets needs a search bot as the top rung ({', '.join(BUDGET_WEIGHTS)}); '{top.name}' is not one"
        )
    w = top.weights_dict()
    key = next(k for k in BUDGET_WEIGHTS[top.search] if w.get(k, 0) > 0)
    names, bots = [], {}
    for f in factors:
        if f == 1:
            names.append(top.name)
            continue
        name = f"{top.name}-x{f:g}"
        names.append(name)
        bots[name] = {
            "base": top.name,
            "description": f"{top.name} at {f:g} x its budget ({key} = {w[key] * f:g})",
            "weights": {key: float(w[key] * f)},
        }
    head = f"# budget rungs of {top.name} (meeplab ladder --budgets): {key} x each factor".replace("\n", " ")
    return names, head + "\n" + tomli_w.dumps({"bots": bots})
