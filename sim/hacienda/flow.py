"""Hacienda on the forward model (``sim/CONTRACT.md``): reset, advance, apply, result; the turn flow.

The game is a state machine over ``HState`` (``state.py``). A round is every player's turn in seat order; a
turn is up to ``actions`` actions, each a decision (``K_ACTION``) that may lead to a second one: where the card
played goes (``K_LAND``/``K_ANIMAL``), which group gets the hacienda bought (``K_HACIENDA``), where the water tile
goes (``K_WATER``), which chain is harvested (``K_HARVEST``); ``actions.py`` lists and performs them. After each
round: the mid-game scoring once the second animal stack is in use, the final scoring once it is exhausted too
(the rule book); the safety nets (``max_rounds`` cap; a round in which no player could do anything but end the
turn) end the game early. ``ctl[C_PHASE]`` (``state.PH_*``) says where ``advance`` resumes. The set-up is in
``setup.py``, the board in ``engine.py``.

The whole engine is one function, ``step``, behind a function pointer (``step_function``; the game's face puts
it into the context, ``HCtx``). Every function here is compiled with ``_nrt=False``: none allocates
(``new_state`` does, once per chunk).
"""

import numpy as np
from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.forward import C_END, C_KIND, C_LENGTH, C_NP, C_OVER, C_PHASE, C_SEAT, STEP_ADVANCE, STEP_RESET
from meeplab.sim.core.play import new_player
from meeplab.sim.core.play import play_game as shared_play_game
from meeplab.sim.core.rng import rng_init

from .actions import (
    do_action,
    do_hacienda,
    do_harvest,
    do_place,
    do_water,
    post_action,
    post_hacienda,
    post_harvest,
    post_place,
    post_water,
)
from .layout import *
from .redraw import redraw_decks
from .scoring import NCAT, NROWS, P_ACTIONS, P_MAX_ROUNDS, score_player
from .setup import set_table
from .state import (
    C_ACTS,
    C_HACN,
    C_HARVN,
    C_MID,
    C_P,
    C_RND,
    C_STUCK,
    C_TURNS,
    C_WATN,
    PH_ACTION,
    PH_HACIENDA,
    PH_HARVEST,
    PH_OVER,
    PH_PLACE,
    PH_ROUND,
    PH_TURN,
    PH_TURN_END,
    PH_WATER,
    HCtx,
    HEng,
    HState,
    board,
    log_st,
    tables,
)
from .state import determinise as deal_unseen

END_RULES = 0  # the rule book's ending
END_CAP = 1  # the max_rounds cap
END_STALLED = 2  # nobody could do anything but end the turn for a whole round


@njit(cache=True)
def new_state(cx, np_, log):
    """A state for ``np_`` players on this context's board (the only allocation; once per chunk of games): a
    zeroed record of the context's state dtype (``cx.proto``)."""
    st = HState(np.zeros_like(cx.proto), log, np.zeros(2, dtype=np.int64))
    st.rec[0].ctl[C_NP] = np_
    return st


# ---------------------------------------------------------------------------------------------------------------
# rounds and turns
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def start_round(st):
    r = st.rec[0]
    r.pub[V_ROUND] = r.ctl[C_RND]
    r.ctl[C_STUCK] = 1  # until somebody has anything but "end turn"
    r.ctl[C_P] = 0
    r.ctl[C_PHASE] = PH_TURN


@njit(cache=True, _nrt=False)
def start_turn(st):
    r = st.rec[0]
    p = r.ctl[C_P]
    r.pub[V_TURN] = r.ctl[C_TURNS]
    log_st(st, E_TURN, p, r.ctl[C_RND], r.money[p], 0, 0)
    r.ctl[C_TURNS] += 1
    r.ctl[C_ACTS] = 0
    r.ctl[C_HACN] = 0
    r.ctl[C_WATN] = 0
    r.ctl[C_HARVN] = 0
    r.ctl[C_PHASE] = PH_ACTION


