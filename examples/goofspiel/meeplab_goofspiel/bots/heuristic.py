"""Match the prize: bid a card whose rank among one's own cards is near the prize's rank among the prizes still to
take (``shift`` higher), at random among those within ``spread`` of the closest (two such bots must not bid in lock
step: equal highest bids take nothing), and throw the lowest card at the lowest prizes."""

from numba import njit

from meeplab.sim.core.bots import bot_jit
from meeplab.sim.core.rng import rng_below

DESCRIPTION = "bids near the prize's rank among its own cards (at random within 'spread'), the lowest on low prizes"
WEIGHTS = {"shift": 0.0, "dump": 0.0, "spread": 0.15}


@njit(cache=True, _nrt=False)
def near_rank(feats, n, target, spread, rng):
    """A candidate whose own-card rank (feature 4) is within ``spread`` of the closest to ``target``, at random."""
    gap = abs(feats[0, 4] - target)
    for i in range(1, n):
        gap = min(gap, abs(feats[i, 4] - target))
    k = 0
    for i in range(n):
        if abs(feats[i, 4] - target) <= gap + spread + 1e-9:
            k += 1
    j = rng_below(rng, k) if k > 1 else 0
    for i in range(n):
        if abs(feats[i, 4] - target) <= gap + spread + 1e-9:
            if j == 0:
                return i
            j -= 1
    return 0


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    if n < 2:
        return 0
    if feats[0, 5] < weights[1]:  # one of the lowest prizes: not worth a good card
        return 0
    return near_rank(feats, n, feats[0, 5] + weights[0], weights[2], rng)
