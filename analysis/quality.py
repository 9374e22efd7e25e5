"""Is it a good game? The metrics of ``meeplab quality`` and the files it writes next to a run.

A quality directory is a run directory (``results.parquet``, ``run.json``) that also holds

* ``trajectories.parquet``: one row per (player count, game, sample point, seat): ``n_players, game, point, step,
  round, progress, seat`` (1-based), ``p_win, se, playouts, final`` (the last point of a game is its result, with
  0 playouts);
* ``decisions.parquet``: ``n_players, kind, candidates, count`` (decision points by kind and number of candidates)
  and ``decisions_seat.parquet``: ``n_players, game, seat, decisions, forced``;
* ``skill.parquet``: ``n_players, game, role, bot, win`` (the tested seat's win share per game, per Dreef role);
* ``kingmaking.parquet``: one row per kingmaking probe and candidate probed: ``n_players, game, point, step, seat,
  kind, p_win, se, candidate, favourite, lead, playouts, kingmaking`` (:func:`kingmaking_rows`);
* ``quality.json``: every figure with its 95% interval, keyed by player count, each under the metric's name.

Every function here takes frames (pandas) that an analyst can read from those files and returns the same numbers
``quality.json`` holds, so a notebook recomputes each metric from the data.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from meeplab.lab.progress import ticking
from meeplab.lab.stats import wilson
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write, atomic_writer

QUALITY_JSON = "quality.json"
FILES = ("trajectories.parquet", "decisions.parquet", "decisions_seat.parquet", "skill.parquet", "kingmaking.parquet")
DECIDED = 0.9  # decisiveness: the eventual winner's win probability stays above this from then on

# plain-language thresholds of the key findings (docs/quality.md says why each is where it is)
THRESHOLDS = {
    "relative_skill": (0.3, 0.7),  # below: mostly luck; above: mostly skill
    "lead_changes": (0.5, 2.0),  # below: the first favourite usually wins; above: a seesaw
    "decisiveness": (0.5, 0.8),  # decided before half of the game: runaway risk; after 80 %: open to the end
    "drama": 0.1,  # winners were on average this far behind the favourite: comebacks are real
    "runaway_leader": 0.8,  # the favourite at half time wins this often: the game is settled early
    "margin_share": 0.1,  # median margin below 10 % of the winner's score: close games
    "kingmaking_games": 0.1,  # one game in ten holds a kingmaking decision: a real concern
    # expected calibration error of the win probabilities: above it, the trajectories' estimates do not match how
    # often the run's own games are won, and the metrics that rest on them (TRAJECTORY_METRICS) are marked
    "calibration_error": 0.05,
}
#: the metrics computed from the win-probability trajectories (marked when the estimates are not calibrated)
TRAJECTORY_METRICS = ("lead_changes", "decisiveness", "drama", "uncertainty", "comeback_rate", "runaway_leader",
                      "kingmaking")  # fmt: skip
CALIBRATION_BINS = 10
#: Ludii's state-evaluation metrics computed on the trajectories (:func:`ludii_metrics`), per game then averaged
LUDII_METRICS = ("ludii_lead_change", "ludii_decisiveness_threshold", "ludii_decisiveness", "ludii_drama")
CALIBRATION_MIN_GAMES = 30  # fewer trajectory games give no calibration verdict


def band(metric: dict[str, Any], name: str) -> str:
    """Where ``metric``'s 95 % interval lies against :data:`THRESHOLDS` [``name``]: ``"below"`` the (lower)
    threshold, ``"between"`` two thresholds, ``"above"`` the (upper) one, or ``"undecided"`` when the interval
    straddles a threshold (a verdict word would claim more than the games show). A metric without an interval is
    judged by its value."""
    t = THRESHOLDS[name]
    lo_t, hi_t = t if isinstance(t, tuple) else (t, t)
    v = metric.get("value")
    lo, hi = metric.get("lo", v), metric.get("hi", v)
    if lo is None or hi is None or v is None or any(x != x for x in (lo, hi)):
        lo = hi = v
    if v is None:
        return "undecided"

    def where(x: float) -> str:
        return "below" if x < lo_t else "above" if x > hi_t else "between"

    a, b = where(lo), where(hi)
    return a if a == b else "undecided"


# -- small statistics -----------------------------------------------------------------------------------------------


def mean_ci(x, count: bool = False, reps: int = 2000) -> dict[str, float]:
    """Mean over games with a 95% percentile-bootstrap interval (the game is the unit).

    A resampled mean never leaves ``[min, max]`` of the data, so the interval stays inside the metric's range (a
    count never goes below 0, a share of the game never past 100 %), where a normal approximation would cross it for
    a metric with many zeros. Seeded by the number of games: the same data gives the same interval every time. The
    resampling draws, per replicate, how often each distinct value occurs (a multinomial, the same distribution as
    resampling the games) when the values are few, and resamples the games otherwise. When every game has the same
    value the bootstrap has no spread to show; for a ``count`` that is 0 in every game the upper end is then the exact
    Poisson bound -ln(0.025) / n (3.7 / n)."""
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        return {"value": math.nan, "lo": math.nan, "hi": math.nan, "n": 0}
    m = float(x.mean())
    if n == 1:
        return {"value": m, "lo": math.nan, "hi": math.nan, "n": 1}
    vals, cnt = np.unique(x, return_counts=True)
    if len(vals) == 1:
        hi = -math.log(0.025) / n if count and m == 0 else m
        return {"value": m, "lo": m, "hi": hi, "n": n}
    rng = np.random.default_rng(n)
    means = np.empty(reps)
    if len(vals) * 8 <= n:  # few distinct values: draw their counts
        means[:] = rng.multinomial(n, cnt / n, size=reps) @ vals / n
    else:
        step = max(1, 2_000_000 // n)
        for s in range(0, reps, step):
            k = min(step, reps - s)
            means[s : s + k] = x[rng.integers(0, n, (k, n))].mean(axis=1)
    lo, hi = _pct(means)
    return {"value": m, "lo": min(lo, m), "hi": max(hi, m), "n": n}


def share_ci(k: float, n: float) -> dict[str, float]:
    """A share with its Wilson interval (``k`` may be fractional: shared wins)."""
    lo, hi = wilson(float(k), float(n))
    return {"value": float(k) / n if n else math.nan, "lo": lo, "hi": hi, "n": int(n)}


def bootstrap(stat, n: int, reps: int = 2000, seed: int = 0) -> np.ndarray:
    """``stat(idx)`` over ``reps`` resamples of the rows ``0..n-1`` (the game is the unit)."""
    rng = np.random.default_rng(seed)
    return np.array([stat(rng.integers(0, n, n)) for _ in range(reps)])


def _pct(vals: np.ndarray) -> tuple[float, float]:
    v = vals[np.isfinite(vals)]
    if len(v) == 0:
        return math.nan, math.nan
    return float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))


# -- win-probability trajectories -----------------------------------------------------------------------------------


def trajectory_frame(arrays: dict[str, Any], n_players: int, games) -> pd.DataFrame:
    """The trajectories of ``sim.core.trajectories`` as rows (the columns of ``trajectories.parquet``)."""
    steps, rounds, prob, se = arrays["steps"], arrays["rounds"], arrays["prob"], arrays["se"]
    ng, npts = steps.shape
    nplay = arrays.get("nplay")
    nplay = np.zeros((ng, npts), dtype=np.int64) if nplay is None else nplay
    half = "prob_half" in arrays
    rows = []
    for i in range(ng):
        d = max(int(arrays["length"][i]), 1)
        for j in range(npts):
            if steps[i, j] < 0:
                continue
            for p in range(n_players):
                row = (n_players, int(games[i]), j, int(steps[i, j]), int(rounds[i, j]), steps[i, j] / d, p + 1,
                       float(prob[i, j, p]), float(se[i, j, p]), int(nplay[i, j]), j == npts - 1)  # fmt: skip
                if half:
                    row += (float(arrays["prob_half"][i, j, p]), float(arrays["se_half"][i, j, p]),
                            int(arrays["nhalf"][i, j]))  # fmt: skip
                rows.append(row)
    cols = ["n_players", "game", "point", "step", "round", "progress", "seat", "p_win", "se", "playouts", "final"]
    return pd.DataFrame(rows, columns=cols + (["p_half", "se_half", "playouts_half"] if half else []))


def lead_changes(p: np.ndarray) -> int:
    """Changes of the most likely winner along a trajectory ``p`` [points, seats] (a tie keeps the favourite)."""
    lead = -1
    changes = 0
    for row in np.asarray(p, dtype=float):
        best = int(np.argmax(row))
        if lead >= 0 and best != lead and row[best] > row[lead]:
            changes += 1
            lead = best
        elif lead < 0:
            lead = best
    return changes


def game_metrics(prog: np.ndarray, p: np.ndarray) -> dict[str, float]:
    """The trajectory metrics of one game: ``prog`` [points] (share of the game played), ``p`` [points, seats]
    (the last row = the result). The eventual winner is the seat with the largest final win share."""
    p = np.asarray(p, dtype=float)
    prog = np.asarray(prog, dtype=float)
    n_seats = p.shape[1]
    w = int(np.argmax(p[-1]))
    above = p[:, w] > DECIDED
    t = len(above)
    while t > 0 and above[t - 1]:
        t -= 1
    decided_at = float(prog[t]) if t < len(prog) else 1.0
    before = p[:-1]  # the game in progress (the result carries no uncertainty)
    drama = float(np.mean(before.max(axis=1) - before[:, w])) if len(before) else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(before > 0, before * np.log(before), 0.0).sum(axis=1) / math.log(n_seats)
    uncertainty = float(np.mean(ent)) if len(before) else 0.0

    def favourite_at(share):
        j = int(np.argmin(np.abs(prog[:-1] - share))) if len(prog) > 1 else 0
        return int(np.argmax(p[j]))

    return {
        **ludii_metrics(p),
        "lead_changes": lead_changes(p),
        "decided_at": decided_at,
        "drama": drama,
        "uncertainty": uncertainty,
        "comeback": float(favourite_at(2 / 3) != w),
        "half_leader_win": float(p[-1, favourite_at(0.5)]),
        "winner": w + 1,
    }


def ludii_metrics(p: np.ndarray) -> dict[str, float]:
    """Ludii's Lead Change, Decisiveness Threshold, Decisiveness and Drama (Average) of one game, as Ludii's
    ``metrics`` package defines them, on our estimates: ``p`` [points, seats] with the last row the result; the
    winners are the seats with the largest result (Ludii's highest-ranked players, ties included). Ludii evaluates
    every move with its UCT evaluations; here the evaluation is the win probability at the sample points.

    * ``ludii_lead_change``: the points at which the set of seats with the highest evaluation differs from the set
      at the point before (the first point counts, Ludii's initial set being empty), divided by the points;
    * ``ludii_decisiveness_threshold``: the highest evaluation a non-winner reached;
    * ``ludii_decisiveness``: the first point at which a winner's evaluation exceeds that threshold, as a share of
      the points (1 if none does; Ludii divides two integers there, which gives 0 or 1; we divide as reals);
    * ``ludii_drama``: the mean over the points of the highest evaluation less the winners' mean evaluation (Ludii's
      Drama with the Average aggregate: our ``drama``, with the winners' mean for a shared win)."""
    p = np.asarray(p, dtype=float)
    before = p[:-1]
    n = len(before)
    if n == 0:
        return {"ludii_lead_change": 0.0, "ludii_decisiveness_threshold": 0.0, "ludii_decisiveness": 1.0,
                "ludii_drama": 0.0}  # fmt: skip
    win = np.flatnonzero(p[-1] >= p[-1].max() - 1e-12)
    losers = np.setdiff1d(np.arange(p.shape[1]), win)
    top = before.max(axis=1)
    leaders = [frozenset(np.flatnonzero(row >= t - 1e-12)) for row, t in zip(before, top)]
    changes = sum(1 for i in range(n) if i == 0 or leaders[i] != leaders[i - 1])
    threshold = float(before[:, losers].max()) if len(losers) else -1.0
    above = np.flatnonzero((before[:, win] > threshold).any(axis=1))
    return {
        "ludii_lead_change": changes / n,
        "ludii_decisiveness_threshold": threshold,
        "ludii_decisiveness": float(above[0]) / n if len(above) else 1.0,
        "ludii_drama": float(np.mean(top - before[:, win].mean(axis=1))),
    }


def per_game(traj: pd.DataFrame) -> pd.DataFrame:
    """:func:`game_metrics` for every (player count, game) of a trajectories frame."""
    out = [{"n_players": np_, "game": g, **game_metrics(prog, p)} for np_, g, prog, p in game_trajectories(traj)]
    return pd.DataFrame(out)


def game_trajectories(traj: pd.DataFrame):
    """Per (player count, game) of a trajectories frame, in that order: ``(n_players, game, prog [T], p [T, S])``,
    the share of the game played at each sample point and the seats' win probabilities (``p_win``) there, points
    and seats in ascending order. The frame as ``meeplab quality`` writes it, every point with one row per seat,
    is cut up in one sort; a game with a seat missing at some point, a seat twice or a missing ``p_win`` is read as
    a pivot table (the mean of a point's rows per seat, NaN where a seat has none) and ``progress``'s first value
    at each point, which is what the fast path gives wherever both apply."""
    keys = ["n_players", "game", "point", "seat"]
    order = np.lexsort([traj[k].to_numpy() for k in reversed(keys)])
    col = {k: traj[k].to_numpy()[order] for k in (*keys, "progress", "p_win")}
    rows = len(order)
    cut = np.flatnonzero((col["n_players"][1:] != col["n_players"][:-1]) | (col["game"][1:] != col["game"][:-1]))
    starts = np.concatenate(([0], cut + 1)) if rows else np.zeros(0, dtype=np.int64)
    ends = np.concatenate((starts[1:], [rows])) if rows else starts
    for a, b in zip(starts.tolist(), ends.tolist()):
        point, seat = col["point"][a:b], col["seat"][a:b]
        p, prog = col["p_win"][a:b].astype(float), col["progress"][a:b].astype(float)
        seats = int(np.searchsorted(point, point[0], side="right"))  # the first point's rows
        grid = (b - a) % seats == 0
        if grid:
            t = (b - a) // seats
            pt, st, pr = point.reshape(t, seats), seat.reshape(t, seats), prog.reshape(t, seats)
            grid = bool(
                (pt == pt[:, :1]).all()
                and (np.diff(pt[:, 0]) > 0).all()
                and (st == st[:1]).all()
                and (np.diff(st[0]) > 0).all()
                and not np.isnan(p).any()
                and (pr == pr[:, :1]).all()
            )
        if grid:
            yield col["n_players"][a], col["game"][a], pr[:, 0], p.reshape(t, seats)
        else:
            d = traj.iloc[np.sort(order[a:b])]
            piv = d.pivot_table(index="point", columns="seat", values="p_win").sort_index()
            prog_first = d.groupby("point")["progress"].first().sort_index().to_numpy()
            yield col["n_players"][a], col["game"][a], prog_first, piv.to_numpy()


def trajectory_metrics(traj: pd.DataFrame, noise: bool = True, recal: dict[str, Any] | None = None) -> dict[str, dict]:
    """Lead changes, decisiveness, drama, uncertainty, comeback rate and runaway leader of one player count, and
    Ludii's four (``ludii``). With ``noise`` (and a ``playouts`` column) the intervals of all ten include the
    playout noise
    (:func:`noise_intervals`; ``games_lo``/``games_hi``: over games only) and ``noise_aware`` is True; with the
    file's ``p_half``, ``two_budgets`` holds the check at half the playouts (:func:`two_budgets`). ``recal``:
    :func:`recalibrate`'s maps, ``traj`` being :func:`recalibrated_frame`'s (the noise is drawn from the playouts' own
    estimates, ``p_raw``, and passed through each game's map)."""
    pg = per_game(traj)
    ch = pg["lead_changes"].to_numpy()
    hist = {int(k): int(v) for k, v in zip(*np.unique(ch, return_counts=True))}
    six = _share_records(pg)
    rec = {
        **six,
        "lead_changes": {**six["lead_changes"], "histogram": hist},
        "ludii": {k.removeprefix("ludii_"): mean_ci(pg[k]) for k in LUDII_METRICS},
        "trajectory_se": {"value": float(traj.loc[~traj["final"], "se"].mean()), "n": int((~traj["final"]).sum())},
        "trajectory_playouts": {
            "value": float(traj.loc[~traj["final"], "playouts"].mean()) if "playouts" in traj else None,
            "n": int((~traj["final"]).sum()),
        },
    }
    if noise and "playouts" in traj and (traj["playouts"] > 0).any():
        blocks = game_blocks(traj, "p_raw", maps=fold_maps(recal)) if recal and "p_raw" in traj else game_blocks(traj)
        got = noise_intervals(blocks, ludii=True)
        for key, (lo, hi) in got.pop("ludii").items():
            rec["ludii"][key] = with_noise(rec["ludii"][key], lo, hi)
        for key, (lo, hi) in got.items():
            rec[key] = with_noise(rec[key], lo, hi)
        rec["noise_aware"] = True
    if "p_half" in traj:
        rec["two_budgets"] = two_budgets(traj, rec, recal)
    return rec


def game_blocks(
    traj: pd.DataFrame, col: str = "p_win", count: str = "playouts", maps: dict[int, np.ndarray] | None = None
) -> list[tuple]:
    """Per game of one player count, in game order: ``(prog [T], p [T, S], n [T], w)``, the estimates of column
    ``col`` by point (the last row the result), their playouts (column ``count``; 0 where the file has none) and the
    recalibration map of the game's fold (``maps``: :func:`fold_maps`, None: no map): with a map, ``col`` holds the
    playouts' own estimates, and each noisy copy goes through the map after its playouts are redrawn."""
    d = traj.sort_values(["game", "point", "seat"])
    seats = int(d["seat"].max())
    folds = len(maps) if maps else 0
    out = []
    for game, g in d.groupby("game", sort=True):
        p = g[col].to_numpy(float).reshape(-1, seats)
        n = g[count].to_numpy(float).reshape(-1, seats)[:, 0] if count in g else np.zeros(len(p))
        w = maps[int(game) % folds] if maps else None
        out.append((g["progress"].to_numpy(float)[::seats], p, n, w))
    return out


def noisy_game_metrics(
    prog: np.ndarray, p: np.ndarray, n: np.ndarray, reps: int, rng, recal: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """:func:`game_metrics`' lead changes, decisiveness, drama, uncertainty, comeback and half-time favourite's win
    for ``reps`` copies of one game's trajectory ``p`` [T, S], each point's estimates redrawn from their playout
    noise: a point of ``n`` playouts becomes a multinomial draw of ``n`` wins over the seats with the estimated
    probabilities, divided by ``n`` (a parametric resample of its playouts; a point without playouts and the result
    stay as they are). ``recal``: ``p`` are the playouts' own estimates and every copy goes through this
    recalibration map (:func:`platt_fit`'s weights) after the draw, the seats scaled to sum to 1 (as
    :func:`recalibrate`). Arrays [reps]; the copies are the same as :func:`game_metrics` wherever ``n`` is 0."""
    p = np.asarray(p, dtype=float)
    t_, s_ = p.shape
    pp = np.broadcast_to(p, (reps, t_, s_)).copy()
    for t in range(t_ - 1):
        k = int(n[t])
        if k > 0:
            q = np.clip(p[t], 0.0, None)
            pp[:, t] = rng.multinomial(k, q / q.sum(), size=reps) / k
    if recal is not None and t_ > 1:
        live = platt_apply(pp[:, :-1], np.asarray(n, float)[None, :-1, None], recal, np.asarray(prog)[None, :-1, None])
        pp[:, :-1] = live / live.sum(axis=2, keepdims=True)
    w = int(np.argmax(p[-1]))
    top = pp.argmax(axis=2)  # [reps, T]
    lead = top[:, 0].copy()
    changes = np.zeros(reps)
    r = np.arange(reps)
    for t in range(1, t_):
        best = top[:, t]
        ch = (best != lead) & (pp[r, t, best] > pp[r, t, lead])
        changes += ch
        lead = np.where(ch, best, lead)
    above = pp[:, :, w] > DECIDED
    trailing = np.cumprod(above[:, ::-1], axis=1).sum(axis=1)  # points above to the end
    at = t_ - trailing
    decided = np.where(at < t_, np.asarray(prog)[np.minimum(at, t_ - 1)], 1.0)
    before = pp[:, :-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(before > 0, before * np.log(before), 0.0).sum(axis=2) / math.log(s_)

    def at_share(share):
        return int(np.argmin(np.abs(np.asarray(prog)[:-1] - share))) if t_ > 1 else 0

    return {
        "lead_changes": changes,
        "decided_at": decided,
        "drama": (before.max(axis=2) - before[:, :, w]).mean(axis=1) if t_ > 1 else np.zeros(reps),
        "uncertainty": ent.mean(axis=1) if t_ > 1 else np.zeros(reps),
        "comeback": (top[:, at_share(2 / 3)] != w).astype(float),
        "half_leader_win": p[-1][top[:, at_share(0.5)]],
        **ludii_copies(pp),
    }


def ludii_copies(pp: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`ludii_metrics` of each copy ``pp[r]`` [T, S] of one game's trajectory (the last row the result, the
    same in every copy), as arrays [copies]."""
    reps, t_, s_ = pp.shape
    n = t_ - 1
    if n <= 0:
        return {"ludii_lead_change": np.zeros(reps), "ludii_decisiveness_threshold": np.zeros(reps),
                "ludii_decisiveness": np.ones(reps), "ludii_drama": np.zeros(reps)}  # fmt: skip
    result = pp[0, -1]
    win = np.flatnonzero(result >= result.max() - 1e-12)
    losers = np.setdiff1d(np.arange(s_), win)
    before = pp[:, :-1]
    top = before.max(axis=2)  # [reps, n]
    leads = before >= top[:, :, None] - 1e-12  # the set of leaders at each point
    changes = 1 + (leads[:, 1:] != leads[:, :-1]).any(axis=2).sum(axis=1)
    threshold = before[:, :, losers].max(axis=(1, 2)) if len(losers) else np.full(reps, -1.0)
    above = (before[:, :, win] > threshold[:, None, None]).any(axis=2)  # [reps, n]
    first = np.where(above.any(axis=1), above.argmax(axis=1) / n, 1.0)
    return {
        "ludii_lead_change": changes / n,
        "ludii_decisiveness_threshold": threshold,
        "ludii_decisiveness": first,
        "ludii_drama": (top - before[:, :, win].mean(axis=2)).mean(axis=1),
    }


#: the trajectory metrics whose intervals include the playout noise (key in the record: per-game column)
NOISY_METRICS = {
    "lead_changes": "lead_changes",
    "decisiveness": "decided_at",
    "drama": "drama",
    "uncertainty": "uncertainty",
    "comeback_rate": "comeback",
    "runaway_leader": "half_leader_win",
}
#: Ludii's metrics, whose intervals include the playout noise too (key under the record's ``ludii``: per-game column)
NOISY_LUDII = {k.removeprefix("ludii_"): k for k in LUDII_METRICS}
NOISE_COPIES = 200  # playout-noise copies of each game drawn for the intervals


def noise_intervals(
    blocks: list[tuple], reps: int = 2000, copies: int = NOISE_COPIES, ludii: bool = False
) -> dict[str, Any]:
    """95 % intervals of the trajectory metrics' means over games that include the playout noise (docs/quality.md,
    Intervals): a percentile bootstrap whose every replicate resamples the games and, for each game drawn, one of
    ``copies`` copies of it with every point's estimates redrawn from their playouts
    (:func:`noisy_game_metrics`). Seeded by the number of games. ``{key: (lo, hi)}`` for
    :data:`NOISY_METRICS`, and with ``ludii`` for Ludii's (:data:`NOISY_LUDII`: ``{"ludii": {key: (lo, hi)}}`` too),
    from the same replicates."""
    g = len(blocks)
    rng = np.random.default_rng(g)
    per = [noisy_game_metrics(prog, p, n, copies, rng, w) for prog, p, n, w in blocks]
    idx = rng.integers(0, g, (reps, g))
    col = rng.integers(0, copies, (reps, g))

    def interval(name):
        m = np.stack([x[name] for x in per])  # [G, copies]
        return _pct(m[idx, col].mean(axis=1))

    out: dict[str, Any] = {key: interval(name) for key, name in NOISY_METRICS.items()}
    if ludii:
        out["ludii"] = {key: interval(name) for key, name in NOISY_LUDII.items()}
    return out


def with_noise(rec: dict[str, Any], lo: float, hi: float) -> dict[str, Any]:
    """A metric's record with its interval widened to hold the noise-aware one (``lo``, ``hi``); the games-only
    interval kept as ``games_lo``/``games_hi``."""
    out = {**rec, "games_lo": rec.get("lo"), "games_hi": rec.get("hi")}
    if all(isinstance(x, float) and math.isfinite(x) for x in (lo, hi, rec.get("lo"), rec.get("hi"))):
        out["lo"], out["hi"] = min(rec["lo"], lo), max(rec["hi"], hi)
    return out


#: the metrics measured at two budgets (trajectories' key: per-game column of :func:`game_metrics`)
BUDGET_METRICS = {"lead_changes": "lead_changes", "drama": "drama", "comeback_rate": "comeback"}


def _share_records(pg: pd.DataFrame) -> dict[str, dict]:
    """The six trajectory metrics' means over games with their intervals over games (:func:`trajectory_metrics`)."""
    n = len(pg)
    return {
        "lead_changes": mean_ci(pg["lead_changes"].to_numpy(), count=True),
        "decisiveness": mean_ci(pg["decided_at"]),
        "drama": mean_ci(pg["drama"]),
        "uncertainty": mean_ci(pg["uncertainty"]),
        "comeback_rate": share_ci(pg["comeback"].sum(), n),
        "runaway_leader": share_ci(pg["half_leader_win"].sum(), n),
    }


#: a budget's shift of a metric is material from this share of the metric's own 95 % interval half-width
MATERIAL = 0.5


def two_budgets(
    traj: pd.DataFrame, full: dict[str, Any] | None = None, recal: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Lead changes, drama and comebacks at the run's budget and at half of it (each point's first half of its
    playouts, the file's ``p_half``): per metric the run's value with its interval (``full``: the records of
    :func:`trajectory_metrics`, else computed), the value at half the playouts with its noise-aware interval
    (``half``), the paired difference (run's budget minus half, game by game; a percentile bootstrap over games) and
    the verdict ``settled`` (the difference's interval holds 0, or lies within ``material`` = :data:`MATERIAL` x the
    metric's interval half-width: a shift too small to matter) or ``not settled`` (the metric still moves with the
    budget; ``overlap`` says whether the two intervals overlap all the same). Empty where the file has no
    ``p_half``."""
    if "p_half" not in traj or not len(traj):
        return {}
    if full is None:
        full = trajectory_metrics(traj.drop(columns=["p_half"]), recal=recal)
    a_pg = per_game(traj)
    b_pg = per_game(traj.assign(p_win=traj["p_half"]))
    half = _share_records(b_pg)
    if (traj["playouts_half"] > 0).any():
        if recal and "p_half_raw" in traj:
            blocks = game_blocks(traj, "p_half_raw", "playouts_half", fold_maps(recal, "half"))
        else:
            blocks = game_blocks(traj, "p_half", "playouts_half")
        for key, (lo, hi) in noise_intervals(blocks).items():
            half[key] = with_noise(half[key], lo, hi)
    live = ~traj["final"]
    out: dict[str, Any] = {
        "playouts": float(traj.loc[live, "playouts"].mean()),
        "playouts_half": float(traj.loc[live, "playouts_half"].mean()),
    }
    for key, col in BUDGET_METRICS.items():
        fa, fb = full[key], half[key]
        diff = mean_ci(a_pg[col].to_numpy(float) - b_pg[col].to_numpy(float))
        # a shift is material when it can reach half of the metric's own interval half-width: a budget that moves a
        # metric by less than that (however significant, the two budgets share half their playouts) leaves it settled
        material = MATERIAL * (fa["hi"] - fa["lo"]) / 2.0 if np.isfinite(fa["hi"] - fa["lo"]) else 0.0
        held = (
            diff["n"] < 2 or (diff["lo"] <= 0.0 <= diff["hi"]) or (-material <= diff["lo"] and diff["hi"] <= material)
        )
        out[key] = {
            "value": fa["value"], "lo": fa["lo"], "hi": fa["hi"],
            "half": {"value": fb["value"], "lo": fb["lo"], "hi": fb["hi"]},
            "difference": diff,
            "overlap": bool(fa["lo"] <= fb["hi"] and fb["lo"] <= fa["hi"]),
            "material": material,
            "verdict": "settled" if held else "not settled",
        }  # fmt: skip
    return out


def calibration(traj: pd.DataFrame, bins: int = CALIBRATION_BINS, reps: int = 1000) -> dict[str, Any]:
    """How well the trajectories' win probabilities match the games' results, for one player count: every estimate
    before the end (a seat at a point) against that seat's result (its win share: 1, 0, or 1/k of a k-way shared
    first place), grouped in ``bins`` equal bins of the estimate. Per bin: estimates, mean estimate, observed win
    rate with its Wilson interval.

    ``value``: the calibration error, the root of the bins' mean squared distance between mean estimate and
    observed rate (bins weighted by their estimates), each bin's squared distance less what its finite results
    would give if the estimates were right, ``p (1 - p) / m`` with ``p`` the bin's mean estimate and ``m`` its
    distinct (game, seat) results (a debiased calibration error, after Kumar, Liang & Ma 2019: a calibrated estimator
    gives about 0 whatever the games, where the plain expected calibration error of 100 games reads 0.05 or more from
    noise alone). Its 95 % interval is a
    bootstrap over the games (a game's estimates are resampled together). ``ece``: the plain expected calibration
    error, for comparison."""
    d = traj[~traj["final"]]
    fin = traj[traj["final"]][["game", "seat", "p_win"]].rename(columns={"p_win": "won"})
    d = d.merge(fin, on=["game", "seat"], how="inner")
    if d.empty:
        return {"value": None, "lo": None, "hi": None, "n": 0, "bins": []}
    pred = d["p_win"].to_numpy(dtype=float)
    won = d["won"].to_numpy(dtype=float)
    which = np.clip((pred * bins).astype(np.int64), 0, bins - 1)
    games, gi = np.unique(d["game"].to_numpy(), return_inverse=True)
    # one result per (game, seat, bin): the unit that is independent between games
    unit = (gi * (int(d["seat"].max()) + 1) + d["seat"].to_numpy()) * bins + which
    units, ui = np.unique(unit, return_inverse=True)
    unit_bin = units % bins

    def errors(weight: np.ndarray) -> tuple[float, float]:  # weight: how often each estimate is drawn
        n = np.bincount(which, weight, bins)
        live = n > 0
        p_ = np.bincount(which, weight * pred, bins)[live] / n[live]
        o_ = np.bincount(which, weight * won, bins)[live] / n[live]
        m = np.bincount(unit_bin, np.bincount(ui, weight, len(units)) > 0, bins)[live]
        noise = p_ * (1 - p_) / np.maximum(m, 1)
        w = n[live] / n.sum()
        sq = float(np.sum(w * ((p_ - o_) ** 2 - noise)))
        return math.sqrt(max(sq, 0.0)), float(np.sum(w * np.abs(p_ - o_)))

    value, ece = errors(np.ones(len(pred)))
    rng = np.random.default_rng(0)
    boot = np.array([errors(np.bincount(rng.integers(0, len(games), len(games)), minlength=len(games))[gi]
                            .astype(float))[0] for _ in range(reps)])  # fmt: skip
    lo, hi = _pct(boot)
    out_bins = []
    for k in range(bins):
        at = which == k
        n = int(at.sum())
        if n == 0:
            continue
        obs = share_ci(won[at].sum(), n)
        out_bins.append({"from": k / bins, "to": (k + 1) / bins, "n": n, "predicted": float(pred[at].mean()),
                         "observed": obs["value"], "observed_lo": obs["lo"], "observed_hi": obs["hi"]})  # fmt: skip
    return {"value": value, "lo": min(lo, value), "hi": max(hi, value), "ece": ece, "n": int(len(pred)),
            "games": int(len(games)), "bins": out_bins}  # fmt: skip


RECALIBRATE = ("auto", "on", "off")  # meeplab quality --recalibrate: when the metrics use recalibrated estimates
RECALIBRATE_FOLDS = 2  # cross-fitting: each half of the games is recalibrated by a map fitted on the other half


def _logit(p: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The log-odds of estimates ``p`` of ``n`` playouts each, kept off 0 and 1 by half a playout (an estimate of 0
    wins in 32 playouts is not a certainty; where ``n`` is 0, unknown, by 1e-6)."""
    eps = np.where(n > 0, 0.5 / (np.maximum(n, 1.0) + 1.0), 1e-6)  # no playout count: only off exact 0 and 1
    q = np.clip(p, eps, 1.0 - eps)
    return np.log(q / (1.0 - q))


def _platt_columns(x: np.ndarray, progress: np.ndarray) -> np.ndarray:
    """The map's regressors: the log-odds and 1, each once weighted towards the start and once towards the end of the
    game (``1 - t`` and ``t``): slope and intercept drift linearly along the game."""
    return np.stack([x * (1.0 - progress), x * progress, 1.0 - progress, progress], axis=-1)


def platt_fit(p: np.ndarray, n: np.ndarray, won: np.ndarray, progress: np.ndarray | None = None) -> np.ndarray:
    """Platt scaling (Platt 1999) with its slope and intercept linear in the game's progress ``t`` (0 at the start,
    1 at the end; None: 0, plain Platt scaling): ``won ~ sigmoid(a(t) logit(p) + b(t))``, ``a(t) = w0 (1 - t) + w1 t``,
    ``b(t) = w2 (1 - t) + w3 t``, by maximum likelihood with both slopes at least 0 (so the map never reverses the
    order of the seats), ``won`` a seat's result (1, 0, or 1/k of a k-way shared win). A slope below 1 says the
    estimates are too confident, above 1 too timid; a playout policy weaker than the seats misjudges the long rest of
    an early position more than a short one, hence the drift. The identity (1, 1, 0, 0) where there is nothing to
    fit."""
    from scipy.optimize import minimize

    x = _logit(np.asarray(p, float), np.asarray(n, float))
    t = np.zeros_like(x) if progress is None else np.asarray(progress, float)
    y = np.asarray(won, float)
    w0 = np.array([1.0, 1.0, 0.0, 0.0])
    if len(x) < 2 or np.ptp(x) == 0.0:
        return w0
    X = _platt_columns(x, t)

    def nll(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = X @ w
        return float(np.sum(np.logaddexp(0.0, z) - y * z)), X.T @ (1.0 / (1.0 + np.exp(-z)) - y)

    bounds = [(0.0, None), (0.0, None), (None, None), (None, None)]
    return minimize(nll, w0, jac=True, method="L-BFGS-B", bounds=bounds).x


def platt_apply(p: np.ndarray, n: np.ndarray, w: np.ndarray, progress: np.ndarray | None = None) -> np.ndarray:
    """Estimates ``p`` (of ``n`` playouts each, at ``progress``) through the map of :func:`platt_fit`'s ``w``."""
    x = _logit(np.asarray(p, float), np.asarray(n, float))
    t = np.zeros_like(x) if progress is None else np.broadcast_to(np.asarray(progress, float), x.shape)
    return 1.0 / (1.0 + np.exp(-(_platt_columns(x, t) @ np.asarray(w, float))))


def recalibrate(traj: pd.DataFrame, folds: int = RECALIBRATE_FOLDS) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The trajectories of one player count with recalibrated estimates: column ``p_cal`` (and ``p_half_cal`` where
    the frame has ``p_half``) beside the playouts' own ``p_win``. Cross-fitted: the games are split into ``folds`` by
    game index (``game % folds``); each fold's estimates go through a map (:func:`platt_fit`: Platt scaling, its
    slope and intercept linear in the game's progress) fitted on the other folds' estimates against their results,
    so no estimate is recalibrated with its own game's result and the calibration error of ``p_cal``
    (:func:`calibration`) is an honest, out-of-fold one. At each point the seats' recalibrated estimates are scaled to
    sum to 1 again (at a point the map is monotone and the same for every seat, so the favourite is unchanged: lead
    changes and the runaway leader do not move); the result rows are kept. Returns the frame and the maps per fold
    (``w``: :func:`platt_fit`'s weights; ``slope_start``/``slope_end``, ``intercept_start``/``intercept_end``,
    ``games`` fitted on; ``half``: the same for ``p_half``; ``method``, ``folds``)."""
    t = traj.copy()
    live = ~t["final"].to_numpy(bool)
    fin = t.loc[~live, ["game", "seat", "p_win"]].rename(columns={"p_win": "won"})
    won = t[["game", "seat"]].merge(fin, on=["game", "seat"], how="left")["won"].to_numpy(float)
    fold = t["game"].to_numpy() % folds
    prog = t["progress"].to_numpy(float)
    pairs = [("p_win", "playouts", "p_cal")] + ([("p_half", "playouts_half", "p_half_cal")] if "p_half" in t else [])
    info: dict[str, Any] = {"method": "Platt scaling with slope and intercept linear in the progress, cross-fitted",
                            "folds": folds, "maps": [], "half": []}  # fmt: skip
    for col, count, dest in pairs:
        orig = t[col].to_numpy(float)
        q = orig.copy()
        n = t[count].to_numpy(float) if count in t else np.zeros(len(t))
        for f in range(folds):
            fit = live & (fold != f) & np.isfinite(won)
            w = platt_fit(orig[fit], n[fit], won[fit], prog[fit])
            at = live & (fold == f)
            q[at] = platt_apply(orig[at], n[at], w, prog[at])
            info["maps" if col == "p_win" else "half"].append(
                {"fold": f, "w": [float(x) for x in w], "slope_start": float(w[0]), "slope_end": float(w[1]),
                 "intercept_start": float(w[2]), "intercept_end": float(w[3]),
                 "games": int(np.unique(t["game"][fit]).size)}
            )  # fmt: skip
        t[dest] = q
        total = t.groupby(["game", "point"])[dest].transform("sum").to_numpy(float)
        t.loc[live, dest] = q[live] / np.where(total[live] > 0, total[live], 1.0)
    return t, info


def recalibrated_frame(traj: pd.DataFrame) -> pd.DataFrame:
    """The frame the metrics read after :func:`recalibrate`: ``p_win`` (and ``p_half``) replaced by their
    recalibrated columns, the playouts' own kept as ``p_raw`` (and ``p_half_raw``) for the noise of the intervals."""
    t = traj.assign(p_raw=traj["p_win"], p_win=traj["p_cal"])
    if "p_half_cal" in t:
        t = t.assign(p_half_raw=t["p_half"], p_half=t["p_half_cal"])
    return t.drop(columns=[c for c in ("p_cal", "p_half_cal") if c in t])


def fold_maps(info: dict[str, Any] | None, key: str = "maps") -> dict[int, np.ndarray] | None:
    """:func:`recalibrate`'s maps of ``key`` (``maps``, or ``half`` for the half budget) by fold, for
    :func:`game_blocks`; None without recalibration."""
    if not info or not info.get(key):
        return None
    return {int(m["fold"]): np.asarray(m["w"], float) for m in info[key]}


def raw_miscalibrated(rec: dict[str, Any]) -> bool:
    """Whether the playouts' own estimates of one player count's record were miscalibrated (before any
    recalibration): kingmaking, which reads them directly, then rests on estimates that do not match the results."""
    cal = rec.get("calibration") or {}
    return calibrated({"calibration": cal.get("raw") or cal}) == "miscalibrated"


def calibrated(rec: dict[str, Any]) -> str:
    """The calibration verdict of one player count's record: ``"calibrated"`` (the error's interval below
    :data:`THRESHOLDS` ``calibration_error``), ``"miscalibrated"`` (above it), ``"undecided"`` (it straddles it, or
    fewer than :data:`CALIBRATION_MIN_GAMES` trajectory games: a bootstrap of a handful of games says nothing) or
    ``""`` (no estimate)."""
    cal = rec.get("calibration") or {}
    if cal.get("value") is None:
        return ""
    if int(cal.get("games") or 0) < CALIBRATION_MIN_GAMES:
        return "undecided"
    return {"below": "calibrated", "above": "miscalibrated"}.get(band(cal, "calibration_error"), "undecided")


# -- closeness and what decides games -------------------------------------------------------------------------------


def game_table(results: pd.DataFrame, cats: list[str]) -> dict[str, np.ndarray]:
    """Per game of one player count: score [G, P], tiebreak [G, P], win [G, P], breakdown [G, P, C]."""
    r = results.sort_values(["game_index", "seat"])
    p = int(r["seat"].max()) + 1
    g = len(r) // p
    tb = r["tiebreak"].fillna(0.0) if "tiebreak" in r else pd.Series(np.zeros(len(r)))
    return {
        "score": r["score"].to_numpy(float).reshape(g, p),
        "tiebreak": tb.to_numpy(float).reshape(g, p),
        "win": r["win"].to_numpy(float).reshape(g, p),
        "brk": r[cats].to_numpy(float).reshape(g, p, len(cats)) if cats else np.zeros((g, p, 0)),
    }


def closeness(t: dict[str, np.ndarray], lower_wins: bool = False) -> dict[str, Any]:
    """Winning margins (points, and as a share of the winner's score), games decided by the tie-break, shared wins.
    For a game whose lowest score wins (``lower_wins``) the best score is the lowest: the margin is the runner-up's
    score minus the winner's, still in points at or above 0, and its share is of the runner-up's score (the larger of
    the two, as the winner's is where the highest score wins; a winner's score near 0 would make any margin huge)."""
    best = -t["score"] if lower_wins else t["score"]
    sc = np.sort(best, axis=1)
    margin = sc[:, -1] - sc[:, -2]
    with np.errstate(divide="ignore", invalid="ignore"):
        big = -sc[:, -2] if lower_wins else sc[:, -1]  # the larger score of winner and runner-up, as counted
        share = np.where(big > 0, margin / np.abs(big), np.nan)
    g = len(margin)
    top = best == sc[:, -1:]
    tied_top = top.sum(axis=1) > 1
    shared = (t["win"] > 0).sum(axis=1) > 1
    edges = np.histogram_bin_edges(margin, bins=min(30, max(1, len(np.unique(margin)))))
    counts, _ = np.histogram(margin, bins=edges)
    return {
        "margin": {**mean_ci(margin), "median": float(np.median(margin)), "p10": float(np.percentile(margin, 10)),
                   "p90": float(np.percentile(margin, 90)), "edges": edges.tolist(), "counts": counts.tolist()},
        "margin_share": {**mean_ci(share), "median": float(np.nanmedian(share)) if np.isfinite(share).any() else None},
        "tiebreak_decided": share_ci(float((tied_top & ~shared).sum()), g),
        "shared_wins": share_ci(float(shared.sum()), g),
    }  # fmt: skip


def what_decides(t: dict[str, np.ndarray], cats: list[str], reps: int = 1000) -> dict[str, Any]:
    """Per score category: its share of the winner-minus-others differences (games with one winner; the difference
    of a game is the winner's points minus the mean of the others', per category) with a bootstrap interval over
    games, next to its share of all points (of the categories' absolute sum, as in a run's report, so that a
    negative category does not push the others past 100 %)."""
    if not cats:
        return {}
    single = (t["win"] == 1.0).any(axis=1)
    brk = t["brk"][single]
    w = np.argmax(t["win"][single], axis=1)
    g, p, _ = brk.shape
    mine = brk[np.arange(g), w]  # [G, C]
    others = (brk.sum(axis=1) - mine) / max(p - 1, 1)
    diff = mine - others  # [G, C]
    tot = brk.sum(axis=(0, 1))
    size = np.abs(tot).sum()
    all_points = tot / size if size else np.full(len(cats), math.nan)

    def shares(idx):
        d = diff[idx].sum(axis=0)
        s = d.sum()
        return d / s if s else np.full(len(cats), math.nan)

    boot = bootstrap(shares, g, reps) if g > 1 else np.full((1, len(cats)), math.nan)
    point = shares(np.arange(g))
    out = {}
    for c, name in enumerate(cats):
        lo, hi = _pct(boot[:, c])
        out[name] = {"value": float(point[c]), "lo": lo, "hi": hi, "n": int(g), "share_of_points": float(all_points[c])}
    return out


# -- decisions ------------------------------------------------------------------------------------------------------


def decision_metrics(hist: pd.DataFrame, seats: pd.DataFrame) -> dict[str, Any]:
    """Decisions per game per seat, the forced-move share and the branching factor (candidates per decision with
    more than one) by decision kind: mean and percentiles, from ``decisions.parquet``/``decisions_seat.parquet``."""
    by_kind = {}
    for kind, d in hist[hist["candidates"] > 1].groupby("kind"):
        n = d["candidates"].to_numpy(float)
        c = d["count"].to_numpy(float)
        order = np.argsort(n)
        n, c = n[order], c[order]
        cum = np.cumsum(c) / c.sum()

        def q(x, n=n, cum=cum):
            return float(n[np.searchsorted(cum, x)])

        by_kind[str(int(kind))] = {"mean": float((n * c).sum() / c.sum()), "p10": q(0.1), "p50": q(0.5),
                                   "p90": q(0.9), "decisions": int(c.sum())}  # fmt: skip
    total = hist["count"].sum()
    forced = hist.loc[hist["candidates"] <= 1, "count"].sum()
    per_seat = {str(int(s)): mean_ci(d["decisions"]) for s, d in seats.groupby("seat")}
    real = hist[hist["candidates"] > 1]
    return {
        "decisions_per_seat": {**mean_ci(seats["decisions"], count=True), "by_seat": per_seat},
        "forced_share": share_ci(float(forced), float(total)),
        "branching": {"mean": float((real["candidates"] * real["count"]).sum() / max(real["count"].sum(), 1)),
                      "by_kind": by_kind},
    }  # fmt: skip


# -- luck versus skill ----------------------------------------------------------------------------------------------


SKILL_CEILING = 0.95  # a skilled player winning this share against the field leaves the fictive one no room


def relative_skill(wins: dict[str, np.ndarray], reps: int = 2000) -> dict[str, Any]:
    """Dreef et al.'s relative skill RS = LE / (LE + RE) from the tested seat's win share per game of the beginner,
    the skilled and the fictive player (the same games: paired bootstrap over games). LE = W(skilled) - W(beginner)
    (learning effect), RE = W(fictive) - W(skilled) (random effect). ``ceiling``: the skilled player wins at least
    :data:`SKILL_CEILING` of its games against the field, so the fictive player cannot win much more whatever the
    luck and RS reads near 1 from the weak field, not from the game (a stronger field tells)."""
    b, s, f = (np.asarray(wins[k], dtype=float) for k in ("beginner", "skilled", "fictive"))
    n = len(b)

    def rs(idx):
        le = s[idx].mean() - b[idx].mean()
        re = f[idx].mean() - s[idx].mean()
        return le / (le + re) if le + re > 0 else math.nan

    boot = bootstrap(rs, n, reps)
    lo, hi = _pct(boot)
    le, re = s.mean() - b.mean(), f.mean() - s.mean()
    return {
        "relative_skill": {"value": rs(np.arange(n)), "lo": lo, "hi": hi, "n": n},
        "learning_effect": mean_ci(s - b),
        "random_effect": mean_ci(f - s),
        "win_share": {k: share_ci(float(np.sum(v)), n) for k, v in (("beginner", b), ("skilled", s), ("fictive", f))},
        "le_plus_re": float(le + re),
        "ceiling": bool(n > 0 and s.mean() >= SKILL_CEILING),
    }


# -- kingmaking -----------------------------------------------------------------------------------------------------


KINGMAKING_COLUMNS = ["n_players", "game", "point", "step", "seat", "kind", "p_win", "se", "candidate", "favourite",
                      "lead", "playouts", "kingmaking", "seat_playouts", "seat_wins", "confirm_playouts", "lead_mean",
                      "lead_se", "z", "confirmed"]  # fmt: skip


def kingmaking_rows(arr: dict[str, Any], n_players: int, games, playouts: int) -> pd.DataFrame:
    """The kingmaking probes of ``sim.core.trajectories``' arrays as ``kingmaking.parquet``'s rows: one per probe and
    candidate probed, with the seat to move (from 1), the decision kind, the seat's win probability and its standard
    error there, the candidate (0 = the seat's own bot's pick), the other seat it makes the favourite (from 1) and
    that seat's lead over the next other seat (a share of the ``playouts``), and the probe's verdict (the screen:
    ``kingmaking``). A flagged probe's confirmation (docs/quality.md, Kingmaking): ``seat_playouts``/``seat_wins``
    (the point's playouts after it and the seat's win shares summed over them), per candidate tested
    ``confirm_playouts`` (0: not tested), ``lead_mean``/``lead_se`` (its favourite's paired lead over the closest
    other seat, NaN: not tested), the quantile ``z`` of the bounds and ``confirmed``. Enough to recompute every
    verdict (:func:`kingmaking_recount`) and the shares (:func:`kingmaking_metrics`)."""
    rows = []
    z = float(arr.get("km_z", math.nan))
    for i, j in np.argwhere(arr["king"] >= 0):
        seat = int(arr["king_seat"][i, j])
        conf = int(arr["king_conf"][i, j]) if "king_conf" in arr else -1
        for c in np.flatnonzero(arr["king_fav"][i, j] >= 0):
            rows.append((n_players, int(games[i]), int(j), int(arr["steps"][i, j]), seat + 1,
                         int(arr["king_kind"][i, j]), float(arr["prob"][i, j, seat]), float(arr["se"][i, j, seat]),
                         int(c), int(arr["king_fav"][i, j, c]) + 1, float(arr["king_lead"][i, j, c]), int(playouts),
                         int(arr["king"][i, j]),
                         int(arr["king_sn"][i, j]) if "king_sn" in arr else 0,
                         float(arr["king_sw"][i, j]) if "king_sw" in arr else math.nan,
                         int(arr["king_cn"][i, j, c]) if "king_cn" in arr else 0,
                         float(arr["king_cm"][i, j, c]) if "king_cm" in arr else math.nan,
                         float(arr["king_cse"][i, j, c]) if "king_cse" in arr else math.nan,
                         z, int(conf == 1)))  # fmt: skip
    return pd.DataFrame(rows, columns=KINGMAKING_COLUMNS)


def wilson_upper(k: float, n: float, z: float) -> float:
    """The upper end of the Wilson interval of ``k`` successes (win shares summed) in ``n`` trials at the normal
    quantile ``z``: ``sim.core.trajectories.wilson_upper``, operation by operation."""
    if n <= 0:
        return 1.0
    p = k / n
    z2 = z * z
    return (p + z2 / (2.0 * n) + z * math.sqrt(max(p * (1.0 - p) / n + z2 / (4.0 * n * n), 0.0))) / (1.0 + z2 / n)


def kingmaking_recount(rows: pd.DataFrame, lead: float, below: float | None = None):
    """Each probe's verdict recomputed from its rows (indexed by game and step): kingmaking when, taking the
    candidates in order, a second one makes a different other seat the favourite by at least ``lead`` (the screen).

    With ``below`` (the threshold of "cannot win", 0.02) a frame with the screen's verdict ``kingmaking`` and the
    confirmation's ``confirmed``: a flagged probe is confirmed when the Wilson upper bound (quantile ``z``) of the
    seat's ``seat_wins`` in ``seat_playouts`` is below ``below`` and, for both the first candidate with a clear
    favourite and the one that made another seat it, ``lead_mean - z * lead_se > 0``."""

    def screen(d: pd.DataFrame) -> tuple[int, int, int]:
        d = d.sort_values("candidate")
        seen = None
        first = -1
        for i, (fav, ld) in enumerate(zip(d["favourite"], d["lead"])):
            if ld >= lead:
                if seen is not None and fav != seen:
                    return 1, first, i
                if seen is None:
                    seen, first = fav, i
        return 0, -1, -1

    if below is None:
        return rows.groupby(["game", "step"]).apply(lambda d: screen(d)[0], include_groups=False)

    def both(d: pd.DataFrame) -> pd.Series:
        flag, c1, c2 = screen(d)
        ok = 0
        if flag:
            d = d.sort_values("candidate")
            z = float(d["z"].iloc[0])
            seat_ok = wilson_upper(float(d["seat_wins"].iloc[0]), float(d["seat_playouts"].iloc[0]), z) < below
            leads_ok = all(float(d["lead_mean"].iloc[c]) - z * float(d["lead_se"].iloc[c]) > 0.0 for c in (c1, c2))
            ok = int(seat_ok and leads_ok)
        return pd.Series({"kingmaking": flag, "confirmed": ok})

    return rows.groupby(["game", "step"]).apply(both, include_groups=False)


def kingmaking_metrics(probes: pd.DataFrame, games: int) -> dict[str, Any]:
    """Share of the probed decisions (a seat below 2 % to win, 3+ players) whose choice changes the favourite among
    the others, and share of the games holding one (``probes``: :func:`kingmaking_rows`, one row per probe and
    candidate, or one per probe). Where the rows carry the confirmation (``confirmed``) the shares count the
    confirmed decisions only; ``flagged``, ``confirmed`` and ``unconfirmed`` count the decisions, ``flagged_games``
    is the share of games with a flagged one and ``unconfirmed_list`` names the unconfirmed (game, step, seat, kind,
    playouts)."""
    if len(probes):
        probes = probes.drop_duplicates(["game", "step"])
    conf = "confirmed" in probes and len(probes) > 0
    hit = probes["confirmed"] > 0 if conf else (probes["kingmaking"] > 0 if len(probes) else None)
    k = float(hit.sum()) if len(probes) else 0.0
    g = probes.loc[hit, "game"].nunique() if len(probes) else 0
    flagged = probes[probes["kingmaking"] > 0] if len(probes) else probes
    out = {
        "decisions": share_ci(k, len(probes)) if len(probes) else {"value": None, "n": 0},
        "games": share_ci(float(g), games),
        "probed_games": int(probes["game"].nunique()) if len(probes) else 0,
        "flagged": int(len(flagged)),
    }
    if conf:
        un = flagged[flagged["confirmed"] == 0]
        out.update({
            "confirmed": int(k), "unconfirmed": int(len(un)),
            "flagged_games": share_ci(float(flagged["game"].nunique()), games),
            "unconfirmed_list": [{"game": int(r.game), "step": int(r.step), "seat": int(r.seat), "kind": int(r.kind),
                                  "seat_playouts": int(r.seat_playouts)} for r in un.itertuples()],
        })  # fmt: skip
    return out


# -- the directory --------------------------------------------------------------------------------------------------


def _clean(x):
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return None if not math.isfinite(float(x)) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x


def write_json(path: Path, data: dict) -> None:
    atomic_write(path, json.dumps(_clean(data), indent=1))


def has_quality(path: str | Path) -> bool:
    return (Path(path) / QUALITY_JSON).is_file()


def load_quality(path: str | Path) -> dict[str, Any]:
    """``quality.json`` of a directory, and its data files as pandas frames (``frames[name]``)."""
    path = Path(path)
    f = path / QUALITY_JSON
    if not f.is_file():
        raise MeeplabError(f"{path}: no {QUALITY_JSON} (write it with 'meeplab quality GAME --out {path}')")
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise MeeplabError(f"{f}: not JSON ({exc})") from None
    frames = {}
    for name in FILES:
        p = path / name
        if p.is_file():
            frames[name.removesuffix(".parquet")] = pd.read_parquet(p)
    return {"json": data, "frames": frames}


def redraw_setting(exact: bool) -> dict[str, Any]:
    """``settings.redraw`` (and ``redraw_note`` when it is the approximation) of ``quality.json``."""
    if exact:
        return {"redraw": "exact"}
    return {
        "redraw": "determinise",
        "redraw_note": "the game registers no redraw (sim.core.forward.register): each trajectory playout re-deals "
        "for the seat to move, the other seats' hidden holdings too, so p_win is given what the seat to move knows, "
        "not the true state",
    }


# -- measuring: play, then write the files --------------------------------------------------------------------------


def measure(
    game, values: dict[str, Any], out: Path, players: list[int], bots: list[str], seed: int, *, rotate: bool = True,
    bot_configs=(), traj_games: int = 100, playouts: int = 32, points: int = 12, skill_games: int = 100,
    beginner: str = "random", skilled: str | None = None, field: str | None = None, progress=None, executor=None,
    evaluator: str | None = None, se_target: float = 0.0, max_playouts: int = 0, recalibrate_mode: str = "auto",
    bar=None,
) -> dict[str, Any]:  # fmt: skip
    """Play what the metrics need for each player count (trajectories of the run's first ``traj_games`` games; the
    three players of relative skill on ``skill_games`` games, skipped when ``skill_games`` is 0), read the run's
    results from ``out`` (written before by the runner) and write every file and ``quality.json``. ``evaluator``: the
    plain bot that plays the trajectories' playouts in every seat (None: the run's own plain bots, a search seat's
    playout policy); ``se_target``/``max_playouts``: a point's playouts continue past ``playouts`` until every seat's
    standard error is at most ``se_target`` or ``max_playouts`` are played (0: a fixed ``playouts``);
    ``recalibrate_mode`` (:data:`RECALIBRATE`): whether the metrics read the playouts' estimates recalibrated
    (:func:`recalibrate`): ``auto`` where they are miscalibrated, ``on`` always, ``off`` never; ``bar``: a
    progress bar factory, ``bar(total, desc)`` giving an object with ``update(n)`` and ``close()`` (tqdm's), for
    the trajectories and the relative-skill games played in this process. Returns the
    ``quality.json`` record. ``executor``: a Dask executor (``lab.distributed.cluster.DaskExecutor``,
    ``--workers`` / ``--scheduler``) that plays the trajectories and the relative-skill games in parts
    (``lab.distributed.quality_cluster``; the same numbers as in this process, only the timings differ), or None:
    this process, numba threads.

    ``settings.redraw`` says how the trajectories' playouts drew fresh chance: ``exact`` (the game's own
    ``fm_redraw``: every seat keeps its holdings, the estimate is given the true state) or ``determinise`` (a game
    that registers no redraw: re-dealt for the seat to move, the other seats' hidden holdings too; an approximation,
    also named in ``settings.redraw_note``)."""
    import polars as pl

    from meeplab.lab.distributed import quality_cluster as dist
    from meeplab.lab.studies import quality as core
    from meeplab.sim.core.bots import available
    from meeplab.sim.core.trajectories import confirm_looks

    from .load import load_run

    say = progress or (lambda msg: None)
    out = Path(out)
    run = load_run(out)
    ctx = game.prepare(values)
    cats = list(game.categories)
    skilled = skilled or core.strongest_bot(game.id, bot_configs)
    field = field or (available(game.id, bot_configs)[skilled].policy or skilled)
    record: dict[str, Any] = {
        "game": game.id, "title": game.title, "seed": seed, "bots": list(bots), "players": {},
        "lower_wins": bool(getattr(game, "lower_wins", False)),
        "settings": {"trajectory_games": traj_games, "playouts": playouts, "points": points, "decided": DECIDED,
                     "evaluator": evaluator, "se_target": se_target, "max_playouts": max(max_playouts, playouts),
                     "recalibrate": recalibrate_mode,
                     "skill_games": skill_games, "beginner": beginner, "skilled": skilled,
                     "field": field,
                     "kingmaking_below": 0.02, "kingmaking_candidates": 6, "kingmaking_lead": 0.1},
        "thresholds": THRESHOLDS, "timing": {},
    }  # fmt: skip
    frames: dict[str, list[pd.DataFrame]] = {n: [] for n in FILES}
    for p in players:
        budget = f"{playouts}-{max(max_playouts, playouts)}" if se_target > 0 else f"{playouts}"
        say(f"{game.title}, {p} players: trajectories of {traj_games} games x {points} points x {budget} playouts")
        if executor is None:
            with ticking(bar, traj_games, f"trajectories at {p} players") as tick:
                arr = core.play_trajectories(
                    game, ctx, bots, p, seed, traj_games, playouts, points, rotate, bot_configs, evaluator=evaluator,
                    se_target=se_target, max_playouts=max_playouts, tick=tick,
                )  # fmt: skip
        else:
            arr = dist.play_trajectories_on(
                executor, game, values, bots, p, seed, traj_games, playouts, points, rotate, bot_configs,
                evaluator=evaluator, se_target=se_target, max_playouts=max_playouts,
            )  # fmt: skip
        record["settings"].update(redraw_setting(arr["exact_redraw"]))
        record["settings"]["kingmaking_z"] = float(arr["km_z"])
        record["settings"]["kingmaking_looks"] = confirm_looks(playouts, max(max_playouts, playouts))
        games = np.arange(traj_games)
        traj = trajectory_frame(arr, p, games)
        raw = calibration(traj)
        cal_info = None
        if recalibrate_mode == "on" or (
            recalibrate_mode == "auto" and calibrated({"calibration": raw}) == "miscalibrated"
        ):
            traj, cal_info = recalibrate(traj)
        frames["trajectories.parquet"].append(traj)
        hist = arr["hist"].sum(axis=0)
        kinds, cands = np.nonzero(hist)
        dec = pd.DataFrame({"n_players": p, "kind": kinds, "candidates": cands, "count": hist[kinds, cands]})
        frames["decisions.parquet"].append(dec)
        seats = pd.DataFrame(
            [(p, int(g), s + 1, int(arr["dec"][i, s]), int(arr["forced"][i, s])) for i, g in enumerate(games)
             for s in range(p)], columns=["n_players", "game", "seat", "decisions", "forced"],
        )  # fmt: skip
        frames["decisions_seat.parquet"].append(seats)
        probes = kingmaking_rows(arr, p, games, playouts)
        frames["kingmaking.parquet"].append(probes)
        used = traj if cal_info is None else recalibrated_frame(traj)
        rec: dict[str, Any] = trajectory_metrics(used, recal=cal_info)
        rec["calibration"] = raw if cal_info is None else {**calibration(used), "raw": raw, "recalibrated": cal_info}
        rec.update(decision_metrics(dec, seats))
        if p >= 3:
            rec["kingmaking"] = kingmaking_metrics(probes, traj_games)
        rows = run.lf.filter(pl.col("n_players") == p).collect().to_pandas()
        t = game_table(rows, cats)
        rec.update(closeness(t, record["lower_wins"]))
        rec["what_decides"] = what_decides(t, cats)
        timing = {"trajectory_s": arr["seconds"], "trajectory_cpu_s": arr["cpu_seconds"], "playouts": arr["playouts"],
                  "playouts_per_second": arr["playouts_per_second"]}  # fmt: skip
        if skill_games:
            say(f"{game.title}, {p} players: relative skill on {skill_games} games ({beginner} / {skilled} / "
                f"clairvoyant {skilled}, each against {field})")  # fmt: skip
            if executor is None:
                with ticking(bar, 3 * skill_games, f"relative skill at {p} players") as tick:
                    sk = core.play_skill(game, ctx, p, seed, skill_games, beginner, skilled, field, bot_configs,
                                         tick=tick)  # fmt: skip
            else:
                sk = dist.play_skill_on(executor, game, values, p, seed, skill_games, beginner, skilled, field,
                                        bot_configs)  # fmt: skip
            frames["skill.parquet"].append(
                pd.DataFrame([(p, g, role, sk["bots"][role], float(w)) for role in core.SKILL_ROLES
                              for g, w in enumerate(sk["wins"][role])],
                             columns=["n_players", "game", "role", "bot", "win"])
            )  # fmt: skip
            rec.update(relative_skill(sk["wins"]))
            timing["skill_s"] = sk["seconds"]
            timing["skill_cpu_s"] = sk["cpu_seconds"]
        if executor is not None:
            timing["workers"] = arr["workers"]
        record["players"][str(p)] = rec
        record["timing"][str(p)] = timing
    for name, parts in frames.items():
        if parts and any(len(x) for x in parts):
            with atomic_writer(out / name) as sink:
                pd.concat(parts, ignore_index=True).to_parquet(sink, index=False)
    write_json(out / QUALITY_JSON, record)
    return _clean(record)
