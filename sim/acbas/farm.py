"""Farm geometry as bit masks, pasture flood fill, containers and the exact housing solver.

Geometry (column-major, frame of 6 columns x 3 rows):
* space ``s = 3*c + r`` (c = column from the left edge of the whole farm, r = 0 top/forest .. 2 bottom/road);
* edges in blocks of 7 per column: ``V(b, r) = 7*b + r`` is the vertical edge left of column b in row r
  (b = 0..6), ``H(c, r) = 7*c + 3 + r`` the horizontal edge above row r of column c (r = 3: below the farm).
  That is 45 edge bits; adding a column on the left shifts spaces by 3 and edges by 7.
"""
import numpy as np
from numba import njit

from .params import (B_COTTAGE, I_BONUS, I_BONUS_LOW, I_CAPB, I_EXP_POINTS, I_LONE, I_PASTURE, I_PTSB, I_TMULT)

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
    i = 0
    while (x >> np.uint64(i)) & np.uint64(1) == np.uint64(0):
        i += 1
    return i


@njit(cache=True)
def active_mask(ncols):
    return (np.uint64(1) << np.uint64(3 * ncols)) - np.uint64(1)


@njit(cache=True)
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


@njit(cache=True)
def flood_prep(ncols, O, E):
    """Masks for the flood fill over open spaces O with borders E: DN (s joins s+1), RT (s joins s+3),
    LEAK (s has an unbordered farm-edge side)."""
    DN = np.uint64(0)
    RT = np.uint64(0)
    LEAK = np.uint64(0)
    for s in range(3 * ncols):
        b = bit(s)
        if O & b == U0:
            continue
        c = s // 3
        r = s - 3 * c
        if E & bit(EDGE_OF[s, 1]) == U0:
            if r < 2:
                DN |= b
            else:
                LEAK |= b
        if r == 0 and E & bit(EDGE_OF[s, 0]) == U0:
            LEAK |= b
        if c == 0 and E & bit(EDGE_OF[s, 2]) == U0:
            LEAK |= b
        if E & bit(EDGE_OF[s, 3]) == U0:
            if c < ncols - 1:
                RT |= b
            else:
                LEAK |= b
    return DN, RT, LEAK


@njit(cache=True, inline="always")
def grow(seed, O, DN, RT):
    x = seed
    while True:
        y = x | ((x & DN) << np.uint64(1)) | ((x >> np.uint64(1)) & DN) | ((x & RT) << np.uint64(3)) \
            | ((x >> np.uint64(3)) & RT)
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
    rest = O
    out = np.uint64(0)
    while rest != U0:
        seed = rest & (~rest + U1)
        comp = grow(seed, O, DN, RT)
        rest &= ~comp
        if comp & LEAK == U0:
            out |= comp
    return out


@njit(cache=True)
def containers(ps, prm, caps, smask, kind):
    """Fill the farm's animal containers: caps[k], smask[k] (spaces), kind[k] (0 pasture, 1 building,
    2 lone trough). Returns (K, closed-pasture space mask). Containers of capacity 0 are left out."""
    ncols = ps[P_NCOLS]
    B = building_mask(ps)
    O = active_mask(ncols) & ~B
    E = np.uint64(ps[P_E])
    T = np.uint64(ps[P_T])
    DN, RT, LEAK = flood_prep(ncols, O, E)
    tm = prm[I_TMULT]
    K = 0
    past = np.uint64(0)
    rest = O
    while rest != U0:
        seed = rest & (~rest + U1)
        comp = grow(seed, O, DN, RT)
        rest &= ~comp
        if comp & LEAK == U0:
            past |= comp
            cap = prm[I_PASTURE] * popcount(comp)
            for _ in range(popcount(comp & T)):
                cap *= tm
            if cap > 0:
                caps[K] = cap
                smask[K] = np.int64(comp)
                kind[K] = 0
                K += 1
        else:
            lone = comp & T
            while lone != U0 and prm[I_LONE] > 0:
                b = lone & (~lone + U1)
                lone &= ~b
                caps[K] = prm[I_LONE]
                smask[K] = np.int64(b)
                kind[K] = 2
                K += 1
    for s in range(3 * ncols):
        code = ps[P_BLD + s]
        if code != 0:
            cap = prm[I_CAPB + code]
            if T & bit(s) != U0:
                cap *= tm
            if cap > 0:
                caps[K] = cap
                smask[K] = np.int64(bit(s))
                kind[K] = 1
                K += 1
    return K, past


@njit(cache=True)
def fval(prm, t, n):
    """Points for n animals of type t: 1 each plus the bonus-table entry."""
    b = I_BONUS + 4 * t
    if n < prm[b]:
        return n + prm[I_BONUS_LOW]
    if n < prm[b + 1]:
        return n
    if n < prm[b + 2]:
        return n + 1
    if n < prm[b + 3]:
        return n + 2
    return n + 3 + (n - prm[b + 3])


