"""Uniformly random legal move at every decision."""
from numba import njit

from sim.core.bots import BOT_SIG
from strategies.common import pick_uniform

DESCRIPTION = "uniformly random legal move at every decision"


@njit(BOT_SIG, cache=True)
def choose(kind, view, moves, n, feats, weights, rng):
    return pick_uniform(n, rng)
