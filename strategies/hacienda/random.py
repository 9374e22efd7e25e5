"""Uniformly random legal move at every decision (every legal move is offered)."""

from meeplab.sim.core.bots import bot_jit
from meeplab.strategies.common import pick_uniform

DESCRIPTION = "uniformly random legal move at every decision"


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return pick_uniform(n, rng)
