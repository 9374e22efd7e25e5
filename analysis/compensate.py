"""Compensation for every seat at once: one value per seat of a per-seat rule parameter (a start-money or a start-feed
table) that brings all seats to even, from one fitted seat model rather than a root search per seat.

The model is the seat model of :mod:`meeplab.analysis.stats` (a conditional logit of each game's winner on seat and
bot, McFadden 1974) with one more term: the seat's own value of the parameter. A seat's winning weight is

    u(seat s) = a_s + (bot strength) + b * v_s

so ``a_s`` is what the seat itself is worth and ``b`` what one unit of the parameter is worth, both in log-odds of
winning. Every seat is even when ``a_s + b v_s`` is the same for all seats, i.e. ``v_s = c - a_s / b``; the
constant ``c`` is fixed by keeping the seats' total as at the default (``keep=None``: the game's economy stays as
it was) or by keeping one seat's value (``keep=k``: the others are compensated against it).

The values are fitted on runs that play different value vectors on the same deals (common random numbers): the
default vector and, per seat, that seat moved to the far end of the range. Intervals come from a bootstrap over
blocks of game indices with the same weights for every run (the runs share their deals, so a game index is one
cluster across all of them), refitting the model and the answer in every replicate: the interval of each seat's
value is a percentile interval, clipped to the range. An interval that covers the whole range decides nothing.

The model is linear in the value: over a wide range the worth of a unit may change. The answer is therefore played
and the model refitted with it, until the answer no longer moves (the caller's loop); the seat gap measured at the
answer is the check that the model held.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from meeplab.sim.core.errors import MeeplabError

from .load import Run
from .seatgap import REPLICATES, seat_data
from .stats import fit_clogit, seat_design


def design_vectors(base: Sequence[float], lo: float, hi: float) -> list[tuple[float, ...]]:
    """The first runs: the default vector, then per seat that seat alone at the end of ``lo..hi`` further from its
    default value (the most leverage on ``b``; the other seats keep theirs)."""
    base = tuple(float(v) for v in base)
    out = [base]
    for s, v in enumerate(base):
        far = lo if abs(v - lo) >= abs(hi - v) else hi
        if far == v:
            continue
        vec = list(base)
        vec[s] = far
        out.append(tuple(vec))
    return list(dict.fromkeys(out))


@dataclass
class Compensation:
    """The answer at one player count. Seats are numbered from 0 here (0 = start player). ``values``: the fair value
    per seat (whole numbers for an integer parameter), ``raw`` before rounding and clipping; ``lo``/``hi`` the 95%
    bootstrap interval per seat (not clipped: an interval beyond the range says how far outside the answer lies),
    ``whole_range`` where it covers all of the range; ``worth`` what each seat's position is worth in units of the
    parameter against the average seat (positive: the seat is better than average, so it needs less), with its
    interval; ``unit`` the log-odds of winning that one unit of the parameter buys (``b``) and its interval;
    ``predicted`` the model's win probabilities at ``values`` among equal bots."""

    n_players: int
    values: np.ndarray
    raw: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    whole_range: np.ndarray
    worth: np.ndarray
    worth_lo: np.ndarray
    worth_hi: np.ndarray
    unit: float
    unit_lo: float
    unit_hi: float
    predicted: np.ndarray
    games: int
    runs: int
    notes: list[str] = field(default_factory=list)


def _stack(runs: Sequence[Run], vectors: Sequence[Sequence[float]], p: int):
    """Every run's seat orders as choice situations: bots (S, P), blocks (B, S, P), values (S, P)."""
    if len(runs) != len(vectors) or not runs:
        raise MeeplabError("compensation: one value vector per run is needed")
    datas = [seat_data(r, p) for r in runs]
    for r, d in zip(runs, datas):
        if d.reason:
            raise MeeplabError(f"compensation: {r.path}: {d.reason}")
        if d.bots.shape != datas[0].bots.shape or (d.bots != datas[0].bots).any():
            raise MeeplabError(f"compensation: {r.path} plays another lineup than {runs[0].path}")
        if d.games != datas[0].games:
            raise MeeplabError(f"compensation: {r.path} has {d.games} games, {runs[0].path} {datas[0].games}")
    bots = np.concatenate([d.bots for d in datas])
    blocks = np.concatenate([d.blocks for d in datas], axis=1)
    vals = np.concatenate(
        [np.tile(np.asarray(v, dtype=np.float64)[:p], (d.bots.shape[0], 1)) for v, d in zip(vectors, datas)]
    )
    return bots, blocks, vals, datas[0].games


