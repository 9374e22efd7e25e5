"""Hacienda's board (numba, nopython): tiles, discs and water tiles placed, groups re-labelled, market income.

The board state is a table of uint64 masks ``MS`` (rows in ``scoring.py`` and ``layout.py``: land per player,
herds per player and animal, free pampa / free terrain, water, chips, haciendas, markets reached, static
terrain/pampa/market/source masks, one mask per water tile, one mask per group label) and an integer table
``SP`` (``layout.py``: per-space owner / what / label / counts, per-label size / haciendas / chips, the scalar
state row ``SR``). Each placement re-labels the merged group (``_relabel``), so candidate features cost a few
neighbour look-ups (``values.py``), and marks the spaces whose cached values it changes (``_dirty_*``).

The rest of the engine: what a tile is worth where (``values.py``), water tile placements (``water.py``), the
chains and herds for haciendas and harvests (``groups.py``), the set-up (``setup.py``), the actions
(``actions.py``) and the turn flow and forward model (``flow.py``).
"""

import numpy as np
from numba import njit

from meeplab.sim.core.bits import popcount

from .bits import ONE, ZERO, cb, ctz, sb
from .layout import *
from .scoring import (
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
    R_REACH,
    R_REM,
    R_TMP,
    R_WATER,
    R_WP,
)

# ---------------------------------------------------------------------------------------------
# the tables and their scratch stamps


@njit(cache=True, _nrt=False)
def clear_sp(SP):
    """The integer table of an empty board: zero, but no owner, what, label or water tile on any space (-1), no
    stamp (-1), no best space cached (-2) and no group size cached (-1)."""
    for r in range(SP.shape[0]):
        for i in range(SP.shape[1]):
            SP[r, i] = 0
    for r in range(SP_WCNT):
        for i in range(SP.shape[1]):
            SP[r, i] = -1
    for i in range(SP.shape[1]):
        SP[SP_STAMP, i] = -1
        SP[SR_GC, i] = -1
    for r in range(SR_CBH, SR_CBH + 5):
        for i in range(SP.shape[1]):
            SP[r, i] = -2


@njit(cache=True)
def new_sp(n):
    """A fresh integer state table for a board of n spaces."""
    SP = np.zeros((SP_ROWS, max(n + 2, 64)), dtype=np.int64)
    clear_sp(SP)
    return SP


@njit(cache=True, inline="always")
def new_stamp(SP):
    SP[SR, S_STAMP] += 1
    return SP[SR, S_STAMP]


@njit(cache=True, inline="always")
def first_seen(SP, L, sc):
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
        size += popcount(x)
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


@njit(cache=True, inline="always")
def chains_next_to(SP, nb, p, i, sc):
    """The tiles of p's land chains next to space i that are not counted yet under stamp sc (each chain once)."""
    tot = 0
    for d in range(6):
        j = nb[i, d]
        if j >= 0 and SP[SP_OWNER, j] == p and SP[SP_WHAT, j] == W_LAND:
            L = SP[SP_LAB, j]
            if first_seen(SP, L, sc):
                tot += SP[LB_SIZE, L]
    return tot


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
        # the herd's size plus the tiles of p's land chains touching it, once for each market next to h
        sc = new_stamp(SP)
        tot = 0
        g = MS[R_G]
        for w in range(W):
            x = g[w]
            while x != ZERO:
                i = w * 64 + np.int64(ctz(x))
                x &= x - ONE
                tot += chains_next_to(SP, nb, p, i, sc)
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


@njit(cache=True, _nrt=False)
def place_hacienda(MS, SP, p, r, h, nbmask, view):
    """Put a hacienda on p's group of space h (r: 0 a land chain, 1 + a a herd of animal a). Its hacienda term
    changes the values next to the group: they are stale (that card type, or the land types); the first hacienda
    on a herd of an animal makes the spaces next to all p's herds of it candidates (that type is redone in full)."""
    W = MS.shape[1]
    sb(MS, R_HAC, h)
    SP[LB_HAC, SP[SP_LAB, h]] += 1
    SP[SR, S_PVER + p] += 1
    if r == 0:
        SP[SR, S_LVER + p] += 1
        grow = R_LAND + p
    else:
        if SP[SR, S_HH + 4 * p + r - 1] == 0:
            SP[SR_CBH + p, T_ANIMAL + r - 1] = -2
        grow = R_HERD + 4 * p + r - 1
    lh = SP[SP_LAB, h]
    for w in range(W):
        x = MS[grow, w]
        while x != ZERO:
            i = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            if SP[SP_LAB, i] == lh:
                for v in range(W):
                    MS[R_VALID + 5 * p + r, v] &= ~nbmask[i, v]
                    MS[R_D + 5 * p + r, v] |= nbmask[i, v]
    view[V_SPACE + h] += 128
    if r > 0:
        SP[SR, S_HH + 4 * p + r - 1] = 1


# ---------------------------------------------------------------------------------------------
# stale values after a placement (values.py caches them per player and card type)


@njit(cache=True, inline="always")
def _or_neighbours(MS, src, dst, nbmask):
    """MS[dst] |= the spaces next to the spaces of MS[src]."""
    W = MS.shape[1]
    for w in range(W):
        x = MS[src, w]
        while x != ZERO:
            i = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            for v in range(W):
                MS[dst, v] |= nbmask[i, v]


@njit(cache=True, _nrt=False)
def dirty_group(MS, dr, nbmask):
    """MS[R_D + dr] |= the spaces next to the group in MS[R_G] (the group just re-labelled); their values are stale."""
    _or_neighbours(MS, R_G, R_D + dr, nbmask)
    for w in range(MS.shape[1]):
        MS[R_VALID + dr, w] &= ~MS[R_D + dr, w]


@njit(cache=True, inline="always")
def mark_ball3(MS, p, h, ball3):
    """MS[R_WD + p] |= the spaces at most 3 steps from h (anchors of the water spots with a space next to h;
    ball3 = that table, built with the board)."""
    for w in range(MS.shape[1]):
        MS[R_WD + p, w] |= ball3[h, w]


@njit(cache=True, _nrt=False)
def dirty_land(MS, SP, p, h, nbmask):
    """After p's land tile on h (chain in MS[R_G]): land values change next to the chain; animal values change
    where the tile makes new legal spaces (next to h) and where market income counts the chain (spaces next to
    a market and next to the chain, or every market space if the chain touches a herd of that animal)."""
    W = MS.shape[1]
    for w in range(W):
        MS[R_REM, w] = ZERO
    _or_neighbours(MS, R_G, R_REM, nbmask)
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
            sc = new_stamp(SP)
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
def dirty_markets(MS, SP, p):
    """After p reached another market: the market term of every animal type changes (only on spaces next to a
    market: elsewhere no new market is reached and the term is 0); each type is redone."""
    for t in range(T_ANIMAL, NT):
        SP[SR_CBH + p, t] = -2
        for w in range(MS.shape[1]):
            MS[R_VALID + 5 * p + 1 + t - T_ANIMAL, w] &= ~MS[R_NBMK, w]


@njit(cache=True, inline="always")
def dirty_water(MS, cells, k, np_, nbmask):
    """After a water tile on cells[0:k]: the water counts change next to it, so those values are stale for
    everybody."""
    for w in range(MS.shape[1]):
        x = ZERO
        for c in range(k):
            x |= nbmask[cells[c], w]
        for r in range(5 * np_):
            MS[R_VALID + r, w] &= ~x
            MS[R_D + r, w] |= x
