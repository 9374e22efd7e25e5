"""The Schweinebande state record (``docs/adding-a-game.md``): named fields, allocation, re-deal, print.

``SBState.rec`` holds the whole game (``STATE_DTYPE``): the bots' view ``pub`` (public, offsets ``V_*`` in
``layout.py``), the control
words ``ctl`` (the shared ``C_*`` of ``sim.core.forward``, then ``C_*`` below), the pending decision
(``moves``, ``feats``), the random stream, the hidden tiles (``hidden``: kinds under this round's face-down
spaces; ``bag``: the rest of the shuffled bag from ``ctl[C_DRAWN]`` on), board masks ``mk``, the collect
order, the score breakdown and the phase-B line estimates (kept with the state, so a copy needs no rebuild).
"""

from collections import namedtuple
from enum import IntEnum

import numpy as np
from numba import njit

from meeplab.sim.core.forward import C_COMMON, C_NP
from meeplab.sim.core.records import post_decision
from meeplab.sim.core.rng import rng_below

from .layout import MAXP, MAXS, NF, NK, NT, P_LEN, P_SACKS, P_TILES, V_LEN, V_SEAT, V_UNSEEN
from .lines import MAXD, MAXREV
from .scoring import NC

MAX_MOVES = 64
MAX_BAG = 6 * 100 + 100  # NK x tiles_per_animal (hi 100) + feed_sacks (hi 100)

# -- the game's own control words (after the shared ones) ------------------------------------------------------
C_DRAWN = C_COMMON + 0  # tiles drawn from the bag so far
C_FIRST = C_COMMON + 1  # seat that starts this round's placement
C_CUR = C_COMMON + 2  # seat whose placement turn it is
C_NEXT_ORDER = C_COMMON + 3  # next order tile to hand out
C_CLEAR = C_COMMON + 4  # 1 until the order tiles of the previous round go back
C_ACTIVE = C_COMMON + 5  # players with farmers at the start of this placement turn
C_NO = C_COMMON + 6  # players in the collect order
C_OI = C_COMMON + 7  # position in the collect order
C_ANY = C_COMMON + 8  # someone collected in this pass of the order
C_T = C_COMMON + 9  # order tile whose holder farms / feeds now
C_SACK_ASKED = C_COMMON + 10  # the holder of C_T chose to pay rather than use a sack
C_LEN = C_COMMON + 11

# -- uint64 masks ------------------------------------------------------------------------------------------------
M_FACEDOWN = 0  # face-down spaces
M_FARMERS = 1  # spaces with a farmer (collect phase)
M_KINDS = 2  # [NT] spaces holding each tile kind, then [MAXP] each seat's farmers (collect phase)
M_LEN = M_KINDS + NT + MAXP


class Phase(IntEnum):
    """Where ``advance`` resumes (``ctl[C_PHASE]``)."""

    ROUND = 0  # deal a round (the last round's feeding ends the game instead)
    REVEAL = 1  # a placement turn: which face-down tile to reveal
    PLACE = 2  # place a farmer on the revealed tile?
    COLLECT = 3
    FARM = 4
    FEED = 5  # feed sack?
    SELL = 6  # sell while short of feed
    OVER = 7


PH_ROUND, PH_REVEAL, PH_PLACE, PH_COLLECT, PH_FARM, PH_FEED, PH_SELL, PH_OVER = Phase

# the state record: one structured array of shape (1,); fields in the order a reader would look for them
STATE_DTYPE = np.dtype(
    [
        ("pub", np.int64, V_LEN),  # the bots' view (layout.V_*): public information only
        ("ctl", np.int64, C_LEN),  # control words: sim.core.forward C_*, then the C_* above
        ("moves", np.int64, (MAX_MOVES, 2)),  # candidates of the pending decision
        ("feats", np.float64, (MAX_MOVES, NF)),  # their features
        ("rng", np.uint64, 4),  # the game's random stream
        ("hidden", np.int64, MAXS),  # HIDDEN: kinds under this round's face-down spaces (valid where mk[M_FACEDOWN])
        ("bag", np.int64, MAX_BAG),  # HIDDEN: the shuffled bag; bag[ctl[C_DRAWN]:bag_size] not yet dealt
        ("mk", np.uint64, M_LEN),  # board masks (M_*)
        ("order", np.int64, MAXP),  # collect order: seats by order tile
        ("brk", np.float64, (MAXP, NC)),  # score breakdown so far
        ("mgs", np.float64, (MAXP, NT)),  # phase B: each seat's marginal gain of one more tile of each kind
        ("lreach", np.int64, MAXS * MAXD),  # phase B: ray positions each line (space, direction) reaches
        ("lgain", np.float64, (MAXS * MAXD, MAXP + 1)),  # phase B: per line, each seat's known gain; face-down count
        ("tmp", np.int64, NK),  # scratch
        ("counts", np.int64, NT + 1),  # scratch
    ]
)
SBState = namedtuple("SBState", ["rec", "log", "nlog"])
# the read-only context of a run: one record too (``cx.tab[0]``), so a call passes it as one array
RAYW = 8  # longest ray + 1
CTX_DTYPE = np.dtype(
    [
        ("pi", np.int64, P_LEN),  # packed integer parameters (layout.P_*)
        ("ptab", np.float64, (NK + 1, 128)),  # potential table (lines.potential_table)
        ("rays", np.int64, (MAXS, MAXD, RAYW)),  # rays[s, d]: spaces beyond s in direction d, -1 padded
        ("rmask", np.uint64, MAXS * MAXD),  # the rays as bit masks (lines.ray_masks)
        ("raylen", np.int64, (MAXS, MAXD)),  # ray lengths
        ("rev", np.int64, (MAXS, MAXREV)),  # lines through each space (lines.lines_index)
        ("ns", np.int64),  # spaces on the board
        ("nd", np.int64),  # directions
    ]
)
SBCtx = namedtuple("SBCtx", ["tab"])


