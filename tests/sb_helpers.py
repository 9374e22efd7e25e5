"""Helpers for the Schweinebande tests: a scripted bot and hand-built positions."""

import numpy as np
from numba import njit

from meeplab.sim.core.bots import BOT_SIG
from meeplab.sim.core.forward import C_LENGTH, C_PHASE, ask
from meeplab.sim.core.registry import get_game
from meeplab.sim.schweinebande import engine, state
from meeplab.sim.schweinebande.layout import (
    LOGW,
    MAXS,
    NT,
    V_FARMER,
    V_LEN,
    V_NP,
    V_NROUNDS,
    V_NSPACES,
    V_ORDER,
    V_ROUND,
    V_SUPPLY,
    V_TILE,
    V_UNSEEN,
)


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
    view[V_TILE : V_TILE + MAXS] = -1
    view[V_FARMER : V_FARMER + MAXS] = -1
    view[V_NP] = n_players
    view[V_NROUNDS] = 4
    view[V_NSPACES] = c.rays.shape[0]
    view[V_SUPPLY] = -1
    return view


def make_state(c, view):
    """A state whose view is ``view`` (a hand-built position), logging on."""
    st = state.new_state(c.cx, int(view[V_NP]), np.zeros((2000, LOGW), dtype=np.int64))
    st.nlog[1] = 1
    st.rec[0]["pub"][:] = view
    return st


def finish(st, view):
    """Copy the state's view back into the test's ``view``; returns the event log written."""
    view[:] = st.rec[0]["pub"]
    return st.log[: st.nlog[0]]


def order_first(view, seat):
    """``seat`` holds order tile 1, the other seats 2, 3, ... (farm and feed run in that order)."""
    t = 2
    for s in range(int(view[V_NP])):
        view[V_ORDER + s] = 1 if s == seat else t
        t += s != seat


def collect_run(view, c, w):
    """Phase C on the position ``view`` with the scripted bots; returns (turns, log)."""
    st = make_state(c, view)
    engine.start_collect(st, c.cx)
    while True:
        s = engine.post_collect(st, c.cx)
        if s < 0:
            engine.end_collect(st, c.cx)
            break
        engine.apply(st, c.cx, ask(st, fns(), w, s))
    turns = int(st.rec[0]["ctl"][C_LENGTH])
    return turns, finish(st, view)


def farm_run(view, c, seat, last_round, steps):
    """Phase D for ``seat`` (first in order; the other seats hold no tiles); returns (breakdown, moves, feats)."""
    view[V_ROUND] = 3 if last_round else 0
    order_first(view, seat)
    st = make_state(c, view)
    rec = st.rec[0]
    rec["ctl"][state.C_T] = 1
    rec["ctl"][C_PHASE] = state.PH_FARM
    w = script_weights(steps)
    while True:
        s = engine.post_farm(st, c.cx)
        if s < 0:
            break
        engine.apply(st, c.cx, ask(st, fns(), w, s))
    finish(st, view)
    return rec["brk"][seat].copy(), rec["moves"], rec["feats"]


def feed_run(view, c, seat, steps, round_=0):
    """Phase E for ``seat`` (first in order; the other seats hold no animals); returns the log."""
    view[V_ROUND] = round_
    order_first(view, seat)
    st = make_state(c, view)
    st.rec[0]["ctl"][state.C_T] = 1
    st.rec[0]["ctl"][C_PHASE] = state.PH_FEED
    w = script_weights(steps)
    while True:
        s = (
            engine.post_feed(st, c.cx)
            if st.rec[0]["ctl"][C_PHASE] == state.PH_FEED
            else engine.post_sell(st, c.cx, st.rec[0]["ctl"][0])
        )
        if s < 0:
            if st.rec[0]["ctl"][C_PHASE] == state.PH_FEED and st.rec[0]["ctl"][state.C_T] > view[V_NP]:
                break
            continue
        engine.apply(st, c.cx, ask(st, fns(), w, s))
    return finish(st, view)


def placement_run(view, c, hidden, first, w, round_=0):
    """Phase B from an all face-down board over ``hidden`` (an empty bag); returns (turns, log, unseen tiles by
    kind)."""
    view[V_ROUND] = round_
    view[V_UNSEEN : V_UNSEEN + NT] = np.bincount(hidden, minlength=NT)  # as if the bag were empty
    st = make_state(c, view)
    rec = st.rec[0]
    ns = c.rays.shape[0]
    rec["hidden"][:ns] = hidden
    rec["mk"][state.M_FACEDOWN] = np.uint64((1 << ns) - 1)
    rec["ctl"][state.C_FIRST] = first
    engine.start_placement(st, c.cx)
    while True:
        if rec["ctl"][C_PHASE] == state.PH_REVEAL:
            s = engine.post_reveal(st, c.cx)
            if s < 0:
                engine.end_placement(st, c.cx)
                break
        else:
            s = engine.post_place(st, c.cx)
            if s < 0:
                continue
        engine.apply(st, c.cx, ask(st, fns(), w, s))
    turns = int(rec["ctl"][C_LENGTH])
    return turns, finish(st, view), view[V_UNSEEN : V_UNSEEN + NT].copy()


def scratch():
    """(log, nlog) for calling an engine helper with logging on."""
    return np.zeros((1000, LOGW), dtype=np.int64), np.zeros(1, dtype=np.int64)


def rng():
    r = np.zeros(4, dtype=np.uint64)
    r[0] = 1
    return r
