"""Evaluation (house the animals exactly and score the farm as if the game ended now; the cheap estimate that
does not house) and enclosure plans (Fences / Walls candidates, the estimate's default enclosure and its cache)."""

import numpy as np
from numba import njit

from .farm import *
from .farm import _hmg, _hms  # noqa: F401
from .layout import *
from .layout import _log  # noqa: F401
from .params import *

# ---------------------------------------------------------------------------------------------
# evaluation: house the animals exactly and score the farm as if the game ended now


@njit(cache=True)
def evaluate(ps, prm, prmf, wk, res):
    """House ps's animals (the best set is kept, the rest run away: ps is updated) and fill
    res = [score, total capacity, animals kept, breeding pairs, building points]."""
    evaluate_m(ps, prm, prmf, wk, res, np.int64(-1), U0, np.int64(-1), bld_key(ps))


@njit(cache=True)
def _eval_finish(ps, prm, prmf, res, cap, past):
    """res of a housed farm (its kept animals in ps) with container capacity cap and closed pastures past."""
    nk = 0
    pairs = 0
    for t in range(4):
        nk += ps[P_AN + t]
        if ps[P_AN + t] >= prm[I_BREED_MIN]:
            pairs += 1
    res[0] = score_parts_o(ps, prm, prmf, past, res, 5)
    res[1] = cap
    res[2] = nk
    res[3] = pairs
    res[4] = res[10]


@njit(cache=True)
def _pack_parts(res):
    """The score parts of an evaluated farm that do not depend on the goods, in one word (negative = packed):
    bonus per type + 512 (10 bits each), building points (13 bits), expansion points (9 bits). 0 when a value
    does not fit (the parts are then recomputed on a memo hit)."""
    w = np.int64(0)
    for t in range(4):
        b = np.int64(res[6 + t]) + 512
        if b < 0 or b > 1023:
            return np.int64(0)
        w |= b << np.int64(10 * t)
    pts = np.int64(res[10])
    ex = np.int64(res[11])
    if pts < 0 or pts > 8191 or ex < 0 or ex > 511:
        return np.int64(0)
    w |= (pts << np.int64(40)) | (ex << np.int64(53))
    return w | (np.int64(1) << np.int64(63))


@njit(cache=True, _nrt=False)
def _eval_known(ps, prm, prmf, res, cap, pk, pts, exp, storage):
    """_eval_finish for a farm whose capacity cap is known and whose kept animals are in ps, with the same float
    operations in the same order as score_parts_o. pk < 0: the packed parts (_pack_parts) of the same farm and
    animals give the bonus per type and the building and expansion points (pts, exp unused); otherwise the bonus
    comes from the bonus table and pts, exp are the building and expansion points. Only the Storage Building's
    points are computed from the goods (the goods are not part of the memo key); ``storage``: the farm has it."""
    nk = 0
    pairs = 0
    tot = 0.0
    for t in range(4):
        n = ps[P_AN + t]
        nk += n
        if n >= prm[I_BREED_MIN]:
            pairs += 1
        if pk < 0:
            b = ((pk >> np.int64(10 * t)) & 1023) - 512
        else:
            b = fval(prm, t, n) - n
        res[6 + t] = b
        tot += n + b
    if pk < 0:
        res[10] = (pk >> np.int64(40)) & 8191
        res[11] = (pk >> np.int64(53)) & 511
    else:
        res[10] = pts
        res[11] = exp
    res[5] = nk
    st = 0.0
    if storage:
        st = prmf[0] * (ps[P_WOOD] + ps[P_STONE] + ps[P_REED])
    res[12] = st
    res[0] = tot + res[10] + res[11] + st
    res[1] = cap
    res[2] = nk
    res[3] = pairs
    res[4] = res[10]


