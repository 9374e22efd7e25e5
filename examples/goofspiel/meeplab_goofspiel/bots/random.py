"""Uniformly random: any card held."""

from meeplab.sim.core.bots import bot_jit
from meeplab.strategies.common import pick_uniform

DESCRIPTION = "uniformly random legal moves (baseline)"


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return pick_uniform(n, rng)
