"""Haciendas and harvests (numba, nopython): the player's chains and herds that can take a hacienda
(``gen_groups``), the chains that can be harvested and where the chip comes from (``gen_harvest``), and the
largest of either without listing them (``best_group``, the action's estimate).
"""

import numpy as np
from numba import njit

from .bits import ONE, ZERO, ctz
from .engine import first_seen, new_stamp
from .features import Hacienda, Harvest
from .layout import *
from .scoring import P_HAC_PRICE, P_HAC_PTS, P_HARV_RATE, P_MPP, R_CHIPS, R_HERD, R_LAND


@njit(cache=True, inline="always")
def _open_groups(MS, SP, p, nrows, flag, sc):
    """p's groups without a hacienda (flag LB_HAC) or without a chip (LB_CHIP), each once (label stamp sc), in
    the order of their rows (p's land, then p's herds of each animal; nrows 1: land only, 5: all) and spaces: the
    first space of each into the scratch row SP_STAMP. Returns how many."""
    W = MS.shape[1]
    n = 0
    for r in range(nrows):
        row = R_LAND + p if r == 0 else R_HERD + 4 * p + r - 1
        for w in range(W):
            x = MS[row, w]
            while x != ZERO:
                i = w * 64 + np.int64(ctz(x))
                x &= x - ONE
                L = SP[SP_LAB, i]
                if first_seen(SP, L, sc) and SP[flag, L] <= 0:
                    SP[SP_STAMP, n] = i
                    n += 1
    return n


@njit(cache=True, inline="always")
def _chip_to_take(MS, SP, p):
    """Whether another player's chain carries a chip (taken when the supply is empty)."""
    victim = False
    for w in range(MS.shape[1]):
        y = MS[R_CHIPS, w]
        while y != ZERO:
            j = w * 64 + np.int64(ctz(y))
            y &= y - ONE
            if SP[SP_OWNER, j] != p:
                victim = True
    return victim


@njit(cache=True, _nrt=False)
def gen_groups(MS, SP, pi, p, moves, feats, off=0):
    """Hacienda targets: p's land chains and herds without a hacienda (one row each)."""
    price = pi[P_HAC_PRICE] / pi[P_MPP]
    ng = _open_groups(MS, SP, p, 5, LB_HAC, new_stamp(SP))
    for n in range(ng):
        i = SP[SP_STAMP, n]
        L = SP[SP_LAB, i]
        r = SP[SP_WHAT, i]  # 0 land, 1 + a herd of animal a: the row it was found in
        s = SP[LB_SIZE, L]
        k = off + n
        moves[k, 0] = i
        moves[k, 1] = r
        moves[k, 2] = s
        moves[k, 3] = 0
        feats[k, Hacienda.VALUE] = s * pi[P_HAC_PTS] - price
        feats[k, Hacienda.MINUS_PRICE] = -pi[P_HAC_PRICE]
        feats[k, Hacienda.SIZE] = s
        feats[k, Hacienda.HERD] = r
        feats[k, Hacienda.CHIPS] = SP[LB_CHIP, L] if r == 0 else 0
        feats[k, 5] = 0.0  # unused columns
        feats[k, 6] = 0.0
        feats[k, 7] = 0.0
    return ng


@njit(cache=True, inline="always")
def group_cached(SP, p, harvest):
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
    cached = group_cached(SP, p, harvest)
    if cached >= 0:
        return cached
    if harvest:
        SP[SR_GC, 10 + p] = SP[SR, S_PVER + p]
        SP[SR_GC, 15 + p] = SP[SR, S_CVER]
        SP[SR_GC, 20 + p] = 0
    else:
        SP[SR_GC, p] = SP[SR, S_PVER + p]
        SP[SR_GC, 5 + p] = 0
    sc = new_stamp(SP)
    if harvest and SP[SR, S_CHIPS] <= 0 and not _chip_to_take(MS, SP, p):
        return 0
    best = 0
    for k in range(_open_groups(MS, SP, p, 1 if harvest else 5, LB_CHIP if harvest else LB_HAC, sc)):
        s = SP[LB_SIZE, SP[SP_LAB, SP[SP_STAMP, k]]]
        if s > best:
            best = s
    SP[SR_GC, (20 if harvest else 5) + p] = best
    return best


@njit(cache=True, _nrt=False)
def gen_harvest(MS, SP, pi, p, moves, feats, off=0):
    """Harvest: (p's chain without a chip) x (chip source: supply, or a chip on another player's chain)."""
    W = MS.shape[1]
    n = 0
    for c in range(_open_groups(MS, SP, p, 1, LB_CHIP, new_stamp(SP))):
        i = SP[SP_STAMP, c]
        s = SP[LB_SIZE, SP[SP_LAB, i]]
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
    """gen_harvest's row n: chain (space i, s tiles) harvested with the chip from space j (-1: the supply; vs:
    the size of the chain it leaves)."""
    moves[n, 0] = i
    moves[n, 1] = j
    moves[n, 2] = s
    moves[n, 3] = 0
    pes = s * pi[P_HARV_RATE]
    feats[n, Harvest.VALUE] = pes / pi[P_MPP]
    feats[n, Harvest.PESOS] = pes
    feats[n, Harvest.SIZE] = s
    feats[n, Harvest.VICTIM_SIZE] = vs
    feats[n, 4] = 0.0  # unused columns
    feats[n, 5] = 0.0
    feats[n, 6] = 0.0
    feats[n, 7] = 0.0
