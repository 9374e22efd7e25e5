"""Hacienda engine (numba, nopython): the board, placing things, and the values bots see.

The game itself (turns, rounds, scorings; the forward model of ``sim/CONTRACT.md``) is ``flow.py``, its state
record ``state.py``. The board state is a table of
uint64 masks ``MS[NROWS, W]`` (rows in ``scoring.py``: land per player, herds per player and animal,
free pampa / free terrain, water, chips, haciendas, markets reached, static terrain/pampa/market/source
masks, one mask per water tile). Chains and herds are found by mask flood fill; each placement re-labels
the merged group (``lab``/``gsz``), so candidate features cost a few neighbour look-ups.
"""

import numpy as np
from numba import njit

from .bits import ONE, ZERO, anyrow, cb, countrow, ctz, popcnt, sb, tb
from .scoring import (
    NCAT,
    NROWS,
    P_ACTIONS,
    P_ANIMAL_HAND,
    P_ANIMALS_PER,
    P_CHAIN_MIN,
    P_CHAIN_PTS,
    P_CHIPS,
    P_COMPULSORY,
    P_DISPLAY,
    P_HAC_PRICE,
    P_HAC_PTS,
    P_HAC_TURN,
    P_HACS,
    P_HARV_RATE,
    P_HARV_TURN,
    P_LAND_HAND,
    P_LAND_PER,
    P_MAX_ROUNDS,
    P_MP,
    P_MPP,
    P_NMP,
    P_PAMPA_CARDS,
    P_PRICE_BLIND,
    P_PRICE_UP,
    P_REMOVED,
    P_START_MONEY,
    P_WATER_PRICE,
    P_WATER_PTS,
    P_WATER_TURN,
    P_WTILES,
    R_CHIPS,
    R_FPAM,
    R_FTERR,
    R_G,
    R_HAC,
    R_HERD,
    R_LAND,
    R_MARKET,
    R_NBH,
    R_NBL,
    R_NBMK,
    R_NBW,
    R_OCC,
    R_PAMPA,
    R_REACH,
    R_REM,
    R_SRC,
    R_TERR,
    R_TMP,
    R_WATER,
    R_WP,
    R_X,
    chain_points,
    score_player,
)

MAXP = 5
NT = 10  # card types: 0..4 terrains, 5 pampa, 6..9 cattle, horse, pig, sheep
T_PAMPA = 5
T_ANIMAL = 6
K_MARKET = 6  # board kinds: 0..4 terrain, 5 pampa, 6 market, 7 water source
K_PAMPA = 5

# decision kinds
K_ACTION = 0
K_LAND = 1
K_ANIMAL = 2
K_HACIENDA = 3
K_WATER = 4
K_HARVEST = 5

# action codes (moves[:, 0] of K_ACTION)
A_BUY_LAND_UP = 0
A_BUY_LAND_BLIND = 1
A_BUY_ANIMAL_UP = 2
A_BUY_ANIMAL_BLIND = 3
A_PLAY = 4
A_HACIENDA = 5
A_WATER = 6
A_HARVEST = 7
A_END = 8

NF = 8  # feature columns
MW = 4  # move row width

# what stands on a space
W_LAND = 0  # 1..4 = animal a + 1
W_WATER = 7

# view layout (int64); V_SPACE + i = content of space i: -1 empty, else what + 8 owner + 64 chip + 128 hacienda
V_SEAT = 0
V_NP = 1
V_PHASE = 2  # 0 before the mid-game scoring, 1 after it, 2 game over
V_ROUND = 3
V_ACTIONS_LEFT = 4
V_HAC_OK = 5
V_WATER_OK = 6
V_HARV_OK = 7
V_HAC_SUPPLY = 8
V_CHIPS_SUPPLY = 9
V_LAND_DECK = 10
V_STACK1 = 11
V_STACK2 = 12
V_NSPACES = 13
V_TURN = 14
V_CARD = 15  # card type being placed (K_LAND / K_ANIMAL), else -1
V_MONEY = 16  # 5
V_HAND = 21  # 10: the deciding player's own hand
V_HANDSIZE = 31  # 5: cards in each hand
V_DISP_LAND = 36  # 8: face-up land cards (type or -1)
V_DISP_ANIMAL = 44  # 8: face-up animal cards (type 6..9 or -1)
V_WSUPPLY = 52  # 4: water tiles left by shape
V_MARKETS = 56  # 5: markets reached per player
V_LAND_TILES = 61  # land tiles of the deciding player's colour left in the box (-1 unlimited)
V_DISCS = 62  # animal discs the deciding player has left (-1 unlimited)
V_HDR = 64
V_SPACE = 64

# scalar state: columns of the row SR of the integer table SP
S_LABEL = 0
S_STAMP = 1
S_NPC = 2
S_CHIPS = 3
S_HACS = 4
S_LPTR = 5
S_LEND = 6
S_APTR = 7
S_A1 = 8
S_A2 = 9
S_STACK2_IN = 10
S_WS = 12  # 4 water supply by shape
S_HH = 16  # 20 flags: p has a hacienda on a herd of animal a
S_PVER = 40  # 5: player p's own version (bumped by p's placements and haciendas)
S_WVER = 45  # water version (bumped by every water tile)
S_LVER = 46  # 5: player p's land version (p's land tiles and haciendas on land chains): land values depend only on it
S_CVER = 51  # chip version (bumped by every harvest)
S_LEN = 52  # columns used in the row SR (SP is at least 64 wide)