@njit(cache=True, _nrt=False)
def scoring(st, cx, phase):
    """A scoring (phase 1 mid-game, 2 final) of every player into the breakdown (columns 0..4 or 5..9)."""
    r = st.rec[0]
    cxt = cx.tab[0]
    np_ = r.ctl[C_NP]
    MS, SP, _FV = tables(st, cx)
    nbmask = board(cx)[2]
    off = 0 if phase == 1 else NCAT
    out = r.sout
    for q in range(np_):
        score_player(q, MS, SP[SR, S_NPC], r.money[q], nbmask, cxt.pi, out)
        for c in range(NCAT):
            r.brk[q, off + c] = out[c]
        log_st(st, E_SCORE_A, q, phase, out[0], out[1], out[2])
        log_st(st, E_SCORE_B, q, phase, out[3], out[4], r.money[q])
    if st.nlog[1] != 0:
        snap = r.snap
        k = 0
        for i in range(NROWS):
            for w in range(MS.shape[1]):
                snap[phase - 1, k] = MS[i, w]
                k += 1
        for q in range(np_):
            snap[phase - 1, k + q] = np.uint64(r.money[q])
        snap[phase - 1, k + 5] = np.uint64(SP[SR, S_NPC])


@njit(cache=True, _nrt=False)
def game_over(st, how):
    r = st.rec[0]
    r.pub[V_PHASE] = 2
    r.ctl[C_END] = how
    r.ctl[C_PHASE] = PH_OVER
    r.ctl[C_OVER] = 1
    r.ctl[C_LENGTH] = r.ctl[C_TURNS]
    r.ctl[C_SEAT] = -1


@njit(cache=True, _nrt=False)
def end_round(st, cx):
    """After every player's turn: the mid-game scoring once stack 2 is in use, the final scoring once it is
    exhausted too (the rule book). Safety nets: a round in which nobody could do anything but end the turn
    means nobody ever can again (stalled: the board is scored once as it stands, as a final scoring; a
    mid-game scoring already made stays); the ``max_rounds`` cap makes the outstanding scorings."""
    r = st.rec[0]
    pi = cx.tab[0].pi
    SP = tables(st, cx)[1]
    r.ctl[C_RND] += 1
    if r.ctl[C_STUCK] != 0:
        log_st(st, E_CAP, -1, r.ctl[C_RND], 1, 0, 0)
        scoring(st, cx, np.int64(2))
        game_over(st, np.int64(END_STALLED))
        return
    cap = r.ctl[C_RND] >= pi[P_MAX_ROUNDS]
    if cap:
        log_st(st, E_CAP, -1, r.ctl[C_RND], 0, 0, 0)
    if r.ctl[C_MID] == 0 and (SP[SR, S_STACK2_IN] == 1 or cap):
        scoring(st, cx, np.int64(1))
        r.ctl[C_MID] = 1
        r.pub[V_PHASE] = 1
    if r.ctl[C_MID] != 0 and (SP[SR, S_APTR] >= SP[SR, S_A2] or cap):
        scoring(st, cx, np.int64(2))
        game_over(st, np.int64(END_CAP if cap else END_RULES))
        return
    r.ctl[C_PHASE] = PH_ROUND


@njit(cache=True, _nrt=False)
def end_turn(st, cx):
    r = st.rec[0]
    p = r.ctl[C_P]
    log_st(st, E_END, p, r.ctl[C_ACTS], r.money[p], 0, 0)
    if p + 1 < r.ctl[C_NP]:
        r.ctl[C_P] = p + 1
        r.ctl[C_PHASE] = PH_TURN
    else:
        end_round(st, cx)


# ---------------------------------------------------------------------------------------------------------------
# the forward model
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def advance_in(st, cx):
    """Run the forced steps (turns and rounds beginning and ending, the scorings) up to the next decision and
    post it; returns the deciding seat, or -1 once the game is over."""
    r = st.rec[0]
    n_actions = cx.tab[0].pi[P_ACTIONS]
    while True:
        ph = r.ctl[C_PHASE]
        if ph == PH_ACTION:
            if r.ctl[C_ACTS] < n_actions:
                return post_action(st, cx)
            r.ctl[C_PHASE] = PH_TURN_END
        elif ph == PH_PLACE:
            return post_place(st, cx)
        elif ph == PH_HACIENDA:
            return post_hacienda(st, cx)
        elif ph == PH_WATER:
            return post_water(st, cx)
        elif ph == PH_HARVEST:
            return post_harvest(st, cx)
        elif ph == PH_TURN:
            start_turn(st)
        elif ph == PH_TURN_END:
            end_turn(st, cx)
        elif ph == PH_ROUND:
            start_round(st)
        else:
            return -1


@njit(cache=True, _nrt=False)
def apply_in(st, cx, i):
    """Perform candidate ``i`` of the pending decision."""
    k = st.rec[0].ctl[C_KIND]
    if k == K_ACTION:
        do_action(st, cx, i)
    elif k == K_LAND or k == K_ANIMAL:
        do_place(st, cx, i)
    elif k == K_HACIENDA:
        do_hacienda(st, cx, i)
    elif k == K_WATER:
        do_water(st, cx, i)
    else:
        do_harvest(st, cx, i)


