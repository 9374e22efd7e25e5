"""Farm geometry as bit masks, pasture flood fill, containers, the score parts and the workspace's dimensions (the
exact housing solver that fills the containers is ``housing.py``).

Geometry (column-major, frame of 6 columns x 3 rows):
* space ``s = 3*c + r`` (c = column from the left edge of the whole farm, r = 0 top/forest .. 2 bottom/road);
* edges in blocks of 7 per column: ``V(b, r) = 7*b + r`` is the vertical edge left of column b in row r
  (b = 0..6), ``H(c, r) = 7*c + 3 + r`` the horizontal edge above row r of column c (r = 3: below the farm).
  That is 45 edge bits; adding a column on the left shifts spaces by 3 and edges by 7.

Array indices computed at run time are written ``a[np.uint64(i)]``: numba then leaves out the code that makes a
negative index count from the end (a compare-and-add, and a spilled dimension, per access), which LLVM cannot
drop by itself for such indices. They are all >= 0 (constants and ``for ... in range`` counters are left as they
are: LLVM knows those).
"""

import numpy as np
from numba import njit

from meeplab.sim.core.bits import popcount

from .params import (
    B_COTTAGE,
    I_BONUS,
    I_BONUS_LOW,
    I_CAPB,
    I_EXP_POINTS,
    I_LONE,
    I_PASTURE,
    I_PTSB,
    I_TMULT,
)

NCOLS_MAX = 6
NSPACE = 18
NEDGE = 45

# player state (int64 row)
P_NCOLS, P_HOME, P_E, P_T, P_WOOD, P_STONE, P_REED, P_BORD = range(8)
P_AN = 8  # 4 animal counts
P_BLD = 12  # 18 building codes
P_SIZE = 30
MAXC = 40  # containers at most (18 buildings/troughs + pastures)

U0 = np.uint64(0)
U1 = np.uint64(1)


def _edges():
    e = np.zeros((NSPACE, 4), dtype=np.int64)  # top, bottom, left, right
    for s in range(NSPACE):
        c, r = divmod(s, 3)
        e[s, 0] = 7 * c + 3 + r
        e[s, 1] = 7 * c + 3 + r + 1
        e[s, 2] = 7 * c + r
        e[s, 3] = 7 * (c + 1) + r
    return e


EDGE_OF = _edges()
# the 4 edges of each space as one mask
SPACE_EDGES = np.array([sum(1 << int(EDGE_OF[s, d]) for d in range(4)) for s in range(NSPACE)], dtype=np.int64)


