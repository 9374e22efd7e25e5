"""The bot helpers shared by every game (strategies/common.py)."""

import numpy as np
from numba import njit

from meeplab.sim.core.rng import rng_below, rng_init
from meeplab.strategies.common import argmax_column


@njit(cache=True)
def _argmax(feats, n, col, rng):
    return argmax_column(feats, n, col, rng)


@njit(cache=True)
def _below(rng, n):
    return rng_below(rng, n)


def reference_argmax(feats, n, col, rng):
    """The rule, in three plain passes: the best value, the rows within 1e-9 of it, one of them drawn."""
    if n <= 1:
        return 0
    best = -np.inf
    for i in range(n):
        if feats[i, col] > best:
            best = feats[i, col]
    ties = [i for i in range(n) if feats[i, col] >= best - 1e-9]
    if len(ties) <= 1:
        return ties[0] if ties else 0
    return ties[_below(rng, len(ties))]


def test_argmax_column_matches_the_three_pass_rule():
    # values that tie exactly, tie within 1e-9, beat the best by less than 1e-9 (the count is redone), by more,
    # and rows of -inf and NaN
    gen = np.random.default_rng(11)
    pools = [
        np.array([0.0, 1.0, 2.0]),
        np.array([0.0, 4e-10, 8e-10, 1.2e-9, 2e-9]),
        np.array([-np.inf, 0.0, 1.0]),
        np.array([np.nan, 0.0, 0.5]),
        np.array([-np.inf]),
        np.array([np.nan, -np.inf]),
    ]
    counts = {"ties": 0, "single": 0}
    for trial in range(4000):
        pool = pools[trial % len(pools)]
        n = int(gen.integers(0, 12))
        feats = np.zeros((max(n, 1), 3))
        feats[:n, 1] = gen.choice(pool, n)
        if trial % 7 == 0 and n > 1:
            feats[:n, 1] = np.cumsum(gen.choice([0.0, 3e-10, 6e-10], n))  # a staircase of near ties
        r1 = np.zeros(4, np.uint64)
        r2 = np.zeros(4, np.uint64)
        rng_init(r1, 3, trial)
        rng_init(r2, 3, trial)
        want = reference_argmax(feats, n, 1, r2)
        assert _argmax(feats, n, 1, r1) == want, (trial, feats[:n, 1])
        assert np.array_equal(r1, r2)  # the same draws: games stay the same
        best = np.nanmax(np.where(np.isnan(feats[:n, 1]), -np.inf, feats[:n, 1])) if n else 0
        if n > 1 and np.sum(feats[:n, 1] >= best - 1e-9) > 1:
            counts["ties"] += 1
        else:
            counts["single"] += 1
    assert min(counts.values()) > 500, counts
