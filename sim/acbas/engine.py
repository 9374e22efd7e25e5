"""Agricola: All Creatures Big and Small engine on the forward model (``sim/CONTRACT.md``; numba, nopython).

The game is a state machine over ``AcState`` (``state.py``). ``advance`` runs the forced steps of the rule book
(refilling the action spaces, breeding, the final scoring) up to the next player decision and posts its candidates
and features; ``apply`` performs the chosen candidate. A round is: refill (``PH_ROUND``), then placement turns
(``PH_TURN``: the action space, ``K_ACTION``) until every worker is placed, each action carried out with its own
decisions (``PH_BORDERS`` .. ``PH_EXPAND``), then breeding. The game loop and the batch are the shared ones of
``sim.core.play``.

This module is the forward model's face: set-up, result, and ``step`` (advance and apply in one function behind a
function pointer). The phases live by topic: ``turns.py`` (rounds and placement turns), ``actions.py`` (the action
space), ``enclosures.py`` (Fences / Walls), ``construction.py`` (Troughs, Stall, Stables, Special building, Expand)
and ``animals.py`` (housing, keep or release, breeding, final scoring); their rule helpers in ``evaluation.py``
(housing and scoring), ``plans.py`` (enclosure plans), ``buildings.py`` (troughs, stall, stables, special
buildings, expansion, legality, refill) and ``defaults.py`` (an action's estimate with default sub-choices).
"""

import numpy as np
from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.forward import C_KIND, C_PHASE, C_SEAT
from meeplab.sim.core.rng import rng_init

from .actions import apply_action, post_action
from .animals import apply_keep, breed
from .buildings import *
from .construction import (
    apply_animal,
    apply_expand,
    apply_special,
    apply_stables,
    apply_stall,
    apply_troughs,
    post_animal,
    post_expand,
    post_special,
    post_stables,
    post_stall,
    post_troughs,
)
from .enclosures import apply_borders, post_borders
from .evaluation import *
from .farm import *
from .layout import *
from .params import *
from .plans import *
from .state import (
    C_G,
    C_TURN,
    PH_ANIMAL,
    PH_BORDERS,
    PH_BREED,
    PH_EXPAND,
    PH_OVER,
    PH_ROUND,
    PH_SPECIAL,
    PH_STABLES,
    PH_STALL,
    PH_TROUGHS,
    PH_TURN,
    SCR_DTYPE,
    STATE_DTYPE,
    AcCtx,
    AcState,
    clear_plan_caches,
    determinise,
    new_state,
)
from .turns import end_round, start_round


# ---------------------------------------------------------------------------------------------------------------
# start and end
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def reset(st, cx, seed, g):
    """Game ``g``: seed the bots' stream from (seed, g), set up both farms and the board."""
    r = st.rec[0]
    prm = cx.tab[0].prm
    gs = r.gs
    for j in range(r.ctl.shape[0]):
        if j != forward.C_NP:
            r.ctl[j] = 0
    r.ctl[C_SEAT] = -1
    r.ctl[C_G] = g
    for j in range(GS_SIZE):
        gs[j] = 0
    # the enclosure-plan cache and the estimate's default spaces: invalid (E = -1 matches no farm)
    clear_plan_caches(st.scr[0].wk)
    rng_init(r.rng, seed, g)
    for p in range(2):
        ps = r.ps[p]
        new_farm(ps, prm)
        ps[P_BORD] = prm[I_SEAT_START + 4 * p]  # per seat (params.pack: every seat the same by default)
        ps[P_WOOD] = prm[I_SEAT_START + 4 * p + 1]
        ps[P_STONE] = prm[I_SEAT_START + 4 * p + 2]
        ps[P_REED] = prm[I_SEAT_START + 4 * p + 3]
    gs[GS_TROUGHS] = prm[I_TROUGHS]
    gs[GS_STALLS] = prm[I_STALLS]
    gs[GS_EXPS] = prm[I_EXPANSIONS]
    gs[GS_POOL] = prm[I_EXP_POOL]
    for j in range(4):
        gs[GS_SPEC + j] = 1
    r.ctl[C_PHASE] = PH_ROUND


@njit(cache=True, _nrt=False)
def result(st, cx, sc, tb, brk):
    """Score, tie-break (the start player of round 1 loses a tie) and breakdown of both seats."""
    r = st.rec[0]
    for p in range(2):
        sc[p] = r.score[p]
        tb[p] = r.tb[p]
        for c in range(8):
            brk[p, c] = r.brk[p, c]


