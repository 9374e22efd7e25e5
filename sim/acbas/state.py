"""The ACBAS state record (``sim/CONTRACT.md``): named fields, allocation, determinise, print, and the run's
context record (``ctx_record``; the engine pairs it with its step function).

``AcState.rec`` holds the whole game (``STATE_DTYPE``): the bots' view ``pub`` (layout ``V_*`` in ``layout.py``),
the control words ``ctl`` (the shared ``C_*`` of ``sim.core.forward``, then the game's own below), the pending
decision (``moves``, ``feats``), the random stream (the bots' draws: the game itself has no chance), both farms
``ps`` (rows laid out in ``farm.py``), the shared board ``gs``, the workers left per seat, the evaluations of the
decision in progress and, at the end, the scores.

``AcState.scr`` is the engine's workspace (``SCR_DTYPE``), outside the record and never copied: the housing memo,
the enclosure-plan and estimate caches (``wk``, laid out in ``layout.py``) and the estimate's buffers. Every cache
in it is keyed by the farm it describes, so a state copied into another finds it either valid or recomputes it.

ACBAS has no hidden information and no chance once the game starts (every card and good is on the table, there is
no deck and no die), so ``determinise`` is the identity on the game; it only invalidates the copy's per-game plan
caches.
"""

from collections import namedtuple
from enum import IntEnum

import numpy as np
from numba import njit

from meeplab.sim.core.bots import MAX_ENTRIES
from meeplab.sim.core.forward import C_COMMON, C_NP

from .farm import FLAT_MASK, FLAT_SHIFT, P_SIZE, RBND, REG, REG_END, RSIZE, WCOLS
from .layout import (
    GS_SIZE,
    KF_N,
    MAXM,
    MONO_COL,
    MW,
    NF,
    PC_EST,
    PCR,
    REG_WITH,
    S_ROW,
    V_LEN,
    W_ROWS_ALL,
    WROWS,
)
from .params import N_PRM

# -- the game's own control words (after the shared ones) --------------------------------------------------------
C_RND = C_COMMON + 0  # round (0-based)
C_TURN = C_COMMON + 1  # placement turn in this round (0 .. 2 x workers - 1)
C_CUR = C_COMMON + 2  # seat whose placement turn is next
C_ME = C_COMMON + 3  # seat carrying out the action in progress
C_SLOT = C_COMMON + 4  # action space in progress
C_PLACED = C_COMMON + 5  # borders / troughs / stables placed by this action so far
C_G = C_COMMON + 6  # game index (which lineup entry plays which seat)
C_CODE = C_COMMON + 7  # special building just built (its free animal is pending)
C_GOT = C_COMMON + 8  # borders taken from the Expand space (logged with the side)
C_KRET = C_COMMON + 9  # keep-or-release pending: the phase to go on with after the choice (PH_TURN: end the turn)
C_KSEAT = C_COMMON + 10  # keep-or-release pending: the seat choosing
C_BSEAT = C_COMMON + 11  # breeding: the next seat to breed (2: both have)
C_LEN = C_COMMON + 12


class Phase(IntEnum):
    """Where ``advance`` resumes (``ctl[C_PHASE]``)."""

    ROUND = 0  # refill and start a round
    TURN = 1  # the next placement turn (or breeding after the last)
    ACTION = 2  # the action-space decision is posted
    BORDERS = 3  # Fences / Walls: the next enclosure plan (or stop)
    TROUGHS = 4  # Troughs: the next trough (or stop)
    STALL = 5  # Stall: its space
    STABLES = 6  # Stables: the next stall to upgrade (or stop)
    SPECIAL = 7  # Special building: which, where, how paid
    ANIMAL = 8  # the Shelter's / Open Stables' free animal
    EXPAND = 9  # Expand: which side
    OVER = 10
    KEEP = 11  # keep-or-release: the sets of animals to keep are posted
    BREED = 12  # breeding, one seat after the other (C_BSEAT), then the next round or the final scoring


(
    PH_ROUND,
    PH_TURN,
    PH_ACTION,
    PH_BORDERS,
    PH_TROUGHS,
    PH_STALL,
    PH_STABLES,
    PH_SPECIAL,
    PH_ANIMAL,
    PH_EXPAND,
    PH_OVER,
    PH_KEEP,
    PH_BREED,
) = Phase

