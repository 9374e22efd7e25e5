"""Greedy: the move with the best immediate value (feats[:, 0]), random tie-break."""
from numba import njit

from sim.core.bots import BOT_SIG
from strategies.common import argmax_column

DESCRIPTION = "best immediate value (points now, pesos at 1/10 point, buys at the value of the card's best play)"


@njit(BOT_SIG, cache=True)
def choose(kind, view, moves, n, feats, weights, rng):
    return argmax_column(feats, n, 0, rng)