# log events (LOGW = 6 columns: code, seat, a, b, c, d)
LOGW = 6
E_SETUP = 1  # seat, land hand packed, animal hand packed, money
E_TURN = 2  # seat, round, money
E_BUY = 3  # seat, card type, 1 face up / 0 blind, price
E_LAND = 4  # seat, card type, space, chain size, 1 if played as pampa
E_ANIMAL = 5  # seat, animal, space, herd size, pesos earned
E_HACIENDA = 6  # seat, space, group size, what (0 land, 1..4 herd)
E_WATER = 7  # seat, shape, packed spaces, n own tiles next to it
E_HARVEST = 8  # seat, space, chain size, pesos, (victim seat + 1) * 100000 + victim space + 1 or 0
E_END = 9  # seat, actions used
E_STACK2 = 10  # -1, round
E_SCORE_A = 11  # seat, phase (1 mid, 2 final), markets, chains, haciendas
E_SCORE_B = 12  # seat, phase, water, money points, pesos held
E_CAP = 13  # -1, round, 1 dead end (nobody can act) / 0 max_rounds cap
E_REFILL = 14  # -1, 0 land / 1 animal, slot, card type


@njit(cache=True, inline="always")
def _stamp(SP):
    SP[SR, S_STAMP] += 1
    return SP[SR, S_STAMP]


# the integer state table SP (int64[SP_ROWS, max(n + 2, 64)]; one table, so that helpers take few arrays:
# every array argument of a call costs a reference-count round trip): per-space rows, per-label rows,
# the scalar state row SR (S_* columns), the unreached markets of the deciding player and the cached best space
# per player and card type (-2 recompute, -1 none legal)
SP_OWNER = 0
SP_WHAT = 1
SP_LAB = 2
SP_WPIECE = 3
SP_WCNT = 4  # different water tiles next to the space
SP_STAMP = 5  # scratch: space-stamp sets
# engine-only rows after the scoring rows of MS (not in the snapshots)
R_D = NROWS  # 5 MAXP dirty masks
R_VALID = R_D + 5 * 5  # 5 MAXP value-cache valid masks
R_WD = R_VALID + 5 * 5  # MAXP water dirty masks
R_TODO = R_WD + 5  # 5 scratch: spaces to evaluate for the land tile (0) and animal a (1 + a)
R_YT = R_TODO + 5  # NT scratch: candidate spaces per card type (best_values)
R_LM = R_YT + NT  # + L: the spaces of the group labelled L (rows for every label a game can give: n + 2)
NROWS_ALL = R_LM
# rows of the float table FV
F_VV = 0  # 5 MAXP: cached values per space
F_VS = 25  # 5 MAXP: cached group sizes per space
F_CBV = 50  # MAXP: best value per card type
F_CBS = 55  # MAXP: group size at that best value
F_ROWS = 60
LB_SIZE = 6  # per label
LB_HAC = 7
LB_CHIP = 8
LB_STAMP = 9
SR = 10  # scalar state, columns S_*
SR_UNR = 11  # unreached markets (indices into mkspace) of the player being evaluated
SR_CBH = 12  # + p: best space per card type
SP_NC = SR_CBH + 5  # + p: p's tiles (land and animals) next to each space
SP_NCALL = SP_NC + 5  # all players' tiles next to each space
SP_NFREE = SP_NCALL + 2  # free pampa spaces next to each space (after the SR_GC row)
SR_GC = SP_NCALL + 1  # best_group cache: key / size per player for haciendas (0 / 5 + p) and harvests (10, 15 / 20 + p)
GC_OLD = 30  # + t: scratch in row SR_GC, best_values' old best space per card type (-1: none / full pass 3)
SP_ROWS = SP_NFREE + 1


@njit(cache=True)
def new_sp(n):
    """A fresh integer state table for a board of n spaces."""
    SP = np.zeros((SP_ROWS, max(n + 2, 64)), dtype=np.int64)
    for r in range(SP_WCNT):
        for i in range(SP.shape[1]):
            SP[r, i] = -1
    for r in range(SP_STAMP, SP_STAMP + 1):
        for i in range(SP.shape[1]):
            SP[r, i] = -1
    for r in range(SR_CBH, SR_CBH + 5):
        for i in range(SP.shape[1]):
            SP[r, i] = -2
    for i in range(SP.shape[1]):
        SP[SR_GC, i] = -1
    return SP


@njit(cache=True, inline="always")
def _first(SP, L, sc):
    """Label-stamp set: True the first time label L is seen under stamp sc."""
    if SP[LB_STAMP, L] == sc:
        return False
    SP[LB_STAMP, L] = sc
    return True


@njit(cache=True, inline="always")
def count_word(x):
    c = 0
    while x != ZERO:
        x &= x - ONE
        c += 1
    return c


# ---------------------------------------------------------------------------------------------
# placing things


@njit(cache=True)
def new_ms(n, W):
    """A fresh mask table: the scoring rows, the engine's scratch rows and one group row per label (R_LM + L)."""
    return np.zeros((NROWS_ALL + n + 2, W), dtype=np.uint64)


@njit(cache=True, _nrt=False)
def _relabel(MS, SP, row, h, nbmask):
    """The group of the tile just placed on h in mask row ``row`` (h and the groups of its neighbours in that row:
    the union of their group rows R_LM + label) into MS[R_G], under a fresh label; returns its size."""
    W = MS.shape[1]
    for w in range(W):
        MS[R_G, w] = ZERO
    sb(MS, R_G, h)
    for w in range(W):
        x = nbmask[h, w] & MS[row, w]
        while x != ZERO:
            j = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            lj = R_LM + SP[SP_LAB, j]
            for v in range(W):
                MS[R_G, v] |= MS[lj, v]
    L = SP[SR, S_LABEL]
    SP[SR, S_LABEL] = L + 1
    hs = 0
    cs = 0
    size = 0
    for w in range(W):
        x = MS[R_G, w]
        MS[R_LM + L, w] = x
        size += np.int64(popcnt(x))
        hs += count_word(x & MS[R_HAC, w])
        cs += count_word(x & MS[R_CHIPS, w])
        while x != ZERO:
            i = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            SP[SP_LAB, i] = L
    SP[LB_SIZE, L] = size
    SP[LB_HAC, L] = hs
    SP[LB_CHIP, L] = cs
    return size


