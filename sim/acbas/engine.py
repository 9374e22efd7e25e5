"""Agricola: All Creatures Big and Small engine (numba).

One game = ``play_game``; a batch = ``play_batch`` (``prange`` over games). Player farms are int64 rows
(layout in ``farm.py``); the shared board is the int64 array ``gs`` (layout below). Every decision goes
to the seat's bot with engine-computed candidates and features (see ``bots.md``). Indices computed at run time
are ``np.uint64`` (no negative-index wraparound code; see ``farm.py``).
"""
import numpy as np
from numba import njit, prange

from sim.core.bots import MAX_ENTRIES, READS_ALL, READS_NONE, entry_of_seat
from sim.core.rng import rng_init

from .farm import (NSPACE, U1, times_pow, REG, REG_END, RBND, RSIZE, SPACE_EDGES, lowbit_index, P_AN, P_BLD,
                   P_BORD, P_E, P_HOME, P_NCOLS, P_REED, P_SIZE, P_STONE, P_T, P_WOOD,
                   U0, FLAT_MASK, FLAT_SHIFT, FLAT_W, WCOLS, WROWS, bit, building_mask, containers_w, flood_prep, fval, grow, has_building,
                   house_w, new_farm, pastures_mask, popcount, score_parts, score_parts_o)
from .borrow import borrow
from .params import (B_COTTAGE, B_HTH, B_OPEN, B_SHELTER, B_STABLES, B_STALL, B_STORAGE, I_BM_REED, I_EXP_POINTS,
                     I_CAPB, I_LONE, I_PASTURE, I_PTSB, I_TMULT,
                     I_BM_STONE, I_BM_WOOD, I_BREED_MIN, I_CP_X, I_CP_Y, I_EXP_POOL, I_EXP_REFILL,
                     I_EXPANSIONS, I_FENCE_WOOD, I_HS_X, I_HS_Y, I_HTH_R, I_HTH_S, I_HTH_W, I_MILL_X, I_MILL_Y,
                     I_OPEN_COST, I_PLAN_MAX, I_PS_X, I_PS_Y, I_ROUNDS, I_SHE_R, I_SHE_S, I_SHE_W, I_SP_WOOD,
                     I_STABLES_COST, I_STALL_REED, I_STALL_STONE, I_STALLS, I_START_BORDERS, I_START_REED,
                     I_START_STONE, I_START_WOOD, I_STO_R, I_STO_S, I_STO_W, I_STONE1, I_STONE2, I_TROUGH_FREE,
                     I_TROUGH_WOOD, I_TROUGHS, I_WALL_STONE, I_WALLS_FREE, I_WOOD3, I_WORKERS)

# action slots
S_SP, S_WOOD, S_STONE1, S_STONE2, S_BM, S_FENCES, S_WALLS, S_EXPAND, S_TROUGHS, S_STALL, S_STABLES, \
    S_SPEC1, S_SPEC2, S_MILL, S_PIGSHEEP, S_COWPIG, S_HORSESHEEP = range(17)
NSLOT = 17
# goods on a space / in a gain vector: wood, stone, reed, sheep, pigs, cows, horses, borders
NG = 8
G_WOOD, G_STONE, G_REED, G_SHEEP, G_PIG, G_COW, G_HORSE, G_BORD = range(8)

# shared state gs
GS_ROUND, GS_START, GS_NEXT, GS_TROUGHS, GS_STALLS, GS_EXPS, GS_POOL = range(7)
GS_SPEC = 7  # 4 flags: Half-Timbered House, Storage, Shelter, Open Stables (1 = still available)
GS_OCC = 11  # 17 slots: -1 free, else the seat
GS_ACC = GS_OCC + NSLOT  # 17 x 8 goods lying on the spaces
GS_SIZE = GS_ACC + NSLOT * NG
SPECIAL_CODES = np.array([B_HTH, B_STORAGE, B_SHELTER, B_OPEN], dtype=np.int64)

# decision kinds
K_ACTION, K_PLAN, K_TROUGH, K_STALL, K_STABLES, K_SPECIAL, K_EXPAND, K_SHELTER, K_OPENST = range(9)
NF = 11  # feature columns
F_SCORE, F_WOOD, F_STONE, F_REED, F_BORD, F_CAP, F_KEPT, F_LOST, F_PAIRS, F_BPTS, F_ONSPACE = range(11)
MAXM = 1024
DEFAULT_PLAN_SPACES = 5  # largest region the action estimate considers as its default enclosure
MW = 4  # move row width

# view layout
V_ROUND, V_ROUNDS, V_SEAT, V_START, V_SLOT, V_MYLEFT, V_OPPLEFT = range(7)
V_ME = 7
V_OPP = V_ME + P_SIZE
V_GS = V_OPP + P_SIZE
V_LEN = V_GS + GS_SIZE

# event log records: code + 9 arguments
LOGW = 10
E_ROUND, E_PLACE, E_GAIN, E_HOUSE, E_BORDERS, E_TROUGH, E_STALL, E_STABLES, E_SPECIAL, E_EXPAND, E_ANIMAL, \
    E_BREED, E_FARM, E_SCORE = range(1, 15)

# workspace (int64, 2-D): rows 0..WROWS-1 for containers_w / house_w, then per player PCR rows holding the
# cache of enclosure plans (flat index f -> row WROWS + p*PCR + f >> FLAT_SHIFT, column f & FLAT_MASK)
PC_ROW = 6
PC_BEST = 8 + MAXM * PC_ROW  # then the best plan per (walls, most borders affordable): 2 x PC_KC entries
PC_KC = 64
PC_LAZY = -(1 << 62)  # a cached plan's farm effect not computed yet
# then the estimate's default trough and stall spaces for the farm (E, T, buildings, columns): they depend on
# the farm alone (costs and Storage points are the same for every candidate space); -2 = not known yet
PC_EST = PC_BEST + 2 * PC_KC
PC_STRIDE = PC_EST + 8  # PC_EST + 6, + 7: the capacity and expansion points the default trough adds
PCR = (PC_STRIDE + FLAT_W - 1) // FLAT_W
# then the hash set that dedupes enclosure plans: keys at flat 0..HS-1, stamps at HS..2HS-1, call counter
HS_BITS = 12
HS = 1 << HS_BITS
H_ROW = WROWS + 2 * PCR
S_ROW = H_ROW + (2 * HS + 1 + FLAT_W - 1) // FLAT_W  # then one row: the deciding player's container capacities
S2_ROW = S_ROW + 1  # then one row: the container capacities of best_free_animal's farm
# wk[S_ROW, MONO_COL] = 1 when bounds_hold for the parameters (set per chunk): a farm that can still house all its
# animals keeps them all (the housing search's first best set is then all of them), so the shortcuts that skip
# the housing (keeps_all, then _eval_known with the farm's animals as they are) are exact; 0 turns them off
MONO_COL = WCOLS - 4
# then the evaluation memo (evaluate_m): EM entries of EM_W words, 16 per row: [borders, troughs | columns << 20 |
# home << 24, buildings, animals in (16 bits each), animals kept, capacity, closed pastures, score parts packed
# (_pack_parts)]; an empty entry (all 0) matches no farm (columns >= 2)
EM_BITS = 11
EM = 1 << EM_BITS
EM_W = 8
EM_ROW = S2_ROW + 1
W_ROWS_ALL = EM_ROW + EM // 16
# the regions the action estimate closes (up to DEFAULT_PLAN_SPACES spaces), in REG order
_small = np.nonzero(RSIZE <= DEFAULT_PLAN_SPACES)[0]
SREG = REG[_small].copy()
SRBND = RBND[_small].copy()
SRSIZE = RSIZE[_small].copy()
SREG_END = np.array([int(np.sum(_small < REG_END[c])) for c in range(len(REG_END))], dtype=np.int64)
# REG_WITH[s, w] bit j: region 64*w + j contains space s (plan generation skips the regions holding a building
# without looking at them)
def _with_bits(regs):
    return np.stack([np.packbits(np.concatenate([((regs >> s_) & 1).astype(np.uint8),
                                                 np.zeros((-len(regs)) % 64, np.uint8)]),
                                 bitorder="little").view(np.uint64) for s_ in range(NSPACE)])


REG_WITH = _with_bits(REG)
SREG_WITH = _with_bits(SREG)  # the same for the estimate's small regions
BK_LOW = np.int64(sum(1 << (3 * s_) for s_ in range(18)))  # the low bit of each 3-bit field of bld_key
assert B_STORAGE == 7  # has_storage_key below relies on the code being 0b111


@njit(cache=True, inline="always")
def has_storage_key(bkey):
    """Is the Storage Building among the buildings of bld_key ``bkey``? (a 3-bit field of it is all ones)"""
    return bkey & (bkey >> 1) & (bkey >> 2) & BK_LOW != 0
assert B_STORAGE == 7
ROW0 = np.uint64(sum(1 << (3 * c) for c in range(6)))
ROW2 = np.uint64(sum(1 << (3 * c + 2) for c in range(6)))


def new_wk():
    return np.zeros((W_ROWS_ALL, WCOLS), dtype=np.int64)


