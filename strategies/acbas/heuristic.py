"""Linear value of the engine's features with round-dependent weights (values of goods, animals, capacity,
buildings blend from their early-game to their late-game weight as the rounds pass)."""
import numpy as np

from sim.core.bots import bot_jit, load_weights_toml
from strategies.common import pick_uniform

DESCRIPTION = "linear feature value, weights blended from early to late game (heuristic.toml)"

FEATURES = ("score", "wood", "stone", "reed", "borders", "capacity", "kept", "lost", "pairs", "building_points",
            "on_space")
WEIGHTS = load_weights_toml(__file__, "heuristic.toml")
_names = [f"{p}_{f}" for f in FEATURES for p in ("early", "late")]
if list(WEIGHTS) != _names:
    raise ValueError(f"heuristic.toml must list exactly these weights in this order: {', '.join(_names)}")
NFEAT = len(FEATURES)


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    if n <= 1:
        return 0
    rounds = view[1]
    x = 0.0
    if rounds > 1:
        x = view[0] / (rounds - 1.0)
    k = min(NFEAT, feats.shape[1])
    best = -np.inf
    cnt = 0
    choice = 0
    for i in range(n):
        v = 0.0
        for j in range(k):
            w = weights[2 * j] * (1.0 - x) + weights[2 * j + 1] * x
            v += w * feats[i, j]
        if v > best + 1e-9:
            best = v
            cnt = 1
            choice = i
        elif v >= best - 1e-9:
            cnt += 1
            if pick_uniform(cnt, rng) == 0:
                choice = i
    return choice
