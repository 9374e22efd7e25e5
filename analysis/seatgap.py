"""Seat gap: how far apart the best and the worst seat are among equally strong bots, with intervals, per run and
against a baseline (paired game by game when the runs share their deals).

The gap at ``P`` players is ``max(rate) - min(rate)`` of the lineup-aware seat model
(:func:`meeplab.analysis.stats.seat_effect`: each seat's win probability among equally strong bots, a conditional
logit of the winner on seat and bot). Its 95% interval, and the interval of its change against the baseline, come
from a bootstrap over games (Efron 1979; Poisson weights on blocks of consecutive game indices, percentile
intervals; the p-value of a change from the bootstrap's standard error). Two runs that share seed, lineups and
rotation are resampled with the same weights, so their change is paired (common random numbers) and far narrower
than either gap's own interval.

The best and worst seat are chosen from the data, so a gap of exactly zero is never estimated: with no seat effect
at all the gap's interval sits a little above zero. The change of the gap has no such floor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats as sps

from .load import Run
from .stats import fit_seat_rates, holm, seat_design, significant

#: bootstrap replicates and game blocks (the blocks bound the work: cost does not grow with the games)
REPLICATES = 400
BLOCKS = 500


@dataclass
class SeatData:
    """One run at one player count, reduced to what the seat model needs: ``bots`` (C, P) the bot code in each seat
    of seat order ``c`` and ``blocks`` (B, C, P) the win shares summed over each block of games."""

    n_players: int
    bots: np.ndarray
    blocks: np.ndarray
    games: int
    reason: str = ""


def seat_data(run: Run, p: int, blocks: int = BLOCKS) -> SeatData:
    """Read one player count of ``run`` (its game index, seat, rotation offset, bot and win columns only)."""
    df = run.collect(
        run.lf.filter(pl.col("n_players") == p).select(
            "game_index",
            "seat",
            "bot",
            "win",
            ((pl.col("entry") - pl.col("seat") + p) % p).alias("offset"),
        )
    )
    if df.height == 0:
        return SeatData(p, np.zeros((0, p), int), np.zeros((blocks, 0, p)), 0, "no games")
    names = sorted(set(df["bot"].to_list()))
    offs = sorted(set(df["offset"].to_list()))
    c = np.searchsorted(np.asarray(offs), df["offset"].to_numpy())
    seat = df["seat"].to_numpy().astype(np.int64)
    code = np.searchsorted(np.asarray(names), np.asarray(df["bot"].to_list()))
    bots = np.full((len(offs), p), -1)
    reason = ""
    for ci, si, bi in set(zip(c.tolist(), seat.tolist(), code.tolist())):
        if bots[ci, si] not in (-1, bi):
            reason = "seat orders are not the runner's rotation"
        bots[ci, si] = bi
    gi = df["game_index"].to_numpy()
    g0, g1 = int(gi.min()), int(gi.max()) + 1
    blk = ((gi - g0) * blocks // max(1, g1 - g0)).astype(np.int64)
    flat = (blk * len(offs) + c) * p + seat
    sums = np.bincount(flat, weights=df["win"].to_numpy(), minlength=blocks * len(offs) * p)
    return SeatData(p, bots, sums.reshape(blocks, len(offs), p), int((seat == 0).sum()), reason)


def gaps(data: SeatData, weights: np.ndarray) -> np.ndarray:
    """The seat gap for each row of block ``weights`` (R, B); NaN where the model cannot be fitted."""
    W = np.einsum("rb,bcp->rcp", weights, data.blocks)
    rate = fit_seat_rates(data.bots, data.blocks.sum(axis=0), W)
    if rate is None:
        return np.full(weights.shape[0], math.nan)
    return rate.max(axis=1) - rate.min(axis=1)


@dataclass
class Gap:
    """A run's seat gap at one player count (points of win probability), its 95% interval, best and worst seat (1 =
    start player); with a baseline: the change, its interval and two-sided bootstrap p-value."""

    n_players: int
    gap: float
    lo: float
    hi: float
    best: int
    worst: int
    d: float = math.nan
    d_lo: float = math.nan
    d_hi: float = math.nan
    p: float = math.nan
    paired: bool = False
    reason: str = ""


def _point(data: SeatData) -> tuple[float, int, int, str]:
    if data.reason or data.games == 0:
        return math.nan, -1, -1, data.reason or "no games"
    rate = fit_seat_rates(data.bots, data.blocks.sum(axis=0), data.blocks.sum(axis=0)[None])
    if rate is None:
        _, _, why = seat_design(data.bots, data.blocks.sum(axis=0))
        return math.nan, -1, -1, why or "the seat model does not converge"
    r = rate[0]
    return float(r.max() - r.min()), int(np.argmax(r)) + 1, int(np.argmin(r)) + 1, ""


def _weights(rng: np.random.Generator, blocks: int, reps: int) -> np.ndarray:
    return rng.poisson(1.0, size=(reps, blocks)).astype(np.float64)


def _interval(x: np.ndarray) -> tuple[float, float]:
    x = x[np.isfinite(x)]
    if x.size < 20:
        return math.nan, math.nan
    lo, hi = np.quantile(x, [0.025, 0.975])
    return float(lo), float(hi)


def _p_value(point: float, d: np.ndarray) -> float:
    """Two-sided p-value of "no change" from the bootstrap's standard error (normal approximation: a percentile
    count would floor at 1/replicates, too coarse for Holm's correction across a sweep)."""
    d = d[np.isfinite(d)]
    if d.size < 20:
        return math.nan
    se = float(d.std(ddof=1))
    if se <= 0.0:
        return 1.0 if point == 0.0 else 0.0
    return float(2.0 * sps.norm.sf(abs(point) / se))


