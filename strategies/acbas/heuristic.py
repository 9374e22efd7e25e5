"""Linear value of the engine's features with round-dependent weights (values of goods, animals, capacity,
buildings blend from their early-game to their late-game weight as the rounds pass).

``temperature`` (last weight): 0 plays the best value (ties, values within 1e-9, drawn uniformly); T > 0 draws
candidate i with probability proportional to exp((v_i - v_max) / T) (a softmax over the values, in points of
the blended value: candidates within about T of the best keep a fair chance, those several T below almost none).
ACBAS has no chance, so this is where a mirror match gets its variety (bots.md, "Variety")."""

import numpy as np
from numba import njit

from meeplab.sim.acbas.features import COLUMNS
from meeplab.sim.core.bots import bot_jit, load_weights_toml
from meeplab.sim.core.rng import rng_float
from meeplab.strategies.common import pick_uniform

DESCRIPTION = "linear feature value, weights blended from early to late game (heuristic.toml); softmax temperature"

WEIGHTS = load_weights_toml(__file__, "heuristic.toml")
_names = [f"{p}_{f}" for f in COLUMNS for p in ("early", "late")] + ["temperature"]
if list(WEIGHTS) != _names:
    raise ValueError(f"heuristic.toml must list exactly these weights in this order: {', '.join(_names)}")
NFEAT = len(COLUMNS)  # every feature column the engine declares (the same for every kind)
T_SLOT = 2 * NFEAT  # index of the temperature in the weights


@njit(cache=True, inline="always")
def value(feats, i, k, weights, x):
    v = 0.0
    for j in range(k):
        w = weights[2 * j] * (1.0 - x) + weights[2 * j + 1] * x
        v += w * feats[i, j]
    return v


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    if n <= 1:
        return 0
    rounds = view[1]
    x = 0.0
    if rounds > 1:
        x = view[0] / (rounds - 1.0)
    k = min(NFEAT, feats.shape[1])
    temp = weights[T_SLOT] if weights.shape[0] > T_SLOT else 0.0
    best = -np.inf
    cnt = 0
    choice = 0
    for i in range(n):
        v = value(feats, i, k, weights, x)
        if v > best + 1e-9:
            best = v
            cnt = 1
            choice = i
        elif v >= best - 1e-9:
            cnt += 1
            if pick_uniform(cnt, rng) == 0:
                choice = i
    if temp <= 0.0:
        return choice
    # softmax: one more pass for the total, one draw, one pass to find the drawn row
    tot = 0.0
    for i in range(n):
        tot += np.exp((value(feats, i, k, weights, x) - best) / temp)
    u = rng_float(rng) * tot
    for i in range(n):
        u -= np.exp((value(feats, i, k, weights, x) - best) / temp)
        if u < 0.0:
            return i
    return choice
