"""The Gold Rush state record (``docs/adding-a-game.md``): named fields, allocation, re-deal for a seat, print.

``GRState.rec`` holds the whole game (``STATE_DTYPE``): the bots' view ``pub`` (public, offsets ``V_*`` in
``const.py``), the control words ``ctl`` (the shared ``C_*`` of ``sim.core.forward``, then the ``C_*`` below),
the pending decision (``moves``, ``feats``), the random stream, the two hidden parts (``order``: the draw pile,
``order[ctl[C_DRAWN]:n_tiles - 1]`` not yet drawn; ``tokvals``: the shuffled token faces, revealed in that order
to whoever takes a token, with ``tokown`` the seat that took each), the board (union-find nodes ``nd``, per-game
integers ``gi``, placements ``pl``, the cell grid ``board``/``fidx``/``cons`` and the frontier ``front``, the
open mountain nodes ``mtn``), the players (``pl_int``: supply, tent, token sum and count; ``cow``: where each
cowboy stands), the score breakdown so far and the engine's scratch rows (kept in the record so a state is one
array; nothing in them survives a decision).

The read-only context of a run (deck tables, token mix, rule parameters) is one record too: ``GRCtx.tab[0]``.
Sizes are fixed (``MAXT`` tiles, ``MAXTOK`` tokens) so one compiled engine serves every deck file.
"""

from collections import namedtuple
from enum import IntEnum

import numpy as np
from numba import njit

from meeplab.sim.core.forward import C_COMMON, C_NP
from meeplab.sim.core.rng import rng_below

from .const import G_TOKPTR, MAXC, MAXP, NCAT, NF, NFEAT, NG, NPI, NPR, NV, PI_TOKSUM, SLOTS

MAXT = 96  # tiles in a deck (start tile included)
MAXTOK = 160  # mining tokens
BMAX = 2 * MAXT + 3  # board side for the largest deck (a deck of n tiles uses B = 2n + 3)
MAX_FRONT = 2 * MAXT + 2  # open cells next to the layout: 4 after the start tile, at most 2 more per tile
MAX_MOVES = 4 * MAX_FRONT  # placements: every open cell in every rotation (actions need fewer)
MAX_MTN = 4 * MAXT + 1  # open mountain nodes (count in slot 0)

# -- the game's own control words (after the shared ones) ------------------------------------------------------
C_CUR = C_COMMON + 0  # seat whose turn it is
C_DRAWN = C_COMMON + 1  # tiles drawn from the pile (order[:C_DRAWN]), discards included
C_INST = C_COMMON + 2  # the drawn tile (instance) being placed
C_TILE = C_COMMON + 3  # placement index of the tile placed this turn
C_LEN = C_COMMON + 4


class Phase(IntEnum):
    """Where ``advance`` resumes (``ctl[C_PHASE]``)."""

    DRAW = 0  # draw the next tile (or end the game); post its placements
    PLACE = 1  # the drawn tile's placement is pending
    ACTIONS = 2  # list the follower actions (post them, or do the only one)
    ACTION = 3  # the follower action is pending
    OVER = 4


PH_DRAW, PH_PLACE, PH_ACTIONS, PH_ACTION, PH_OVER = Phase

