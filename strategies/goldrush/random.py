"""Gold Rush random bot: uniform over the legal placements and over the legal follower actions."""
from numba import njit

from sim.core.bots import BOT_SIG
from strategies.common import pick_uniform

DESCRIPTION = "uniform over legal placements and follower actions"


@njit(BOT_SIG, cache=True)
def choose(kind, view, moves, n, feats, weights, rng):
    return pick_uniform(n, rng)