@njit(cache=True, _nrt=False)
def evaluate_m(ps, prm, prmf, wk, res, K, past, krow, bkey):
    """evaluate() through the evaluation memo. The housing and the capacity depend only on the farm (borders,
    troughs, buildings, columns, home board) and the animals: a direct-mapped table in wk (EM_ROW) keeps the
    kept animals, the capacity and the closed pastures for that key; the score is then computed as usual
    (the goods count for the Storage Building). K >= 0: the farm's K containers are in wk row krow (closed
    pastures past); K < 0: not known yet, found on a miss (and copied to row krow when krow >= 0, with the farm's
    capacity, building and expansion points at columns WCOLS - 1, - 2, - 3: the same for every K >= 0 call).
    bkey: bld_key(ps). Returns (K, past) as known after the call (a hit gives the closed pastures, not the
    containers: K stays as it was)."""
    w0 = ps[P_E]
    w1 = ps[P_T] | (ps[P_NCOLS] << 20) | (ps[P_HOME] << 24)
    w2 = bkey
    w3 = ps[P_AN] | (ps[P_AN + 1] << 16) | (ps[P_AN + 2] << 32) | (ps[P_AN + 3] << 48)
    h = np.uint64(w0) * np.uint64(0x9E3779B97F4A7C15)
    h = (h ^ np.uint64(w1)) * np.uint64(0xC2B2AE3D27D4EB4F)
    h = (h ^ np.uint64(w2)) * np.uint64(0x9E3779B97F4A7C15)
    h = (h ^ np.uint64(w3)) * np.uint64(0xC2B2AE3D27D4EB4F)
    f = np.int64(h >> np.uint64(64 - EM_BITS))
    r = EM_ROW + (f >> 4)
    c = (f & 15) * EM_W
    if (
        wk[np.uint64(r), np.uint64(c)] == w0
        and wk[np.uint64(r), np.uint64(c + 1)] == w1
        and wk[np.uint64(r), np.uint64(c + 2)] == w2
        and wk[np.uint64(r), np.uint64(c + 3)] == w3
    ):
        kept = wk[np.uint64(r), np.uint64(c + 4)]
        for t in range(4):
            ps[P_AN + t] = (kept >> np.int64(16 * t)) & 0xFFFF
        pk = wk[np.uint64(r), np.uint64(c + 7)]
        if pk < 0:
            _eval_known(ps, prm, prmf, res, wk[np.uint64(r), np.uint64(c + 5)], pk, 0, 0, has_storage_key(bkey))
        else:
            _eval_finish(
                ps, prm, prmf, res, wk[np.uint64(r), np.uint64(c + 5)], np.uint64(wk[np.uint64(r), np.uint64(c + 6)])
            )
        return K, np.uint64(wk[np.uint64(r), np.uint64(c + 6)])
    if K < 0:
        K, past = containers_w(ps, prm, wk)
        house_w(wk, K, ps, P_AN, prm, False)
        cap = 0
        for k in range(K):
            cap += wk[0, k]
        for t in range(4):
            ps[P_AN + t] = wk[4, t]
        _eval_finish(ps, prm, prmf, res, cap, past)
        if krow >= 0:
            for k in range(K):
                wk[np.uint64(krow), k] = wk[0, k]
            wk[np.uint64(krow), WCOLS - 1] = cap
            wk[np.uint64(krow), WCOLS - 2] = np.int64(res[10])
            wk[np.uint64(krow), WCOLS - 3] = np.int64(res[11])
    else:
        # the farm of row krow with other animals (or goods): its capacity and points are known
        for k in range(K):
            wk[0, k] = wk[np.uint64(krow), k]
        house_w(wk, K, ps, P_AN, prm, False)
        cap = wk[np.uint64(krow), WCOLS - 1]
        for t in range(4):
            ps[P_AN + t] = wk[4, t]
        _eval_known(
            ps,
            prm,
            prmf,
            res,
            cap,
            0,
            wk[np.uint64(krow), WCOLS - 2],
            wk[np.uint64(krow), WCOLS - 3],
            has_storage_key(bkey),
        )
    wk[np.uint64(r), np.uint64(c)] = w0
    wk[np.uint64(r), np.uint64(c + 1)] = w1
    wk[np.uint64(r), np.uint64(c + 2)] = w2
    wk[np.uint64(r), np.uint64(c + 3)] = w3
    wk[np.uint64(r), np.uint64(c + 4)] = ps[P_AN] | (ps[P_AN + 1] << 16) | (ps[P_AN + 2] << 32) | (ps[P_AN + 3] << 48)
    wk[np.uint64(r), np.uint64(c + 5)] = cap
    wk[np.uint64(r), np.uint64(c + 6)] = np.int64(past)
    wk[np.uint64(r), np.uint64(c + 7)] = _pack_parts(res)
    return K, past