@njit(cache=True, _nrt=False)
def init_free(SP, kind, nb):
    """SP[SP_NFREE, i] = the pampa spaces next to i (all free at the start; _occupy keeps the count)."""
    for i in range(kind.shape[0]):
        if kind[i] == K_PAMPA:
            for d in range(6):
                j = nb[i, d]
                if j >= 0:
                    SP[SP_NFREE, j] += 1


@njit(cache=True, _nrt=False)
def _occupy(MS, SP, kind, h, nbmask):
    sb(MS, R_OCC, h)
    k = kind[h]
    if k == K_PAMPA:
        cb(MS, R_FPAM, h)
        for w in range(MS.shape[1]):
            x = nbmask[h, w]
            while x != ZERO:
                j = w * 64 + np.int64(ctz(x))
                x &= x - ONE
                SP[SP_NFREE, j] -= 1
    elif k < 5:
        cb(MS, R_FTERR + k, h)


@njit(cache=True, _nrt=False)
def place_land(MS, SP, p, h, kind, nbmask, view):
    W = MS.shape[1]
    sb(MS, R_LAND + p, h)
    _occupy(MS, SP, kind, h, nbmask)
    for w in range(W):
        MS[R_NBL + p, w] |= nbmask[h, w]
        x = nbmask[h, w]
        while x != ZERO:
            j = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            SP[SP_NC + p, j] += 1
            SP[SP_NCALL, j] += 1
    SP[SP_OWNER, h] = p
    SP[SP_WHAT, h] = W_LAND
    view[V_SPACE + h] = W_LAND + 8 * p
    SP[SR, S_PVER + p] += 1
    SP[SR, S_LVER + p] += 1
    return _relabel(MS, SP, R_LAND + p, h, nbmask)


@njit(cache=True, _nrt=False)
def place_animal(MS, SP, p, a, h, kind, nb, nbmask, mkcnt, view):
    """Place p's animal a on h; returns (herd size, market pesos earned)."""
    W = MS.shape[1]
    row = R_HERD + 4 * p + a
    sb(MS, row, h)
    _occupy(MS, SP, kind, h, nbmask)
    for w in range(W):
        MS[R_NBH + 4 * p + a, w] |= nbmask[h, w]
        MS[R_REACH + p, w] |= nbmask[h, w] & MS[R_MARKET, w]
    for d in range(6):
        j = nb[h, d]
        if j >= 0:
            SP[SP_NC + p, j] += 1
            SP[SP_NCALL, j] += 1
    SP[SP_OWNER, h] = p
    SP[SP_WHAT, h] = 1 + a
    view[V_SPACE + h] = 1 + a + 8 * p
    SP[SR, S_PVER + p] += 1
    size = _relabel(MS, SP, row, h, nbmask)
    income = 0
    if mkcnt[h] > 0:
        sc = _stamp(SP)
        tot = 0
        g = MS[R_G]
        for w in range(W):
            x = g[w]
            while x != ZERO:
                i = w * 64 + np.int64(ctz(x))
                x &= x - ONE
                for d in range(6):
                    j = nb[i, d]
                    if j >= 0 and SP[SP_OWNER, j] == p and SP[SP_WHAT, j] == W_LAND:
                        L = SP[SP_LAB, j]
                        if _first(SP, L, sc):
                            tot += SP[LB_SIZE, L]
        income = mkcnt[h] * (size + tot)
    return size, income


@njit(cache=True, inline="always")
def water_cells(h, s, o, nb, cells):
    """Spaces of water shape s (0 single, 1 pair, 2 triangle, 3 line) anchored at h, orientation o; 0 if off board."""
    cells[0] = h
    if s == 0:
        return 1 if o == 0 else 0
    if s == 1:
        if o > 2:
            return 0
        j = nb[h, o + 1]
        if j < 0:
            return 0
        cells[1] = j
        return 2
    if s == 2:
        if o > 1:
            return 0
        j = nb[h, o]
        k = nb[h, o + 1]
        if j < 0 or k < 0:
            return 0
        cells[1] = j
        cells[2] = k
        return 3
    if o > 2:
        return 0
    j = nb[h, o + 1]
    if j < 0:
        return 0
    k = nb[j, o + 1]
    if k < 0:
        return 0
    cells[1] = j
    cells[2] = k
    return 3


@njit(cache=True, _nrt=False)
def place_water(MS, SP, cells, k, nbmask, kind, view):
    W = MS.shape[1]
    pc = SP[SR, S_NPC]
    SP[SR, S_NPC] = pc + 1
    SP[SR, S_WVER] += 1
    for w in range(W):
        MS[R_WP + pc, w] = ZERO
    for c in range(k):
        h = cells[c]
        sb(MS, R_WP + pc, h)
        sb(MS, R_WATER, h)
        _occupy(MS, SP, kind, h, nbmask)
        for w in range(W):
            MS[R_NBW, w] |= nbmask[h, w]
        SP[SP_WHAT, h] = W_WATER
        SP[SP_OWNER, h] = -2
        SP[SP_WPIECE, h] = pc
        view[V_SPACE + h] = W_WATER
    # the spaces next to this water tile have one more water tile next to them
    for w in range(W):
        MS[R_TMP, w] = ZERO
    for c in range(k):
        for w in range(W):
            MS[R_TMP, w] |= nbmask[cells[c], w]
    for w in range(W):
        x = MS[R_TMP, w] & ~MS[R_WP + pc, w]
        while x != ZERO:
            j = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            SP[SP_WCNT, j] += 1
    return pc


# ---------------------------------------------------------------------------------------------
# candidate evaluation (features)


@njit(cache=True, inline="always")
def _near_market_dist(h, mdist, nunr):
    best = 99
    for m in range(nunr):
        d = mdist[h, SP[SR_UNR, m]]
        if d < best:
            best = d
    return best