STATE_DTYPE = np.dtype(
    [
        ("pub", np.int64, NV),  # the bots' view (const.V_*): public information only
        ("ctl", np.int64, C_LEN),  # control words: sim.core.forward C_*, then the C_* above
        ("moves", np.int64, (MAX_MOVES, 3)),  # candidates of the pending decision
        ("feats", np.float64, (MAX_MOVES, NFEAT)),  # their features
        ("rng", np.uint64, 4),  # the game's random stream
        ("order", np.int64, MAXT),  # HIDDEN from ctl[C_DRAWN] on: the draw pile (tile instances)
        (
            "tokvals",
            np.int64,
            MAXTOK,
        ),  # HIDDEN: token faces; tokvals[:gi[G_TOKPTR]] taken (by tokown), the rest face down
        ("tokown", np.int64, MAXTOK),  # seat that took token i (i < gi[G_TOKPTR])
        ("nd", np.int64, (MAXT * SLOTS, NF)),  # union-find nodes (const.F_*), one per segment of a placed tile
        ("gi", np.int64, NG),  # per-game integers (const.G_*)
        ("pl", np.int64, (MAXT, 3)),  # placements: instance, rotation, cell
        ("board", np.int16, BMAX * BMAX),  # cell -> placement index (-1 empty)
        ("fidx", np.int16, BMAX * BMAX),  # cell -> frontier index (-1 not open)
        ("cons", np.uint8, BMAX * BMAX),  # open cell -> edge constraint of its neighbours (2 bits per edge)
        ("front", np.int64, MAX_FRONT),  # open cells
        ("mtn", np.int64, MAX_MTN),  # mountain nodes on unfinished mountains (count in slot 0)
        ("pl_int", np.int64, (MAXP, NPI)),  # per player (const.PI_*): supply, tent node, token sum, token count
        ("cow", np.int64, (MAXP, MAXC)),  # per player: node of each cowboy (-1 in supply)
        ("brk", np.float64, (MAXP, NCAT)),  # score breakdown so far (tokens added at the end)
        ("rem_e", np.int64, 4),  # tiles left in the pile with at least one edge of each kind (public counts)
        # scratch of the feature and scoring code (no value survives a decision)
        ("sc_s", np.int64, 16),
        ("sc_r", np.int64, 16),
        ("sc_e", np.int64, 16),
        ("grp", np.int64, SLOTS),
        ("gs", np.int64, (SLOTS, 11)),
        ("gcow", np.int64, (SLOTS, MAXP)),
        ("roots", np.int64, 16),
        ("rgrp", np.int64, 16),
        ("sc_k", np.int64, 16),
        ("tb", np.int64, (SLOTS, 11)),
        ("tch", np.int64, SLOTS),
        ("lone", np.float64, (SLOTS, 7)),
        ("nb", np.int64, (4, 4)),
        ("nbv", np.float64, 12),
        ("nbo", np.int64, 12),
        ("done", np.int64, 3 * SLOTS),
        ("gain_opp", np.float64, MAXP),
        ("grow_opp", np.float64, MAXP),
        ("troot", np.int64, MAXP),
        ("pool", np.int64, MAXTOK),
    ]
)
GRState = namedtuple("GRState", ["rec", "log", "nlog"])

CTX_DTYPE = np.dtype(
    [
        ("seg", np.int64, (MAXT, SLOTS, 8)),  # segments per instance (const.S_*)
        ("nseg", np.int64, MAXT),
        ("edges", np.int64, (MAXT, 4)),  # edge code per rotation
        ("edge_seg", np.int64, (MAXT, 4, 4)),
        ("half_seg", np.int64, (MAXT, 4, 8)),
        ("rots", np.int64, (MAXT, 4)),  # distinct rotations
        ("nrots", np.int64, MAXT),
        ("through", np.int64, MAXT),  # segment of a railroad running through (-1 none)
        ("cityseg", np.int64, MAXT),  # city segment (-1 none)
        ("tokvals", np.int64, MAXTOK),  # the printed token mix
        ("pr", np.float64, NPR),  # rule parameters (const.P_*)
        ("ntiles", np.int64),
        ("ntok", np.int64),
        ("start", np.int64),  # instance of the start tile
        ("toktot", np.float64),  # points on all tokens
    ]
)
# the engine's context (what its rule functions take as ``cx``): the context record
GREng = namedtuple("GREng", ["tab"])
# the context the shared loop gets: the record and the engine as one function pointer (engine.step, called with
# GREng(tab): compiled once, not once per level of the shared loop above it; sim.core.forward.step_pointer)
GRCtx = namedtuple("GRCtx", ["tab", "step"])


@njit(cache=True)
def new_state(cx, np_, log):
    """A state for ``np_`` players (the only allocation; the grid starts empty)."""
    st = GRState(np.zeros(1, dtype=STATE_DTYPE), log, np.zeros(2, dtype=np.int64))
    r = st.rec[0]
    r.ctl[C_NP] = np_
    for i in range(BMAX * BMAX):
        r.board[i] = -1
        r.fidx[i] = -1
    return st


@njit(cache=True, _nrt=False)
def _shuffle_sorted(a, lo, hi, rnd):
    """Sort a[lo:hi] (the canonical order of a multiset) and shuffle it with ``rnd``."""
    for i in range(lo + 1, hi):
        v = a[i]
        j = i - 1
        while j >= lo and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v
    for i in range(hi - lo - 1, 0, -1):
        x = rng_below(rnd, i + 1)
        t = a[lo + i]
        a[lo + i] = a[lo + x]
        a[lo + x] = t


