"""Greedy: the move with the best immediate value (feats[:, 0]), random tie-break."""

from meeplab.sim.core.bots import bot_jit
from meeplab.strategies.common import argmax_column

DESCRIPTION = "best immediate value (points now, pesos at 1/10 point, buys at the value of the card's best play)"


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return argmax_column(feats, n, 0, rng)
