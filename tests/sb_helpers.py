"""Helpers for the Schweinebande tests: a scripted bot and hand-built positions."""
import numpy as np
from numba import njit

from sim.core.bots import BOT_SIG
from sim.core.registry import get_game
from sim.schweinebande import engine
from sim.schweinebande.layout import MAXS, NF, NK, NT, V_FARMER, V_LEN, V_NP, V_NROUNDS, V_NSPACES, V_SUPPLY, V_TILE


@njit(BOT_SIG, cache=True)
def scripted(kind, view, moves, n, feats, weights, rng):
    """Plays a script kept in its weights: weights[0] is a cursor, then pairs (a, b) per decision.

    It picks the candidate whose moves[i, 0] == a and (b < -0.5 or moves[i, 1] == b); if the script
    is exhausted or nothing matches, it picks the last candidate (and records -1 in weights[1])."""
    c = int(weights[0])
    if 2 * c + 2 >= weights.shape[0]:
        return n - 1
    a = weights[1 + 2 * c]
    b = weights[2 + 2 * c]
    weights[0] = c + 1
    for i in range(n):
        if moves[i, 0] == a and (b < -0.5 or moves[i, 1] == b):
            return i
    return n - 1


def script_weights(steps, entries=5, width=16):
    """Weights matrix giving every entry the same script [(a, b), ...]; unused slots match nothing."""
    w = np.full((entries, 1 + 2 * max(width, len(steps))), -9.0)
    w[:, 0] = 0
    for e in range(entries):
        for j, (a, b) in enumerate(steps):
            w[e, 1 + 2 * j] = a
            w[e, 2 + 2 * j] = b
    return w


def fns():
    return (scripted,) * 5


def ctx(**over):
    g = get_game("schweinebande")
    return g.prepare(g.params.resolve(over))


def blank_view(c, n_players=3):
    view = np.zeros(V_LEN, dtype=np.int64)
    view[V_TILE:V_TILE + MAXS] = -1
    view[V_FARMER:V_FARMER + MAXS] = -1
    view[V_NP] = n_players
    view[V_NROUNDS] = 4
    view[V_NSPACES] = c.rays.shape[0]
    view[V_SUPPLY] = -1
    return view


def scratch():
    return (
        np.zeros((engine.MAX_MOVES, 2), dtype=np.int64),
        np.zeros((engine.MAX_MOVES, NF)),
        np.zeros(NK, dtype=np.int64),
        np.zeros(NT + 1, dtype=np.int64),
        np.zeros((1000, 6), dtype=np.int64),
        np.zeros(1, dtype=np.int64),
    )


def rng():
    r = np.zeros(4, dtype=np.uint64)
    r[0] = 1
    return r