@njit(cache=True)
def eval_cheap(ps, prm, prmf, wk, res):
    """The farm without re-housing: res[0] = buildings + expansions + storage, res[1] = capacity,
    res[2..3] = 0 (estimating an action's value with default sub-choices). Computed directly (one flood
    from the leaking spaces finds the closed pastures); res[10..12] as score_parts_o, res[5..9] (the
    animals) are not written: nothing reads them after eval_cheap."""
    ncols = ps[P_NCOLS]
    T = np.uint64(ps[P_T])
    tm = prm[I_TMULT]
    B = U0
    pts = 0
    cap = 0
    storage = False
    for s in range(3 * ncols):
        code = ps[P_BLD + s]
        if code != 0:
            b = np.uint64(1) << np.uint64(s)
            B |= b
            pts += prm[np.uint64(I_PTSB + code)]
            c = prm[np.uint64(I_CAPB + code)]
            if T & b != U0:
                c *= tm
            if c > 0:
                cap += c
            if code == B_STORAGE:
                storage = True
    O = ((np.uint64(1) << np.uint64(3 * ncols)) - U1) & ~B
    capo, nexp = open_value(ps, prm, O, B, T, np.uint64(ps[P_E]))
    cap += capo
    st = 0.0
    if storage:
        st = prmf[0] * (ps[P_WOOD] + ps[P_STONE] + ps[P_REED])
    res[10] = pts
    res[11] = nexp * prm[I_EXP_POINTS]
    res[12] = st
    res[0] = res[10] + res[11] + res[12]
    res[1] = cap
    res[2] = 0
    res[3] = 0
    res[4] = res[10]


@njit(cache=True)
def evalx(ps, prm, prmf, wk, res, cheap):
    """evaluate(), or when ``cheap`` eval_cheap()."""
    if cheap:
        eval_cheap(ps, prm, prmf, wk, res)
    else:
        evaluate(ps, prm, prmf, wk, res)


@njit(cache=True)
def feat_row(feats, i, before, after, ps0, ps1, offered):
    feats[i, F_SCORE] = after[0] - before[0]
    feats[i, F_WOOD] = ps1[P_WOOD] - ps0[P_WOOD]
    feats[i, F_STONE] = ps1[P_STONE] - ps0[P_STONE]
    feats[i, F_REED] = ps1[P_REED] - ps0[P_REED]
    feats[i, F_BORD] = ps1[P_BORD] - ps0[P_BORD]
    feats[i, F_CAP] = after[1] - before[1]
    feats[i, F_KEPT] = after[2] - before[2]
    feats[i, F_LOST] = offered - (after[2] - before[2]) if offered > 0 else 0.0
    feats[i, F_PAIRS] = after[3] - before[3]
    feats[i, F_BPTS] = after[4] - before[4]
    feats[i, F_ONSPACE] = 0.0
    feats[i, F_RULE] = 0.0


