"""What a card is worth where (numba, nopython): the legal spaces of each card type, the features of a tile on
each of them (``eval_spaces``), and the best immediate value of playing each type now (``best_values``, cached per
player and type: only the spaces whose value can have changed are evaluated again).
"""

import numpy as np
from numba import njit

from .bits import ONE, ZERO, anyrow, countrow, ctz, tb
from .engine import chains_next_to, first_seen, new_stamp
from .features import Placement
from .layout import *
from .scoring import (
    P_HAC_PTS,
    P_MPP,
    P_WATER_PTS,
    R_FPAM,
    R_FTERR,
    R_HERD,
    R_MARKET,
    R_NBH,
    R_NBL,
    R_NBMK,
    R_NBW,
    R_OCC,
    R_REACH,
    R_X,
    chain_points,
    market_points,
)


@njit(cache=True, inline="always")
def _near_market_dist(SP, h, mdist, nunr):
    """The board distance from h to the nearest market the player has not reached (the nunr markets of SR_UNR);
    99 if none."""
    best = 99
    for m in range(nunr):
        d = mdist[h, SP[SR_UNR, m]]
        if d < best:
            best = d
    return best


@njit(cache=True, inline="always")
def _join(MS, SP, pi, nb, p, h, nd, what, sc, hpts, land):
    """p's tile (``what``: W_LAND, or 1 + a for animal a; ``land``: what == W_LAND) on h joins p's groups of the
    same kind among its first nd neighbours, each once (label stamp sc). Returns (the new group's size, groups
    merged, hacienda points it gains: all its tiles once a merged group has a hacienda, less what those held; the
    chain points the merged chains scored (land); the unreached markets next to h (animals))."""
    size = 1
    merged = 0
    hold = 0
    anyhac = False
    old = 0
    newm = 0
    for d in range(nd):
        j = nb[h, d]
        if j < 0:
            continue
        o = SP[SP_OWNER, j]
        if o == p and SP[SP_WHAT, j] == what:
            L = SP[SP_LAB, j]
            if first_seen(SP, L, sc):
                s = SP[LB_SIZE, L]
                merged += 1
                size += s
                if land:
                    old += chain_points(pi, s)
                if SP[LB_HAC, L] > 0:
                    anyhac = True
                    hold += s * hpts
        elif not land and o == -1:
            jw = j >> 6
            jb = np.uint64(j & 63)
            if (MS[R_MARKET, jw] >> jb) & ONE != ZERO and (MS[R_REACH + p, jw] >> jb) & ONE == ZERO:
                newm += 1
    hnew = size * hpts if anyhac else 0
    return size, merged, hnew - hold, old, newm


@njit(cache=True, inline="always")
def _market_income(MS, SP, nb, mkcnt, p, a, h, sc, size, merged):
    """The pesos p's animal a on h earns: once for every market next to h, the herd's size plus the tiles of p's
    land chains next to it (next to h or to the merged herds: those whose label carries stamp sc)."""
    if mkcnt[h] == 0:
        return 0
    sc2 = new_stamp(SP)
    tot = chains_next_to(SP, nb, p, h, sc2)
    if merged > 0:
        hrow = R_HERD + 4 * p + a
        for w in range(MS.shape[1]):
            x = MS[hrow, w]
            while x != ZERO:
                i = w * 64 + np.int64(ctz(x))
                x &= x - ONE
                if SP[LB_STAMP, SP[SP_LAB, i]] == sc:
                    tot += chains_next_to(SP, nb, p, i, sc2)
    return mkcnt[h] * (size + tot)


@njit(cache=True, inline="always")
def _full_feats(feats, fi, pesos, newm, wat, merged, free, dist):
    """The columns of a candidate's features that only the placement decision reads (eval_spaces' full)."""
    feats[fi, Placement.MARKET_PESOS] = pesos
    feats[fi, Placement.NEW_MARKETS] = newm
    feats[fi, Placement.WATER_POINTS] = wat
    feats[fi, Placement.GROUPS_JOINED] = merged
    feats[fi, Placement.FREE_PAMPA] = free
    feats[fi, Placement.MARKET_DISTANCE] = dist


