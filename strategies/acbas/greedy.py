"""Best immediate gain: the candidate with the highest feats[:, 0] (change of the score if the game ended now)."""
from numba import njit

from sim.core.bots import BOT_SIG
from strategies.common import argmax_column

DESCRIPTION = "best immediate score change (feature 0) at every decision, random tie-break"


@njit(BOT_SIG, cache=True)
def choose(kind, view, moves, n, feats, weights, rng):
    return argmax_column(feats, n, 0, rng)