@njit(cache=True, _nrt=False)
def eval_spaces(MS, SP, pi, p, kinds, nb, mkcnt, mdist, nunr, reached, feats, full):
    """Features of p's tile on the spaces of the scratch mask rows R_TODO + k for each k in the bit set ``kinds``
    (k = 0 land tile, 1 + a animal a), in order of k then space, into feats rows 0, 1, ...; only columns 0
    (value) and 2 (group size) unless full. One call for all kinds, and no array-taking helpers inside (each
    array argument costs a reference-count round trip). Returns the number of rows."""
    W = MS.shape[1]
    cmin = pi[P_CHAIN_MIN]
    cpts = pi[P_CHAIN_PTS]
    hpts = pi[P_HAC_PTS]
    wpts = pi[P_WATER_PTS]
    mpp = pi[P_MPP]
    nmp = pi[P_NMP]
    if reached <= 0:
        mp0 = 0
    elif reached <= nmp:
        mp0 = pi[P_MP + reached - 1]
    else:
        mp0 = reached * (reached + 1) // 2
    fi = 0
    for kk in range(5):
        if (kinds >> kk) & 1 == 0:
            continue
        r = R_TODO + kk
        if kk == 0:
            for w in range(W):
                x = MS[r, w]
                while x != ZERO:
                    h = w * 64 + np.int64(ctz(x))
                    x &= x - ONE
                    SP[SR, S_STAMP] += 1
                    sc = SP[SR, S_STAMP]
                    size = 1
                    merged = 0
                    old = 0
                    hold = 0
                    anyhac = False
                    # (away from p's land no neighbour counts; the free pampa neighbours are counted in SP_NFREE)
                    nd = 6 if (MS[R_NBL + p, w] >> np.uint64(h & 63)) & ONE != ZERO else 0
                    free = SP[SP_NFREE, h]
                    for d in range(nd):
                        j = nb[h, d]
                        if j < 0:
                            continue
                        if SP[SP_OWNER, j] == p and SP[SP_WHAT, j] == W_LAND:
                            L = SP[SP_LAB, j]
                            if SP[LB_STAMP, L] != sc:
                                SP[LB_STAMP, L] = sc
                                s = SP[LB_SIZE, L]
                                merged += 1
                                size += s
                                if s >= cmin:
                                    old += s * cpts
                                if SP[LB_HAC, L] > 0:
                                    anyhac = True
                                    hold += s * hpts
                    hnew = size * hpts if anyhac else 0
                    wat = SP[SP_WCNT, h] * wpts
                    cp = size * cpts if size >= cmin else 0
                    feats[fi, 0] = (cp - old) + (hnew - hold) + wat
                    feats[fi, 2] = size
                    if full:
                        feats[fi, 1] = 0.0
                        feats[fi, 3] = 0.0
                        feats[fi, 4] = wat
                        feats[fi, 5] = merged
                        feats[fi, 6] = free
                        best = 99
                        for m in range(nunr):
                            dd = mdist[h, SP[SR_UNR, m]]
                            if dd < best:
                                best = dd
                        feats[fi, 7] = best
                    fi += 1
        else:
            a = kk - 1
            hrow = R_HERD + 4 * p + a
            for w0 in range(W):
                x0 = MS[r, w0]
                while x0 != ZERO:
                    h = w0 * 64 + np.int64(ctz(x0))
                    x0 &= x0 - ONE
                    SP[SR, S_STAMP] += 1
                    sc = SP[SR, S_STAMP]
                    size = 1
                    merged = 0
                    hold = 0
                    anyhac = False
                    newm = 0
                    # (away from p's herds of a and from markets no neighbour counts; the free pampa neighbours
                    # are counted in SP_NFREE)
                    hb = np.uint64(h & 63)
                    nd = 6 if ((MS[R_NBH + 4 * p + a, w0] | MS[R_NBMK, w0]) >> hb) & ONE != ZERO else 0
                    free = SP[SP_NFREE, h]
                    for d in range(nd):
                        j = nb[h, d]
                        if j < 0:
                            continue
                        o = SP[SP_OWNER, j]
                        if o == p and SP[SP_WHAT, j] == 1 + a:
                            L = SP[SP_LAB, j]
                            if SP[LB_STAMP, L] != sc:
                                SP[LB_STAMP, L] = sc
                                s = SP[LB_SIZE, L]
                                merged += 1
                                size += s
                                if SP[LB_HAC, L] > 0:
                                    anyhac = True
                                    hold += s * hpts
                        elif o == -1:
                            jw = j >> 6
                            jb = np.uint64(j & 63)
                            if (MS[R_MARKET, jw] >> jb) & ONE != ZERO and (MS[R_REACH + p, jw] >> jb) & ONE == ZERO:
                                newm += 1
                    hnew = size * hpts if anyhac else 0
                    wat = SP[SP_WCNT, h] * wpts
                    income = 0
                    if mkcnt[h] > 0:
                        # land chains next to the new herd: h's neighbours and the merged herds' neighbours
                        SP[SR, S_STAMP] += 1
                        sc2 = SP[SR, S_STAMP]
                        tot = 0
                        for d in range(6):
                            j = nb[h, d]
                            if j >= 0 and SP[SP_OWNER, j] == p and SP[SP_WHAT, j] == W_LAND:
                                L = SP[SP_LAB, j]
                                if SP[LB_STAMP, L] != sc2:
                                    SP[LB_STAMP, L] = sc2
                                    tot += SP[LB_SIZE, L]
                        if merged > 0:
                            for w in range(W):
                                x = MS[hrow, w]
                                while x != ZERO:
                                    i = w * 64 + np.int64(ctz(x))
                                    x &= x - ONE
                                    if SP[LB_STAMP, SP[SP_LAB, i]] != sc:
                                        continue
                                    for d in range(6):
                                        j = nb[i, d]
                                        if j >= 0 and SP[SP_OWNER, j] == p and SP[SP_WHAT, j] == W_LAND:
                                            L = SP[SP_LAB, j]
                                            if SP[LB_STAMP, L] != sc2:
                                                SP[LB_STAMP, L] = sc2
                                                tot += SP[LB_SIZE, L]
                        income = mkcnt[h] * (size + tot)
                    k = reached + newm
                    if k <= 0:
                        mp1 = 0
                    elif k <= nmp:
                        mp1 = pi[P_MP + k - 1]
                    else:
                        mp1 = k * (k + 1) // 2
                    dm = mp1 - mp0
                    feats[fi, 0] = dm + (hnew - hold) + wat + income / mpp
                    feats[fi, 2] = size
                    if full:
                        feats[fi, 1] = income
                        feats[fi, 3] = newm
                        feats[fi, 4] = wat
                        feats[fi, 5] = merged
                        feats[fi, 6] = free
                        best = 99
                        for m in range(nunr):
                            dd = mdist[h, SP[SR_UNR, m]]
                            if dd < best:
                                best = dd
                        feats[fi, 7] = best
                    fi += 1
    return fi