# ---------------------------------------------------------------------------------------------------------------
# the forward model
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def advance_in(st, tab):
    """Forced steps up to the next decision; returns its seat, or -1 once the game is over."""
    r = st.rec[0]
    while True:
        ph = r.ctl[C_PHASE]
        if ph == PH_TURN:
            if r.ctl[C_TURN] == 2 * tab[0].prm[I_WORKERS]:
                end_round(st, tab)
                continue
            return post_action(st, tab)
        if ph == PH_BREED:
            seat = breed(st, tab)
            if seat >= 0:
                return seat
            continue
        if ph == PH_ROUND:
            start_round(st, tab)
            continue
        if ph == PH_OVER:
            return -1
        seat = -1
        if ph == PH_BORDERS:
            seat = post_borders(st, tab)
        elif ph == PH_TROUGHS:
            seat = post_troughs(st, tab)
        elif ph == PH_STALL:
            seat = post_stall(st, tab)
        elif ph == PH_STABLES:
            seat = post_stables(st, tab)
        elif ph == PH_SPECIAL:
            seat = post_special(st, tab)
        elif ph == PH_ANIMAL:
            seat = post_animal(st, tab)
        elif ph == PH_EXPAND:
            seat = post_expand(st, tab)
        else:  # PH_ACTION, PH_KEEP: the decision is still pending
            return r.ctl[C_SEAT]
        if seat >= 0:
            return seat


@njit(cache=True, _nrt=False, inline="always")
def apply_in(st, tab, i):
    """Perform candidate ``i`` of the pending decision."""
    k = st.rec[0].ctl[C_KIND]
    if k == K_ACTION:
        apply_action(st, tab, i)
    elif k == K_PLAN:
        apply_borders(st, tab, i)
    elif k == K_TROUGH:
        apply_troughs(st, tab, i)
    elif k == K_STALL:
        apply_stall(st, tab, i)
    elif k == K_STABLES:
        apply_stables(st, tab, i)
    elif k == K_SPECIAL:
        apply_special(st, tab, i)
    elif k == K_SHELTER or k == K_OPENST:
        apply_animal(st, tab, i)
    elif k == K_KEEP:
        apply_keep(st, tab, i)
    else:
        apply_expand(st, tab, i)


def _step(st, tab, i):
    """The whole engine behind one function pointer: ``i < 0`` advances to the next decision (returns its seat
    or -1), ``i >= 0`` applies candidate ``i`` (returns 0)."""
    if i < 0:
        return advance_in(st, tab)
    apply_in(st, tab, i)
    return 0


# Compile time. numba links the machine code of every function a function calls into the caller's own and
# optimises it all again there, so an engine called directly from the shared loop would be optimised once per
# level above it (the loop, its batch, the search and each of their entry points). Called through a function
# pointer (the context's ``step``, as the loop calls bots), it is compiled and optimised once, in ``step``.
step = njit(cache=True, _nrt=False)(_step)


def step_function(tab):
    """``step`` for the state type and the context table ``tab`` as a function pointer (compiled once per
    process, loaded from numba's cache after the first run; sim.core.forward.step_pointer)."""
    dummy = AcState(
        np.zeros(1, dtype=STATE_DTYPE),
        np.zeros((0, LOGW), dtype=np.int64),
        np.zeros(2, dtype=np.int64),
        np.zeros(1, dtype=SCR_DTYPE),
    )
    return forward.step_pointer(step, dummy, tab, 0, parts=COMPILE_PARTS)


def make_ctx(tab):
    """The context the shared loop gets: the run's record (:func:`~meeplab.sim.acbas.state.ctx_record`) and the
    engine's step function for it."""
    return AcCtx(tab, step_function(tab))


# ``step``'s direct callees in two groups of about equal compile time (CPU s, 2026-12-02: ~52 and ~65 of ~117;
# the first is compiled by this process, which also compiles the shared loop afterwards): on a cold cache the
# second compiles in a helper process on the other core (sim.core.parcompile, which imports each function from
# the phase module that defines it: turns, animals, actions, enclosures, construction).
COMPILE_PARTS = (
    (
        breed,
        start_round,
        post_borders,
        post_troughs,
        post_stall,
        post_stables,
        post_special,
        post_animal,
        post_expand,
        apply_stables,
        apply_special,
        apply_animal,
        apply_keep,
        apply_expand,
    ),
    (post_action, apply_action, apply_borders, apply_troughs, apply_stall),
)


@njit(cache=True)
def advance(st, cx):
    """Run the forced steps up to the next decision; returns its seat, or -1 once the game is over."""
    return cx.step(st, cx.tab, -1)


@njit(cache=True)
def apply(st, cx, i):
    """Perform candidate ``i`` of the pending decision."""
    cx.step(st, cx.tab, i)


@njit(cache=True, _nrt=False)
def redraw(st, cx, rnd):
    """No chance after the setup: the identity on the game. Like ``determinise``, only the copy's per-game plan
    caches are invalidated (they came from another line of play)."""
    clear_plan_caches(st.scr[0].wk)


forward.register(
    AcState, AcCtx, new=new_state, reset=reset, advance=advance, apply=apply, determinise=determinise, result=result,
    redraw=redraw,
)  # fmt: skip
