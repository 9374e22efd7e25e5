"""Farm geometry as bit masks, pasture flood fill, containers and the exact housing solver.

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

from .params import (
    B_COTTAGE,
    I_BONUS,
    I_BONUS_LOW,
    I_BREED_MIN,
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
def popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


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


@njit(cache=True)
def pastures_mask(ps):
    """Union of the spaces in closed pastures."""
    ncols = ps[P_NCOLS]
    O = active_mask(ncols) & ~building_mask(ps)
    E = np.uint64(ps[P_E])
    DN, RT, LEAK = flood_prep(ncols, O, E)
    # the open spaces that no leaking space reaches
    return O & ~grow(LEAK, O, DN, RT)


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


HOUSE_DP_MIN = 4  # containers left from which the search bounds with unit_dp (fewer are enumerated: cheaper)
UMAX = 128  # unit budget of the relaxation DP (needs beyond this are capped: only a bound gets weaker)
SCRATCH = 5 * MAXC + 1 + 8 * (UMAX + 1)
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


@njit(cache=True, inline="always")
def unit_dp(a0, a1, a2, a3, dd, doff, U, prm, wk):
    """Best objective (points*8192 + animals*8 + pairs, see house_w) when U units of capacity may be split freely among the types on top of
    acc = (a0..a3). Tables in wk rows 10..17. Exact for unit containers; an upper bound otherwise."""
    tot_need = 0
    for t in range(4):
        a = a0 if t == 0 else (a1 if t == 1 else (a2 if t == 2 else a3))
        nd = dd[np.uint64(doff + t)] - a
        if nd > 0:
            tot_need += nd
    if tot_need < U:
        U = tot_need
    if U > UMAX:
        U = UMAX
    for t in range(4):
        a = a0 if t == 0 else (a1 if t == 1 else (a2 if t == 2 else a3))
        ka = min(a, dd[np.uint64(doff + t)])
        nd = dd[np.uint64(doff + t)] - ka
        for u in range(U + 1):
            bv = -(1 << 60)
            bx = 0
            top = min(u, nd)
            for x in range(top + 1):
                v = wk[18 + t, np.uint64(ka + x)]
                if t > 0:
                    v += wk[9 + t, np.uint64(u - x)]
                if v > bv:
                    bv = v
                    bx = x
            wk[10 + t, u] = bv
            wk[14 + t, u] = bx
    return wk[13, U], U


@njit(cache=True, inline="always")
def _hmg(wk, f):
    return wk[np.uint64(HM_ROW + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)]


@njit(cache=True, inline="always")
def _hms(wk, f, v):
    wk[np.uint64(HM_ROW + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)] = v


@njit(cache=True)
def house_w(wk, K, dd, doff, prm, assign):
    """Exact housing: choose one type (or none) per container to maximise (points, animals) of the kept
    animals, then the number of types kept at least ``breed_min`` times (breeding pairs), wk[4, t] =
    min(dd[doff + t], capacity given to t). Writes wk[4, 0..3] and, when ``assign``, wk[3, k] (type or -1) (the
    kept animals alone come straight from the memo, or are all of them when everything fits); returns the objective
    points*8192 + animals*8 + pairs (pairs <= 4 < 8, animals*8 <= 4*128*8 + 4 < 8192). wk: int64[WROWS, WCOLS]: row 0 capacities (in), row 3
    assignment, row 4 kept (out), rows 5..21 scratch.

    Depth-first over containers by falling capacity, identical capacities in non-decreasing option order,
    pruned by the relaxation "remaining capacity split freely" (unit_dp), which is exact once only
    1-capacity containers remain."""
    # fast paths: no animals, or a single type (everything goes to it)
    nty = 0
    ty = 0
    for t in range(4):
        if dd[np.uint64(doff + t)] > 0:
            nty += 1
            ty = t
    if nty <= 1:
        tot = 0
        for k in range(K):
            wk[3, k] = -1
            if wk[0, k] > 0 and nty == 1 and tot < dd[np.uint64(doff + ty)]:
                wk[3, k] = ty
                tot += wk[0, k]
        v = 0
        for t in range(4):
            wk[4, t] = 0
        if nty == 1:
            wk[4, np.uint64(ty)] = min(tot, dd[np.uint64(doff + ty)])
        for t in range(4):
            v += fval(prm, t, wk[4, t]) * 8192 + wk[4, t] * 8 + (1 if wk[4, t] >= prm[I_BREED_MIN] else 0)
        return v
    n = 0
    for k in range(K):
        wk[3, k] = -1
        if wk[0, k] <= 0:
            continue
        j = n
        while j > 0 and wk[5, np.uint64(j - 1)] < wk[0, k]:
            wk[5, np.uint64(j)] = wk[5, np.uint64(j - 1)]
            wk[6, np.uint64(j)] = wk[6, np.uint64(j - 1)]
            j -= 1
        wk[5, np.uint64(j)] = wk[0, k]
        wk[6, np.uint64(j)] = k
        n += 1
    wk[9, np.uint64(n)] = 0
    for i in range(n - 1, -1, -1):
        wk[9, np.uint64(i)] = wk[9, np.uint64(i + 1)] + wk[5, np.uint64(i)]
    for t in range(4):
        if dd[np.uint64(doff + t)] > WCOLS - 1:
            dd[np.uint64(doff + t)] = WCOLS - 1  # more than 128 of a type cannot be held by any farm of this game
    # start from a greedy assignment (largest container to the largest remaining need): often optimal
    g0 = dd[np.uint64(doff + 0)]
    g1 = dd[np.uint64(doff + 1)]
    g2 = dd[np.uint64(doff + 2)]
    g3 = dd[np.uint64(doff + 3)]
    for j in range(n):
        o = 4
        mx = 0
        if g0 > mx:
            mx = g0
            o = 0
        if g1 > mx:
            mx = g1
            o = 1
        if g2 > mx:
            mx = g2
            o = 2
        if g3 > mx:
            mx = g3
            o = 3
        wk[8, np.uint64(j)] = o
        if o == 0:
            g0 -= wk[5, np.uint64(j)]
        elif o == 1:
            g1 -= wk[5, np.uint64(j)]
        elif o == 2:
            g2 -= wk[5, np.uint64(j)]
        elif o == 3:
            g3 -= wk[5, np.uint64(j)]
    nb = n
    bu0 = 0
    bu1 = 0
    bu2 = 0
    bu3 = 0
    memo_f = -1
    hit = False
    allfit = g0 <= 0 and g1 <= 0 and g2 <= 0 and g3 <= 0
    if not allfit and n <= HM_MAXN:
        # the search's result depends only on the sorted capacities and the animals: look it up
        ddw = (
            dd[np.uint64(doff)]
            | (dd[np.uint64(doff + 1)] << 16)
            | (dd[np.uint64(doff + 2)] << 32)
            | (dd[np.uint64(doff + 3)] << 48)
        )
        h = np.uint64(ddw) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(n)
        okc = True
        for w in range((n + 3) // 4):
            cw = np.int64(0)
            for q in range(4):
                j = 4 * w + q
                if j < n:
                    c = wk[5, np.uint64(j)]
                    if c > 0xFFFF:
                        okc = False
                    cw |= (c & 0xFFFF) << np.int64(16 * q)
            wk[7, w] = cw
            h = (h ^ np.uint64(cw)) * np.uint64(0xC2B2AE3D27D4EB4F)
        if okc:
            f = (np.int64(h >> np.uint64(64 - HM_BITS))) * HM_W
            hit = _hmg(wk, f) == n + 1 and _hmg(wk, f + 1) == ddw
            if hit:
                for w in range((n + 3) // 4):
                    if _hmg(wk, f + 2 + w) != wk[7, w]:
                        hit = False
                        break
            if hit:
                a0 = _hmg(wk, f + 12)
                a1 = _hmg(wk, f + 13)
                for j in range(n):
                    if j < 20:
                        wk[8, np.uint64(j)] = (a0 >> np.int64(3 * j)) & 7
                    else:
                        wk[8, np.uint64(j)] = (a1 >> np.int64(3 * (j - 20))) & 7
                best = _hmg(wk, f + 14)
            else:
                memo_f = f
                _hms(wk, f, n + 1)
                _hms(wk, f + 1, ddw)
                for w in range((n + 3) // 4):
                    _hms(wk, f + 2 + w, wk[7, w])
    if hit:
        if not assign:
            kw = _hmg(wk, f + 15)
            for t in range(4):
                wk[4, t] = (kw >> np.int64(16 * t)) & 0xFFFF
            return best
    elif allfit:
        # the greedy assignment keeps every animal: nothing can be better (the value table is not needed)
        best = 0
        for t in range(4):
            a = dd[np.uint64(doff + t)]
            best += fval(prm, t, a) * 8192 + a * 8 + (1 if a >= prm[I_BREED_MIN] else 0)
        if not assign:
            for t in range(4):
                wk[4, t] = dd[np.uint64(doff + t)]
            return best
    else:
        # value table: wk[18 + t, k] = points*8192 + 8*k + (k >= breed_min) for k kept animals of type t
        # (built once per workspace: it depends on the parameters alone; wk[4, WCOLS - 1] marks it built)
        if wk[4, WCOLS - 1] != 1:
            for t in range(4):
                for k in range(WCOLS):
                    wk[18 + t, k] = fval(prm, t, k) * 8192 + 8 * k + (1 if k >= prm[I_BREED_MIN] else 0)
            wk[4, WCOLS - 1] = 1
        gmax = 0
        for t in range(4):
            gmax += wk[18 + t, np.uint64(dd[np.uint64(doff + t)])]
        k0 = dd[np.uint64(doff + 0)] - max(g0, 0)
        k1 = dd[np.uint64(doff + 1)] - max(g1, 0)
        k2 = dd[np.uint64(doff + 2)] - max(g2, 0)
        k3 = dd[np.uint64(doff + 3)] - max(g3, 0)
        best = wk[18, np.uint64(k0)] + wk[19, np.uint64(k1)] + wk[20, np.uint64(k2)] + wk[21, np.uint64(k3)]
        nb = n
        acc0 = 0
        acc1 = 0
        acc2 = 0
        acc3 = 0
        bu0 = 0
        bu1 = 0
        bu2 = 0
        bu3 = 0
        i = 0 if best < gmax else -1
        fresh = True
        while i >= 0:
            if fresh:
                k0 = min(dd[np.uint64(doff + 0)], acc0)
                k1 = min(dd[np.uint64(doff + 1)], acc1)
                k2 = min(dd[np.uint64(doff + 2)], acc2)
                k3 = min(dd[np.uint64(doff + 3)], acc3)
                done = (
                    k0 == dd[np.uint64(doff + 0)]
                    and k1 == dd[np.uint64(doff + 1)]
                    and k2 == dd[np.uint64(doff + 2)]
                    and k3 == dd[np.uint64(doff + 3)]
                )
                if i == n or done:
                    v = wk[18, np.uint64(k0)] + wk[19, np.uint64(k1)] + wk[20, np.uint64(k2)] + wk[21, np.uint64(k3)]
                    if v > best:
                        best = v
                        nb = i
                        bu0 = 0
                        bu1 = 0
                        bu2 = 0
                        bu3 = 0
                        for j in range(i):
                            wk[8, np.uint64(j)] = wk[7, np.uint64(j)]
                    if best >= gmax:
                        break
                    i -= 1
                    fresh = False
                    continue
                r = wk[9, np.uint64(i)]
                u0 = min(dd[np.uint64(doff + 0)], acc0 + r)
                u1 = min(dd[np.uint64(doff + 1)], acc1 + r)
                u2 = min(dd[np.uint64(doff + 2)], acc2 + r)
                u3 = min(dd[np.uint64(doff + 3)], acc3 + r)
                ub = wk[18, np.uint64(u0)] + wk[19, np.uint64(u1)] + wk[20, np.uint64(u2)] + wk[21, np.uint64(u3)]
                if ub <= best:
                    i -= 1
                    fresh = False
                    continue
                # the relaxation bound costs O(units^2): worth it only with many containers left, and needed
                # for the exact unit tail; skipping it prunes less but finds the same first best assignment
                if wk[5, np.uint64(i)] == 1 or n - i > HOUSE_DP_MIN:
                    ub, U = unit_dp(acc0, acc1, acc2, acc3, dd, doff, r, prm, wk)
                    if ub <= best:
                        i -= 1
                        fresh = False
                        continue
                    if wk[5, np.uint64(i)] == 1 and r <= UMAX:
                        # only unit containers left: the split is exact
                        best = ub
                        nb = i
                        for j in range(i):
                            wk[8, np.uint64(j)] = wk[7, np.uint64(j)]
                        u = U
                        xs3 = wk[17, np.uint64(u)]
                        u -= xs3
                        xs2 = wk[16, np.uint64(u)]
                        u -= xs2
                        xs1 = wk[15, np.uint64(u)]
                        u -= xs1
                        xs0 = wk[14, np.uint64(u)]
                        bu0 = xs0
                        bu1 = xs1
                        bu2 = xs2
                        bu3 = xs3
                        if best >= gmax:
                            break
                        i -= 1
                        fresh = False
                        continue
                if i > 0 and wk[5, np.uint64(i)] == wk[5, np.uint64(i - 1)]:
                    wk[7, np.uint64(i)] = wk[7, np.uint64(i - 1)] - 1
                else:
                    wk[7, np.uint64(i)] = -1
            else:
                o = wk[7, np.uint64(i)]
                if o == 0:
                    acc0 -= wk[5, np.uint64(i)]
                elif o == 1:
                    acc1 -= wk[5, np.uint64(i)]
                elif o == 2:
                    acc2 -= wk[5, np.uint64(i)]
                elif o == 3:
                    acc3 -= wk[5, np.uint64(i)]
            o = wk[7, np.uint64(i)] + 1
            while o < 4:
                if o == 0 and acc0 < dd[np.uint64(doff + 0)]:
                    break
                if o == 1 and acc1 < dd[np.uint64(doff + 1)]:
                    break
                if o == 2 and acc2 < dd[np.uint64(doff + 2)]:
                    break
                if o == 3 and acc3 < dd[np.uint64(doff + 3)]:
                    break
                o += 1
            if o > 4:
                i -= 1
                fresh = False
                continue
            wk[7, np.uint64(i)] = o
            if o == 0:
                acc0 += wk[5, np.uint64(i)]
            elif o == 1:
                acc1 += wk[5, np.uint64(i)]
            elif o == 2:
                acc2 += wk[5, np.uint64(i)]
            elif o == 3:
                acc3 += wk[5, np.uint64(i)]
            i += 1
            fresh = True
    for t in range(4):
        wk[4, t] = 0
    a0 = np.int64(0)
    a1 = np.int64(0)
    for j in range(n):
        o = wk[8, np.uint64(j)] if j < nb else 4
        if j >= nb:
            # unit tail: hand the units out as the exact split said
            if bu0 > 0:
                o = 0
                bu0 -= 1
            elif bu1 > 0:
                o = 1
                bu1 -= 1
            elif bu2 > 0:
                o = 2
                bu2 -= 1
            elif bu3 > 0:
                o = 3
                bu3 -= 1
        if o < 4:
            wk[3, np.uint64(wk[6, np.uint64(j)])] = o
            wk[4, np.uint64(o)] += wk[5, np.uint64(j)]
        if j < 20:
            a0 |= np.int64(o) << np.int64(3 * j)
        else:
            a1 |= np.int64(o) << np.int64(3 * (j - 20))
    for t in range(4):
        if wk[4, t] > dd[np.uint64(doff + t)]:
            wk[4, t] = dd[np.uint64(doff + t)]
    if memo_f >= 0:
        _hms(wk, memo_f + 12, a0)
        _hms(wk, memo_f + 13, a1)
        _hms(wk, memo_f + 14, best)
        _hms(wk, memo_f + 15, wk[4, 0] | (wk[4, 1] << 16) | (wk[4, 2] << 32) | (wk[4, 3] << 48))
    return best


@njit(cache=True)
def house(caps, K, d, prm, assign, kept, scratch):
    """house_w on plain 1-D arrays (tests, replay): caps in; assign, kept out; scratch unused."""
    wk = np.zeros((WROWS, WCOLS), dtype=np.int64)
    for k in range(K):
        wk[0, k] = caps[k]
    v = house_w(wk, K, d, 0, prm, True)
    for k in range(K):
        assign[k] = wk[3, k]
    for t in range(4):
        kept[t] = wk[4, t]
    return v


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
