"""Evaluation: house the animals exactly and score the farm as if the game ended now (``evaluate``, through the
evaluation memo ``evaluate_m``), the cheap estimate that does not house (``eval_cheap``), the features of a
candidate (``feat_row``) and the maximal sets of animals that fit (``keep_frontier``, for keep-or-release)."""

import numpy as np
from numba import njit

from .farm import *
from .housing import house_w
from .layout import *
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
def eval_known(ps, prm, prmf, res, cap, pk, pts, exp, storage):
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


@njit(cache=True, inline="always")
def eval_kept(ps, prm, prmf, res0, res1, dcap, dexp, storage):
    """res1 of farm ps that keeps every animal of the farm evaluated in res0 (no housing needed) and differs from it
    only by dcap more capacity, dexp more expansion points and its goods (eval_known; ``storage``: ps has the
    Storage Building)."""
    eval_known(ps, prm, prmf, res1, res0[1] + dcap, 0, res0[10], res0[11] + dexp, storage)


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
            eval_known(ps, prm, prmf, res, wk[np.uint64(r), np.uint64(c + 5)], pk, 0, 0, has_storage_key(bkey))
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
        eval_known(
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
    O = active_mask(ncols) & ~B
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


@njit(cache=True, inline="always")
def set_move(moves, m, a, b, c, d):
    """Candidate row m of a decision: [a, b, c, d]."""
    moves[np.uint64(m), 0] = a
    moves[np.uint64(m), 1] = b
    moves[np.uint64(m), 2] = c
    moves[np.uint64(m), 3] = d


@njit(cache=True, inline="always")
def clear_feats(feats, m):
    """Candidate row m has no features (all 0)."""
    for j in range(NF):
        feats[np.uint64(m), j] = 0.0


@njit(cache=True, inline="always")
def stop_row(moves, feats, m, a, b, c, d):
    """Candidate row m is the "stop" of a repeated action ([a, b, c, d], no features); returns m + 1."""
    set_move(moves, m, a, b, c, d)
    clear_feats(feats, m)
    return m + 1


@njit(cache=True)
def copy_row(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


# ---------------------------------------------------------------------------------------------
# keep-or-release: the maximal sets of animals that fit


# the high bit of each kept vector's 16-bit count: counts stay below 2**15 (a farm holds a few dozen animals), so
# ((a | KF_HIGH) - b) & KF_HIGH, unsigned, has the high bit of type t set exactly when a holds at least as many of
# type t as b (no borrow crosses a field)
KF_HIGH = np.uint64(0x8000800080008000)


@njit(cache=True, inline="always")
def _kf_covers(a, b):
    """Kept vector a holds at least as many of every type as b (all four counts compared at once)."""
    return ((np.uint64(a) | KF_HIGH) - np.uint64(b)) & KF_HIGH == KF_HIGH


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
    hv = h0 | (h1 << np.int64(16)) | (h2 << np.int64(32)) | (h3 << np.int64(48))
    kf[0, 0] = 0
    n = 1
    for k in range(K):
        c = wk[0, k]
        m = 0
        for i in range(n):
            v = kf[0, np.uint64(i)]
            if v == hv:
                # every type full: the container goes unused
                kf[1, np.uint64(m)] = v
                m += 1
                continue
            for t in range(4):
                sh = np.int64(16 * t)
                x = (v >> sh) & 0xFFFF
                h = (hv >> sh) & 0xFFFF
                if x < h:
                    kf[1, np.uint64(m)] = v + ((min(h, x + c) - x) << sh)
                    m += 1
        # keep the vectors no other covers (of equal ones the first): a is dropped when an earlier vector covers it
        # or a later one covers it and differs from it
        n = 0
        for i in range(m):
            a = kf[1, np.uint64(i)]
            keep = True
            for j in range(i):
                if _kf_covers(kf[1, np.uint64(j)], a):
                    keep = False
                    break
            if keep:
                for j in range(i + 1, m):
                    b = kf[1, np.uint64(j)]
                    if b != a and _kf_covers(b, a):
                        keep = False
                        break
            if keep and n < KF_MAX:
                kf[0, np.uint64(n)] = a
                n += 1
    return n


# ---------------------------------------------------------------------------------------------
# the farm's key and the parts of its value that borders change (the estimates' and shortcuts' pieces)


@njit(cache=True)
def bld_key(ps):
    k = np.int64(0)
    for s in range(18):
        k |= np.int64(ps[P_BLD + s]) << np.int64(3 * s)
    return k


@njit(cache=True)
def full_columns(ps, used):
    """Expansion columns (not the home board's two) whose 3 spaces are all in ``used``."""
    home = ps[P_HOME]
    full = used & (used >> U1) & (used >> np.uint64(2)) & ROW0 & ((np.uint64(1) << np.uint64(3 * ps[P_NCOLS])) - U1)
    full &= ~(np.uint64(9) << np.uint64(3 * home))
    return popcount(full)


@njit(cache=True, _nrt=False)
def closed_value(ps, prm, O, B, T, past, DN, RT, R):
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
    DN, RT, _LEAK, past = flood_pastures(ps[P_NCOLS], O, E)
    return closed_value(ps, prm, O, B, T, past, DN, RT, U0)


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