@njit(cache=True, _nrt=False)
def legal_mask(MS, p, t, out):
    """Where card type t may go for p (into out); returns 1 if a land card is played as pampa."""
    W = MS.shape[1]
    if t < T_PAMPA:
        if anyrow(MS, R_FTERR + t):
            for w in range(W):
                out[w] = MS[R_FTERR + t, w]
            return 0
        for w in range(W):
            out[w] = MS[R_FPAM, w] & MS[R_NBL + p, w]
        return 1
    if t == T_PAMPA:
        for w in range(W):
            out[w] = MS[R_FPAM, w] & MS[R_NBL + p, w]
        return 0
    a = t - T_ANIMAL
    for w in range(W):
        out[w] = MS[R_FPAM, w] & (MS[R_NBL + p, w] | MS[R_NBH + 4 * p + a, w])
    return 0


@njit(cache=True, inline="always")
def legal_row(MS, p, t, r):
    """legal_mask into mask row r."""
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
def _unreached(MS, SP, p, mkspace):
    n = 0
    for m in range(mkspace.shape[0]):
        if not tb(MS, R_REACH + p, mkspace[m]):
            SP[SR_UNR, n] = m
            n += 1
    return n


@njit(cache=True, _nrt=False)
def best_values(MS, SP, pi, p, nb, mkcnt, mdist, mkspace, row, FV):
    """Best immediate value of playing each card type t now into FV[F_CBV + p, t], FV[F_CBS + p, t] and
    SP[SR_CBH + p, t] (value, group size, best space; -1 none legal), the lexicographic maximum of (value, size)
    over the legal spaces. A type is redone when its best space was taken, its values were reset (best space -2)
    or p placed a tile since (dirty mask MS[R_D + 5 p] for land, MS[R_D + 5 p + 1 + a] for animal a). Only the
    spaces where the value can differ from the plain one (next to own groups, water, markets) are evaluated, and
    those through the per-space value cache FV[F_VV + r] / FV[F_VS + r] (r = 5 p for p's land tiles, whatever the
    terrain; 5 p + 1 + a for animal a), valid where MS[R_VALID + r] is set (the engine clears it where a
    placement, hacienda or water tile changes values)."""
    W = MS.shape[1]
    reached = -1
    nunr = 0
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
        if reached < 0:
            nunr = _unreached(MS, SP, p, mkspace)
            reached = countrow(MS, R_REACH + p)
        anyx = False
        for w in range(W):
            if MS[R_X, w] != ZERO:
                anyx = True
                break
        if not anyx:
            FV[F_CBV + p, t] = 0.0
            FV[F_CBS + p, t] = 0.0
            SP[SR_CBH + p, t] = -1
            continue
        ry = R_YT + t
        plain = False
        if t < T_ANIMAL:
            pv = np.float64(chain_points(pi, np.int64(1)))
            for w in range(W):
                MS[ry, w] = MS[R_X, w] & (MS[R_NBL + p, w] | MS[R_NBW, w])
                if MS[R_X, w] & ~MS[ry, w] != ZERO:
                    plain = True
        else:
            a = t - T_ANIMAL
            pv = 0.0
            hh = SP[SR, S_HH + 4 * p + a] > 0
            for w in range(W):
                c = MS[R_NBMK, w] | MS[R_NBW, w]
                if hh:
                    c |= MS[R_NBH + 4 * p + a, w]
                MS[ry, w] = MS[R_X, w] & c
                if MS[R_X, w] & ~MS[ry, w] != ZERO:
                    plain = True
        bv = -1e9
        bs = 0.0
        bh = -1
        if plain:
            bv = pv
            bs = 1.0
            for w in range(W):
                x = MS[R_X, w] & ~MS[ry, w]
                if x != ZERO:
                    bh = w * 64 + np.int64(ctz(x))
                    break
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
        eval_spaces(MS, SP, pi, p, np.int64(kinds), nb, mkcnt, mdist, np.int64(nunr), np.int64(reached), row, False)
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


@njit(cache=True, inline="always")
def _water_fits(MS, cells, k):
    for c in range(k):
        if not tb(MS, R_FPAM, cells[c]):
            return False
    return True