def _regions():
    """Every connected set of spaces of the 6 x 3 frame (a polyomino placed on the farm), enumerated once
    (ESU: each set from its lowest space, extended by exclusive neighbours only). Sorted by the last column
    used, then size, so the regions of a farm of c columns are the prefix REG[:REG_END[c]].
    Returns (REG space masks, RBND border positions around the region = XOR of its spaces' edges, RSIZE,
    REG_END)."""
    nb = []
    for s in range(NSPACE):
        c, r = divmod(s, 3)
        m = 0
        for cc, rr in ((c, r - 1), (c, r + 1), (c - 1, r), (c + 1, r)):
            if 0 <= rr < 3 and 0 <= cc < NCOLS_MAX:
                m |= 1 << (3 * cc + rr)
        nb.append(m)
    out = []

    def nbrs(S):
        m = 0
        while S:
            b = S & -S
            S ^= b
            m |= nb[b.bit_length() - 1]
        return m

    def ext(S, Ext, v):
        out.append(S)
        NS = nbrs(S) | S
        while Ext:
            w = Ext & -Ext
            Ext ^= w
            wi = w.bit_length() - 1
            excl = nb[wi] & ~NS & ~((1 << (v + 1)) - 1)
            ext(S | w, Ext | excl, v)

    for v in range(NSPACE):
        ext(1 << v, nb[v] & ~((1 << (v + 1)) - 1), v)
    out.sort(key=lambda R: (R.bit_length() - 1) // 3 * 100 + bin(R).count("1"))
    reg = np.array(out, dtype=np.int64)
    bnd = np.zeros(len(out), dtype=np.int64)
    size = np.zeros(len(out), dtype=np.int64)
    for i, R in enumerate(out):
        e = 0
        S = R
        while S:
            b = S & -S
            S ^= b
            e ^= int(SPACE_EDGES[b.bit_length() - 1])
        bnd[i] = e
        size[i] = bin(R).count("1")
    end = np.zeros(NCOLS_MAX + 1, dtype=np.int64)
    for c in range(NCOLS_MAX + 1):
        end[c] = sum(1 for R in out if (1 << (3 * c)) > R)
    return reg, bnd, size, end


REG, RBND, RSIZE, REG_END = _regions()


@njit(cache=True, inline="always")
def bit(k):
    return np.uint64(1) << np.uint64(k)


@njit(cache=True, inline="always")
def lowbit_index(x):
    """Index of the lowest set bit of x (x != 0): the count of the bits below it (one popcnt instruction)."""
    return popcount((x & (~x + np.uint64(1))) - np.uint64(1))


@njit(cache=True, inline="always")
def times_pow(c, b, k):
    """c * b**k (k >= 0) by repeated squaring. Written so (unlike ``for _ in range(k): c *= b``, which LLVM
    turns into vector multiplies set up on every call) it stays a few scalar instructions for the small k here
    (the troughs in one pasture)."""
    while k > 0:
        if k & 1:
            c *= b
        b *= b
        k >>= 1
    return c


@njit(cache=True, inline="always")
def active_mask(ncols):
    return (np.uint64(1) << np.uint64(3 * ncols)) - np.uint64(1)


@njit(cache=True, inline="always")
def building_mask(ps):
    b = np.uint64(0)
    for s in range(3 * ps[P_NCOLS]):
        if ps[P_BLD + s] != 0:
            b |= bit(s)
    return b


@njit(cache=True)
def active_edges(ncols):
    m = np.uint64(0)
    for s in range(3 * ncols):
        for d in range(4):
            m |= bit(EDGE_OF[s, d])
    return m


def _flood_table():
    """Per column: the 10 border bits around it (left edges V(c, 0..2), horizontal H(c, 0..3), right edges
    V(c+1, 0..2)) -> DN (bits 0..2), RT (3..5) and LEAK (6..8) of its 3 spaces; 4 variants (first column,
    last column)."""
    t = np.zeros(4 * 1024, dtype=np.int64)
    for v in range(4):
        first = v & 1
        last = v & 2
        for blk in range(1024):
            out = 0
            for r in range(3):
                if not blk >> (4 + r) & 1:
                    if r < 2:
                        out |= 1 << r
                    else:
                        out |= 1 << (6 + r)
                if r == 0 and not blk >> 3 & 1:
                    out |= 1 << (6 + r)
                if first and not blk >> r & 1:
                    out |= 1 << (6 + r)
                if not blk >> (7 + r) & 1:
                    if not last:
                        out |= 1 << (3 + r)
                    else:
                        out |= 1 << (6 + r)
            t[v * 1024 + blk] = out
    return t


FLOOD_TBL = _flood_table()


@njit(cache=True, inline="always")
def flood_prep(ncols, O, E):
    """Masks for the flood fill over open spaces O with borders E: DN (s joins s+1), RT (s joins s+3),
    LEAK (s has an unbordered farm-edge side). One table look-up per column (FLOOD_TBL)."""
    DN = np.uint64(0)
    RT = np.uint64(0)
    LEAK = np.uint64(0)
    for c in range(ncols):
        v = 0
        if c == 0:
            v = 1
        if c == ncols - 1:
            v += 2
        t = np.uint64(FLOOD_TBL[np.uint64(v * 1024 + np.int64((E >> np.uint64(7 * c)) & np.uint64(0x3FF)))])
        sh = np.uint64(3 * c)
        DN |= (t & np.uint64(7)) << sh
        RT |= ((t >> np.uint64(3)) & np.uint64(7)) << sh
        LEAK |= ((t >> np.uint64(6)) & np.uint64(7)) << sh
    return DN & O, RT & O, LEAK & O


@njit(cache=True, inline="always")
def grow(seed, O, DN, RT):
    x = seed
    while True:
        y = (
            x
            | ((x & DN) << np.uint64(1))
            | ((x >> np.uint64(1)) & DN)
            | ((x & RT) << np.uint64(3))
            | ((x >> np.uint64(3)) & RT)
        )
        y &= O
        if y == x:
            return x
        x = y


@njit(cache=True, inline="always")
def flood_pastures(ncols, O, E):
    """flood_prep's masks DN, RT, LEAK for open spaces O and borders E, and the closed pastures: the open spaces
    that no leaking space reaches (one flood from all of them)."""
    DN, RT, LEAK = flood_prep(ncols, O, E)
    return DN, RT, LEAK, O & ~grow(LEAK, O, DN, RT)


@njit(cache=True, inline="always")
def open_spaces(ps):
    """(columns, buildings B, troughs T, open spaces O: the building-free spaces) of farm row ps."""
    ncols = ps[P_NCOLS]
    B = building_mask(ps)
    return ncols, B, np.uint64(ps[P_T]), active_mask(ncols) & ~B


@njit(cache=True)
def pastures_mask(ps):
    """Union of the spaces in closed pastures."""
    ncols = ps[P_NCOLS]
    O = active_mask(ncols) & ~building_mask(ps)
    return flood_pastures(ncols, O, np.uint64(ps[P_E]))[3]


@njit(cache=True, _nrt=False)
def containers_w(ps, prm, wk):
    """Fill the farm's animal containers: wk[0, k] capacity, wk[1, k] spaces, wk[2, k] kind (0 pasture, 1 building,
    2 lone trough). Returns (K, closed-pasture space mask). Containers of capacity 0 are left out."""
    ncols = ps[P_NCOLS]
    B = np.uint64(0)
    for s in range(3 * ps[P_NCOLS]):
        if ps[P_BLD + s] != 0:
            B |= np.uint64(1) << np.uint64(s)
    O = active_mask(ncols) & ~B
    E = np.uint64(ps[P_E])
    T = np.uint64(ps[P_T])
    DN, RT, LEAK = flood_prep(ncols, O, E)
    tm = prm[I_TMULT]
    K = 0
    past = np.uint64(0)
    # the closed pastures: the open spaces no leaking space reaches (one flood); the open components only
    # matter when they hold lone troughs (the containers keep their order either way)
    rest = O & ~grow(LEAK, O, DN, RT)
    if prm[I_LONE] > 0 and T & O & ~rest != U0:
        rest = O
    while rest != U0:
        seed = rest & (~rest + U1)
        comp = grow(seed, O, DN, RT)
        rest &= ~comp
        if comp & LEAK == U0:
            past |= comp
            cap = times_pow(prm[I_PASTURE] * popcount(comp), tm, popcount(comp & T))
            if cap > 0:
                wk[0, K] = cap
                wk[1, K] = np.int64(comp)
                wk[2, K] = 0
                K += 1
        else:
            lone = comp & T
            while lone != U0 and prm[I_LONE] > 0:
                b = lone & (~lone + U1)
                lone &= ~b
                wk[0, K] = prm[I_LONE]
                wk[1, K] = np.int64(b)
                wk[2, K] = 2
                K += 1
    for s in range(3 * ncols):
        code = ps[P_BLD + s]
        if code != 0:
            cap = prm[np.uint64(I_CAPB + code)]
            if T & bit(s) != U0:
                cap *= tm
            if cap > 0:
                wk[0, K] = cap
                wk[1, K] = np.int64(bit(s))
                wk[2, K] = 1
                K += 1
    return K, past


@njit(cache=True)
def containers(ps, prm, caps, smask, kind):
    """containers_w on plain 1-D arrays: caps[k], smask[k] (spaces), kind[k] (0 pasture, 1 building,
    2 lone trough). Returns (K, closed-pasture space mask)."""
    wk = np.zeros((WROWS, WCOLS), dtype=np.int64)
    K, past = containers_w(ps, prm, wk)
    for k in range(K):
        caps[k] = wk[0, k]
        smask[k] = wk[1, k]
        kind[k] = wk[2, k]
    return K, past


@njit(cache=True, inline="always")
def fval(prm, t, n):
    """Points for n animals of type t: 1 each plus the bonus-table entry."""
    b = I_BONUS + 4 * t
    if n < prm[np.uint64(b)]:
        return n + prm[I_BONUS_LOW]
    if n < prm[np.uint64(b + 1)]:
        return n
    if n < prm[np.uint64(b + 2)]:
        return n + 1
    if n < prm[np.uint64(b + 3)]:
        return n + 2
    return n + 3 + (n - prm[np.uint64(b + 3)])


UMAX = 128  # unit budget of the relaxation DP (needs beyond this are capped: only a bound gets weaker)
# housing memo (rows 22.. of the workspace): HM entries of HM_W ints, direct-mapped by a hash of the sorted
# capacities and the animals: [n + 1, animals (16 bits each), capacities (4 per word, 16 bits each, up to
# HM_MAXN), assignment by sorted position (3 bits each, 2 words), objective, animals kept (16 bits each)]
HM_BITS = 8
HM = 1 << HM_BITS
HM_W = 16
HM_MAXN = 40
HM_ROW = 22
WCOLS = UMAX + 1
# flat tables in the workspace (memos, caches) use 128 of its WCOLS columns per row: flat index f -> row
# f >> FLAT_SHIFT, column f & FLAT_MASK (a shift and a mask instead of a division by WCOLS)
FLAT_SHIFT = 7
FLAT_W = 1 << FLAT_SHIFT
FLAT_MASK = FLAT_W - 1
WROWS = HM_ROW + (HM * HM_W + FLAT_W - 1) // FLAT_W  # rows of the 2-D workspace of containers_w / house_w


@njit(cache=True)
def building_points(ps, prm):
    tot = 0
    for s in range(3 * ps[P_NCOLS]):
        code = ps[P_BLD + s]
        if code != 0:
            tot += prm[np.uint64(I_PTSB + code)]
    return tot


@njit(cache=True, inline="always")
def has_building(ps, code):
    for s in range(3 * ps[P_NCOLS]):
        if ps[P_BLD + s] == code:
            return True
    return False


@njit(cache=True)
def full_expansions(ps, past):
    """Expansion columns whose 3 spaces are all used (building, trough or closed pasture)."""
    used = building_mask(ps) | np.uint64(ps[P_T]) | past
    n = 0
    for c in range(ps[P_NCOLS]):
        if c == ps[P_HOME] or c == ps[P_HOME] + 1:
            continue
        col = np.uint64(7) << np.uint64(3 * c)
        if col & ~used == U0:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def score_parts_o(ps, prm, prmf, past, out, off):
    """Score breakdown of a housed farm: animals, bonus x4, buildings, expansions, storage; returns total.
    (Helpers written out inline: every njit call with array arguments costs reference-count updates.)"""
    tot = 0.0
    na = 0
    for t in range(4):
        n = ps[P_AN + t]
        na += n
        b = I_BONUS + 4 * t
        if n < prm[np.uint64(b)]:
            v = n + prm[I_BONUS_LOW]
        elif n < prm[np.uint64(b + 1)]:
            v = n
        elif n < prm[np.uint64(b + 2)]:
            v = n + 1
        elif n < prm[np.uint64(b + 3)]:
            v = n + 2
        else:
            v = n + 3 + (n - prm[np.uint64(b + 3)])
        out[np.uint64(off + 1 + t)] = v - n
        tot += v
    out[np.uint64(off + 0)] = na
    ncols = ps[P_NCOLS]
    pts = 0
    bm = np.uint64(0)
    storage = False
    for s in range(3 * ncols):
        code = ps[P_BLD + s]
        if code != 0:
            pts += prm[np.uint64(I_PTSB + code)]
            bm |= np.uint64(1) << np.uint64(s)
            if code == 7:
                storage = True
    out[np.uint64(off + 5)] = pts
    used = bm | np.uint64(ps[P_T]) | past
    nexp = 0
    home = ps[P_HOME]
    for c in range(ncols):
        if c == home or c == home + 1:
            continue
        col = np.uint64(7) << np.uint64(3 * c)
        if col & ~used == U0:
            nexp += 1
    out[np.uint64(off + 6)] = nexp * prm[I_EXP_POINTS]
    st = 0.0
    if storage:
        st = prmf[0] * (ps[P_WOOD] + ps[P_STONE] + ps[P_REED])
    out[np.uint64(off + 7)] = st
    return tot + out[np.uint64(off + 5)] + out[np.uint64(off + 6)] + st


@njit(cache=True)
def score_parts(ps, prm, prmf, past, out):
    return score_parts_o(ps, prm, prmf, past, out, 0)


@njit(cache=True)
def new_farm(ps, prm):
    for i in range(P_SIZE):
        ps[i] = 0
    ps[P_NCOLS] = 2
    ps[P_HOME] = 0
    ps[P_BLD + 2] = B_COTTAGE  # bottom-left space of the home board
