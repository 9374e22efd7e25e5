"""Gold Rush heuristic bot: completion odds from the tiles left, miner majorities, tent and mining timing,
farmers late on rich prairies. Weights: heuristic.toml (tuned variants: [bots.NAME] base = "heuristic")."""
import numpy as np
from numba import njit

from sim.core.bots import BOT_SIG, load_weights_toml
from sim.core.rng import rng_below

DESCRIPTION = "completion odds, majorities, tent/mining timing, late farmers (weights in heuristic.toml)"
WEIGHTS = load_weights_toml(__file__, "heuristic.toml")

# weight indices (order of heuristic.toml)
(W_OPP, W_FOLLOW, W_GROW, W_GROW_OPP, W_OPEN_CLAIM, W_EDGES, W_TENT_TOK, W_STACK, W_OPEN_VAL, W_OPEN_END,
 W_FARM, W_FARM_LATE, W_COW_COST, W_MINE, W_TENT, W_TENT_MOVE, W_RETURN, W_MINE_KEEP, W_MINE_URGENT) = range(19)


@njit(cache=True)
def _place(f, w):
    return (f[0] - w[W_OPP] * f[1] + w[W_FOLLOW] * f[2] + w[W_GROW] * f[3] - w[W_GROW_OPP] * f[4]
            + w[W_OPEN_CLAIM] * f[5] - w[W_EDGES] * f[7] + w[W_TENT_TOK] * f[8] + w[W_STACK] * f[12])


@njit(cache=True)
def _action(f, view, w):
    left = f[9]  # fraction of tiles left
    supply = f[10]
    if f[8] > 0.5:  # mine
        v = w[W_MINE] * f[0]
        if f[16] > 0:  # my miners lead there: the tokens come to me at completion anyway
            v *= 1.0 - w[W_MINE_KEEP] * f[11]
        elif f[17] > 0:  # an opponent's miners would take them: mine first
            v *= 1.0 + w[W_MINE_URGENT]
        return v
    if f[7] > 0.5:  # tent: the extra tokens I can mine there (versus the stack under my tent now)
        turns = view[2] / max(1, view[1])
        emean = f[1] / max(1.0, f[14])
        gain = min(f[14], turns) - min(view[7], turns)
        v = w[W_TENT] * emean * gain
        if f[16] > 0:
            v *= 1.0 - w[W_MINE_KEEP] * f[11]
        if f[12] > 0.5:
            v -= w[W_TENT_MOVE] * emean
        return v
    if f[13] > 0.5:  # house rule: take a cowboy back
        return -1.0 + (0.5 * left if supply == 0 else 0.0)
    if f[3] + f[4] + f[5] + f[6] < 0.5:
        return 0.0  # pass
    if f[0] > 0:
        return f[0] + w[W_RETURN]  # completes now: scores and the cowboy comes back
    cost = w[W_COW_COST] * left / (supply + 0.5)
    late = 1.0 - left
    ramp = late ** w[W_FARM_LATE]  # 0 early .. 1 at the end: values left open are realised at the end
    if f[6] > 0.5:  # farmer: the prairie value counts at the end
        share = w[W_FARM] + (1.0 - w[W_FARM]) * ramp
        return f[1] * share - cost
    odds = f[11]
    full = f[1]
    if f[3] > 0.5 and f[14] == 1:
        full = 2.0 * f[1]  # exactly one locomotive: a completed railroad counts double
    end_share = w[W_OPEN_END] + (1.0 - w[W_OPEN_END]) * ramp
    v = full * w[W_OPEN_VAL] * odds + f[1] * end_share * (1 - odds)
    if f[5] > 0.5:  # city: completed railroads count even if the city stays open
        v = w[W_OPEN_VAL] * f[1] * odds + end_share * 3.0 * f[14] * (1 - odds)
    return v - cost


@njit(BOT_SIG, cache=True)
def choose(kind, view, moves, n, feats, weights, rng):
    best = -np.inf
    count = 0
    choice = 0
    for i in range(n):
        if kind == 0:
            v = _place(feats[i], weights)
        else:
            v = _action(feats[i], view, weights)
        if v > best + 1e-9:
            best = v
            count = 1
            choice = i
        elif v >= best - 1e-9:
            count += 1
            if rng_below(rng, count) == 0:
                choice = i
    return choice