def _answer(
    theta: np.ndarray, p: int, z_base: np.ndarray, keep: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per replicate (rows of ``theta``): the fair values (scaled), the seats' worth (scaled units) and ``b``."""
    a = np.concatenate([np.zeros((theta.shape[0], 1)), theta[:, : p - 1]], axis=1)
    b = theta[:, -1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        worth = (a - a.mean(axis=1, keepdims=True)) / b
        if keep is None:
            z = z_base.mean() - worth
        else:
            z = z_base[keep] + worth[:, keep : keep + 1] - worth
    return z, worth, b[:, 0]


def fit_compensation(
    runs: Sequence[Run],
    vectors: Sequence[Sequence[float]],
    p: int,
    lo: float,
    hi: float,
    base: Sequence[float],
    integer: bool,
    keep: int | None = None,
    reps: int = REPLICATES,
    seed: int = 0,
) -> Compensation:
    """Fit the seat model with the value term on ``runs`` (run ``i`` played ``vectors[i]`` on the same deals) and
    solve for the fair vector at ``p`` players; ``base`` the default vector, ``keep`` a seat (from 0) whose value is
    kept, else the total is kept. The bootstrap's seed is fixed: the answer is reproducible."""
    bots, blocks, vals, games = _stack(runs, vectors, p)
    comp = compensation_from_blocks(bots, blocks, vals, p, lo, hi, base, integer, keep, reps, seed)
    comp.games, comp.runs = games, len(runs)
    return comp


def compensation_from_blocks(
    bots: np.ndarray,
    blocks: np.ndarray,
    vals: np.ndarray,
    p: int,
    lo: float,
    hi: float,
    base: Sequence[float],
    integer: bool,
    keep: int | None = None,
    reps: int = REPLICATES,
    seed: int = 0,
) -> Compensation:
    """The fit of :func:`fit_compensation` on its arrays: per choice situation (a run's seat order) ``bots`` (S, P)
    the bot codes, ``vals`` (S, P) each seat's value, and ``blocks`` (B, S, P) the win shares summed over each block
    of game indices (the same blocks in every run)."""
    games = 0
    total = blocks.sum(axis=0)
    X, mask, reason = seat_design(bots, total)
    if reason:
        raise MeeplabError(f"compensation: {reason}")
    base = np.asarray(base, dtype=np.float64)[:p]
    centre, scale = float(base.mean()), max(float(hi - lo), 1e-12)
    Z = (vals - centre) / scale
    if np.ptp(Z, axis=0).max() <= 0:
        raise MeeplabError("compensation: every run played the same values; nothing to fit")
    X = np.concatenate([X, (Z * mask)[..., None]], axis=2)
    z_base = (base - centre) / scale
    theta, ok = fit_clogit(X, total[None], mask)
    notes = [] if ok else ["the seat model did not converge: a seat or a bot (almost) never wins"]
    z, worth, b = _answer(theta, p, z_base, keep)
    rng = np.random.default_rng(seed)
    w = rng.poisson(1.0, size=(reps, blocks.shape[0])).astype(np.float64)
    W = np.einsum("rb,bsp->rsp", w, blocks)
    tb, _ = fit_clogit(X, W, mask)
    zb, worthb, bb = _answer(tb, p, z_base, keep)
    raw = centre + scale * z[0]
    vb = centre + scale * zb
    fin = np.isfinite(vb).all(axis=1)

    def pct(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = x[fin]
        if x.shape[0] < 20:
            return np.full(p, math.nan), np.full(p, math.nan)
        q = np.quantile(x, [0.025, 0.975], axis=0)
        return q[0], q[1]

    vlo, vhi = pct(vb)
    whole = (vlo <= lo) & (vhi >= hi)
    wlo, whi = pct(worthb * scale)
    ulo, uhi = (np.quantile(bb[np.isfinite(bb)] / scale, [0.025, 0.975]) if np.isfinite(bb).sum() >= 20
                else (math.nan, math.nan))  # fmt: skip
    if not np.isfinite(raw).all():
        notes.append("the parameter has no measurable effect on winning: no value per seat can even the seats")
        values = base.copy()
    else:
        values = np.clip(raw, lo, hi)
        if (values != raw).any():
            out = [str(s + 1) for s in range(p) if values[s] != raw[s]]
            notes.append(
                f"seat {', '.join(out)} would need a value outside {lo:g}..{hi:g}; clipped to the range, so the "
                "seats cannot be evened inside it"
            )
        if integer:
            values = np.round(values)
    u = theta[0, : p - 1]
    eta = np.concatenate([[0.0], u]) + theta[0, -1] * (values - centre) / scale
    pred = np.exp(eta - eta.max())
    pred /= pred.sum()
    if float(theta[0, -1]) != 0 and (b[0] <= 0):
        notes.append("more of the parameter makes a seat win less often: a seat that is better off is given more")
    return Compensation(
        p,
        values,
        raw,
        vlo,
        vhi,
        whole,
        worth[0] * scale,
        wlo,
        whi,
        float(b[0] / scale),
        float(ulo),
        float(uhi),
        pred,
        games,
        0,
        notes,
    )