@njit(cache=True)
def new_state(cx, np_, log):
    st = SBState(np.zeros(1, dtype=STATE_DTYPE), log, np.zeros(2, dtype=np.int64))
    st.rec[0].ctl[C_NP] = np_
    return st


@njit(cache=True, _nrt=False)
def bag_size(pi):
    return NK * pi[P_TILES] + pi[P_SACKS]


@njit(cache=True, _nrt=False)
def determinise(st, cx, seat, rnd):
    """Re-deal what no player has seen: the tiles under the face-down spaces and the undealt bag. Every tile
    ever turned up is public, so ``seat`` knows exactly this multiset (``pub[V_UNSEEN]``) and nothing of its
    order: the unseen tiles are laid out by kind from those public counts, shuffled with ``rnd`` and dealt to
    the face-down spaces (in space order), the rest staying in the bag. The result depends only on public
    information and ``rnd``."""
    r = st.rec[0]
    cxt = cx.tab[0]
    one = np.uint64(1)
    fd = r.mk[M_FACEDOWN]
    nfd = 0
    for s in range(cxt.ns):
        if fd & (one << np.uint64(s)):
            nfd += 1
    total = bag_size(cxt.pi)
    lo = r.ctl[C_DRAWN] - nfd  # bag[lo:drawn] held this round's deal, never read again
    j = lo
    for k in range(NT):
        for _ in range(r.pub[V_UNSEEN + k]):
            r.bag[j] = k
            j += 1
    for i in range(total - lo - 1, 0, -1):
        x = rng_below(rnd, i + 1)
        a = r.bag[lo + i]
        r.bag[lo + i] = r.bag[lo + x]
        r.bag[lo + x] = a
    j = lo
    for s in range(cxt.ns):
        if fd & (one << np.uint64(s)):
            r.hidden[s] = r.bag[j]
            j += 1


def describe(st) -> str:
    """The state record as text: every control word and view slot by name, then the other fields."""
    from meeplab.sim.core import forward

    from . import layout

    rec = st.rec[0]
    names = {v: k for k, v in vars(forward).items() if k.startswith("C_") and isinstance(v, int)}
    names.update({v: k for k, v in globals().items() if k.startswith("C_") and isinstance(v, int) and k != "C_LEN"})
    lines = ["ctl: " + ", ".join(f"{names.get(i, i)}={int(x)}" for i, x in enumerate(rec["ctl"]))]
    slots = sorted(
        (v, k) for k, v in vars(layout).items() if k.startswith("V_") and isinstance(v, int) and k != "V_LEN"
    )
    for j, (off, name) in enumerate(slots):
        end = slots[j + 1][0] if j + 1 < len(slots) else len(rec["pub"])
        vals = rec["pub"][off:end]
        lines.append(f"pub.{name}: " + (str(int(vals[0])) if len(vals) == 1 else " ".join(map(str, vals))))
    for f in STATE_DTYPE.names:
        if f not in ("pub", "ctl"):
            lines.append(f"{f}: {np.array2string(rec[f], threshold=60, max_line_width=200)}")
    return "\n".join(lines)


def make_ctx(pi, ptab, rays, nd):
    """The read-only context of a run (packed parameters, potential table, board rays and their masks)."""
    from .lines import line_scratch, ray_masks

    ns = rays.shape[0]
    _, raylen, _, _, rev = line_scratch(rays, ns, nd)
    tab = np.zeros(1, dtype=CTX_DTYPE)
    t = tab[0]
    t["pi"][: len(pi)] = pi
    t["ptab"][:] = ptab
    t["rays"][:] = -1
    t["rays"][:ns, :nd, : rays.shape[2]] = rays
    t["rmask"][:] = ray_masks(rays, ns, nd)
    t["raylen"][:] = raylen
    t["rev"][:] = rev
    t["ns"] = ns
    t["nd"] = nd
    return SBCtx(tab)


@njit(cache=True, inline="always")
def post_and_show_seat(st, seat, kind, n):
    """Post a decision (``records.post_decision``) and show the deciding seat in the bots' view (``pub[V_SEAT]``):
    ``seat`` chooses among ``n`` candidates of ``kind`` (moves/feats already filled)."""
    st.rec[0].pub[V_SEAT] = seat
    return post_decision(st, seat, kind, n)
