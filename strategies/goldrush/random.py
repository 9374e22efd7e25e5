"""Gold Rush random bot: uniform over the legal placements and over the legal follower actions."""

from meeplab.sim.core.bots import bot_jit
from meeplab.strategies.common import pick_uniform

DESCRIPTION = "uniform over legal placements and follower actions"


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return pick_uniform(n, rng)
