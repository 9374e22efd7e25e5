"""Gold Rush heuristic bot: completion odds from the tiles left, miner majorities, tent and mining timing,
farmers late on rich prairies. Weights: heuristic.toml (tuned variants: [bots.NAME] base = "heuristic")."""

import numpy as np
from numba import njit

from meeplab.sim.core.bots import bot_jit, load_weights_toml
from meeplab.sim.core.rng import rng_below
from meeplab.sim.goldrush.features import Action, Kind, Place

DESCRIPTION = "completion odds, majorities, tent/mining timing, late farmers (weights in heuristic.toml)"
WEIGHTS = load_weights_toml(__file__, "heuristic.toml")

# weight indices (order of heuristic.toml)
(
    W_OPP,
    W_FOLLOW,
    W_GROW,
    W_GROW_OPP,
    W_OPEN_CLAIM,
    W_EDGES,
    W_TENT_TOK,
    W_STACK,
    W_OPEN_VAL,
    W_OPEN_END,
    W_FARM,
    W_FARM_LATE,
    W_COW_COST,
    W_MINE,
    W_TENT,
    W_TENT_MOVE,
    W_RETURN,
    W_MINE_KEEP,
    W_MINE_URGENT,
) = range(19)


@njit(cache=True, inline="always", error_model="numpy")
def _place(F, i, w):
    return (
        F[i, Place.GAIN]
        - w[W_OPP] * F[i, Place.OPP_GAIN]
        + w[W_FOLLOW] * F[i, Place.FOLLOW]
        + w[W_GROW] * F[i, Place.GROW]
        - w[W_GROW_OPP] * F[i, Place.OPP_GROW]
        + w[W_OPEN_CLAIM] * F[i, Place.OPEN]
        - w[W_EDGES] * F[i, Place.EDGES_DELTA]
        + w[W_TENT_TOK] * F[i, Place.TENT_TOK]
        + w[W_STACK] * F[i, Place.STACK]
    )


@njit(cache=True, inline="always", error_model="numpy")
def _action(F, i, view, w):
    left = F[i, Action.TILES_FRAC]
    supply = F[i, Action.SUPPLY]
    if F[i, Action.MINE] > 0.5:
        v = w[W_MINE] * F[i, Action.POINTS]
        if F[i, Action.MINER_LEAD] > 0:  # my miners lead there: the tokens come to me at completion anyway
            v *= 1.0 - w[W_MINE_KEEP] * F[i, Action.ODDS]
        elif F[i, Action.OPP_MINERS] > 0:  # an opponent's miners would take them: mine first
            v *= 1.0 + w[W_MINE_URGENT]
        return v
    if F[i, Action.TENT] > 0.5:  # the extra tokens I can mine there (versus the stack under my tent now)
        if F[i, Action.SAME_MOUNTAIN] > 0.5:
            return -0.01  # another area of the same mountain: nothing gained
        turns = view[2] / max(1, view[1])
        emean = F[i, Action.VALUE] / max(1.0, F[i, Action.SIZE])
        gain = min(F[i, Action.SIZE], turns) - min(view[7], turns)
        v = w[W_TENT] * emean * gain
        if F[i, Action.MINER_LEAD] > 0:
            v *= 1.0 - w[W_MINE_KEEP] * F[i, Action.ODDS]
        if F[i, Action.TENT_PLACED] > 0.5:
            v -= w[W_TENT_MOVE] * emean
        return v
    if F[i, Action.REMOVE] > 0.5:  # house rule: take a cowboy back
        return -1.0 + (0.5 * left if supply == 0 else 0.0)
    if F[i, Action.RAILROAD] + F[i, Action.MOUNTAIN] + F[i, Action.CITY] + F[i, Action.PRAIRIE] < 0.5:
        return 0.0  # pass
    if F[i, Action.POINTS] > 0:
        return F[i, Action.POINTS] + w[W_RETURN]  # completes now: scores and the cowboy comes back
    cost = w[W_COW_COST] * left / (supply + 0.5)
    late = 1.0 - left
    ramp = late ** w[W_FARM_LATE]  # 0 early .. 1 at the end: values left open are realised at the end
    if F[i, Action.PRAIRIE] > 0.5:  # farmer: the prairie value counts at the end
        share = w[W_FARM] + (1.0 - w[W_FARM]) * ramp
        return F[i, Action.IF_OPEN] * share - cost
    odds = F[i, Action.ODDS]
    end_share = w[W_OPEN_END] + (1.0 - w[W_OPEN_END]) * ramp
    # its value when completed (the active locomotive rule applied), and if it stays open (end-of-game rules; a
    # city counts its completed railroads, a mountain loses its tokens)
    v = w[W_OPEN_VAL] * F[i, Action.IF_DONE] * odds + end_share * F[i, Action.IF_OPEN] * (1 - odds)
    return v - cost


@bot_jit(error_model="numpy")
def choose(kind, view, moves, n, feats, weights, rng):
    best = -np.inf
    count = 0
    choice = 0
    for i in range(n):
        if kind == Kind.PLACE:
            v = _place(feats, i, weights)
        else:
            v = _action(feats, i, view, weights)
        if v > best + 1e-9:
            best = v
            count = 1
            choice = i
        elif v >= best - 1e-9:
            count += 1
            if rng_below(rng, count) == 0:
                choice = i
    return choice