STATE_DTYPE = np.dtype(
    [
        ("pub", np.int64, V_LEN),  # the bots' view (layout.V_*): both farms and the board, all public
        ("ctl", np.int64, C_LEN),  # control words: sim.core.forward C_*, then the C_* above
        ("moves", np.int64, (MAXM, MW)),  # candidates of the pending decision
        ("feats", np.float64, (MAXM, NF)),  # their features
        ("rng", np.uint64, 4),  # the game's random stream (the bots' draws)
        ("ps", np.int64, (2, P_SIZE)),  # the two farms (farm.P_*)
        ("gs", np.int64, GS_SIZE),  # the shared board (layout.GS_*)
        ("left", np.int64, 2),  # workers each seat still has to place this round
        ("res", np.float64, (4, 13)),  # evaluations of the decision in progress (res[0]: the deciding farm now)
        ("score", np.float64, 2),  # final scores (set at the end)
        ("tb", np.float64, 2),  # tie-break: the start player of round 1 loses a tie
        ("brk", np.float64, (2, 8)),  # final score breakdown
    ]
)
SCR_DTYPE = np.dtype(
    [
        ("wk", np.int64, (W_ROWS_ALL, WCOLS)),  # housing memo, plan and estimate caches (layout.py)
        ("m1", np.int64, (MAXM, MW)),  # the estimate's candidates
        ("f1", np.float64, (MAXM, NF)),  # and features
        ("tps", np.int64, (4, P_SIZE)),  # farm copies
        ("tgs", np.int64, GS_SIZE),  # a board copy
        ("parts", np.float64, 8),
        ("kf", np.int64, (2, KF_N)),  # keep-or-release: the frontier of kept vectors and its children (keep_frontier)
    ]
)
AcState = namedtuple("AcState", ["rec", "log", "nlog", "scr"])
# the read-only context of a run: one record (``cx.tab[0]``)
CTX_DTYPE = np.dtype(
    [
        ("prm", np.int64, N_PRM),  # packed integer parameters (params.I_*)
        ("prmf", np.float64, 1),  # packed float parameters
        ("reads", np.int64, MAX_ENTRIES),  # what each lineup entry's bot reads of the features (sim.core.bots.READS)
        ("rotate", np.int64),  # seats rotate over the lineup
        ("mono", np.int64),  # the bounds of the pruned estimates hold (buildings.bounds_hold)
        # the farm's regions (farm.REG, RBND, RSIZE, REG_END; layout.REG_WITH): data, not compiled-in constants
        ("reg", np.int64, len(REG)),
        ("rbnd", np.int64, len(REG)),
        ("rsize", np.int64, len(REG)),
        ("reg_end", np.int64, len(REG_END)),
        ("reg_with", np.uint64, REG_WITH.shape),
    ]
)
# step: engine.step as a function pointer (engine.make_ctx; see engine.py: the engine is compiled once, not once per
# caller)
AcCtx = namedtuple("AcCtx", ["tab", "step"])


@njit(cache=True)
def new_state(cx, np_, log):
    st = AcState(np.zeros(1, dtype=STATE_DTYPE), log, np.zeros(2, dtype=np.int64), np.zeros(1, dtype=SCR_DTYPE))
    st.rec[0].ctl[C_NP] = np_
    st.scr[0].wk[S_ROW, MONO_COL] = cx.tab[0].mono
    return st


@njit(cache=True, _nrt=False)
def clear_plan_caches(wk):
    """Invalidate both seats' enclosure-plan and estimate caches (E = -1 matches no farm)."""
    for p in range(2):
        wk[np.uint64(WROWS + p * PCR + (5 >> FLAT_SHIFT)), np.uint64(5 & FLAT_MASK)] = 0
        wk[np.uint64(WROWS + p * PCR + (PC_EST >> FLAT_SHIFT)), np.uint64(PC_EST & FLAT_MASK)] = -1


@njit(cache=True, _nrt=False)
def determinise(st, cx, seat, rnd):
    """The identity: ACBAS has no hidden information and no chance after the setup. Only the copy's per-game
    plan caches are invalidated (they came from another line of play)."""
    clear_plan_caches(st.scr[0].wk)


def ctx_record(prm, prmf, reads, rotate, mono):
    """The engine's read-only record of a run (``CTX_DTYPE``); the engine's
    :func:`~meeplab.sim.acbas.engine.make_ctx` pairs it with the step function."""
    tab = np.zeros(1, dtype=CTX_DTYPE)
    t = tab[0]
    t["prm"][:] = prm
    t["prmf"][:] = prmf
    t["reads"][:] = reads
    t["rotate"] = 1 if rotate else 0
    t["mono"] = 1 if mono else 0
    t["reg"][:] = REG
    t["rbnd"][:] = RBND
    t["rsize"][:] = RSIZE
    t["reg_end"][:] = REG_END
    t["reg_with"][:] = REG_WITH
    return tab


def describe(st) -> str:
    """The state record as text: every control word by name, then the other fields."""
    from meeplab.sim.core import forward

    rec = st.rec[0]
    names = {v: k for k, v in vars(forward).items() if k.startswith("C_") and isinstance(v, int)}
    names.update({v: k for k, v in globals().items() if k.startswith("C_") and isinstance(v, int) and k != "C_LEN"})
    lines = ["ctl: " + ", ".join(f"{names.get(i, i)}={int(x)}" for i, x in enumerate(rec["ctl"]))]
    n = int(rec["ctl"][forward.C_N])
    for f in STATE_DTYPE.names:
        if f == "ctl":
            continue
        v = rec[f]
        if f in ("moves", "feats"):
            v = v[:n]
        lines.append(f"{f}: {np.array2string(v, threshold=80, max_line_width=200)}")
    return "\n".join(lines)
