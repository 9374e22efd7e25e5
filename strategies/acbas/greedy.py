"""Best immediate gain: the candidate with the highest feats[:, 0] (change of the score if the game ended now)."""

from meeplab.sim.core.bots import bot_jit
from meeplab.strategies.common import argmax_column

DESCRIPTION = "best immediate score change (feature 0) at every decision, random tie-break"
READS = "max0"  # argmax_column of feature 0: the engine may skip rows that cannot be among the best


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return argmax_column(feats, n, 0, rng)