@njit(cache=True, inline="always")
def _log(log, nlog, on, code, a0, a1, a2, a3, a4, a5, a6, a7, a8):
    if on and nlog[0] < log.shape[0]:
        i = nlog[0]
        log[i, 0] = code
        log[i, 1] = a0
        log[i, 2] = a1
        log[i, 3] = a2
        log[i, 4] = a3
        log[i, 5] = a4
        log[i, 6] = a5
        log[i, 7] = a6
        log[i, 8] = a7
        log[i, 9] = a8
        nlog[0] = i + 1


# ---------------------------------------------------------------------------------------------
# evaluation: house the animals exactly and score the farm as if the game ended now

@njit(cache=True)
def evaluate(ps, prm, prmf, wk, res):
    """House ps's animals (the best set is kept, the rest run away: ps is updated) and fill
    res = [score, total capacity, animals kept, breeding pairs, building points]."""
    evaluate_m(ps, prm, prmf, wk, res, -1, U0, -1, bld_key(ps))


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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
    if (wk[np.uint64(r), np.uint64(c)] == w0 and wk[np.uint64(r), np.uint64(c + 1)] == w1
            and wk[np.uint64(r), np.uint64(c + 2)] == w2 and wk[np.uint64(r), np.uint64(c + 3)] == w3):
        kept = wk[np.uint64(r), np.uint64(c + 4)]
        for t in range(4):
            ps[P_AN + t] = (kept >> np.int64(16 * t)) & 0xFFFF
        pk = wk[np.uint64(r), np.uint64(c + 7)]
        if pk < 0:
            _eval_known(ps, prm, prmf, res, wk[np.uint64(r), np.uint64(c + 5)], pk, 0, 0, has_storage_key(bkey))
        else:
            _eval_finish(ps, prm, prmf, res, wk[np.uint64(r), np.uint64(c + 5)],
                         np.uint64(wk[np.uint64(r), np.uint64(c + 6)]))
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
        _eval_known(ps, prm, prmf, res, cap, 0, wk[np.uint64(krow), WCOLS - 2], wk[np.uint64(krow), WCOLS - 3],
                    has_storage_key(bkey))
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


@njit(cache=True, inline="always")
def evalx(ps, prm, prmf, wk, res, cheap):
    """evaluate(), or when ``cheap`` eval_cheap()."""
    if cheap:
        eval_cheap(ps, prm, prmf, wk, res)
    else:
        evaluate(ps, prm, prmf, wk, res)


@njit(cache=True, inline="always")
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


@njit(cache=True)
def _ask(kind, n, fns, weights, entry, rng, view, moves, feats, default):
    """Default mode (used to estimate an action's value) picks the
    candidate with the best immediate value plus a little capacity, the first on ties."""
    if n <= 1:
        return 0
    if default:
        best = -1e18
        bi = 0
        for i in range(n):
            v = feats[i, F_SCORE] + 0.2 * feats[i, F_CAP] + 0.05 * (feats[i, F_WOOD] + feats[i, F_STONE]
                                                                    + feats[i, F_REED])
            if v > best + 1e-9:
                best = v
                bi = i
        return bi
    i = fns[entry](kind, view, moves, n, feats, weights[entry], rng)
    if i < 0 or i >= n:
        return 0
    return i


