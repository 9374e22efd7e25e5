"""Match the prize: bid the card whose rank among one's own cards is the prize's rank among the prizes still to take
(``shift`` higher), and throw the lowest card at the lowest prizes."""

from numba import njit

from meeplab.sim.core.bots import bot_jit

DESCRIPTION = "bids the card of the prize's rank among its own cards ('shift' up), the lowest card on the lowest prizes"
WEIGHTS = {"shift": 0.0, "dump": 0.15}


@njit(cache=True, _nrt=False)
def closest_rank(feats, n, target):
    """The candidate whose own-card rank (feature 4) is closest to ``target`` (the lower card on a tie)."""
    best = 0
    gap = abs(feats[0, 4] - target)
    for i in range(1, n):
        d = abs(feats[i, 4] - target)
        if d < gap - 1e-12:
            best = i
            gap = d
    return best


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    if n < 2:
        return 0
    if feats[0, 5] < weights[1]:  # one of the lowest prizes: not worth a good card
        return 0
    return closest_rank(feats, n, feats[0, 5] + weights[0])
