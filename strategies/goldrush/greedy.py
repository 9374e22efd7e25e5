"""Gold Rush greedy bot: best immediate score change plus a simple value for open features."""

import numpy as np
from numba import njit

from meeplab.sim.core.bots import bot_jit
from meeplab.sim.core.rng import rng_below
from meeplab.sim.goldrush.features import Action, Kind, Place

DESCRIPTION = "best immediate score change + a simple value of open features"


@njit(cache=True, inline="always", error_model="numpy")
def _score(kind, F, i):
    if kind == Kind.PLACE:
        # my completions, minus the best opponent's, the best follow-up completion, growth of my open features,
        # and a small value for a free feature to claim
        return (
            F[i, Place.GAIN]
            - 0.5 * F[i, Place.OPP_GAIN]
            + F[i, Place.FOLLOW]
            + 0.3 * F[i, Place.GROW]
            - 0.2 * F[i, Place.OPP_GROW]
            + 0.2 * F[i, Place.OPEN]
        )
    # action: immediate points, then a third of an open feature's value (tent: its stack)
    return F[i, Action.POINTS] + 0.3 * F[i, Action.VALUE]


@bot_jit(error_model="numpy")
def choose(kind, view, moves, n, feats, weights, rng):
    best = -np.inf
    count = 0
    choice = 0
    for i in range(n):
        v = _score(kind, feats, i)
        if v > best + 1e-9:
            best = v
            count = 1
            choice = i
        elif v >= best - 1e-9:
            count += 1
            if rng_below(rng, count) == 0:
                choice = i
    return choice
