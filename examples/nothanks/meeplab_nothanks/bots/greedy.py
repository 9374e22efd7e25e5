"""Best immediate value: take when the chips on the card outweigh what it adds to the score."""

from meeplab.sim.core.bots import bot_jit
from meeplab.strategies.common import argmax_column

DESCRIPTION = "best immediate value (feature 0): takes a card once its chips pay for it"
READS = "max0"


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return argmax_column(feats, n, 0, rng)
