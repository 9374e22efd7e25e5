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

**Relative skill per rung** (``skill.json``, ``skill.parquet``; :func:`measure_skill`): each search rung is the
skilled player of Dreef et al.'s RS with ``greedy`` and ``random`` as beginners and its clairvoyant twin, all against
one field; its verdict (:func:`skill_verdicts`) follows the two strongest search rungs in the same words.
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
SKILL_FILE = "skill.json"  # relative skill per rung: settings, rows and verdicts (:func:`measure_skill`)
SKILL_WINS = "skill.parquet"  # its games: n_players, game, bot, clairvoyant, win (the tested seat's win share)


def is_ladder(path: str | Path) -> bool:
    return (Path(path) / LADDER_FILE).is_file()


@dataclass
class Ladder:
    path: Path
    meta: dict[str, Any]
    rungs: list[str]
    selfplay: dict[str, Run]  # rung -> its self-play run
    cross: list[tuple[str, str, Run]]  # (weaker, stronger, run)
    skill: dict[str, Any] | None = None  # skill.json: relative skill per rung, or None


def load_ladder(path: str | Path) -> Ladder:
    path = Path(path)
    try:
        meta = json.loads((path / LADDER_FILE).read_text(encoding="utf-8"))
        rungs = [str(r) for r in meta["rungs"]]
        selfplay = {r: load_run(path / meta["self"][r]) for r in rungs}
        cross = [(a, b, load_run(path / d)) for a, b, d in meta["cross"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MeeplabError(f"{path / LADDER_FILE}: not a readable ladder ({exc})") from None
    skill = None
    if (path / SKILL_FILE).is_file():
        try:
            skill = json.loads((path / SKILL_FILE).read_text(encoding="utf-8"))
            if not isinstance(skill, dict) or not isinstance(skill.get("rows"), list):
                raise ValueError("no list of rows")
        except (OSError, ValueError) as exc:
            raise MeeplabError(f"{path / SKILL_FILE}: not a readable relative-skill file ({exc})") from None
    return Ladder(path=path, meta=meta, rungs=rungs, selfplay=selfplay, cross=cross, skill=skill)


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


# -- relative skill per rung (Dreef et al. 2004; docs/quality.md) ---------------------------------------------------

#: the beginners each rung's relative skill is measured against (the nearer beginner first)
SKILL_BEGINNERS = ("greedy", "random")
NO_TWIN = "no search bot: no clairvoyant twin"
NO_VERDICT = "no verdict"
SKILL_COLUMNS = ["n_players", "game", "bot", "clairvoyant", "win"]


def skill_setup(rungs: list[str], known: dict[str, BotSpec], opponents: str | None = None) -> dict[str, Any]:
    """Who plays the relative skill of a ladder of ``rungs`` (``known``: the game's bots): ``search``, the search
    rungs, each in turn the skilled player with its clairvoyant twin (the same bot searching from the true state,
    ``S_TRUE``, as in ``meeplab quality``); ``plain``, the rungs that do not search and so have no clairvoyant twin
    (a plain bot never looks ahead: knowing the future would change none of its choices, RE would be 0 by
    construction and RS 1 whatever the game, so none is reported); ``beginners``, :data:`SKILL_BEGINNERS` the game
    has; ``field``, the opponents of every player: ``opponents``, else the strongest search rung's playout policy
    (``meeplab quality``'s default field for it), one field for every rung so that their RS compare."""
    search = [r for r in rungs if known[r].search]
    plain = [r for r in rungs if not known[r].search]
    beginners = [b for b in SKILL_BEGINNERS if b in known]
    if opponents is None and search:
        top = known[search[-1]]
        opponents = top.policy or top.name
    return {"search": search, "plain": plain, "beginners": beginners, "field": opponents}


def skill_players(setup: dict[str, Any]) -> list[tuple[str, bool]]:
    """The players of a ladder's relative skill, ``(bot, clairvoyant)``: each beginner once (every rung shares its
    games: the same field, the same seeds) and each search rung with its clairvoyant twin; none without a search
    rung."""
    if not setup["search"]:
        return []
    out = [(b, False) for b in setup["beginners"]]
    for r in setup["search"]:
        out += [x for x in ((r, False), (r, True)) if x not in out]
    return out


def read_skill_wins(root: str | Path):
    """``skill.parquet`` of a ladder as a pandas frame (:data:`SKILL_COLUMNS`; empty when there is none)."""
    import pandas as pd

    path = Path(root) / SKILL_WINS
    if not path.is_file():
        return pd.DataFrame({c: [] for c in SKILL_COLUMNS})
    return pd.read_parquet(path)


def skill_played(frame, n_players: int, bot: str, clairvoyant: bool) -> int:
    """How many of games 0, 1, ... one player has at one player count (the first missing game ends the count)."""
    at = frame[(frame["n_players"] == n_players) & (frame["bot"] == bot) & (frame["clairvoyant"] == clairvoyant)]
    got = {int(g) for g in at["game"]}
    k = 0
    while k in got:
        k += 1
    return k


def skill_todo(root: str | Path, players: list[int], setup: dict[str, Any], games: int, settings: dict[str, Any],
               resume: bool) -> list[tuple[int, str, bool, int]]:  # fmt: skip
    """What is left to play: ``(n_players, bot, clairvoyant, first game)`` for each player short of ``games``
    games. With ``resume`` the games in ``skill.parquet`` count, if ``settings`` (field, seed, rules) are the ones
    they were played with (else an error: they would not be the same games); without it nothing counts."""
    frame = read_skill_wins(root)
    if resume and len(frame):
        old = _skill_json(root).get("settings", {})
        for key in ("field", "seed", "params"):
            if old.get(key) != settings.get(key):
                raise MeeplabError(
                    f"{Path(root) / SKILL_WINS} was played with another {key} ({old.get(key)!r}, now "
                    f"{settings.get(key)!r}); give --force to replay the ladder or --skill-games 0 to leave it"
                )
    else:
        frame = frame.iloc[0:0]
    todo = []
    for p in players:
        for bot, clair in skill_players(setup):
            k = skill_played(frame, p, bot, clair)
            if k < games:
                todo.append((p, bot, clair, k))
    return todo


def _skill_json(root: str | Path) -> dict[str, Any]:
    path = Path(root) / SKILL_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        return {}


def measure_skill(root: str | Path, game, ctx, todo: list[tuple[int, str, bool, int]], setup: dict[str, Any],
                  games: int, settings: dict[str, Any], bot_configs=(), resume: bool = False,
                  progress=None) -> None:  # fmt: skip
    """Play :func:`skill_todo`'s players, each in one seat against ``setup["field"]`` on games ``first .. games-1``
    (game ``g`` dealt from ``(seed, g)`` alone: the same games for every player, and any split of them gives the
    same numbers), appending to ``skill.parquet`` after each player (an interrupted ladder keeps what it played).
    ``skill.json`` is written first with the settings alone; its rows come from :func:`write_skill` once the
    cross-play runs exist."""
    import pandas as pd

    from meeplab.lab.studies.quality import skill_wins
    from meeplab.sim.core.files import atomic_write, atomic_writer

    root = Path(root)
    frame = read_skill_wins(root) if resume else read_skill_wins(root).iloc[0:0]
    atomic_write(root / SKILL_FILE, json.dumps({"settings": settings, "rows": [], "verdicts": []}, indent=1))
    say = progress or (lambda msg: None)
    seed = int(settings["seed"])
    for p, bot, clair, first in todo:
        who = f"clairvoyant {bot}" if clair else bot
        say(f"relative skill, {p} players: {who} on games {first}..{games - 1} against {setup['field']}")
        win = skill_wins(game, ctx, p, seed, first, games - first, "fictive" if clair else "skilled", bot,
                         setup["field"], bot_configs)  # fmt: skip
        new = pd.DataFrame({"n_players": p, "game": np.arange(first, games), "bot": bot, "clairvoyant": clair,
                            "win": np.asarray(win, dtype=float)})  # fmt: skip
        keep = ~((frame["n_players"] == p) & (frame["bot"] == bot) & (frame["clairvoyant"] == clair)
                 & (frame["game"] >= first))  # fmt: skip
        frame = pd.concat([frame[keep], new], ignore_index=True) if len(frame) else new
        with atomic_writer(root / SKILL_WINS) as sink:
            frame.to_parquet(sink, index=False)


def _finite(x: Any) -> float | None:
    return float(x) if x is not None and math.isfinite(float(x)) else None


def skill_rows(frame, players: list[int], rungs: list[str], setup: dict[str, Any], games: int) -> list[dict]:
    """One row per player count, rung and beginner: the rung's relative skill RS = LE / (LE + RE) (Dreef et al.,
    :func:`meeplab.analysis.quality.relative_skill`: paired bootstrap over the games) on the first ``games`` games,
    with its 95 % interval, LE, RE and the three win shares; a plain rung's row has no RS (``note``:
    :data:`NO_TWIN`). RS is None (undefined) where LE + RE is not positive."""
    from .quality import relative_skill

    def wins(p, bot, clair):
        at = frame[(frame["n_players"] == p) & (frame["bot"] == bot) & (frame["clairvoyant"] == clair)
                   & (frame["game"] < games)].sort_values("game")  # fmt: skip
        return at["win"].to_numpy(dtype=float)

    out = []
    for p in players:
        for r in rungs:
            for b in setup["beginners"]:
                row: dict[str, Any] = {"n_players": p, "rung": r, "beginner": b, "relative_skill": None, "lo": None,
                                       "hi": None, "games": 0, "field": setup["field"], "note": ""}  # fmt: skip
                if r not in setup["search"]:
                    out.append({**row, "note": NO_TWIN})
                    continue
                w = {"beginner": wins(p, b, False), "skilled": wins(p, r, False), "fictive": wins(p, r, True)}
                n = min(len(v) for v in w.values())
                if n < 2:
                    out.append({**row, "games": n, "note": "not played"})
                    continue
                rs = relative_skill({k: v[:n] for k, v in w.items()})
                v = rs["relative_skill"]
                out.append({
                    **row, "relative_skill": _finite(v["value"]), "lo": _finite(v["lo"]), "hi": _finite(v["hi"]),
                    "games": n, "learning_effect": _finite(rs["learning_effect"]["value"]),
                    "random_effect": _finite(rs["random_effect"]["value"]),
                    "win_share": {k: _finite(x["value"]) for k, x in rs["win_share"].items()},
                    "ceiling": rs["ceiling"],
                    "note": ("" if v["value"] == v["value"] else "undefined: LE + RE is not positive")
                    or ("at the ceiling: the rung wins 95 % or more against the field, RS reads near 1 from the weak "
                        "field" if rs["ceiling"] else ""),
                })  # fmt: skip
    return out


def skill_verdicts(
    rows: list[dict[str, Any]], rungs: list[str], gaps: list[dict[str, Any]] | None = None
) -> list[dict]:
    """Per player count, the relative skill's verdict on the two strongest rungs measured (search rungs, weakest
    first in ``rungs``), in the seat findings' words (:func:`settled`): :data:`MOVING` if their RS intervals do not
    overlap for a beginner (``moved``: "vs BEGINNER up/down"), else :data:`SETTLED`, or :data:`LEVEL` where the
    cross-play (``gaps``) shows the strongest rung not measurably stronger; :data:`NO_VERDICT` with fewer than two
    measured rungs or no defined RS at both (``undefined``: the beginners left out)."""
    out = []
    for p in sorted({r["n_players"] for r in rows}):
        at = [r for r in rows if r["n_players"] == p and r["games"] >= 2]
        measured = [g for g in rungs if any(r["rung"] == g for r in at)]
        v: dict[str, Any] = {"n_players": p, "status": NO_VERDICT, "weaker": None, "stronger": None, "moved": [],
                             "undefined": [], "agree": [], "skill": None}  # fmt: skip
        if len(measured) < 2:
            v["why"] = "needs two search rungs"
            out.append(v)
            continue
        a, b = measured[-2], measured[-1]
        v.update(weaker=a, stronger=b)
        for beg in dict.fromkeys(r["beginner"] for r in at):
            ra = next((r for r in at if r["rung"] == a and r["beginner"] == beg), None)
            rb = next((r for r in at if r["rung"] == b and r["beginner"] == beg), None)
            vals = [x.get(k) if x else None for x in (ra, rb) for k in ("relative_skill", "lo", "hi")]
            if any(x is None for x in vals):
                v["undefined"].append(beg)
                continue
            va, la, ha, vb, lb, hb = vals
            if ha < lb or hb < la:
                v["moved"].append(f"vs {beg} {'up' if vb > va else 'down'}")
            else:
                v["agree"].append(beg)
        skill = skill_gap(gaps or [], a, b, p)
        v["skill"] = skill
        if v["moved"]:
            v["status"] = MOVING
        elif v["agree"]:
            v["status"] = SETTLED if skill is None or skill["stronger_measured"] else LEVEL
        else:
            v["why"] = "RS undefined at a top rung"
        out.append(v)
    return out


def write_skill(root: str | Path, players: list[int], games: int) -> dict[str, Any]:
    """``skill.json`` of a ladder from its files: the settings written by :func:`measure_skill`, the rows
    (:func:`skill_rows`) on the first ``games`` games and the verdicts (:func:`skill_verdicts`, with the ladder's
    cross-play). Returns what it wrote."""
    from meeplab.sim.core.files import atomic_write

    root = Path(root)
    lad = load_ladder(root)
    rec = _skill_json(root)
    settings = {**rec.get("settings", {}), "games": games}
    setup = {k: settings[k] for k in ("search", "plain", "beginners", "field")}
    rows = skill_rows(read_skill_wins(root), players, lad.rungs, setup, games)
    rec = {"settings": settings, "rows": rows, "verdicts": skill_verdicts(rows, lad.rungs, gap_rows(lad))}
    atomic_write(root / SKILL_FILE, json.dumps(rec, indent=1))
    return rec


def skill_verdict_label(v: dict[str, Any]) -> str:
    """What a relative-skill verdict (:func:`skill_verdicts`) judges: ``relative skill: rollout -> ismcts``."""
    return f"relative skill: {v['weaker']} -> {v['stronger']}" if v.get("stronger") else "relative skill"


def skill_verdict_text(v: dict[str, Any]) -> str:
    """A relative-skill verdict in words: the status, what moved (``still moving (vs random up)``) and the
    beginners left out (RS undefined), or why there is none."""
    if v["status"] == NO_VERDICT:
        return f"{NO_VERDICT} ({v.get('why', '')})"
    notes = list(v["moved"]) + [f"vs {b}: RS undefined" for b in v.get("undefined", [])]
    return v["status"] + (f" ({', '.join(notes)})" if notes else "")