@njit(cache=True, inline="always")
def _wplace(MS, SP, p, nb, h, s, o, oh, th):
    """Water placement (shape s: 0 single, 1 pair, 2 triangle, 3 line; anchor h, orientation o; the spaces as in
    water_cells) if all its spaces are free pampa: (k spaces, second space, third space, p's tiles next to it, all
    players' tiles next to it); k = 0 if it does not fit. The counts come from the per-space counts SP[SP_NC + p]
    / SP[SP_NCALL] (oh, th: those of h): a tile next to two spaces of the placement is one of the two other
    common neighbours of two adjacent spaces (the directions of nb go round the hex in order, so d - 1 and
    d + 1 are the common neighbours of h and nb[h, d]) and is counted once (the q1..q4 below; an index -1, off
    the board, reads the last column of SP, never a space: owner -1); no space is next to all three spaces of a
    triangle, and the two ends of a line share only its middle. (Written without helper calls: every inlined
    call costs compile time, and this one is inlined eighteen times.)"""
    if s == 0:
        return 1, -1, -1, oh, th
    j = nb[h, o] if s == 2 else nb[h, o + 1]
    if j < 0 or not tb(MS, R_FPAM, j):
        return 0, -1, -1, 0, 0
    own = oh + SP[SP_NC + p, j]
    tot = th + SP[SP_NCALL, j]
    q1 = SP[SP_OWNER, nb[h, (5 if o == 0 else o - 1) if s == 2 else o]]
    q2 = SP[SP_OWNER, nb[h, o + 2]]
    own -= (1 if q1 == p else 0) + (1 if q2 == p else 0)
    tot -= (1 if q1 >= 0 else 0) + (1 if q2 >= 0 else 0)
    if s == 1:
        return 2, j, -1, own, tot
    k = nb[h, o + 1] if s == 2 else nb[j, o + 1]
    if k < 0 or not tb(MS, R_FPAM, k):
        return 0, -1, -1, 0, 0
    own += SP[SP_NC + p, k]
    tot += SP[SP_NCALL, k]
    # triangle h, j = nb[h, o], k = nb[h, o + 1]: h's o - 1 and o + 2, j's o + 1; line h, j = nb[h, o + 1],
    # k = nb[j, o + 1]: h's o and o + 2, j's o and o + 2
    q3 = SP[SP_OWNER, nb[j, o + 1 if s == 2 else o]]
    own -= 1 if q3 == p else 0
    tot -= 1 if q3 >= 0 else 0
    if s == 3:
        q4 = SP[SP_OWNER, nb[j, o + 2]]
        own -= 1 if q4 == p else 0
        tot -= 1 if q4 >= 0 else 0
    return 3, j, k, own, tot


@njit(cache=True, inline="always")
def _water_setup(MS, p, only_near):
    """R_X = the anchors to try (free pampa; with only_near next to p's tiles, with 2 also in R_WD + p)."""
    for w in range(MS.shape[1]):
        if only_near:
            own = MS[R_NBL + p, w]
            for a in range(4):
                own |= MS[R_NBH + 4 * p + a, w]
            MS[R_X, w] = own & MS[R_FPAM, w]
            if only_near == 2:
                MS[R_X, w] &= MS[R_WD + p, w]
        else:
            MS[R_X, w] = MS[R_FPAM, w]


@njit(cache=True, inline="always")
def _wrow(MS, SP, p, nb, h, s, o, oh, th, ok, moves, feats, off, n, maxm, wp, price, fprice):
    """gen_water's row for placement (s, h, o) at off + n if its tiles are available (ok) and it fits; returns the
    new row count, or -1 - n when the buffer is full."""
    if not ok:
        return n
    k, c1, c2, own, tot = _wplace(MS, SP, p, nb, h, s, o, oh, th)
    if k == 0:
        return n
    if n >= maxm:
        return -1 - n
    i = off + n
    moves[i, 0] = s
    moves[i, 1] = h
    moves[i, 2] = o
    moves[i, 3] = h + 1024 * (c1 if k > 1 else 1023) + 1048576 * (c2 if k > 2 else 1023)
    feats[i, 2] = own
    feats[i, 3] = tot - own
    feats[i, 4] = k
    feats[i, 0] = own * wp - price
    feats[i, 1] = fprice
    feats[i, 5] = SP[SR, S_WS + s]
    feats[i, 6] = 0.0
    feats[i, 7] = 0.0
    return n + 1


@njit(cache=True, _nrt=False)
def gen_water(MS, SP, pi, p, nb, nbmask, moves, feats, maxm, only_near, off):
    """All water placements (shape, anchor, orientation) on free pampa; with only_near, only anchors next
    to p's tiles (for the action-level estimate), and with only_near == 2 only those in MS[R_WD + p] too.
    Rows from off on; returns their number. Own / other players' tiles next to a placement come from the
    per-space counts (_wplace). The four shapes are written out one by one (constant shapes: no shape
    branches per placement; order shape, then orientation)."""
    W = MS.shape[1]
    _water_setup(MS, p, only_near)
    wp = pi[P_WATER_PTS]
    price = pi[P_WATER_PRICE] / pi[P_MPP]
    fprice = -np.float64(pi[P_WATER_PRICE])
    ws0 = SP[SR, S_WS] > 0
    ws1 = SP[SR, S_WS + 1] > 0
    ws2 = SP[SR, S_WS + 2] > 0
    ws3 = SP[SR, S_WS + 3] > 0
    n = 0
    for w in range(W):
        x = MS[R_X, w]
        while x != ZERO:
            h = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            oh = SP[SP_NC + p, h]
            th = SP[SP_NCALL, h]
            if ws0:
                n = _wrow(MS, SP, p, nb, h, 0, 0, oh, th, True, moves, feats, off, n, maxm, wp, price, fprice)
                if n < 0:
                    return -1 - n
            if ws1:
                for o in range(3):
                    n = _wrow(MS, SP, p, nb, h, 1, o, oh, th, True, moves, feats, off, n, maxm, wp, price, fprice)
                    if n < 0:
                        return -1 - n
            if ws2:
                for o in range(2):
                    n = _wrow(MS, SP, p, nb, h, 2, o, oh, th, True, moves, feats, off, n, maxm, wp, price, fprice)
                    if n < 0:
                        return -1 - n
            if ws3:
                for o in range(3):
                    n = _wrow(MS, SP, p, nb, h, 3, o, oh, th, True, moves, feats, off, n, maxm, wp, price, fprice)
                    if n < 0:
                        return -1 - n
    return n


@njit(cache=True, inline="always")
def _wbest(MS, SP, p, nb, h, s, o, oh, th, ok, wp, price, n, bv, bown, bs, bh, bo):
    """best_water's step for placement (s, h, o)."""
    if ok:
        k, _c1, _c2, own, _tot = _wplace(MS, SP, p, nb, h, s, o, oh, th)
        if k > 0:
            fo = np.float64(own)
            val = fo * wp - price
            if val > bv:
                bv = val
                bown = fo
                bs = s
                bh = h
                bo = o
            n += 1
    return n, bv, bown, bs, bh, bo