UMAX = 128  # unit budget of the relaxation DP (needs beyond this are capped: only a bound gets weaker)
SCRATCH = 5 * MAXC + 1 + 8 * (UMAX + 1)


@njit(cache=True)
def unit_dp(a0, a1, a2, a3, d, U, prm, tab, choice):
    """Best (points*1024 + animals) when U units of capacity may be split freely among the types on top of
    acc = (a0..a3). tab/choice: int64[4*(UMAX+1)]. Exact for unit containers; an upper bound otherwise."""
    tot_need = 0
    for t in range(4):
        a = a0 if t == 0 else (a1 if t == 1 else (a2 if t == 2 else a3))
        nd = d[t] - a
        if nd > 0:
            tot_need += nd
    if U > tot_need:
        U = tot_need
    if U > UMAX:
        U = UMAX
    W = UMAX + 1
    for t in range(4):
        a = a0 if t == 0 else (a1 if t == 1 else (a2 if t == 2 else a3))
        ka = min(a, d[t])
        nd = d[t] - ka
        for u in range(U + 1):
            bv = -(1 << 60)
            bx = 0
            top = min(u, nd)
            for x in range(top + 1):
                v = fval(prm, t, ka + x) * 1024 + ka + x
                if t > 0:
                    v += tab[(t - 1) * W + u - x]
                if v > bv:
                    bv = v
                    bx = x
            tab[t * W + u] = bv
            choice[t * W + u] = bx
    return tab[3 * W + U], U


