"""Best immediate gain: the candidate with the highest feats[:, 0] (random tie-break)."""

from meeplab.sim.core.bots import bot_jit
from meeplab.strategies.common import argmax_column

DESCRIPTION = "best immediate gain (feature 0) at every decision"


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return argmax_column(feats, n, 0, rng)