@njit(cache=True)
def _copy(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


# ---------------------------------------------------------------------------------------------
# keep-or-release: the maximal sets of animals that fit


@njit(cache=True)
def _kf_get(v, t):
    return (v >> np.int64(16 * t)) & 0xFFFF


@njit(cache=True)
def _kf_covers(a, b):
    """Kept vector a holds at least as many of every type as b."""
    return (
        _kf_get(a, 0) >= _kf_get(b, 0)
        and _kf_get(a, 1) >= _kf_get(b, 1)
        and _kf_get(a, 2) >= _kf_get(b, 2)
        and _kf_get(a, 3) >= _kf_get(b, 3)
    )


@njit(cache=True, _nrt=False)
def keep_frontier(ps, prm, wk, kf, h0, h1, h2, h3):
    """The maximal sets of the animals h0..h3 (sheep, pigs, cows, horses) that ps's farm can hold: the kept vectors
    (16 bits per type, sheep lowest) that fit and to which no animal of any type can be added. Written to
    kf[0, :n] in a fixed order; returns n (at most KF_MAX). Containers are given one at a time to one type
    each: a kept vector grows to min(animals of the type, capacity given to it); a container goes unused only
    when every type is full. After each container only the vectors not covered by another are kept (what
    grows from a covered vector stays covered), so the list is the Pareto frontier of the farm's containers so
    far. Uses wk rows 0..2 (containers_w)."""
    K, _past = containers_w(ps, prm, wk)
    kf[0, 0] = 0
    n = 1
    for k in range(K):
        c = wk[0, k]
        m = 0
        for i in range(n):
            v = kf[0, np.uint64(i)]
            grown = False
            for t in range(4):
                h = h0 if t == 0 else (h1 if t == 1 else (h2 if t == 2 else h3))
                x = _kf_get(v, t)
                if x >= h:
                    continue
                y = min(h, x + c)
                kf[1, np.uint64(m)] = v + ((y - x) << np.int64(16 * t))
                m += 1
                grown = True
            if not grown:
                kf[1, np.uint64(m)] = v
                m += 1
        # keep the vectors no other covers (of equal ones the first)
        n = 0
        for i in range(m):
            a = kf[1, np.uint64(i)]
            keep = True
            for j in range(m):
                if j != i:
                    b = kf[1, np.uint64(j)]
                    if _kf_covers(b, a) and (b != a or j < i):
                        keep = False
                        break
            if keep and n < KF_MAX:
                kf[0, np.uint64(n)] = a
                n += 1
    return n


# ---------------------------------------------------------------------------------------------
# enclosure plans (Fences / Walls)


@njit(cache=True)
def _hg(wk, f):
    return wk[np.uint64(H_ROW + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)]


@njit(cache=True)
def _hs(wk, f, v):
    wk[np.uint64(H_ROW + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)] = v


@njit(cache=True)
def _plan_add(moves, n, maxm, wk, stamp, need, k, R, x):
    """Append plan row [need, k, R, x] unless its border set is already listed (hash set in wk)."""
    if n >= maxm:
        return n
    h = np.int64((need * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - HS_BITS))
    nv = np.int64(need)
    while True:
        if _hg(wk, HS + h) != stamp:
            _hs(wk, HS + h, stamp)
            _hs(wk, h, nv)
            break
        if _hg(wk, h) == nv:
            return n
        h = (h + 1) & (HS - 1)
    moves[np.uint64(n), 0] = nv
    moves[np.uint64(n), 1] = k
    moves[np.uint64(n), 2] = np.int64(R)
    moves[np.uint64(n), 3] = x
    return n + 1


@njit(cache=True)
def useful_edges(ps):
    """Border positions that can still matter: free sides of building-free spaces (a side towards a
    building or between buildings is a border already)."""
    ncols = ps[P_NCOLS]
    EB = U0
    U = U0
    for s in range(3 * ncols):
        if ps[P_BLD + s] != 0:
            EB |= np.uint64(SPACE_EDGES[s])
        else:
            U |= np.uint64(SPACE_EDGES[s])
    return U & ~EB & ~np.uint64(ps[P_E])


@njit(cache=True)
def _regions_without(with_bits, B, w, nreg):
    """Bit j: region 64*w + j (< nreg) holds none of the spaces in B (with_bits: REG_WITH or SREG_WITH)."""
    m = ~U0
    while B != U0:
        lb = B & (~B + U1)
        B &= ~lb
        m &= ~with_bits[np.uint64(popcount(lb - U1)), np.uint64(w)]
    if (w + 1) * 64 > nreg:
        m &= (U1 << np.uint64(nreg - w * 64)) - U1
    return m


@njit(cache=True, _nrt=False)
def _closure_plans(with_bits, regs, bnd, sizes, maxsize, nreg, B, X, kmax, moves, n, maxm, wk, stamp):
    """Append (after the n rows so far) the closure plans of the first nreg regions (regs, their boundaries bnd,
    their sizes; with_bits: REG_WITH or SREG_WITH): every building-free region of at most maxsize spaces whose
    missing borders (its boundary less X: borders and building sides) number 1..kmax, in region order. Regions
    with a building are skipped 64 at a time; the rest get one combined condition (no short-circuit): few pass,
    so its single branch is well predicted. Returns the new row count."""
    for w in range((nreg + 63) >> 6):
        m = _regions_without(with_bits, B, w, nreg)
        while m != U0:
            lb = m & (~m + U1)
            m &= ~lb
            i = w * 64 + popcount(lb - U1)
            need = np.uint64(bnd[np.uint64(i)]) & ~X
            k = popcount(need)
            if (k >= 1) & (k <= kmax) & (sizes[np.uint64(i)] <= maxsize):
                if n >= maxm:
                    break
                n = _plan_add(moves, n, maxm, wk, stamp, need, k, np.uint64(regs[np.uint64(i)]), -1)
        if n >= maxm:
            break
    return n


@njit(cache=True)
def gen_plans(ps, prm, moves, maxm, kmax, maxsize, partial_max, singles, wk, reg, rbnd, rsize, reg_end, reg_with):
    """Enclosure plans, rows [edge mask, borders, region space mask, open space or -1], at most ``maxm``,
    each with 1..kmax borders, each border set once:
    * singles (when ``singles``): every useful border position alone (region 0), so that any border set
      the rules allow can be built border by border, over several actions too;
    * closures: for every connected region R of building-free spaces (every polyomino on the farm, up
      to ``maxsize`` spaces) the borders still missing around it (sides towards buildings need none).
      A region inside a pasture gives a split, a region around an unfinished enclosure its completion,
      a region containing an existing pasture an extension;
    * partial closures (regions up to ``partial_max`` spaces): the same minus the sides towards one free
      neighbour space (the open space), to be closed later by a building or more borders.
    reg, rbnd, rsize, reg_end, reg_with: the region tables (farm.REG, RBND, RSIZE, REG_END, layout.REG_WITH), passed
    in (the engine keeps them in its context record) rather than read as globals: numba would freeze their 700 kB
    into the machine code of every function that calls this one."""
    ncols = ps[P_NCOLS]
    B = U0
    EB = U0
    for s in range(3 * ncols):
        if ps[P_BLD + s] != 0:
            B |= bit(s)
            EB |= np.uint64(SPACE_EDGES[s])
    E = np.uint64(ps[P_E])
    free = ((np.uint64(1) << np.uint64(3 * ncols)) - U1) & ~B
    stamp = _hg(wk, 2 * HS) + 1
    _hs(wk, 2 * HS, stamp)
    n = 0
    if kmax < 1:
        return 0
    if singles:
        U = U0
        for s in range(3 * ncols):
            if free & bit(s) != U0:
                U |= np.uint64(SPACE_EDGES[s])
        U &= ~EB & ~E
        while U != U0:
            b = U & (~U + U1)
            U &= ~b
            n = _plan_add(moves, n, maxm, wk, stamp, b, 1, U0, -1)
    # closures first, then (while room is left) the partial closures
    n = _closure_plans(reg_with, reg, rbnd, rsize, maxsize, reg_end[ncols], B, EB | E, kmax, moves, n, maxm, wk, stamp)
    # REG is sorted by last column, then size: in each column's block the small regions come first
    for cb in range(ncols):
        if n >= maxm:
            break
        for i in range(reg_end[cb], reg_end[cb + 1]):
            if n >= maxm:
                break
            if rsize[i] > partial_max:
                break
            R = np.uint64(reg[i])
            if R & B != U0:
                continue
            need = np.uint64(rbnd[i]) & ~EB & ~E
            k = popcount(need)
            if k < 2:
                continue
            nbm = ((R << U1) & ~ROW0) | ((R >> U1) & ~ROW2) | (R << np.uint64(3)) | (R >> np.uint64(3))
            nbm &= free & ~R
            while nbm != U0:
                bx = nbm & (~nbm + U1)
                nbm &= ~bx
                x = lowbit_index(bx)
                shared = need & np.uint64(SPACE_EDGES[np.uint64(x)])
                if shared == U0:
                    continue
                part = need & ~shared
                kp = popcount(part)
                if kp >= 1 and kp <= kmax:
                    n = _plan_add(moves, n, maxm, wk, stamp, part, kp, R, x)
    if singles:
        # last (while room is left): a border beside a building, alone. The book allows any border anywhere
        # ("Add any number of borders from your supply to your farm"); next to a building it changes no pasture
        # (a building's sides already close it), so it is offered, ranked last, and never makes the action legal
        # by itself (can_border asks for a position that helps)
        V = U0
        for s in range(3 * ncols):
            if B & bit(s) != U0:
                V |= np.uint64(SPACE_EDGES[s])
        V &= ~E
        while V != U0:
            b = V & (~V + U1)
            V &= ~b
            n = _plan_add(moves, n, maxm, wk, stamp, b, 1, U0, -1)
    return n


@njit(cache=True)
def max_borders(ps, prm, walls, placed):
    """Most borders the player can place now (in hand and paid) after ``placed`` in this action."""
    have = ps[P_BORD]
    if not walls:
        if prm[I_FENCE_WOOD] > 0:
            return min(have, ps[P_WOOD] // prm[I_FENCE_WOOD])
        return have
    free = prm[I_WALLS_FREE] - placed
    if free < 0:
        free = 0
    if prm[I_WALL_STONE] > 0:
        return min(have, free + ps[P_STONE] // prm[I_WALL_STONE])
    return have


@njit(cache=True)
def count_pastures(past, DN, RT):
    """Number of closed pastures in the closed-pasture space mask past (flood masks DN, RT). Adding borders
    only refines pastures, so an equal (past, count) means identical pastures (and containers)."""
    nc = 0
    rest = past
    while rest != U0:
        seed = rest & (~rest + U1)
        rest &= ~grow(seed, past, DN, RT)
        nc += 1
    return nc


@njit(cache=True)
def same_pastures(ncols, O, E, past0, nc0):
    """Has ps's farm (open spaces O) with border mask E the closed pastures past0, nc0 of them
    (count_pastures)? They are found by one flood from the leaking spaces, and counted only when they cover
    the same spaces."""
    DN, RT, LEAK = flood_prep(ncols, O, E)
    past = O & ~grow(LEAK, O, DN, RT)
    if past != past0:
        return False
    return count_pastures(past, DN, RT) == nc0


@njit(cache=True)
def border_cost(walls, k, placed, prm):
    """(wood, stone) for k more borders after ``placed`` in this action."""
    if not walls:
        return k * prm[I_FENCE_WOOD], 0
    free = prm[I_WALLS_FREE] - placed
    if free < 0:
        free = 0
    paid = k - free
    if paid < 0:
        paid = 0
    return 0, paid * prm[I_WALL_STONE]


@njit(cache=True)
def can_border(ps, prm, walls, placed):
    """Can one more border be placed and paid, at a position that still helps (then the single-border plan
    at least is offered)?"""
    return can_border_u(ps, prm, walls, placed, useful_edges(ps))


@njit(cache=True)
def can_border_u(ps, prm, walls, placed, ue):
    """can_border() with ps's useful border positions ue (useful_edges(ps)) known."""
    if ps[P_BORD] <= 0:
        return False
    w, s = border_cost(walls, 1, placed, prm)
    if ps[P_WOOD] < w or ps[P_STONE] < s:
        return False
    return ue != U0


@njit(cache=True)
def bld_key(ps):
    k = np.int64(0)
    for s in range(18):
        k |= np.int64(ps[P_BLD + s]) << np.int64(3 * s)
    return k


@njit(cache=True)
def _pcg(wk, p, f):
    return wk[np.uint64(WROWS + p * PCR + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)]


@njit(cache=True)
def _pcs(wk, p, f, v):
    wk[np.uint64(WROWS + p * PCR + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)] = v


@njit(cache=True)
def full_columns(ps, used):
    """Expansion columns (not the home board's two) whose 3 spaces are all in ``used``."""
    home = ps[P_HOME]
    full = used & (used >> U1) & (used >> np.uint64(2)) & ROW0 & ((np.uint64(1) << np.uint64(3 * ps[P_NCOLS])) - U1)
    full &= ~(np.uint64(9) << np.uint64(3 * home))
    return popcount(full)


@njit(cache=True, _nrt=False)
def _closed_value(ps, prm, O, B, T, past, DN, RT, R):
    """(capacity of the closed pastures past and the lone troughs, full expansions) of ps's farm (open spaces O,
    buildings B, troughs T, flood masks DN, RT); the pastures are the components of past with region R's boundary
    cut (R = 0: none)."""
    cap = 0
    if prm[I_LONE] > 0:
        cap += prm[I_LONE] * popcount(T & O & ~past)
    if T & past == U0:
        if prm[I_PASTURE] > 0:
            cap += prm[I_PASTURE] * popcount(past)
    else:
        tm = prm[I_TMULT]
        for part in range(2):
            left = past & R if part == 0 else past & ~R
            while left != U0:
                seed = left & (~left + U1)
                comp = grow(seed, left, DN, RT)
                left &= ~comp
                c = times_pow(prm[I_PASTURE] * popcount(comp), tm, popcount(comp & T))
                if c > 0:
                    cap += c
    return cap, full_columns(ps, B | T | past)


@njit(cache=True)
def open_value(ps, prm, O, B, T, E):
    """(capacity of the closed pastures and lone troughs, full expansions) of ps's farm with border mask E
    (open spaces O, buildings B, troughs T): the parts of eval_cheap that borders change."""
    DN, RT, LEAK = flood_prep(ps[P_NCOLS], O, E)
    # the closed pastures are the open spaces that no leaking space reaches: one flood from all of them
    return _closed_value(ps, prm, O, B, T, O & ~grow(LEAK, O, DN, RT), DN, RT, U0)


@njit(cache=True)
def keeps_all(prm, wk, T, N):
    """After new borders that leave every closed pasture as it was and close the spaces N (borders alone: no
    building, no trough moves), does the farm still house every animal it houses now? Its containers are the
    old ones plus the new pastures, less the lone troughs in N; that holds when at most one lone trough is
    absorbed and the new pasture around it (at least one space with that trough) holds what the trough held.
    False when wk[S_ROW, MONO_COL] says the parameters do not make keeping all of them the best set."""
    if wk[S_ROW, MONO_COL] != 1:
        return False
    nt = popcount(T & N)
    return prm[I_LONE] <= 0 or nt == 0 or (nt == 1 and prm[I_PASTURE] * prm[I_TMULT] >= prm[I_LONE])


@njit(cache=True)
def default_plans(ps, moves, maxm, kmax, wk):
    """gen_plans(ps, prm, moves, maxm, kmax, DEFAULT_PLAN_SPACES, 0, False, wk) over the short list of small
    regions (SREG): the same rows in the same order."""
    ncols = ps[P_NCOLS]
    B = U0
    EB = U0
    for s in range(3 * ncols):
        if ps[P_BLD + s] != 0:
            B |= bit(s)
            EB |= np.uint64(SPACE_EDGES[s])
    E = np.uint64(ps[P_E])
    stamp = _hg(wk, 2 * HS) + 1
    _hs(wk, 2 * HS, stamp)
    n = 0
    if kmax < 1:
        return 0
    return _closure_plans(
        SREG_WITH, SREG, SRBND, SRSIZE, DEFAULT_PLAN_SPACES, SREG_END[ncols], B, EB | E, kmax, moves, n, maxm, wk, stamp
    )


@njit(cache=True)
def plan_cache_fill(ps, me, prm, wk, moves):
    """Fill player me's cache of the estimate's enclosure plans for ps's farm and borders in hand."""
    b = 0
    key = bld_key(ps)
    n = default_plans(ps, moves, MAXM - 1, ps[P_BORD], wk)
    # a plan's effect on the farm (r + 4, r + 5) is found when a selection first needs it (PC_LAZY until then)
    for i in range(n):
        r = 8 + i * PC_ROW
        _pcs(wk, me, r, moves[i, 0])
        _pcs(wk, me, r + 1, moves[i, 1])
        _pcs(wk, me, r + 2, moves[i, 2])
        _pcs(wk, me, r + 3, moves[i, 3])
        _pcs(wk, me, r + 4, PC_LAZY)
    _pcs(wk, me, b, ps[P_E])
    _pcs(wk, me, b + 1, ps[P_T])
    _pcs(wk, me, b + 2, key)
    _pcs(wk, me, b + 3, ps[P_NCOLS])
    _pcs(wk, me, b + 4, ps[P_BORD])
    _pcs(wk, me, b + 5, 1)
    _pcs(wk, me, b + 6, n)
    # the best plan per affordable border count: unknown (only counts up to the borders in hand are asked for
    # until the next fill: the cache key holds them)
    for j in range(min(ps[P_BORD] + 1, PC_KC)):
        _pcs(wk, me, PC_BEST + j, -2)
        _pcs(wk, me, PC_BEST + PC_KC + j, -2)


@njit(cache=True, _nrt=False)
def default_borders(ps, me, walls, prm, prmf, wk, moves, key, checked):
    """The estimate's enclosure: the best plan (regions up to DEFAULT_PLAN_SPACES spaces, closed at once) by
    cheap value + capacity/5 - goods/20, placed once. Plans and their farm effect are cached per player
    until the farm or the borders in hand change (plan_cache_fill). key: bld_key(ps); checked: the caller
    has checked can_border(ps, prm, walls, 0). Returns the placed plan's cache offset r (its borders at r + 1,
    expansion points x 2 and capacity it adds at r + 4, r + 5, and at r + 3 1 when the farm keeps all its
    animals after it: keeps_all), or -1 when none is placed."""
    if not checked and not can_border(ps, prm, walls, 0):
        return -1
    b = 0
    if not (
        _pcg(wk, me, b + 5) == 1
        and _pcg(wk, me, b) == ps[P_E]
        and _pcg(wk, me, b + 1) == ps[P_T]
        and _pcg(wk, me, b + 2) == key
        and _pcg(wk, me, b + 3) == ps[P_NCOLS]
        and _pcg(wk, me, b + 4) == ps[P_BORD]
    ):
        plan_cache_fill(ps, me, prm, wk, moves)
    n = _pcg(wk, me, b + 6)
    # which plans are affordable depends only on the most borders kc that can be paid (every plan has at
    # most ps[P_BORD] borders): the best plan is remembered per (walls, kc) with the cached plans
    kc = ps[P_BORD]
    if walls:
        if prm[I_WALL_STONE] > 0:
            kc = min(kc, max(prm[I_WALLS_FREE], 0) + ps[P_STONE] // prm[I_WALL_STONE])
    elif prm[I_FENCE_WOOD] > 0:
        kc = min(kc, ps[P_WOOD] // prm[I_FENCE_WOOD])
    slot = -1
    if kc >= 0 and kc < PC_KC:
        slot = PC_BEST + (PC_KC if walls else 0) + kc
        bi = _pcg(wk, me, slot)
    if slot < 0 or bi == -2:
        st = prmf[0] if has_building(ps, B_STORAGE) else 0.0
        best = -1e18
        bi = -1
        masks = False
        for i in range(n):
            r = 8 + i * PC_ROW
            w, s = border_cost(walls, _pcg(wk, me, r + 1), 0, prm)
            if w > ps[P_WOOD] or s > ps[P_STONE]:
                continue
            if _pcg(wk, me, r + 4) == PC_LAZY:
                # a plan changes only the borders: of eval_cheap's value only the expansion points and the
                # capacity of pastures and lone troughs can change (_closed_value)
                if not masks:
                    ncols = ps[P_NCOLS]
                    B = building_mask(ps)
                    T = np.uint64(ps[P_T])
                    O = ((np.uint64(1) << np.uint64(3 * ncols)) - U1) & ~B
                    E0 = np.uint64(ps[P_E])
                    DN, RT, LEAK = flood_prep(ncols, O, E0)
                    past0 = O & ~grow(LEAK, O, DN, RT)
                    cap0, nexp0 = _closed_value(ps, prm, O, B, T, past0, DN, RT, U0)
                    masks = True
                # closing R borders exactly R's boundary: R is closed and the rest floods as before without R
                R = np.uint64(_pcg(wk, me, r + 2))
                past1 = O & ~grow(LEAK & ~R, O & ~R, DN, RT)
                cap1, nexp1 = _closed_value(ps, prm, O, B, T, past1, DN, RT, R)
                _pcs(wk, me, r + 4, 2 * (nexp1 - nexp0) * prm[I_EXP_POINTS])
                _pcs(wk, me, r + 5, cap1 - cap0)
                # no closed pasture changes when R holds none of their spaces (their sides are all borders)
                _pcs(wk, me, r + 3, 1 if R & past0 == U0 and keeps_all(prm, wk, T, past1 & ~past0) else 0)
            v = 0.5 * _pcg(wk, me, r + 4) - st * (w + s) + 0.2 * _pcg(wk, me, r + 5) - 0.05 * (w + s)
            if v > best + 1e-9:
                best = v
                bi = i
        if slot >= 0:
            _pcs(wk, me, slot, bi)
    if bi < 0:
        return -1
    r = 8 + bi * PC_ROW
    w, s = border_cost(walls, _pcg(wk, me, r + 1), 0, prm)
    ps[P_E] = ps[P_E] | _pcg(wk, me, r)
    ps[P_BORD] -= _pcg(wk, me, r + 1)
    ps[P_WOOD] -= w
    ps[P_STONE] -= s
    return r