@njit(cache=True, _nrt=False)
def result(st, cx, sc, tb, brk):
    """Score = the sum of both scorings; tie-break = pesos; breakdown = mid-game 0..4, final 5..9."""
    r = st.rec[0]
    for q in range(r.ctl[C_NP]):
        tot = 0.0
        for c in range(2 * NCAT):
            brk[q, c] = r.brk[q, c]
            tot += r.brk[q, c]
        sc[q] = tot
        tb[q] = r.money[q]


def _step(st, cx, i):
    """The whole engine behind one function pointer (``HCtx.step``, called with the engine context ``HEng``):
    ``i >= 0`` applies candidate ``i`` (returns 0), STEP_ADVANCE advances to the next decision (returns its seat
    or -1), STEP_RESET sets up the table of a game whose stream is seeded (returns 0)."""
    if i >= 0:
        apply_in(st, cx, i)
        return 0
    if i == STEP_ADVANCE:
        return advance_in(st, cx)
    set_table(st, cx)
    return 0


step = njit(cache=True, _nrt=False)(_step)


def step_function(eng):
    """``step`` for the engine context ``eng`` as a function pointer (sim.core.forward.step_pointer)."""
    st = HState(np.zeros_like(eng.proto), np.zeros((0, 6), dtype=np.int64), np.zeros(2, dtype=np.int64))
    return forward.step_pointer(step, st, eng, 0, parts=COMPILE_PARTS)


# Functions of ``step``'s tree that take a prefix of its arguments, in two groups of about equal compile time
# (2026-12-02, a slow hour: about 40 s CPU each of the tree's ~89 s; the first is compiled by this process, which
# then compiles ``advance_in``, ``apply_in``, ``step`` and the shared loop): on a cold cache the second compiles in
# a helper process on the other core (sim.core.parcompile).
COMPILE_PARTS = (
    (post_place, post_hacienda, do_action, do_place, do_water, end_turn, set_table),
    (post_action, post_water, post_harvest, do_hacienda, do_harvest, start_round, start_turn),
)


@njit(cache=True, _nrt=False)
def reset(st, cx, seed, g):
    """Game ``g``: seed the stream from (seed, g), clear the table, place the sources' water, deal the cards."""
    rng_init(st.rec[0].rng, seed, g)
    cx.step(st, HEng(cx.tab, cx.proto), STEP_RESET)


@njit(cache=True, _nrt=False)
def advance(st, cx):
    """Run the forced steps (turns and rounds beginning and ending, the scorings) up to the next decision and
    post it; returns the deciding seat, or -1 once the game is over."""
    return cx.step(st, HEng(cx.tab, cx.proto), STEP_ADVANCE)


@njit(cache=True, _nrt=False)
def apply(st, cx, i):
    """Perform candidate ``i`` of the pending decision."""
    cx.step(st, HEng(cx.tab, cx.proto), i)


@njit(cache=True, _nrt=False)
def determinise(st, cx, seat, rnd):
    """Re-deal what ``seat`` has not seen (``state.determinise``)."""
    deal_unseen(st, HEng(cx.tab, cx.proto), seat, rnd)


@njit(cache=True, _nrt=False)
def redraw(st, cx, rnd):
    """Fresh future chance from the true state: the decks' unseen order (``redraw.redraw_decks``)."""
    redraw_decks(st, HEng(cx.tab, cx.proto), rnd)


forward.register(
    HState, HCtx, new=new_state, reset=reset, advance=advance, apply=apply, determinise=determinise, result=result,
    redraw=redraw,
)  # fmt: skip


@njit(cache=True)
def play_logged(cx, fns, weights, search, np_, rotate, seed, g, log, ncat, srch):
    """Game ``g`` with its event log (the batch's very game, through the shared loop): (events written, score,
    tiebreak, breakdown, turns, snapshots of the board at both scorings)."""
    st, scratch = new_player(cx, np_, ncat, log)
    st.nlog[1] = 1
    shared_play_game(st, scratch, cx, fns, weights, search, rotate, seed, g, srch)
    score = np.zeros(np_)
    tiebreak = np.zeros(np_)
    brk = np.zeros((np_, ncat))
    result(st, cx, score, tiebreak, brk)
    r = st.rec[0]
    return st.nlog[0], score, tiebreak, brk, r.ctl[C_LENGTH], r.snap.copy()