@njit(cache=True)
def house(caps, K, d, prm, assign, kept, scratch):
    """Exact housing: choose one type (or none) per container to maximise (points, animals) of the kept
    animals, kept[t] = min(d[t], capacity given to t). Writes assign[k] (type or -1) and kept[0..3];
    returns the objective points*1024 + animals. scratch: int64[>= SCRATCH].

    Depth-first over containers by falling capacity, identical capacities in non-decreasing option order,
    pruned by the relaxation "remaining capacity split freely" (unit_dp), which is exact once only
    1-capacity containers remain."""
    # fast paths: no animals, or a single type (everything goes to it)
    nty = 0
    ty = 0
    for t in range(4):
        if d[t] > 0:
            nty += 1
            ty = t
    if nty <= 1:
        tot = 0
        for k in range(K):
            assign[k] = -1
            if caps[k] > 0 and nty == 1 and tot < d[ty]:
                assign[k] = ty
                tot += caps[k]
        v = 0
        for t in range(4):
            kept[t] = 0
        if nty == 1:
            kept[ty] = min(tot, d[ty])
        for t in range(4):
            v += fval(prm, t, kept[t]) * 1024 + kept[t]
        return v
    n = 0
    c = scratch[0:MAXC]
    idx = scratch[MAXC:2 * MAXC]
    opt = scratch[2 * MAXC:3 * MAXC]
    bst = scratch[3 * MAXC:4 * MAXC]
    suf = scratch[4 * MAXC:5 * MAXC + 1]
    tab = scratch[5 * MAXC + 1:5 * MAXC + 1 + 4 * (UMAX + 1)]
    chs = scratch[5 * MAXC + 1 + 4 * (UMAX + 1):5 * MAXC + 1 + 8 * (UMAX + 1)]
    for k in range(K):
        assign[k] = -1
        if caps[k] <= 0:
            continue
        j = n
        while j > 0 and c[j - 1] < caps[k]:
            c[j] = c[j - 1]
            idx[j] = idx[j - 1]
            j -= 1
        c[j] = caps[k]
        idx[j] = k
        n += 1
    suf[n] = 0
    for i in range(n - 1, -1, -1):
        suf[i] = suf[i + 1] + c[i]
    gmax = 0
    for t in range(4):
        gmax += fval(prm, t, d[t]) * 1024 + d[t]
    # start from a greedy assignment (largest container to the largest remaining need): often optimal
    g0 = d[0]
    g1 = d[1]
    g2 = d[2]
    g3 = d[3]
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
        bst[j] = o
        if o == 0:
            g0 -= c[j]
        elif o == 1:
            g1 -= c[j]
        elif o == 2:
            g2 -= c[j]
        elif o == 3:
            g3 -= c[j]
    k0 = d[0] - max(g0, 0)
    k1 = d[1] - max(g1, 0)
    k2 = d[2] - max(g2, 0)
    k3 = d[3] - max(g3, 0)
    best = (fval(prm, 0, k0) + fval(prm, 1, k1) + fval(prm, 2, k2) + fval(prm, 3, k3)) * 1024 + k0 + k1 + k2 + k3
    nb = n
    acc0 = 0
    acc1 = 0
    acc2 = 0
    acc3 = 0
    bu0 = 0
    bu1 = 0
    bu2 = 0
    bu3 = 0
    W = UMAX + 1
    i = 0 if best < gmax else -1
    fresh = True
    while i >= 0:
        if fresh:
            k0 = min(d[0], acc0)
            k1 = min(d[1], acc1)
            k2 = min(d[2], acc2)
            k3 = min(d[3], acc3)
            done = k0 == d[0] and k1 == d[1] and k2 == d[2] and k3 == d[3]
            if i == n or done:
                v = (fval(prm, 0, k0) + fval(prm, 1, k1) + fval(prm, 2, k2) + fval(prm, 3, k3)) * 1024 \
                    + k0 + k1 + k2 + k3
                if v > best:
                    best = v
                    nb = i
                    bu0 = 0
                    bu1 = 0
                    bu2 = 0
                    bu3 = 0
                    for j in range(i):
                        bst[j] = opt[j]
                if best >= gmax:
                    break
                i -= 1
                fresh = False
                continue
            r = suf[i]
            u0 = min(d[0], acc0 + r)
            u1 = min(d[1], acc1 + r)
            u2 = min(d[2], acc2 + r)
            u3 = min(d[3], acc3 + r)
            ub = (fval(prm, 0, u0) + fval(prm, 1, u1) + fval(prm, 2, u2) + fval(prm, 3, u3)) * 1024 \
                + u0 + u1 + u2 + u3
            if ub <= best:
                i -= 1
                fresh = False
                continue
            ub, U = unit_dp(acc0, acc1, acc2, acc3, d, r, prm, tab, chs)
            if ub <= best:
                i -= 1
                fresh = False
                continue
            if c[i] == 1 and r <= UMAX:
                # only unit containers left: the split is exact
                best = ub
                nb = i
                for j in range(i):
                    bst[j] = opt[j]
                u = U
                xs3 = chs[3 * W + u]
                u -= xs3
                xs2 = chs[2 * W + u]
                u -= xs2
                xs1 = chs[1 * W + u]
                u -= xs1
                xs0 = chs[u]
                bu0 = xs0
                bu1 = xs1
                bu2 = xs2
                bu3 = xs3
                if best >= gmax:
                    break
                i -= 1
                fresh = False
                continue
            if i > 0 and c[i] == c[i - 1]:
                opt[i] = opt[i - 1] - 1
            else:
                opt[i] = -1
        else:
            o = opt[i]
            if o == 0:
                acc0 -= c[i]
            elif o == 1:
                acc1 -= c[i]
            elif o == 2:
                acc2 -= c[i]
            elif o == 3:
                acc3 -= c[i]
        o = opt[i] + 1
        while o < 4:
            if o == 0 and acc0 < d[0]:
                break
            if o == 1 and acc1 < d[1]:
                break
            if o == 2 and acc2 < d[2]:
                break
            if o == 3 and acc3 < d[3]:
                break
            o += 1
        if o > 4:
            i -= 1
            fresh = False
            continue
        opt[i] = o
        if o == 0:
            acc0 += c[i]
        elif o == 1:
            acc1 += c[i]
        elif o == 2:
            acc2 += c[i]
        elif o == 3:
            acc3 += c[i]
        i += 1
        fresh = True
    for t in range(4):
        kept[t] = 0
    for j in range(n):
        o = bst[j] if j < nb else 4
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
            assign[idx[j]] = o
            kept[o] += c[j]
    for t in range(4):
        if kept[t] > d[t]:
            kept[t] = d[t]
    return best


@njit(cache=True)
def building_points(ps, prm):
    tot = 0
    for s in range(3 * ps[P_NCOLS]):
        code = ps[P_BLD + s]
        if code != 0:
            tot += prm[I_PTSB + code]
    return tot


@njit(cache=True)
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


@njit(cache=True)
def score_parts(ps, prm, prmf, past, out):
    """Score breakdown of a housed farm: animals, bonus x4, buildings, expansions, storage; returns total."""
    tot = 0.0
    na = 0
    for t in range(4):
        n = ps[P_AN + t]
        na += n
        out[1 + t] = fval(prm, t, n) - n
        tot += fval(prm, t, n)
    out[0] = na
    out[5] = building_points(ps, prm)
    out[6] = full_expansions(ps, past) * prm[I_EXP_POINTS]
    st = 0.0
    if has_building(ps, 7):
        st = prmf[0] * (ps[P_WOOD] + ps[P_STONE] + ps[P_REED])
    out[7] = st
    return tot + out[5] + out[6] + st


@njit(cache=True)
def new_farm(ps, prm):
    for i in range(P_SIZE):
        ps[i] = 0
    ps[P_NCOLS] = 2
    ps[P_HOME] = 0
    ps[P_BLD + 2] = B_COTTAGE  # bottom-left space of the home board