@njit(cache=True, _nrt=False)
def eval_spaces(MS, SP, pi, p, kinds, nb, mkcnt, mdist, nunr, reached, feats, full):
    """Features of p's tile on the spaces of the scratch mask rows R_TODO + k for each k in the bit set ``kinds``
    (k = 0 land tile, 1 + a animal a), in order of k then space, into feats rows 0, 1, ...; only columns 0
    (value) and 2 (group size) unless full. One call for all kinds, and no array-taking helpers inside that are
    not inlined (each array argument of a call costs a reference-count round trip). Returns the number of rows.

    The value in points: for a land tile, the chain points it adds (the new chain's, less what the merged chains
    scored); for an animal, the market points it adds (markets newly reached) and its market income in points;
    for both, the hacienda points the new group gains and the water points (own tiles next to water)."""
    W = MS.shape[1]
    hpts = pi[P_HAC_PTS]
    wpts = pi[P_WATER_PTS]
    mpp = pi[P_MPP]
    mp0 = market_points(pi, reached)
    fi = 0
    for k in range(5):
        if (kinds >> k) & 1 == 0:
            continue
        for w in range(W):
            x = MS[R_TODO + k, w]
            while x != ZERO:
                h = w * 64 + np.int64(ctz(x))
                x &= x - ONE
                sc = new_stamp(SP)
                hb = np.uint64(h & 63)
                wat = SP[SP_WCNT, h] * wpts
                # (away from p's own groups of that kind and, for animals, from markets no neighbour counts; the
                # free pampa neighbours are counted in SP_NFREE)
                if k == 0:
                    nd = 6 if (MS[R_NBL + p, w] >> hb) & ONE != ZERO else 0
                    size, merged, hgain, old, newm = _join(MS, SP, pi, nb, p, h, nd, W_LAND, sc, hpts, True)
                    pesos = 0
                    feats[fi, Placement.VALUE] = (chain_points(pi, size) - old) + hgain + wat
                else:
                    a = k - 1
                    nd = 6 if ((MS[R_NBH + 4 * p + a, w] | MS[R_NBMK, w]) >> hb) & ONE != ZERO else 0
                    size, merged, hgain, _old, newm = _join(MS, SP, pi, nb, p, h, nd, k, sc, hpts, False)
                    pesos = _market_income(MS, SP, nb, mkcnt, p, a, h, sc, size, merged)
                    feats[fi, Placement.VALUE] = (market_points(pi, reached + newm) - mp0) + hgain + wat + pesos / mpp
                feats[fi, Placement.SIZE] = size
                if full:
                    dist = _near_market_dist(SP, h, mdist, nunr)
                    _full_feats(feats, fi, pesos, newm, wat, merged, SP[SP_NFREE, h], dist)
                fi += 1
    return fi


@njit(cache=True, inline="always")
def legal_row(MS, p, t, r):
    """Where card type t may go for p (into mask row r); returns 1 if a land card is played as pampa (no free
    space of its terrain left)."""
    W = MS.shape[1]
    if t < T_PAMPA:
        if anyrow(MS, R_FTERR + t):
            for w in range(W):
                MS[r, w] = MS[R_FTERR + t, w]
            return 0
        for w in range(W):
            MS[r, w] = MS[R_FPAM, w] & MS[R_NBL + p, w]
        return 1
    if t == T_PAMPA:
        for w in range(W):
            MS[r, w] = MS[R_FPAM, w] & MS[R_NBL + p, w]
        return 0
    a = t - T_ANIMAL
    for w in range(W):
        MS[r, w] = MS[R_FPAM, w] & (MS[R_NBL + p, w] | MS[R_NBH + 4 * p + a, w])
    return 0


@njit(cache=True, _nrt=False)
def legal_mask(MS, p, t, out):
    """legal_row into out (through the scratch row R_X)."""
    as_pampa = legal_row(MS, p, t, R_X)
    for w in range(MS.shape[1]):
        out[w] = MS[R_X, w]
    return as_pampa


