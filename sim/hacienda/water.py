"""Water tiles (numba, nopython): where one may go (``gen_water`` lists every placement: shape, anchor,
orientation, with the player's and the other players' tiles next to it), and the best placement next to the
player's own tiles without listing them (``best_water``, the action's estimate).
"""

import numpy as np
from numba import njit

from .bits import ONE, ZERO, ctz, tb
from .features import Water
from .layout import *
from .scoring import P_MPP, P_WATER_PRICE, P_WATER_PTS, R_FPAM, R_NBH, R_NBL, R_X


@njit(cache=True, inline="always")
def water_fits(MS, cells, k):
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
    feats[i, Water.OWN_TILES] = own
    feats[i, Water.OTHER_TILES] = tot - own
    feats[i, Water.HEXES] = k
    feats[i, Water.VALUE] = own * wp - price
    feats[i, Water.MINUS_PRICE] = fprice
    feats[i, Water.SHAPE_LEFT] = SP[SR, S_WS + s]
    feats[i, 6] = 0.0  # unused columns
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