@njit(cache=True, inline="always")
def _copy(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def gain_animals(ps, prm, prmf, wk, res, a0, a1, a2, a3):
    ps[P_AN] += a0
    ps[P_AN + 1] += a1
    ps[P_AN + 2] += a2
    ps[P_AN + 3] += a3
    evaluate(ps, prm, prmf, wk, res)


# ---------------------------------------------------------------------------------------------
# enclosure plans (Fences / Walls)

@njit(cache=True, inline="always")
def _hg(wk, f):
    return wk[np.uint64(H_ROW + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)]


@njit(cache=True, inline="always")
def _hs(wk, f, v):
    wk[np.uint64(H_ROW + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)] = v


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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
def gen_plans(ps, prm, moves, maxm, kmax, maxsize, partial_max, singles, wk):
    """Enclosure plans, rows [edge mask, borders, region space mask, open space or -1], at most ``maxm``,
    each with 1..kmax borders, each border set once:
    * singles (when ``singles``): every useful border position alone (region 0), so that any border set
      the rules allow can be built border by border, over several actions too;
    * closures: for every connected region R of building-free spaces (every polyomino on the farm, up
      to ``maxsize`` spaces) the borders still missing around it (sides towards buildings need none).
      A region inside a pasture gives a split, a region around an unfinished enclosure its completion,
      a region containing an existing pasture an extension;
    * partial closures (regions up to ``partial_max`` spaces): the same minus the sides towards one free
      neighbour space (the open space), to be closed later by a building or more borders."""
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
    n = _closure_plans(REG_WITH, REG, RBND, RSIZE, maxsize, REG_END[ncols], B, EB | E, kmax, moves, n, maxm, wk, stamp)
    # REG is sorted by last column, then size: in each column's block the small regions come first
    for cb in range(ncols):
        if n >= maxm:
            break
        for i in range(REG_END[cb], REG_END[cb + 1]):
            if n >= maxm:
                break
            if RSIZE[i] > partial_max:
                break
            R = np.uint64(REG[i])
            if R & B != U0:
                continue
            need = np.uint64(RBND[i]) & ~EB & ~E
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
    return n


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def same_pastures(ncols, O, E, past0, nc0):
    """Has ps's farm (open spaces O) with border mask E the closed pastures past0, nc0 of them
    (count_pastures)? They are found by one flood from the leaking spaces, and counted only when they cover
    the same spaces."""
    DN, RT, LEAK = flood_prep(ncols, O, E)
    past = O & ~grow(LEAK, O, DN, RT)
    if past != past0:
        return False
    return count_pastures(past, DN, RT) == nc0


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def can_border(ps, prm, walls, placed):
    """Can one more border be placed and paid, at a position that still helps (then the single-border plan
    at least is offered)?"""
    return can_border_u(ps, prm, walls, placed, useful_edges(ps))


@njit(cache=True, inline="always")
def can_border_u(ps, prm, walls, placed, ue):
    """can_border() with ps's useful border positions ue (useful_edges(ps)) known."""
    if ps[P_BORD] <= 0:
        return False
    w, s = border_cost(walls, 1, placed, prm)
    if ps[P_WOOD] < w or ps[P_STONE] < s:
        return False
    return ue != U0


@njit(cache=True, inline="always")
def bld_key(ps):
    k = np.int64(0)
    for s in range(18):
        k |= np.int64(ps[P_BLD + s]) << np.int64(3 * s)
    return k


@njit(cache=True, inline="always")
def _pcg(wk, p, f):
    return wk[np.uint64(WROWS + p * PCR + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)]


@njit(cache=True, inline="always")
def _pcs(wk, p, f, v):
    wk[np.uint64(WROWS + p * PCR + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)] = v


@njit(cache=True, inline="always")
def full_columns(ps, used):
    """Expansion columns (not the home board's two) whose 3 spaces are all in ``used``."""
    home = ps[P_HOME]
    full = used & (used >> U1) & (used >> np.uint64(2)) & ROW0 & ((np.uint64(1) << np.uint64(3 * ps[P_NCOLS])) - U1)
    full &= ~(np.uint64(9) << np.uint64(3 * home))
    return popcount(full)


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def open_value(ps, prm, O, B, T, E):
    """(capacity of the closed pastures and lone troughs, full expansions) of ps's farm with border mask E
    (open spaces O, buildings B, troughs T): the parts of eval_cheap that borders change."""
    DN, RT, LEAK = flood_prep(ps[P_NCOLS], O, E)
    # the closed pastures are the open spaces that no leaking space reaches: one flood from all of them
    return _closed_value(ps, prm, O, B, T, O & ~grow(LEAK, O, DN, RT), DN, RT, U0)


@njit(cache=True, inline="always")
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
    return _closure_plans(SREG_WITH, SREG, SRBND, SRSIZE, DEFAULT_PLAN_SPACES, SREG_END[ncols], B, EB | E, kmax, moves,
                          n, maxm, wk, stamp)


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


@njit(cache=True, inline="always")
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
    if not (_pcg(wk, me, b + 5) == 1 and _pcg(wk, me, b) == ps[P_E] and _pcg(wk, me, b + 1) == ps[P_T] and _pcg(wk, me, b + 2) == key
            and _pcg(wk, me, b + 3) == ps[P_NCOLS] and _pcg(wk, me, b + 4) == ps[P_BORD]):
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


@njit(cache=True)
def do_borders(ps, gs, me, walls, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, res0, res1,
               log, nlog, log_on):
    placed = 0
    if default:
        r = default_borders(ps, me, walls, prm, prmf, wk, moves, bld_key(ps), False)
        return 0 if r < 0 else _pcg(wk, me, r + 1)
    storage = has_building(ps, B_STORAGE)
    st = prmf[0] if storage else 0.0
    while True:
        if not can_border(ps, prm, walls, placed):
            break
        kmax = max_borders(ps, prm, walls, placed)
        n = gen_plans(ps, prm, moves, MAXM - 1, kmax, NSPACE, prm[I_PLAN_MAX], True, wk)
        evalx(ps, prm, prmf, wk, res0, default)
        ncols = ps[P_NCOLS]
        B = building_mask(ps)
        T = np.uint64(ps[P_T])
        O = ((np.uint64(1) << np.uint64(3 * ncols)) - U1) & ~B
        DN0, RT0, LEAK0 = flood_prep(ncols, O, np.uint64(ps[P_E]))
        past0 = O & ~grow(LEAK0, O, DN0, RT0)
        nc0 = count_pastures(past0, DN0, RT0)
        # the border positions next to a closed pasture's spaces (a new border there splits it) and what the
        # pastures and lone troughs hold now (the rest of the capacity is the buildings')
        PE0 = U0
        rest = past0
        while rest != U0:
            b = rest & (~rest + U1)
            rest &= ~b
            PE0 |= np.uint64(SPACE_EDGES[np.uint64(lowbit_index(b))])
        capo0, nexp0 = _closed_value(ps, prm, O, B, T, past0, DN0, RT0, U0)
        m = 0
        for i in range(n):
            k = moves[np.uint64(i), 1]
            w, s = border_cost(walls, k, placed, prm)
            if w > ps[P_WOOD] or s > ps[P_STONE]:
                continue
            for j in range(MW):
                moves[np.uint64(m), j] = moves[np.uint64(i), j]
            _copy(tps, ps)
            tps[P_E] = tps[P_E] | moves[np.uint64(m), 0]
            tps[P_BORD] -= k
            tps[P_WOOD] -= w
            tps[P_STONE] -= s
            # a closure (region R, no open space) always changes the pastures: R's boundary is complete after it,
            # so either R leaked before and is closed now, or R lay in a closed pasture that a missing border of
            # R's boundary (not a farm-edge side: R would leak) joined to a space outside R, and that pasture splits
            need = np.uint64(moves[np.uint64(m), 0])
            if (moves[np.uint64(m), 3] < 0 and moves[np.uint64(m), 2] != 0) \
                    or not same_pastures(ncols, O, np.uint64(tps[P_E]), past0, nc0):
                DN1, RT1, LEAK1 = flood_prep(ncols, O, np.uint64(tps[P_E]))
                past1 = O & ~grow(LEAK1, O, DN1, RT1)
                if need & PE0 == U0 and keeps_all(prm, wk, T, past1 & ~past0):
                    # no closed pasture changes (no new border touches one) and every animal stays housed
                    capo1, nexp1 = _closed_value(tps, prm, O, B, T, past1, DN1, RT1, U0)
                    _eval_known(tps, prm, prmf, res1, res0[1] - capo0 + capo1, 0, res0[10], nexp1 * prm[I_EXP_POINTS],
                                storage)
                else:
                    evalx(tps, prm, prmf, wk, res1, default)
            else:
                # same pastures: same containers and housing; only the goods (Storage points) change
                for j in range(13):
                    res1[j] = res0[j]
                res1[0] -= st * (w + s)
                res1[12] -= st * (w + s)
            feat_row(feats, m, res0, res1, ps, tps, 0)
            m += 1
        if m == 0:
            break
        if placed > 0:
            moves[np.uint64(m), 0] = 0
            moves[np.uint64(m), 1] = 0
            moves[np.uint64(m), 2] = 0
            moves[np.uint64(m), 3] = -1
            for j in range(NF):
                feats[np.uint64(m), j] = 0.0
            m += 1
        if default and placed > 0:
            break
        i = _ask(K_PLAN, m, fns, weights, entry, rng, view, moves, feats, default)
        k = moves[np.uint64(i), 1]
        if k == 0:
            break
        w, s = border_cost(walls, k, placed, prm)
        ps[P_E] = ps[P_E] | moves[np.uint64(i), 0]
        ps[P_BORD] -= k
        ps[P_WOOD] -= w
        ps[P_STONE] -= s
        placed += k
        _log(log, nlog, log_on, E_BORDERS, me, moves[i, 0], k, w, s, moves[i, 2], moves[i, 3], 0, 0)
        evalx(ps, prm, prmf, wk, res0, default)
    return placed


# ---------------------------------------------------------------------------------------------
# troughs, stall, stables, special buildings, expansion

@njit(cache=True, inline="always")
def _pasture_of(ps, past, s):
    ncols = ps[P_NCOLS]
    O = past
    DN, RT, LEAK = flood_prep(ncols, O, np.uint64(ps[P_E]))
    return grow(bit(s), O, DN, RT)


@njit(cache=True, inline="always")
def trough_cost(placed, prm):
    return 0 if placed < prm[I_TROUGH_FREE] else prm[I_TROUGH_WOOD]


@njit(cache=True, inline="always")
def trough_gain(ps, prm, past, s):
    """(capacity, expansion points) that one more trough on space s adds to ps's farm (closed pastures past).
    The farm then keeps every animal it houses now: its containers only grow (_eval_known scores it)."""
    T = np.uint64(ps[P_T])
    tm = prm[I_TMULT]
    code = ps[np.uint64(P_BLD + s)]
    if code != 0:
        c = prm[np.uint64(I_CAPB + code)]
        return (c * tm - c if c > 0 else 0), 0
    if past & bit(s) != U0:
        P = _pasture_of(ps, past, s)
        base = prm[I_PASTURE] * popcount(P)
        c0 = times_pow(base, tm, popcount(P & T))
        c1 = times_pow(base, tm, popcount(P & T) + 1)
        return max(c1, 0) - max(c0, 0), 0
    # an open space: a lone trough, and the space counts as used for the expansions
    used = building_mask(ps) | T | past
    return max(prm[I_LONE], 0), (full_columns(ps, used | bit(s)) - full_columns(ps, used)) * prm[I_EXP_POINTS]


@njit(cache=True, inline="always")
def est_cache(ps, me, wk, key):
    """Make the per-player estimate cache (PC_EST) describe ps's farm (resetting it if the farm changed);
    key: bld_key(ps)."""
    if not (_pcg(wk, me, PC_EST) == ps[P_E] and _pcg(wk, me, PC_EST + 1) == ps[P_T]
            and _pcg(wk, me, PC_EST + 2) == key and _pcg(wk, me, PC_EST + 3) == ps[P_NCOLS]):
        _pcs(wk, me, PC_EST, ps[P_E])
        _pcs(wk, me, PC_EST + 1, ps[P_T])
        _pcs(wk, me, PC_EST + 2, key)
        _pcs(wk, me, PC_EST + 3, ps[P_NCOLS])
        _pcs(wk, me, PC_EST + 4, -2)
        _pcs(wk, me, PC_EST + 5, -2)
        _pcs(wk, me, PC_EST + 6, -1)


@njit(cache=True)
def do_troughs(ps, gs, me, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, res0, res1, log, nlog, log_on):
    placed = 0
    storage = has_building(ps, B_STORAGE)
    while gs[GS_TROUGHS] > 0:
        w = trough_cost(placed, prm)
        if ps[P_WOOD] < w:
            break
        if default:
            est_cache(ps, me, wk, bld_key(ps))
            c = _pcg(wk, me, PC_EST + 4)
            if c != -2:
                if c >= 0:
                    ps[P_T] = np.int64(np.uint64(ps[P_T]) | bit(c))
                    ps[P_WOOD] -= w
                    gs[GS_TROUGHS] -= 1
                    placed += 1
                break
        if not default:  # the estimate's caller put eval_cheap(ps) in res0
            evalx(ps, prm, prmf, wk, res0, default)
        T = np.uint64(ps[P_T])
        m = 0
        seen = np.uint64(0)
        past = pastures_mask(ps)
        for s in range(3 * ps[P_NCOLS]):
            if T & bit(s) != U0:
                continue
            if default and ps[np.uint64(P_BLD + s)] == 0:
                # the estimate needs one space per kind: a free space outside pastures, or one per pasture
                if past & bit(s) == U0:
                    if seen & bit(18) != U0:
                        continue
                    seen |= bit(18)
                else:
                    if seen & bit(s) != U0:
                        continue
                    seen |= _pasture_of(ps, past, s)
            moves[np.uint64(m), 0] = s
            moves[np.uint64(m), 1] = w
            moves[np.uint64(m), 2] = 0
            moves[np.uint64(m), 3] = 0
            _copy(tps, ps)
            tps[P_T] = np.int64(T | bit(s))
            tps[P_WOOD] -= w
            # a trough keeps every animal: no housing needed, only its capacity and expansions (trough_gain)
            dc, dx = trough_gain(ps, prm, past, s)
            if default:
                # eval_cheap(tps) from eval_cheap(ps) in res0
                res1[10] = res0[10]
                res1[11] = res0[11] + dx
                res1[12] = prmf[0] * (tps[P_WOOD] + tps[P_STONE] + tps[P_REED]) if storage else 0.0
                res1[0] = res1[10] + res1[11] + res1[12]
                res1[1] = res0[1] + dc
                res1[2] = 0
                res1[3] = 0
                res1[4] = res1[10]
            elif wk[S_ROW, MONO_COL] == 1:
                _eval_known(tps, prm, prmf, res1, res0[1] + dc, 0, res0[10], res0[11] + dx, storage)
            else:
                evalx(tps, prm, prmf, wk, res1, default)
            feat_row(feats, m, res0, res1, ps, tps, 0)
            m += 1
        if m == 0:
            if default:
                _pcs(wk, me, PC_EST + 4, -1)
            break
        if placed > 0:
            moves[np.uint64(m), 0] = -1
            moves[np.uint64(m), 1] = 0
            for j in range(NF):
                feats[np.uint64(m), j] = 0.0
            m += 1
        if default and placed > 0:
            break
        i = _ask(K_TROUGH, m, fns, weights, entry, rng, view, moves, feats, default)
        s = moves[np.uint64(i), 0]
        if default:
            _pcs(wk, me, PC_EST + 4, s)
        if s < 0:
            break
        ps[P_T] = np.int64(np.uint64(ps[P_T]) | bit(s))
        ps[P_WOOD] -= w
        gs[GS_TROUGHS] -= 1
        placed += 1
        _log(log, nlog, log_on, E_TROUGH, me, s, w, 0, 0, 0, 0, 0, 0)
        if default:
            break  # the estimate places one trough (its caller evaluates the farm)
        evalx(ps, prm, prmf, wk, res0, default)
    return placed


@njit(cache=True, inline="always")
def can_stall(ps, gs, prm):
    if gs[GS_STALLS] <= 0 or ps[P_STONE] < prm[I_STALL_STONE] or ps[P_REED] < prm[I_STALL_REED]:
        return False
    return building_mask(ps) != ((np.uint64(1) << np.uint64(3 * ps[P_NCOLS])) - np.uint64(1))


@njit(cache=True)
def do_stall(ps, gs, me, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, res0, res1, log, nlog, log_on):
    if default:
        est_cache(ps, me, wk, bld_key(ps))
        s = _pcg(wk, me, PC_EST + 5)
        if s >= 0:
            ps[np.uint64(P_BLD + s)] = B_STALL
            ps[P_STONE] -= prm[I_STALL_STONE]
            ps[P_REED] -= prm[I_STALL_REED]
            gs[GS_STALLS] -= 1
            return
    if not default:  # the estimate's caller put eval_cheap(ps) in res0
        evalx(ps, prm, prmf, wk, res0, default)
    m = 0
    for s in range(3 * ps[P_NCOLS]):
        if ps[np.uint64(P_BLD + s)] != 0:
            continue
        moves[np.uint64(m), 0] = s
        moves[np.uint64(m), 1] = 0
        moves[np.uint64(m), 2] = 0
        moves[np.uint64(m), 3] = 0
        _copy(tps, ps)
        tps[np.uint64(P_BLD + s)] = B_STALL
        tps[P_STONE] -= prm[I_STALL_STONE]
        tps[P_REED] -= prm[I_STALL_REED]
        evalx(tps, prm, prmf, wk, res1, default)
        feat_row(feats, m, res0, res1, ps, tps, 0)
        m += 1
    i = _ask(K_STALL, m, fns, weights, entry, rng, view, moves, feats, default)
    s = moves[np.uint64(i), 0]
    if default:
        _pcs(wk, me, PC_EST + 5, s)
    ps[np.uint64(P_BLD + s)] = B_STALL
    ps[P_STONE] -= prm[I_STALL_STONE]
    ps[P_REED] -= prm[I_STALL_REED]
    gs[GS_STALLS] -= 1
    _log(log, nlog, log_on, E_STALL, me, s, 0, 0, 0, 0, 0, 0, 0)
    if not default:
        evalx(ps, prm, prmf, wk, res0, default)


@njit(cache=True, inline="always")
def can_stables(ps, prm):
    c = prm[I_STABLES_COST]
    if ps[P_WOOD] < c and ps[P_STONE] < c:
        return False
    for s in range(3 * ps[P_NCOLS]):
        if ps[P_BLD + s] == B_STALL:
            return True
    return False


@njit(cache=True)
def do_stables(ps, gs, me, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, res0, res1, log, nlog,
               log_on):
    c = prm[I_STABLES_COST]
    placed = 0
    while can_stables(ps, prm):
        if not default:  # the estimate's caller put eval_cheap(ps) in res0
            evalx(ps, prm, prmf, wk, res0, default)
        m = 0
        for s in range(3 * ps[P_NCOLS]):
            if ps[np.uint64(P_BLD + s)] != B_STALL:
                continue
            for pay in range(2):
                if (pay == 0 and ps[P_WOOD] < c) or (pay == 1 and ps[P_STONE] < c):
                    continue
                moves[np.uint64(m), 0] = s
                moves[np.uint64(m), 1] = pay
                moves[np.uint64(m), 2] = 0
                moves[np.uint64(m), 3] = 0
                _copy(tps, ps)
                tps[np.uint64(P_BLD + s)] = B_STABLES
                if pay == 0:
                    tps[P_WOOD] -= c
                else:
                    tps[P_STONE] -= c
                evalx(tps, prm, prmf, wk, res1, default)
                feat_row(feats, m, res0, res1, ps, tps, 0)
                m += 1
        if placed > 0:
            moves[np.uint64(m), 0] = -1
            moves[np.uint64(m), 1] = -1
            for j in range(NF):
                feats[np.uint64(m), j] = 0.0
            m += 1
        if default and placed > 0:
            break
        i = _ask(K_STABLES, m, fns, weights, entry, rng, view, moves, feats, default)
        s = moves[np.uint64(i), 0]
        if s < 0:
            break
        ps[np.uint64(P_BLD + s)] = B_STABLES
        if moves[np.uint64(i), 1] == 0:
            ps[P_WOOD] -= c
        else:
            ps[P_STONE] -= c
        placed += 1
        _log(log, nlog, log_on, E_STABLES, me, s, moves[np.uint64(i), 1], 0, 0, 0, 0, 0, 0)
        if default:
            return placed  # the estimate builds one stables (its caller evaluates the farm)
    if not default:
        evalx(ps, prm, prmf, wk, res0, default)
    return placed


@njit(cache=True, inline="always")
def special_cost(code, pay, prm):
    """(wood, stone, reed) of a special building (pay: 0 wood / 1 stone for the Open Stables)."""
    if code == B_HTH:
        return prm[I_HTH_W], prm[I_HTH_S], prm[I_HTH_R]
    if code == B_STORAGE:
        return prm[I_STO_W], prm[I_STO_S], prm[I_STO_R]
    if code == B_SHELTER:
        return prm[I_SHE_W], prm[I_SHE_S], prm[I_SHE_R]
    if pay == 0:
        return prm[I_OPEN_COST], 0, 0
    return 0, prm[I_OPEN_COST], 0


@njit(cache=True)
def gen_specials(ps, gs, prm, moves):
    """Rows [code, space, pay]: every available, affordable special building on every legal space."""
    m = 0
    for j in range(4):
        if gs[GS_SPEC + j] == 0:
            continue
        code = SPECIAL_CODES[j]
        for pay in range(2):
            if pay == 1 and code != B_OPEN:
                continue
            w, st, r = special_cost(code, pay, prm)
            if ps[P_WOOD] < w or ps[P_STONE] < st or ps[P_REED] < r:
                continue
            for s in range(3 * ps[P_NCOLS]):
                b = ps[P_BLD + s]
                ok = False
                if code == B_HTH:
                    ok = b == B_COTTAGE
                elif code == B_OPEN:
                    ok = b == B_STALL
                else:
                    ok = b == 0
                if ok:
                    moves[np.uint64(m), 0] = code
                    moves[np.uint64(m), 1] = s
                    moves[np.uint64(m), 2] = pay
                    moves[np.uint64(m), 3] = 0
                    m += 1
    return m


@njit(cache=True, inline="always")
def can_special(ps, gs, prm):
    for j in range(4):
        if gs[GS_SPEC + j] == 0:
            continue
        code = SPECIAL_CODES[j]
        for pay in range(2):
            if pay == 1 and code != B_OPEN:
                continue
            w, st, r = special_cost(code, pay, prm)
            if ps[P_WOOD] < w or ps[P_STONE] < st or ps[P_REED] < r:
                continue
            for s in range(3 * ps[P_NCOLS]):
                b = ps[P_BLD + s]
                if (code == B_HTH and b == B_COTTAGE) or (code == B_OPEN and b == B_STALL) or \
                        (code != B_HTH and code != B_OPEN and b == 0):
                    return True
    return False


@njit(cache=True, inline="always")
def place_special(ps, gs, code, s, pay, prm):
    w, st, r = special_cost(code, pay, prm)
    ps[P_WOOD] -= w
    ps[P_STONE] -= st
    ps[P_REED] -= r
    if code == B_OPEN:
        gs[GS_STALLS] += 1  # the stall tile goes back to the supply
    ps[np.uint64(P_BLD + s)] = code
    for j in range(4):
        if SPECIAL_CODES[j] == code:
            gs[GS_SPEC + j] = 0


@njit(cache=True, inline="always")
def quick_free_animal(ps, code, prm):
    """The estimate's free animal: the type whose next animal adds the most points (housing ignored)."""
    best = -1 << 30
    bt = 0
    for t in range(4):
        if code == B_OPEN and t < 2:
            continue
        n = ps[P_AN + t]
        v = fval(prm, t, n + 1) - fval(prm, t, n)
        if v > best:
            best = v
            bt = t
    return bt


@njit(cache=True)
def best_free_animal(ps, code, prm, prmf, wk, tps, res1):
    """Default choice of the free animal (Shelter: any type, Open Stables: cow or horse). The farm is the same
    for every type: its containers are found once (kept in row S2_ROW)."""
    best = -1e18
    bt = 0
    K = -1
    past = U0
    bk = bld_key(ps)
    for t in range(4):
        if code == B_OPEN and t < 2:
            continue
        _copy(tps, ps)
        tps[P_AN + t] += 1
        K, past = evaluate_m(tps, prm, prmf, wk, res1, K, past, S2_ROW, bk)
        if res1[0] > best + 1e-9:
            best = res1[0]
            bt = t
    return bt


@njit(cache=True)
def do_special(ps, gs, me, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, tps2, res0, res1,
               log, nlog, log_on):
    if not default:  # the estimate's caller put eval_cheap(ps) in res0
        evalx(ps, prm, prmf, wk, res0, default)
    m = gen_specials(ps, gs, prm, moves)
    if default:
        # the estimate needs one free space outside the pastures per building (pasture spaces all kept)
        past = pastures_mask(ps)
        m2 = 0
        seen = np.uint64(0)
        for i in range(m):
            code = moves[np.uint64(i), 0]
            sp = moves[np.uint64(i), 1]
            if (code == B_STORAGE or code == B_SHELTER) and past & bit(sp) == U0:
                key = bit(code)
                if seen & key != U0:
                    continue
                seen |= key
            for j in range(MW):
                moves[np.uint64(m2), j] = moves[np.uint64(i), j]
            m2 += 1
        m = m2
    # a Storage Building or Shelter on a free space outside the pastures and without a trough keeps every animal
    # (and the Shelter holds its free animal) when what it closes keeps them too (keeps_all): it is scored from the
    # farm's closed pastures without housing (the farm as it is: past0, its pastures' and lone troughs' capacity)
    quick = not default and wk[S_ROW, MONO_COL] == 1
    ncols = ps[P_NCOLS]
    B = building_mask(ps)
    T = np.uint64(ps[P_T])
    E0 = np.uint64(ps[P_E])
    O = ((np.uint64(1) << np.uint64(3 * ncols)) - U1) & ~B
    past0 = U0
    capo0 = 0
    if quick:
        DN0, RT0, LEAK0 = flood_prep(ncols, O, E0)
        past0 = O & ~grow(LEAK0, O, DN0, RT0)
        capo0, nexp0 = _closed_value(ps, prm, O, B, T, past0, DN0, RT0, U0)
    storage0 = has_building(ps, B_STORAGE)
    for i in range(m):
        _copy(tps2, ps)
        code = moves[np.uint64(i), 0]
        sp = moves[np.uint64(i), 1]
        w, st, r = special_cost(code, moves[np.uint64(i), 2], prm)
        tps2[P_WOOD] -= w
        tps2[P_STONE] -= st
        tps2[P_REED] -= r
        tps2[np.uint64(P_BLD + sp)] = code
        done = False
        capb = prm[np.uint64(I_CAPB + code)]
        if quick and (code == B_STORAGE or (code == B_SHELTER and capb >= 1)) and (past0 | T) & bit(sp) == U0:
            O1 = O & ~bit(sp)
            DN1, RT1, LEAK1 = flood_prep(ncols, O1, E0)
            past1 = O1 & ~grow(LEAK1, O1, DN1, RT1)
            if keeps_all(prm, wk, T, past1 & ~past0):
                capo1, nexp1 = _closed_value(tps2, prm, O1, B | bit(sp), T, past1, DN1, RT1, U0)
                cap1 = res0[1] - capo0 + capo1 + max(capb, 0)
                pts1 = res0[10] + prm[np.uint64(I_PTSB + code)]
                exp1 = nexp1 * prm[I_EXP_POINTS]
                storage1 = storage0 or code == B_STORAGE
                if code == B_SHELTER:
                    # the free animal goes into the empty Shelter: every type keeps all (best_free_animal's choice)
                    best = -1e18
                    bt = 0
                    for t in range(4):
                        tps2[np.uint64(P_AN + t)] += 1
                        _eval_known(tps2, prm, prmf, res1, cap1, 0, pts1, exp1, storage1)
                        tps2[np.uint64(P_AN + t)] -= 1
                        if res1[0] > best + 1e-9:
                            best = res1[0]
                            bt = t
                    tps2[np.uint64(P_AN + bt)] += 1
                _eval_known(tps2, prm, prmf, res1, cap1, 0, pts1, exp1, storage1)
                done = True
        if not done:
            if code == B_SHELTER or code == B_OPEN:
                if default:
                    t = quick_free_animal(tps2, code, prm)
                else:
                    t = best_free_animal(tps2, code, prm, prmf, wk, tps, res1)
                tps2[np.uint64(P_AN + t)] += 1
            evalx(tps2, prm, prmf, wk, res1, default)
        feat_row(feats, i, res0, res1, ps, tps2, 0)
    i = _ask(K_SPECIAL, m, fns, weights, entry, rng, view, moves, feats, default)
    code = moves[np.uint64(i), 0]
    s = moves[np.uint64(i), 1]
    pay = moves[np.uint64(i), 2]
    place_special(ps, gs, code, s, pay, prm)
    _log(log, nlog, log_on, E_SPECIAL, me, code, s, pay, 0, 0, 0, 0, 0)
    if default:
        # the estimate's free animal: eval_cheap does not see animals, so every type has the same (zero)
        # features and the default choice is the first row (sheep; for the Open Stables a cow)
        if code == B_SHELTER or code == B_OPEN:
            ps[np.uint64(P_AN + (2 if code == B_OPEN else 0))] += 1
        return
    evalx(ps, prm, prmf, wk, res0, default)
    if code == B_SHELTER or code == B_OPEN:
        m = 0
        for t in range(4):
            if code == B_OPEN and t < 2:
                continue
            moves[np.uint64(m), 0] = t
            moves[np.uint64(m), 1] = 0
            moves[np.uint64(m), 2] = 0
            moves[np.uint64(m), 3] = 0
            _copy(tps, ps)
            tps[np.uint64(P_AN + t)] += 1
            evalx(tps, prm, prmf, wk, res1, default)
            feat_row(feats, m, res0, res1, ps, tps, 1)
            m += 1
        kind = K_SHELTER if code == B_SHELTER else K_OPENST
        i = _ask(kind, m, fns, weights, entry, rng, view, moves, feats, default)
        t = moves[np.uint64(i), 0]
        ps[np.uint64(P_AN + t)] += 1
        evalx(ps, prm, prmf, wk, res0, default)
        _log(log, nlog, log_on, E_ANIMAL, me, t, ps[np.uint64(P_AN + t)], 0, 0, 0, 0, 0, 0)


@njit(cache=True, inline="always")
def add_column(ps, left):
    if left:
        ps[P_E] = np.int64(np.uint64(ps[P_E]) << np.uint64(7))
        ps[P_T] = np.int64(np.uint64(ps[P_T]) << np.uint64(3))
        for s in range(17, 2, -1):
            ps[np.uint64(P_BLD + s)] = ps[np.uint64(P_BLD + s - 3)]
        ps[P_BLD] = 0
        ps[P_BLD + 1] = 0
        ps[P_BLD + 2] = 0
        ps[P_HOME] += 1
    ps[P_NCOLS] += 1


@njit(cache=True)
def do_expand(ps, gs, me, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, res0, res1, log, nlog, log_on):
    acc = GS_ACC + NSLOT * 0 + S_EXPAND * NG
    got = gs[np.uint64(acc + G_BORD)]
    ps[P_BORD] += got
    gs[np.uint64(acc + G_BORD)] = 0
    side = -1
    if gs[GS_EXPS] > 0 and ps[P_NCOLS] < 6:
        if not default:  # the estimate's caller put eval_cheap(ps) in res0
            evalx(ps, prm, prmf, wk, res0, default)
        for left in range(2):
            moves[left, 0] = 1 - left  # row 0 = left (1), row 1 = right (0)
            moves[left, 1] = 0
            moves[left, 2] = 0
            moves[left, 3] = 0
            _copy(tps, ps)
            add_column(tps, left == 0)
            evalx(tps, prm, prmf, wk, res1, default)
            feat_row(feats, left, res0, res1, ps, tps, 0)
        i = _ask(K_EXPAND, 2, fns, weights, entry, rng, view, moves, feats, default)
        side = moves[np.uint64(i), 0]
        add_column(ps, side == 1)
        gs[GS_EXPS] -= 1
    _log(log, nlog, log_on, E_EXPAND, me, side, got, 0, 0, 0, 0, 0, 0)
    if not default:
        evalx(ps, prm, prmf, wk, res0, default)


# ---------------------------------------------------------------------------------------------
# action spaces

@njit(cache=True, inline="always")
def slot_legal(ps, gs, slot, prm, me, wk, moves):
    """Can ps's player take this action space now?"""
    return slot_legal_u(ps, gs, slot, prm, me, wk, moves, useful_edges(ps))


@njit(cache=True, inline="always")
def slot_legal_u(ps, gs, slot, prm, me, wk, moves, ue):
    """slot_legal() with ue = useful_edges(ps) known."""
    if gs[np.uint64(GS_OCC + slot)] >= 0:
        return False
    if slot == S_SPEC2 and gs[GS_OCC + S_SPEC1] < 0:
        return False  # the two special-building slots are the same action: offer the first free one
    if slot == S_FENCES or slot == S_WALLS:
        # the action must be carried out: at least one enclosure plan (a single border at least) has to be
        # affordable at a position that helps
        return can_border_u(ps, prm, slot == S_WALLS, 0, ue)
    if slot == S_TROUGHS:
        return gs[GS_TROUGHS] > 0 and ps[P_WOOD] >= trough_cost(0, prm) and np.uint64(ps[P_T]) != \
            ((np.uint64(1) << np.uint64(3 * ps[P_NCOLS])) - np.uint64(1))
    if slot == S_STALL:
        return can_stall(ps, gs, prm)
    if slot == S_STABLES:
        return can_stables(ps, prm)
    if slot == S_SPEC1 or slot == S_SPEC2:
        return can_special(ps, gs, prm)
    return True


@njit(cache=True, inline="always")
def do_action(ps, gs, me, slot, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, tps2, res0, res1,
              log, nlog, log_on):
    """Carry out ``slot`` for player ``me`` (ps = that player's farm). Returns the animals offered."""
    acc = GS_ACC + slot * NG
    offered = 0
    if slot == S_SP:
        gs[GS_NEXT] = me
    if slot == S_BM:
        ps[P_WOOD] += prm[I_BM_WOOD]
        ps[P_STONE] += prm[I_BM_STONE]
        ps[P_REED] += prm[I_BM_REED]
        _log(log, nlog, log_on, E_GAIN, me, slot, prm[I_BM_WOOD], prm[I_BM_STONE], prm[I_BM_REED], 0, 0, 0, 0)
    elif slot <= S_STONE2 or slot >= S_MILL:
        ps[P_WOOD] += gs[np.uint64(acc + G_WOOD)]
        ps[P_STONE] += gs[np.uint64(acc + G_STONE)]
        ps[P_REED] += gs[np.uint64(acc + G_REED)]
        a0 = gs[np.uint64(acc + G_SHEEP)]
        a1 = gs[np.uint64(acc + G_PIG)]
        a2 = gs[np.uint64(acc + G_COW)]
        a3 = gs[np.uint64(acc + G_HORSE)]
        offered = a0 + a1 + a2 + a3
        _log(log, nlog, log_on, E_GAIN, me, slot, gs[acc + G_WOOD], gs[acc + G_STONE], gs[acc + G_REED],
             a0, a1, a2, a3)
        for j in range(NG):
            gs[np.uint64(acc + j)] = 0
        if offered > 0:
            before = ps[P_AN] + ps[P_AN + 1] + ps[P_AN + 2] + ps[P_AN + 3]
            gain_animals(ps, prm, prmf, wk, res0, a0, a1, a2, a3)
            _log(log, nlog, log_on, E_HOUSE, me, ps[P_AN], ps[P_AN + 1], ps[P_AN + 2], ps[P_AN + 3],
                 before + offered - (ps[P_AN] + ps[P_AN + 1] + ps[P_AN + 2] + ps[P_AN + 3]), 0, 0, 0)
    elif slot == S_FENCES or slot == S_WALLS:
        do_borders(ps, gs, me, slot == S_WALLS, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, res0, res1,
                   log, nlog, log_on)
    elif slot == S_EXPAND:
        do_expand(ps, gs, me, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, res0, res1, log, nlog, log_on)
    elif slot == S_TROUGHS:
        do_troughs(ps, gs, me, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, res0, res1, log, nlog, log_on)
    elif slot == S_STALL:
        do_stall(ps, gs, me, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, res0, res1, log, nlog, log_on)
    elif slot == S_STABLES:
        do_stables(ps, gs, me, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, res0, res1, log, nlog,
                   log_on)
    else:
        do_special(ps, gs, me, prm, prmf, wk, fns, weights, entry, rng, view, moves, feats, default, tps, tps2, res0, res1,
                   log, nlog, log_on)
    return offered


@njit(cache=True)
def refill(gs, prm):
    a = GS_ACC
    gs[np.uint64(a + S_SP * NG + G_WOOD)] += prm[I_SP_WOOD]
    gs[np.uint64(a + S_WOOD * NG + G_WOOD)] += prm[I_WOOD3]
    gs[np.uint64(a + S_STONE1 * NG + G_STONE)] += prm[I_STONE1]
    gs[np.uint64(a + S_STONE2 * NG + G_STONE)] += prm[I_STONE2]
    add = min(prm[I_EXP_REFILL], gs[GS_POOL])
    gs[np.uint64(a + S_EXPAND * NG + G_BORD)] += add
    gs[GS_POOL] -= add
    _xy(gs, S_MILL, G_REED, prm[I_MILL_X], G_SHEEP, prm[I_MILL_Y])
    _xy(gs, S_PIGSHEEP, G_PIG, prm[I_PS_X], G_SHEEP, prm[I_PS_Y])
    _xy(gs, S_COWPIG, G_COW, prm[I_CP_X], G_PIG, prm[I_CP_Y])
    _xy(gs, S_HORSESHEEP, G_HORSE, prm[I_HS_X], G_SHEEP, prm[I_HS_Y])


@njit(cache=True, inline="always")
def _xy(gs, slot, gx, x, gy, y):
    """'X (Y)': X if the space is empty, else add Y."""
    a = GS_ACC + slot * NG
    empty = True
    for j in range(NG):
        if gs[np.uint64(a + j)] != 0:
            empty = False
    if empty:
        gs[np.uint64(a + gx)] += x
    else:
        gs[np.uint64(a + gy)] += y


@njit(cache=True)
def fill_view(view, gs, ps_me, ps_opp, me, slot, myleft, oppleft, prm):
    view[V_ROUND] = gs[GS_ROUND]
    view[V_ROUNDS] = prm[I_ROUNDS]
    view[V_SEAT] = me
    view[V_START] = gs[GS_START]
    view[V_SLOT] = slot
    view[V_MYLEFT] = myleft
    view[V_OPPLEFT] = oppleft
    for i in range(P_SIZE):
        view[V_ME + i] = ps_me[i]
        view[V_OPP + i] = ps_opp[i]
    for i in range(GS_SIZE):
        view[V_GS + i] = gs[i]


@njit(cache=True)
def bounds_hold(prm, prmf):
    """Do the bounds of the pruned estimates (play_game, READS "max0") hold for these parameters? Points per
    type never fall with one more animal (up to WCOLS - 1 of a type), the Storage Building pays >= 0 per good,
    costs are >= 0 (the parameter check demands it; checked again here). The shortcuts that skip the housing
    of a farm that keeps all its animals (MONO_COL) need the same."""
    for t in range(4):
        for k in range(WCOLS - 1):
            if fval(prm, t, k + 1) < fval(prm, t, k):
                return False
    if prmf[0] < 0.0:
        return False
    return (prm[I_FENCE_WOOD] >= 0 and prm[I_WALL_STONE] >= 0 and prm[I_TROUGH_WOOD] >= 0
            and prm[I_STALL_STONE] >= 0 and prm[I_STALL_REED] >= 0)


@njit(cache=True, inline="always")
def exp_bound(ps, prm, res):
    """The most expansion points an action can add to ps's farm (res: its evaluation; res[11] = the points of
    its full expansions): every expansion column not full yet becoming full. Buildings, troughs and closed
    pastures only ever grow, so an expansion never stops being full."""
    ep = prm[I_EXP_POINTS]
    if ep <= 0:
        return 0.0
    return ep * (ps[P_NCOLS] - 2) - res[11]


@njit(cache=True)
def log_farm(ps, me, log, nlog, log_on):
    if not log_on:
        return
    packed = np.int64(0)
    for s in range(18):
        packed |= np.int64(ps[P_BLD + s]) << np.int64(3 * s)
    _log(log, nlog, log_on, E_FARM, me, ps[P_NCOLS], ps[P_HOME], ps[P_E], ps[P_T], packed,
         ps[P_AN] | (ps[P_AN + 1] << 16) | (ps[P_AN + 2] << 32) | (ps[P_AN + 3] << 48),
         ps[P_WOOD] | (ps[P_STONE] << 16) | (ps[P_REED] << 32) | (ps[P_BORD] << 48), 0)


@njit(cache=True, _nrt=False)
def play_game(prm_o, prmf_o, fns, weights_o, rotate, g, seed, score, tiebreak, brk, final, log, log_on, rng_o, nlog_o,
              ps_o, gs_o, wk_o, tps_o, tgs_o, view_o, moves0_o, feats0_o, moves1_o, feats1_o, res_o, small_o, parts_o,
              reads_o):
    """Play game ``g``; fills score/tiebreak/brk (seat 0 starts round 1); returns the rounds played.
    The buffers (``*_o``, see ``play_range``) are allocated once per chunk of games and private to it (prm, prmf,
    weights are its copies); the game works on borrowed views of them (no owner: reference counting becomes a
    null check, see borrow.py) while the caller keeps the owners alive. Between games only the caches in wk
    whose entries are pure functions of their keys survive (the housing memo); the rest is reset here."""
    prm = borrow(prm_o)
    prmf = borrow(prmf_o)
    weights = borrow(weights_o)
    reads = borrow(reads_o)
    rng = borrow(rng_o)
    nlog = borrow(nlog_o)
    ps = borrow(ps_o)
    gs = borrow(gs_o)
    wk = borrow(wk_o)
    tpsa = borrow(tps_o)
    tps = tpsa[0]
    tps2 = tpsa[1]
    tps3 = tpsa[2]
    tgs = borrow(tgs_o)
    view = borrow(view_o)
    moves0 = borrow(moves0_o)
    feats0 = borrow(feats0_o)
    moves1 = borrow(moves1_o)
    feats1 = borrow(feats1_o)
    resa = borrow(res_o)
    res0 = resa[0]
    res1 = resa[1]
    res2 = resa[2]
    res3 = resa[3]  # eval_cheap of the deciding player's farm (once per decision, for the estimates)
    small = borrow(small_o)
    left = small[0:2]
    born = small[4:8]
    parts = borrow(parts_o)
    score = borrow(score)
    tiebreak = borrow(tiebreak)
    brk = borrow(brk)
    final = borrow(final)
    log = borrow(log)
    for j in range(GS_SIZE):
        gs[j] = 0
    for p in range(2):
        # the enclosure-plan cache and the estimate's default spaces: invalid (E = -1 matches no farm)
        _pcs(wk, p, 5, 0)
        _pcs(wk, p, PC_EST, -1)
    rng_init(rng, seed, g)
    for p in range(2):
        new_farm(ps[p], prm)
        ps[p, P_BORD] = prm[I_START_BORDERS]
        ps[p, P_WOOD] = prm[I_START_WOOD]
        ps[p, P_STONE] = prm[I_START_STONE]
        ps[p, P_REED] = prm[I_START_REED]
    gs[GS_START] = 0
    gs[GS_NEXT] = 0
    gs[GS_TROUGHS] = prm[I_TROUGHS]
    gs[GS_STALLS] = prm[I_STALLS]
    gs[GS_EXPS] = prm[I_EXPANSIONS]
    gs[GS_POOL] = prm[I_EXP_POOL]
    for j in range(4):
        gs[GS_SPEC + j] = 1
    rounds = prm[I_ROUNDS]
    nw = prm[I_WORKERS]
    for rnd in range(rounds):
        gs[GS_ROUND] = rnd
        gs[GS_START] = gs[GS_NEXT]
        for j in range(NSLOT):
            gs[GS_OCC + j] = -1
        refill(gs, prm)
        _log(log, nlog, log_on, E_ROUND, rnd, gs[GS_START], 0, 0, 0, 0, 0, 0, 0)
        left[0] = nw
        left[1] = nw
        cur = gs[GS_START]
        for _ in range(2 * nw):
            if left[np.uint64(cur)] == 0:
                cur = 1 - cur
            me = cur
            opp = 1 - me
            e = entry_of_seat(me, g, 2, rotate)
            pme = ps[np.uint64(me)]
            fill_view(view, gs, pme, ps[np.uint64(opp)], me, -1, left[np.uint64(me)], left[np.uint64(opp)], prm)
            # evaluate(pme), keeping its containers: the goods and animal spaces leave the farm as it is
            bk0 = bld_key(pme)  # the deciding player's buildings: the same in every estimate's copy of the farm
            ue0 = useful_edges(pme)
            K0, past0 = evaluate_m(pme, prm, prmf, wk, res0, -1, U0, S_ROW, bk0)
            cheap_done = False
            tgs_done = False  # tgs: a copy of gs for do_action's estimates, made when first needed
            n = 0
            for slot in range(NSLOT):
                if slot_legal_u(pme, gs, slot, prm, me, wk, moves1, ue0):
                    moves0[np.uint64(n), 0] = slot
                    moves0[np.uint64(n), 1] = 0
                    moves0[np.uint64(n), 2] = 0
                    moves0[np.uint64(n), 3] = 0
                    n += 1
            # the features, row by row. For a bot that reads only the best feature 0 (READS "max0"), when the
            # parameters make the bounds hold (small[8], see bounds_hold), the rows of Fences, Walls, Troughs and
            # Stall come in a second sweep, and one whose score change provably stays more than 1e-6 below the
            # best so far is left out (feature 0 = the bound, the rest 0): none of the four adds animals or
            # keeps more of them (the farm houses all it has), none raises the Storage points (they pay goods),
            # and only the stall adds building points; expansions can only fill up (bound: exp_bound)
            rd = reads[e]
            defer = rd != READS_ALL and small[8] == 1
            bexp = -1.0
            best = -1e18
            q = 0
            sweep2 = False
            while True:
                if q == n:
                    if sweep2 or not defer:
                        break
                    sweep2 = True
                    q = 0
                    continue
                row = q
                q += 1
                slot = moves0[np.uint64(row), 0]
                late = defer and (slot == S_FENCES or slot == S_WALLS or slot == S_TROUGHS or slot == S_STALL)
                if late != sweep2:
                    continue
                if rd == READS_NONE:
                    # a bot that reads no features: none are computed
                    for j in range(NF):
                        feats0[np.uint64(row), j] = 0.0
                    continue
                onsp = 0
                for j in range(NG):
                    onsp += gs[np.uint64(GS_ACC + slot * NG + j)]
                if sweep2:
                    if bexp < 0.0:
                        bexp = exp_bound(pme, prm, res0)
                    bound = bexp
                    if slot == S_STALL:
                        bound += max(prm[I_PTSB + B_STALL], 0)
                    if bound < best - 1e-6:
                        for j in range(NF):
                            feats0[np.uint64(row), j] = 0.0
                        feats0[np.uint64(row), F_SCORE] = bound
                        continue
                # the action's value: carried out on copies with the default sub-choices
                _copy(tps2, pme)
                off = 0
                if slot <= S_BM or slot >= S_MILL:
                    # goods and animal spaces, written out here (no call with array arguments)
                    acc = GS_ACC + slot * NG
                    if slot == S_BM:
                        tps2[P_WOOD] += prm[I_BM_WOOD]
                        tps2[P_STONE] += prm[I_BM_STONE]
                        tps2[P_REED] += prm[I_BM_REED]
                    else:
                        tps2[P_WOOD] += gs[np.uint64(acc + G_WOOD)]
                        tps2[P_STONE] += gs[np.uint64(acc + G_STONE)]
                        tps2[P_REED] += gs[np.uint64(acc + G_REED)]
                        for t in range(4):
                            tps2[P_AN + t] += gs[np.uint64(acc + G_SHEEP + t)]
                            off += gs[np.uint64(acc + G_SHEEP + t)]
                    if off > 0:
                        K0, past0 = evaluate_m(tps2, prm, prmf, wk, res1, K0, past0, S_ROW, bk0)
                    else:
                        # goods only: the farm is unchanged, only the Storage Building's points move
                        for j in range(13):
                            res1[j] = res0[j]
                        if res0[12] != 0.0 or has_building(tps2, B_STORAGE):
                            dg = tps2[P_WOOD] + tps2[P_STONE] + tps2[P_REED] - pme[P_WOOD] - pme[P_STONE] \
                                - pme[P_REED]
                            res1[0] += prmf[0] * dg
                            res1[12] += prmf[0] * dg
                elif slot == S_EXPAND:
                    # Expand with its default side (left: both sides always tie, see below) adds an empty column
                    # that is open towards the farm edge: no pasture closes or opens, no container appears and no
                    # expansion is full, so the farm evaluates exactly as now; only the borders come in
                    tps2[P_BORD] += gs[GS_ACC + S_EXPAND * NG + G_BORD]
                    for j in range(13):
                        res1[j] = res0[j]
                else:
                    # do_action touches only the counters before GS_OCC and this slot's goods: restore those
                    if not tgs_done:
                        _copy(tgs, gs)
                        tgs_done = True
                    else:
                        for j in range(GS_OCC):
                            tgs[j] = gs[j]
                        for j in range(GS_ACC + slot * NG, GS_ACC + slot * NG + NG):
                            tgs[j] = gs[j]
                    # the default sub-choices start from eval_cheap of the farm: computed once per decision
                    if not cheap_done:
                        eval_cheap(pme, prm, prmf, wk, res3)
                        cheap_done = True
                    for j in range(13):
                        res1[j] = res3[j]
                    # the frequent estimates straight from their caches (no call with ~20 array arguments);
                    # slot_legal has checked what do_borders / do_troughs / do_stall check first
                    rfw = -1
                    rtr = False  # the default trough is placed: the farm keeps every animal
                    if slot == S_FENCES or slot == S_WALLS:
                        rfw = default_borders(tps2, me, slot == S_WALLS, prm, prmf, wk, moves1, bk0, True)
                    else:
                        cs = -2
                        if slot == S_TROUGHS or slot == S_STALL:
                            est_cache(tps2, me, wk, bk0)
                            cs = _pcg(wk, me, PC_EST + (4 if slot == S_TROUGHS else 5))
                        if cs == -2:
                            do_action(tps2, tgs, me, slot, prm, prmf, wk, fns, weights, e, rng, view, moves1, feats1,
                                      True, tps, tps3, res1, res2, log, nlog, False)
                        elif cs >= 0:
                            if slot == S_TROUGHS:
                                rtr = wk[S_ROW, MONO_COL] == 1
                                if rtr and _pcg(wk, me, PC_EST + 6) < 0:
                                    dc, dx = trough_gain(tps2, prm, past0, cs)
                                    _pcs(wk, me, PC_EST + 6, dc)
                                    _pcs(wk, me, PC_EST + 7, dx)
                                tps2[P_T] = np.int64(np.uint64(tps2[P_T]) | bit(cs))
                                tps2[P_WOOD] -= trough_cost(0, prm)
                            else:
                                tps2[np.uint64(P_BLD + cs)] = B_STALL
                                tps2[P_STONE] -= prm[I_STALL_STONE]
                                tps2[P_REED] -= prm[I_STALL_REED]
                    if rfw >= 0 and _pcg(wk, me, rfw + 3) == 1:
                        # the plan keeps every animal (keeps_all): only capacity, expansions and goods change
                        _eval_known(tps2, prm, prmf, res1, res0[1] + _pcg(wk, me, rfw + 5), 0, res0[10],
                                    res0[11] + _pcg(wk, me, rfw + 4) // 2, has_storage_key(bk0))
                    elif rtr:
                        _eval_known(tps2, prm, prmf, res1, res0[1] + _pcg(wk, me, PC_EST + 6), 0, res0[10],
                                    res0[11] + _pcg(wk, me, PC_EST + 7), has_storage_key(bk0))
                    elif slot == S_FENCES or slot == S_WALLS or slot == S_TROUGHS:
                        # borders and troughs leave the buildings as they are
                        evaluate_m(tps2, prm, prmf, wk, res1, -1, U0, -1, bk0)
                    else:
                        evaluate(tps2, prm, prmf, wk, res1)
                feat_row(feats0, row, res0, res1, pme, tps2, off)
                feats0[np.uint64(row), F_ONSPACE] = onsp
                if feats0[np.uint64(row), F_SCORE] > best:
                    best = feats0[np.uint64(row), F_SCORE]
            i = _ask(K_ACTION, n, fns, weights, e, rng, view, moves0, feats0, False)
            slot = moves0[np.uint64(i), 0]
            gs[np.uint64(GS_OCC + slot)] = me
            left[np.uint64(me)] -= 1
            _log(log, nlog, log_on, E_PLACE, me, slot, 0, 0, 0, 0, 0, 0, 0)
            view[V_SLOT] = slot
            do_action(pme, gs, me, slot, prm, prmf, wk, fns, weights, e, rng, view, moves1, feats1, False, tps, tps2, res1, res2,
                      log, nlog, log_on)
            cur = opp
        # breeding
        for p in range(2):
            for t in range(4):
                born[t] = 0
                if ps[p, P_AN + t] >= prm[I_BREED_MIN]:
                    born[t] = 1
            before = ps[p, P_AN] + ps[p, P_AN + 1] + ps[p, P_AN + 2] + ps[p, P_AN + 3]
            gain_animals(ps[p], prm, prmf, wk, res0, born[0], born[1], born[2], born[3])
            after = ps[p, P_AN] + ps[p, P_AN + 1] + ps[p, P_AN + 2] + ps[p, P_AN + 3]
            nb = born[0] + born[1] + born[2] + born[3]
            _log(log, nlog, log_on, E_BREED, p, born[0], born[1], born[2], born[3], before + nb - after, 0, 0, 0)
            log_farm(ps[p], p, log, nlog, log_on)
    for p in range(2):
        evaluate(ps[p], prm, prmf, wk, res0)
        past = pastures_mask(ps[p])
        score[p] = score_parts(ps[p], prm, prmf, past, parts)
        for c in range(8):
            brk[p, c] = parts[c]
        tiebreak[p] = 1.0 if p == 1 else 0.0
        for j in range(P_SIZE):
            final[p, j] = ps[p, j]
        _log(log, nlog, log_on, E_SCORE, p, np.int64(score[p] * 2), 0, 0, 0, 0, 0, 0, 0)
    return rounds


CHUNK = 32  # games per chunk: one set of buffers, played in order by one thread


@njit(cache=True, parallel=True)
def play_range(prm, prmf, fns, weights, reads, rotate, seed, start, n_games, score, tiebreak, brk, length, farms, log,
               log_on):
    """Games start .. start + n_games - 1 in parallel (chunks of CHUNK games per thread, each chunk with its own
    copies of the inputs and its buffers allocated once); final farm rows in farms[i] when farms has n_games
    rows, the event log of the (single) game when log_on. The one compiled entry point of the engine: every
    further entry point would optimise the whole game again at compile time. A game's result depends on
    (seed, game index) alone, not on its chunk. reads: the lineup's READS code per entry."""
    keep = farms.shape[0] == n_games
    for c in prange((n_games + CHUNK - 1) // CHUNK):
        prm_o = prm.copy()
        prmf_o = prmf.copy()
        weights_o = weights.copy()
        reads_o = reads.copy()
        rng_o = np.zeros(4, dtype=np.uint64)
        nlog_o = np.zeros(1, dtype=np.int64)
        ps_o = np.zeros((2, P_SIZE), dtype=np.int64)
        gs_o = np.zeros(GS_SIZE, dtype=np.int64)
        wk_o = np.zeros((W_ROWS_ALL, WCOLS), dtype=np.int64)
        tps_o = np.zeros((4, P_SIZE), dtype=np.int64)
        tgs_o = np.zeros(GS_SIZE, dtype=np.int64)
        view_o = np.zeros(V_LEN, dtype=np.int64)
        moves0_o = np.zeros((NSLOT, MW), dtype=np.int64)
        feats0_o = np.zeros((NSLOT, NF), dtype=np.float64)
        moves1_o = np.zeros((MAXM, MW), dtype=np.int64)
        feats1_o = np.zeros((MAXM, NF), dtype=np.float64)
        res_o = np.zeros((4, 13))
        small_o = np.zeros(16, dtype=np.int64)
        small_o[8] = 1 if bounds_hold(prm_o, prmf_o) else 0
        wk_o[S_ROW, MONO_COL] = small_o[8]
        parts_o = np.zeros(8)
        final = np.zeros((2, P_SIZE), dtype=np.int64)
        for i in range(c * CHUNK, min(n_games, (c + 1) * CHUNK)):
            length[i] = play_game(prm_o, prmf_o, fns, weights_o, rotate, start + i, seed, score[i], tiebreak[i],
                                  brk[i], final, log, log_on, rng_o, nlog_o, ps_o, gs_o, wk_o, tps_o, tgs_o, view_o,
                                  moves0_o, feats0_o, moves1_o, feats1_o, res_o, small_o, parts_o, reads_o)
            if keep:
                for p in range(2):
                    for j in range(P_SIZE):
                        farms[i, p, j] = final[p, j]


def _reads(reads):
    return np.zeros(MAX_ENTRIES, dtype=np.int64) if reads is None else np.ascontiguousarray(reads, dtype=np.int64)


def play_batch(prm, prmf, fns, weights, rotate, seed, start, n_games, score, tiebreak, brk, length, reads=None):
    """reads: Lineup.reads (None: every bot reads every feature)."""
    play_range(prm, prmf, fns, weights, _reads(reads), rotate, seed, start, n_games, score, tiebreak, brk, length,
               np.zeros((0, 2, P_SIZE), dtype=np.int64), np.zeros((0, LOGW), dtype=np.int64), False)


def play_logged(prm, prmf, fns, weights, rotate, g, seed, log, reads=None):
    """The same game as the batch, with its event log: (n events, score, tiebreak, breakdown)."""
    score = np.zeros((1, 2))
    tiebreak = np.zeros((1, 2))
    brk = np.zeros((1, 2, 8))
    length = np.zeros(1, dtype=np.int64)
    log[:] = 0
    play_range(prm, prmf, fns, weights, _reads(reads), rotate, seed, g, 1, score, tiebreak, brk, length,
               np.zeros((0, 2, P_SIZE), dtype=np.int64), log, True)
    n = int(np.count_nonzero(log[:, 0]))
    return n, score[0], tiebreak[0], brk[0]


def end_states(prm, prmf, fns, weights, rotate, seed, start, n_games, farms, brk, reads=None):
    """For the reference-scorer test: final farm rows farms[g, p, :] and the engine's breakdown brk[g, p, :]."""
    score = np.zeros((n_games, 2))
    tiebreak = np.zeros((n_games, 2))
    length = np.zeros(n_games, dtype=np.int64)
    play_range(prm, prmf, fns, weights, _reads(reads), rotate, seed, start, n_games, score, tiebreak, brk, length, farms,
               np.zeros((0, LOGW), dtype=np.int64), False)