@njit(cache=True, _nrt=False)
def unreached_markets(MS, SP, p, mkspace):
    """The markets p has not reached (indices into mkspace) into the row SR_UNR; returns their number."""
    n = 0
    for m in range(mkspace.shape[0]):
        if not tb(MS, R_REACH + p, mkspace[m]):
            SP[SR_UNR, n] = m
            n += 1
    return n


@njit(cache=True, _nrt=False)
def best_values(MS, SP, pi, p, nb, mkcnt, mdist, row, FV):
    """Best immediate value of playing each card type t now into FV[F_CBV + p, t], FV[F_CBS + p, t] and
    SP[SR_CBH + p, t] (value, group size, best space; -1 none legal), the lexicographic maximum of (value, size)
    over the legal spaces. A type is redone when its best space was taken, its values were reset (best space -2)
    or p placed a tile since on one of its legal spaces (dirty mask MS[R_D + 5 p] for land, MS[R_D + 5 p + 1 + a]
    for animal a). Only the
    spaces where the value can differ from the plain one (next to own groups, water, markets) are evaluated, and
    those through the per-space value cache FV[F_VV + r] / FV[F_VS + r] (r = 5 p for p's land tiles, whatever the
    terrain; 5 p + 1 + a for animal a), valid where MS[R_VALID + r] is set (the engine clears it where a
    placement, hacienda or water tile changes values)."""
    W = MS.shape[1]
    reached = -1
    kinds = 0
    scan = 0
    for k in range(5):
        for w in range(W):
            MS[R_TODO + k, w] = ZERO
    # pass 1: per type to redo, the legal spaces, the plain best and the spaces whose cached value is stale
    for t in range(NT):
        h0 = SP[SR_CBH + p, t]
        k = 0 if t < T_ANIMAL else t - T_ANIMAL + 1
        dr = 5 * p + k
        redo = h0 == -2 or (h0 >= 0 and tb(MS, R_OCC, h0))
        # the old best space, kept for an incremental pass 3 when only dirty spaces force the redo
        SP[SR_GC, GC_OLD + t] = h0 if not redo else -1
        if not redo:
            anyd = False
            for w in range(W):
                if MS[R_D + dr, w] != ZERO:
                    anyd = True
                    break
            if not anyd:
                continue
        legal_row(MS, p, t, R_X)
        # one sweep over the legal spaces: whether any is dirty, whether there is any, the candidates (next to own
        # groups, water, markets: row ry) and the first plain space (the others, all worth the plain value)
        ry = R_YT + t
        if t < T_ANIMAL:
            pv = np.float64(chain_points(pi, np.int64(1)))
            c0 = R_NBL + p
            c1 = R_NBW
            c2 = R_NBW
        else:
            pv = 0.0
            c0 = R_NBMK
            c1 = R_NBW
            c2 = R_NBH + 4 * p + t - T_ANIMAL if SP[SR, S_HH + 4 * p + t - T_ANIMAL] > 0 else R_NBW
        anyd = redo
        anyx = False
        bh = -1
        for w in range(W):
            x = MS[R_X, w]
            y = x & (MS[c0, w] | MS[c1, w] | MS[c2, w])
            MS[ry, w] = y
            if x != ZERO:
                anyx = True
                if x & MS[R_D + dr, w] != ZERO:
                    anyd = True
                if bh < 0 and x & ~y != ZERO:
                    bh = w * 64 + np.int64(ctz(x & ~y))
        if not anyd:
            # no legal space is dirty: the candidates, their values and the plain start are as when the type was
            # last done (legal spaces come and candidates change only on dirty spaces, values are stale only
            # there; taken spaces only drop out, and the best one is still free), so its best is too
            continue
        if reached < 0:
            reached = countrow(MS, R_REACH + p)
        if not anyx:
            FV[F_CBV + p, t] = 0.0
            FV[F_CBS + p, t] = 0.0
            SP[SR_CBH + p, t] = -1
            continue
        bv = -1e9
        bs = 0.0
        if bh >= 0:  # a plain space: the fold starts from the plain value at the first one
            bv = pv
            bs = 1.0
        FV[F_CBV + p, t] = bv
        FV[F_CBS + p, t] = bs
        SP[SR_CBH + p, t] = bh
        scan |= 1 << t
        for w in range(W):
            x = MS[ry, w] & ~MS[R_VALID + dr, w]
            MS[R_VALID + dr, w] |= MS[ry, w]
            if x != ZERO:
                MS[R_TODO + k, w] |= x
                kinds |= 1 << k
    # pass 2: evaluate every stale space at once (one call) into the value cache
    if kinds != 0:
        # (np.int64: literal arguments would compile extra copies of eval_spaces while best_values is typed)
        # (nunr 0: the market distance is a full feature only; SR_UNR is not needed here)
        eval_spaces(MS, SP, pi, p, np.int64(kinds), nb, mkcnt, mdist, np.int64(0), np.int64(reached), row, False)
        i = 0
        for k in range(5):
            if (kinds >> k) & 1 == 0:
                continue
            vr = 5 * p + k
            for w in range(W):
                x = MS[R_TODO + k, w]
                while x != ZERO:
                    h = w * 64 + np.int64(ctz(x))
                    x &= x - ONE
                    FV[F_VV + vr, h] = row[i, 0]
                    FV[F_VS + vr, h] = row[i, 2]
                    i += 1
    # pass 3: the lexicographic best over the candidate spaces, from the plain best, in space order (the first
    # of equal ones wins). When only dirty spaces forced the redo and the old best space is still legal with
    # an unchanged value (plain, or a candidate not re-evaluated now), every other unchanged candidate lost to it
    # before (worse, or equal and later), so the fold over the re-evaluated candidates with the old best merged
    # in at its place gives the same result as the fold over all candidates.
    for t in range(NT):
        if (scan >> t) & 1 == 0:
            continue
        k = 0 if t < T_ANIMAL else t - T_ANIMAL + 1
        vr = 5 * p + k
        ry = R_YT + t
        bv = FV[F_CBV + p, t]
        bs = FV[F_CBS + p, t]
        bh = SP[SR_CBH + p, t]
        ob = SP[SR_GC, GC_OLD + t]
        whole = True
        pend = False
        if ob >= 0:
            if not tb(MS, ry, ob):
                whole = False  # the old best is plain: no unchanged candidate can beat the plain start
            elif not tb(MS, R_TODO + k, ob):
                whole = False
                pend = True
        for w in range(W):
            x = MS[ry, w]
            if not whole:
                x &= MS[R_TODO + k, w]
            while x != ZERO:
                h = w * 64 + np.int64(ctz(x))
                x &= x - ONE
                if pend and h > ob:
                    pend = False
                    bv, bs, bh = _fold_best(FV, F_VV + vr, F_VS + vr, ob, bv, bs, bh)
                bv, bs, bh = _fold_best(FV, F_VV + vr, F_VS + vr, h, bv, bs, bh)
        if pend:
            bv, bs, bh = _fold_best(FV, F_VV + vr, F_VS + vr, ob, bv, bs, bh)
        FV[F_CBV + p, t] = bv
        FV[F_CBS + p, t] = bs
        SP[SR_CBH + p, t] = bh
    for r in range(5 * p, 5 * p + 5):
        for w in range(W):
            MS[R_D + r, w] = ZERO


@njit(cache=True, inline="always")
def _fold_best(FV, rv, rs, h, bv, bs, bh):
    """One step of the best-space fold: space h (value FV[rv, h], size FV[rs, h]) replaces the best (bv, bs, bh)
    when its value is higher (beyond 1e-9), or equal with a larger size."""
    v = FV[rv, h]
    sz = FV[rs, h]
    if v > bv + 1e-9 or (v > bv - 1e-9 and sz > bs):
        return v, sz, h
    return bv, bs, bh
