"""The exact housing solver: which container holds which type, so that the kept animals score the most.

``house_w`` chooses a type (or none) for every container of the farm (``farm.containers_w``) to maximise the
points, then the animals, then the breeding pairs of the animals kept: a depth-first search over the containers by
falling capacity, pruned by the relaxation "the remaining capacity split freely among the types" (``unit_dp``),
seeded with a greedy assignment and remembered in a memo in the workspace (rows ``HM_ROW``..). Indices computed
at run time are ``np.uint64`` (see ``farm.py``).
"""

import numpy as np
from numba import njit

from .farm import FLAT_MASK, FLAT_SHIFT, HM_BITS, HM_MAXN, HM_ROW, HM_W, MAXC, UMAX, WCOLS, WROWS, fval
from .params import I_BREED_MIN

HOUSE_DP_MIN = 4  # containers left from which the search bounds with unit_dp (fewer are enumerated: cheaper)
SCRATCH = 5 * MAXC + 1 + 8 * (UMAX + 1)


@njit(cache=True, inline="always")
def unit_dp(a0, a1, a2, a3, dd, doff, U, prm, wk):
    """Best objective (points*8192 + animals*8 + pairs, see house_w) when U units of capacity may be split freely
    among the types on top of acc = (a0..a3). Tables in wk rows 10..17. Exact for unit containers; an upper bound
    otherwise."""
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
def _give(o, c, a0, a1, a2, a3):
    """The capacities (a0..a3) given to the four types, with c more given to type o (o = 4: none)."""
    if o == 0:
        a0 += c
    elif o == 1:
        a1 += c
    elif o == 2:
        a2 += c
    elif o == 3:
        a3 += c
    return a0, a1, a2, a3


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
    points*8192 + animals*8 + pairs (pairs <= 4 < 8, animals*8 <= 4*128*8 + 4 < 8192). wk: int64[WROWS, WCOLS]:
    row 0 capacities (in), row 3 assignment, row 4 kept (out), rows 5..21 scratch.

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
        g0, g1, g2, g3 = _give(o, -wk[5, np.uint64(j)], g0, g1, g2, g3)
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
                acc0, acc1, acc2, acc3 = _give(wk[7, np.uint64(i)], -wk[5, np.uint64(i)], acc0, acc1, acc2, acc3)
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
            acc0, acc1, acc2, acc3 = _give(o, wk[5, np.uint64(i)], acc0, acc1, acc2, acc3)
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
