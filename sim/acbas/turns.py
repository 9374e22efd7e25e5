"""Turn flow: a round starts with the refill and the start player's first placement, the players alternate one
worker at a time, and the round ends when every worker is placed (breeding follows, ``animals.py``). Also the
helpers every decision uses: logging an event (``log_wide``) and what a step of the action in progress works on
(``acting``); a decision is posted with the kernel's ``records.post_decision``."""

import numpy as np
from numba import njit

from meeplab.sim.core.forward import C_PHASE, C_SEAT

from .buildings import *
from .farm import *
from .layout import *
from .layout import log_row
from .params import *
from .state import C_BSEAT, C_CUR, C_ME, C_RND, C_TURN, PH_BREED, PH_TURN


@njit(cache=True, inline="always")
def log_wide(st, code, a0, a1, a2, a3, a4, a5, a6, a7, a8):
    """Append event row ``[code, a0, ..., a8]`` to the state's event log when it keeps one: ACBAS's rows are
    ``layout.LOGW`` (10) wide, wider than the kernel's ``records.log_st`` rows."""
    log_row(st.log, st.nlog, st.nlog[1] != 0, code, a0, a1, a2, a3, a4, a5, a6, a7, a8)


@njit(cache=True, inline="always")
def acting(st, tab):
    """What a step of the action in progress works on: the record, the integer and float parameters, the
    workspace, the seat carrying out the action and its farm row."""
    r = st.rec[0]
    cxt = tab[0]
    me = r.ctl[C_ME]
    return r, cxt.prm, cxt.prmf, st.scr[0].wk, me, r.ps[np.uint64(me)]


@njit(cache=True, _nrt=False)
def end_turn(st):
    """The action is carried out: the other seat's placement turn is next."""
    r = st.rec[0]
    r.ctl[C_CUR] = 1 - r.ctl[C_ME]
    r.ctl[C_TURN] += 1
    r.ctl[C_PHASE] = PH_TURN
    r.ctl[C_SEAT] = -1


@njit(cache=True, _nrt=False)
def start_round(st, tab):
    """Refill the action spaces; the start player places first."""
    r = st.rec[0]
    prm = tab[0].prm
    gs = r.gs
    rnd = r.ctl[C_RND]
    gs[GS_ROUND] = rnd
    gs[GS_START] = gs[GS_NEXT]
    for j in range(NSLOT):
        gs[GS_OCC + j] = -1
    refill(gs, prm)
    log_wide(st, E_ROUND, rnd, gs[GS_START], 0, 0, 0, 0, 0, 0, 0)
    r.left[0] = prm[I_WORKERS]
    r.left[1] = prm[I_WORKERS]
    r.ctl[C_CUR] = gs[GS_START]
    r.ctl[C_TURN] = 0
    r.ctl[C_PHASE] = PH_TURN


@njit(cache=True, _nrt=False)
def end_round(st, tab):
    """Every worker is placed: breeding, seat 0 first (PH_BREED)."""
    r = st.rec[0]
    r.ctl[C_BSEAT] = 0
    r.ctl[C_PHASE] = PH_BREED