def seat_gaps(
    runs: Sequence[Run], p: int, paired: Sequence[bool] | None = None, reps: int = REPLICATES, seed: int = 0
) -> list[Gap]:
    """Seat gap of every run at ``p`` players, and of runs 1.. against run 0 (``paired[i]``: run ``i`` plays run 0's
    deals, so both are resampled with the same weights). The bootstrap's own seed is fixed: a report is
    reproducible."""
    rng = np.random.default_rng(seed)
    datas = [seat_data(r, p) for r in runs]
    w0 = _weights(rng, BLOCKS, reps)
    g0 = gaps(datas[0], w0) if not datas[0].reason else np.full(reps, math.nan)
    out = []
    for i, data in enumerate(datas):
        gap, best, worst, why = _point(data)
        if i == 0:
            g = g0
        else:
            same = bool(paired[i]) if paired is not None else False
            g = gaps(data, w0 if same else _weights(rng, BLOCKS, reps)) if not why else np.full(reps, math.nan)
        lo, hi = _interval(g)
        res = Gap(p, gap, lo, hi, best, worst, reason=why)
        if i > 0 and not why and math.isfinite(out[0].gap):
            d = g - g0
            res.d = gap - out[0].gap
            res.d_lo, res.d_hi = _interval(d)
            res.p = _p_value(res.d, d)
            res.paired = bool(paired[i]) if paired is not None else False
        out.append(res)
    return out


def gap_changes(per_p: dict[int, Sequence[Gap]]) -> dict[tuple[int, int], tuple[float, bool]]:
    """Every run's change of the seat gap against the first run (``per_p[p][i]``, ``i`` >= 1), as one family over
    all player counts: ``(p, i) -> (Holm-adjusted p, significant at ALPHA)``."""
    flat = [(p, i, g) for p, gs in per_p.items() for i, g in enumerate(gs) if i > 0]
    q = holm([g.p for _, _, g in flat])
    return {(p, i): (float(qq), significant(float(qq))) for (p, i, _), qq in zip(flat, q)}


def gap_frame(gaps_: Sequence[Gap]) -> pl.DataFrame:
    """The gaps as a frame (one row per run, column ``i`` its position), seats numbered from 1."""
    return pl.DataFrame(
        [{"i": i, **g.__dict__} for i, g in enumerate(gaps_)],
        schema_overrides={"best": pl.Int64, "worst": pl.Int64},
    )