@njit(cache=True, _nrt=False)
def best_water(MS, SP, pi, p, nb, nbmask, only_near, bv):
    """The first water placement of gen_water's order (only_near 1 or 2) whose value beats bv and every earlier
    one, without listing rows: returns (placements seen, best value, own tiles next to it, shape, anchor,
    orientation; shape -1 if none beat bv)."""
    W = MS.shape[1]
    _water_setup(MS, p, only_near)
    wp = pi[P_WATER_PTS]
    price = pi[P_WATER_PRICE] / pi[P_MPP]
    ws0 = SP[SR, S_WS] > 0
    ws1 = SP[SR, S_WS + 1] > 0
    ws2 = SP[SR, S_WS + 2] > 0
    ws3 = SP[SR, S_WS + 3] > 0
    n = 0
    bown = 0.0
    bs = -1
    bh = -1
    bo = -1
    for w in range(W):
        x = MS[R_X, w]
        while x != ZERO:
            h = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            oh = SP[SP_NC + p, h]
            th = SP[SP_NCALL, h]
            if ws0:
                n, bv, bown, bs, bh, bo = _wbest(
                    MS, SP, p, nb, h, 0, 0, oh, th, True, wp, price, n, bv, bown, bs, bh, bo
                )
            if ws1:
                for o in range(3):
                    n, bv, bown, bs, bh, bo = _wbest(
                        MS, SP, p, nb, h, 1, o, oh, th, True, wp, price, n, bv, bown, bs, bh, bo
                    )
            if ws2:
                for o in range(2):
                    n, bv, bown, bs, bh, bo = _wbest(
                        MS, SP, p, nb, h, 2, o, oh, th, True, wp, price, n, bv, bown, bs, bh, bo
                    )
            if ws3:
                for o in range(3):
                    n, bv, bown, bs, bh, bo = _wbest(
                        MS, SP, p, nb, h, 3, o, oh, th, True, wp, price, n, bv, bown, bs, bh, bo
                    )
    return n, bv, bown, bs, bh, bo


@njit(cache=True, _nrt=False)
def gen_groups(MS, SP, pi, p, moves, feats, off=0):
    """Hacienda targets: p's land chains and herds without a hacienda (one row each)."""
    W = MS.shape[1]
    sc = _stamp(SP)
    n = 0
    price = pi[P_HAC_PRICE] / pi[P_MPP]
    for r in range(5):
        row = R_LAND + p if r == 0 else R_HERD + 4 * p + r - 1
        for w in range(W):
            x = MS[row, w]
            while x != ZERO:
                i = w * 64 + np.int64(ctz(x))
                x &= x - ONE
                L = SP[SP_LAB, i]
                if not _first(SP, L, sc) or SP[LB_HAC, L] > 0:
                    continue
                s = SP[LB_SIZE, L]
                k = off + n
                moves[k, 0] = i
                moves[k, 1] = r
                moves[k, 2] = s
                moves[k, 3] = 0
                feats[k, 0] = s * pi[P_HAC_PTS] - price
                feats[k, 1] = -pi[P_HAC_PRICE]
                feats[k, 2] = s
                feats[k, 3] = r
                feats[k, 4] = SP[LB_CHIP, L] if r == 0 else 0
                feats[k, 5] = 0.0
                feats[k, 6] = 0.0
                feats[k, 7] = 0.0
                n += 1
    return n


@njit(cache=True, inline="always")
def _group_cached(SP, p, harvest):
    """best_group's cached answer, or -1 (checked in the caller: the call alone costs more than the check)."""
    if harvest:
        if SP[SR_GC, 10 + p] == SP[SR, S_PVER + p] and SP[SR_GC, 15 + p] == SP[SR, S_CVER]:
            return SP[SR_GC, 20 + p]
        return -1
    if SP[SR_GC, p] == SP[SR, S_PVER + p]:
        return SP[SR_GC, 5 + p]
    return -1


@njit(cache=True, _nrt=False)
def best_group(MS, SP, p, harvest):
    """The size of the largest group gen_groups (harvest False: p's chains and herds without a hacienda) or
    gen_harvest (True: p's chains without a chip, if a chip can be had) would list (their best row), without
    listing them; 0 if they list none. Cached per player: p's groups change only with p's placements and
    haciendas (S_PVER), the chips only with harvests (S_CVER)."""
    if harvest:
        if SP[SR_GC, 10 + p] == SP[SR, S_PVER + p] and SP[SR_GC, 15 + p] == SP[SR, S_CVER]:
            return SP[SR_GC, 20 + p]
        SP[SR_GC, 10 + p] = SP[SR, S_PVER + p]
        SP[SR_GC, 15 + p] = SP[SR, S_CVER]
        SP[SR_GC, 20 + p] = 0
    else:
        if SP[SR_GC, p] == SP[SR, S_PVER + p]:
            return SP[SR_GC, 5 + p]
        SP[SR_GC, p] = SP[SR, S_PVER + p]
        SP[SR_GC, 5 + p] = 0
    W = MS.shape[1]
    sc = _stamp(SP)
    if harvest and SP[SR, S_CHIPS] <= 0:
        victim = False
        for w in range(W):
            y = MS[R_CHIPS, w]
            while y != ZERO:
                j = w * 64 + np.int64(ctz(y))
                y &= y - ONE
                if SP[SP_OWNER, j] != p:
                    victim = True
        if not victim:
            return 0
    best = 0
    for r in range(1 if harvest else 5):
        row = R_LAND + p if r == 0 else R_HERD + 4 * p + r - 1
        for w in range(W):
            x = MS[row, w]
            while x != ZERO:
                i = w * 64 + np.int64(ctz(x))
                x &= x - ONE
                L = SP[SP_LAB, i]
                if not _first(SP, L, sc):
                    continue
                if SP[LB_CHIP if harvest else LB_HAC, L] > 0:
                    continue
                if SP[LB_SIZE, L] > best:
                    best = SP[LB_SIZE, L]
    SP[SR_GC, (20 if harvest else 5) + p] = best
    return best


