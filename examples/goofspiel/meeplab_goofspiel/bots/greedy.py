"""Best immediate value: the card with the best expected prize against random bids, less what the card is worth."""

from meeplab.sim.core.bots import bot_jit
from meeplab.strategies.common import argmax_column

DESCRIPTION = "best immediate value (feature 0): expected prize against random bids less the card's worth"
READS = "max0"


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return argmax_column(feats, n, 0, rng)