@njit(cache=True, _nrt=False)
def redeal_pile(r, ntiles, rnd):
    """The draw pile: which tiles are left is public (the deck minus every drawn tile), their order is not."""
    _shuffle_sorted(r.order, r.ctl[C_DRAWN], ntiles - 1, rnd)


@njit(cache=True, _nrt=False)
def redeal_tokens(r, np_, seat, ntok, rnd):
    """Token faces ``seat`` has not seen: those still face down (on mountains or in the supply) and those other
    players took. ``seat`` knows the printed mix and its own tokens, so the others are re-dealt among those
    places; each other player's token sum follows."""
    ptr = r.gi[G_TOKPTR]
    k = 0
    for i in range(ntok):
        if i >= ptr or r.tokown[i] != seat:
            r.pool[k] = r.tokvals[i]
            k += 1
    _shuffle_sorted(r.pool, np.int64(0), k, rnd)
    k = 0
    for p in range(np_):
        if p != seat:
            r.pl_int[p, PI_TOKSUM] = 0
    for i in range(ntok):
        if i >= ptr or r.tokown[i] != seat:
            r.tokvals[i] = r.pool[k]
            k += 1
            if i < ptr:
                r.pl_int[r.tokown[i], PI_TOKSUM] += r.tokvals[i]


@njit(cache=True, _nrt=False)
def determinise(st, cx, seat, rnd):
    """Re-deal what ``seat`` has not seen (the pile's order, unseen token faces) from ``rnd``; the result depends
    only on what ``seat`` sees (both multisets are sorted before the shuffle)."""
    r = st.rec[0]
    cxt = cx.tab[0]
    redeal_pile(r, cxt.ntiles, rnd)
    redeal_tokens(r, r.ctl[C_NP], seat, cxt.ntok, rnd)


def describe(st) -> str:
    """The state record as text: every control word and view slot by name, then the other fields."""
    from meeplab.sim.core import forward

    from . import const

    rec = st.rec[0]
    names = {v: k for k, v in vars(forward).items() if k.startswith("C_") and isinstance(v, int)}
    names.update({v: k for k, v in globals().items() if k.startswith("C_") and isinstance(v, int) and k != "C_LEN"})
    lines = ["ctl: " + ", ".join(f"{names.get(i, i)}={int(x)}" for i, x in enumerate(rec["ctl"]))]
    slots = sorted((v, k) for k, v in vars(const).items() if k.startswith("V_") and isinstance(v, int))
    for j, (off, name) in enumerate(slots):
        end = slots[j + 1][0] if j + 1 < len(slots) else len(rec["pub"])
        vals = rec["pub"][off:end]
        lines.append(f"pub.{name}: " + (str(int(vals[0])) if len(vals) == 1 else " ".join(map(str, vals))))
    gnames = sorted((v, k) for k, v in vars(const).items() if k.startswith("G_") and isinstance(v, int))
    lines.append("gi: " + ", ".join(f"{k}={int(rec['gi'][v])}" for v, k in gnames))
    for f in STATE_DTYPE.names:
        if f not in ("pub", "ctl", "gi"):
            lines.append(f"{f}: {np.array2string(rec[f], threshold=60, max_line_width=200)}")
    return "\n".join(lines)


def ctx_record(deck, tokens, pr, through, cityseg):
    """The engine's read-only record of a run (deck tables padded to MAXT, token mix padded to MAXTOK); the
    engine's :func:`~meeplab.sim.goldrush.engine.make_ctx` pairs it with the step function."""
    tab = np.zeros(1, dtype=CTX_DTYPE)
    t = tab[0]
    n = deck.n
    t["seg"][:n] = deck.seg
    t["nseg"][:n] = deck.nseg
    t["edges"][:n] = deck.edges
    t["edge_seg"][:n] = deck.edge_seg
    t["half_seg"][:n] = deck.half_seg
    t["rots"][:n] = deck.rots
    t["nrots"][:n] = deck.nrots
    t["through"][:n] = through
    t["cityseg"][:n] = cityseg
    t["tokvals"][: len(tokens.values)] = tokens.values
    t["pr"][:] = pr
    t["ntiles"] = n
    t["ntok"] = len(tokens.values)
    t["start"] = deck.start
    t["toktot"] = float(np.sum(tokens.values))
    return tab