@njit(cache=True, _nrt=False)
def gen_harvest(MS, SP, pi, p, moves, feats, off=0):
    """Harvest: (p's chain without a chip) x (chip source: supply, or a chip on another player's chain)."""
    W = MS.shape[1]
    sc = _stamp(SP)
    n = 0
    nsrc = 1
    for w in range(W):
        x = MS[R_LAND + p, w]
        while x != ZERO:
            i = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            L = SP[SP_LAB, i]
            if not _first(SP, L, sc) or SP[LB_CHIP, L] > 0:
                continue
            s = SP[LB_SIZE, L]
            if SP[SR, S_CHIPS] > 0:
                _harvest_row(moves, feats, off + n, i, -1, s, 0, pi)
                n += 1
            else:
                for v in range(W):
                    y = MS[R_CHIPS, v]
                    while y != ZERO:
                        j = v * 64 + np.int64(ctz(y))
                        y &= y - ONE
                        if SP[SP_OWNER, j] == p:
                            continue
                        _harvest_row(moves, feats, off + n, i, j, s, SP[LB_SIZE, SP[SP_LAB, j]], pi)
                        n += 1
    return n


@njit(cache=True, inline="always")
def _harvest_row(moves, feats, n, i, j, s, vs, pi):
    moves[n, 0] = i
    moves[n, 1] = j
    moves[n, 2] = s
    moves[n, 3] = 0
    pes = s * pi[P_HARV_RATE]
    feats[n, 0] = pes / pi[P_MPP]
    feats[n, 1] = pes
    feats[n, 2] = s
    feats[n, 3] = vs
    feats[n, 4] = 0.0
    feats[n, 5] = 0.0
    feats[n, 6] = 0.0
    feats[n, 7] = 0.0


# ---------------------------------------------------------------------------------------------
# the game


@njit(cache=True, inline="always")
def _draw_animal(SP, adeck):
    """Top card of the current animal stack, or -1; notes when stack 1 runs out."""
    if SP[SR, S_APTR] >= SP[SR, S_A2]:
        return -1
    c = adeck[SP[SR, S_APTR]]
    SP[SR, S_APTR] += 1
    return c


@njit(cache=True, _nrt=False)
def _dirty_group(MS, dr, nbmask):
    """MS[R_D + dr] |= the spaces next to the group in MS[R_G] (the group just re-labelled); their values are stale."""
    W = MS.shape[1]
    for w in range(W):
        x = MS[R_G, w]
        while x != ZERO:
            i = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            for v in range(W):
                MS[R_D + dr, v] |= nbmask[i, v]
    for w in range(W):
        MS[R_VALID + dr, w] &= ~MS[R_D + dr, w]


@njit(cache=True, inline="always")
def _ball3(MS, p, h, ball3):
    """MS[R_WD + p] |= the spaces at most 3 steps from h (anchors of the water spots with a space next to h;
    ball3 = that table, built with the board)."""
    for w in range(MS.shape[1]):
        MS[R_WD + p, w] |= ball3[h, w]


@njit(cache=True, _nrt=False)
def _dirty_land(MS, SP, p, h, nbmask):
    """After p's land tile on h (chain in MS[R_G]): land values change next to the chain; animal values change
    where the tile makes new legal spaces (next to h) and where market income counts the chain (spaces next to
    a market and next to the chain, or every market space if the chain touches a herd of that animal)."""
    W = MS.shape[1]
    for w in range(W):
        MS[R_REM, w] = ZERO
    for w in range(W):
        x = MS[R_G, w]
        while x != ZERO:
            i = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            for v in range(W):
                MS[R_REM, v] |= nbmask[i, v]
    r = 5 * p
    for w in range(W):
        MS[R_D + r, w] |= MS[R_REM, w]
        MS[R_VALID + r, w] &= ~MS[R_REM, w]
    # (the spaces next to h become legal for animals: the type is redone (dirty), but their cached animal values
    # stay valid: an animal's value depends on land only through the market income)
    for a in range(4):
        touch = False
        for w in range(W):
            if MS[R_REM, w] & MS[R_HERD + 4 * p + a, w] != ZERO:
                touch = True
                break
        hr = R_HERD + 4 * p + a
        for w in range(W):
            MS[R_TMP, w] = MS[R_REM, w]
        if touch:
            # the income next to a market also counts the chains next to the herds it would merge with: add the
            # spaces next to the herds of a that touch the chain
            SP[SR, S_STAMP] += 1
            sc = SP[SR, S_STAMP]
            for w in range(W):
                x = MS[R_REM, w] & MS[hr, w]
                while x != ZERO:
                    i = w * 64 + np.int64(ctz(x))
                    x &= x - ONE
                    SP[LB_STAMP, SP[SP_LAB, i]] = sc
            for w in range(W):
                x = MS[hr, w]
                while x != ZERO:
                    i = w * 64 + np.int64(ctz(x))
                    x &= x - ONE
                    if SP[LB_STAMP, SP[SP_LAB, i]] == sc:
                        for v in range(W):
                            MS[R_TMP, v] |= nbmask[i, v]
        for w in range(W):
            x = MS[R_NBMK, w] & MS[R_TMP, w]
            MS[R_D + r + 1 + a, w] |= x | nbmask[h, w]
            MS[R_VALID + r + 1 + a, w] &= ~x


@njit(cache=True, inline="always")
def _act_row(moves, feats, m, code, arg, t, value, pesos, size, inhand, handsize, money, acts):
    moves[m, 0] = code
    moves[m, 1] = arg
    moves[m, 2] = t
    moves[m, 3] = 0
    feats[m, 0] = value
    feats[m, 1] = pesos
    feats[m, 2] = size
    feats[m, 3] = inhand
    feats[m, 4] = handsize
    feats[m, 5] = money
    feats[m, 6] = acts
    feats[m, 7] = t


@njit(cache=True)
def move_rows(n):
    """Rows of the move/feature buffers: enough for every water placement (9 per free pampa space)."""
    return 9 * n + 64
