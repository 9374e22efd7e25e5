"""Setting up a game of Hacienda (numba, nopython), and the box's limits.

The table (``set_table``): the empty board (``clear_board``), a water tile on each water source
(``place_sources``), the shuffled land deck and animal stacks dealt (``deal_land``, ``deal_animals``), and the box's
land tiles and animal discs (``fill_box``). The box's limits during play: land tiles are double-sided, two
player colours each, and shared (``land_left``, ``take_land``); each player has 30 animal discs
(``discs_left``).
"""

import numpy as np
from numba import njit

from meeplab.sim.core.forward import C_NP, C_PHASE, C_SEAT
from meeplab.sim.core.records import log_st
from meeplab.sim.core.rng import shuffle

from .bits import ZERO
from .engine import clear_sp, init_free, place_water
from .layout import *
from .scoring import (
    NCAT,
    P_ANIMALS_PER,
    P_CHIPS,
    P_DISCS,
    P_DISPLAY,
    P_HACS,
    P_LAND_PER,
    P_LAND_TILES,
    P_PAMPA_CARDS,
    P_REMOVED,
    P_SEAT_ANIMAL,
    P_SEAT_LAND,
    P_SEAT_MONEY,
    P_WTILES,
    R_FPAM,
    R_FTERR,
    R_MARKET,
    R_OCC,
    R_PAMPA,
    R_SRC,
    R_TERR,
)
from .state import PH_ROUND, board, tables

# ---------------------------------------------------------------------------------------------------------------
# the box's limits: land tiles (double-sided, two player colours each) and animal discs (30 per player)
# ---------------------------------------------------------------------------------------------------------------
NO_LIMIT = 1 << 30


@njit(cache=True, inline="always")
def land_left(r, pi, p):
    """Land tiles with p's colour on one side still in the box (NO_LIMIT when the supply is off)."""
    if pi[P_LAND_TILES] <= 0:
        return NO_LIMIT
    c = 0
    for x in range(MAXP):
        if x != p:
            c += r.ltiles[min(p, x), max(p, x)]
    return c


@njit(cache=True, inline="always")
def discs_left(r, pi, p):
    """Animal discs p has not placed yet (NO_LIMIT when unlimited)."""
    if pi[P_DISCS] <= 0:
        return NO_LIMIT
    return pi[P_DISCS] - r.discs[p]


@njit(cache=True, _nrt=False)
def take_land(r, pi, p, np_):
    """p takes a land tile from the box (our reading; the book does not say): one whose other colour is not in
    the game while there is one, else one shared with the opponent colour that has the most tiles left (the
    lowest colour on a tie), so a player never takes a shared tile while an own one is left."""
    if pi[P_LAND_TILES] <= 0:
        return
    best = -1
    for x in range(np_, MAXP):
        if r.ltiles[p, x] > 0:
            best = x
            break
    if best < 0:
        bc = 0
        for x in range(np_):
            if x != p:
                c = r.ltiles[min(p, x), max(p, x)]
                if c > bc:
                    bc = c
                    best = x
    if best >= 0:
        r.ltiles[min(p, best), max(p, best)] -= 1


@njit(cache=True, _nrt=False)
def fill_box(r, pi):
    """The box's land tiles over the 10 colour pairs a < b (in the order (0,1), (0,2), ..., (3,4); a remainder
    of land_tiles / 10 goes to the first pairs), and no animal disc placed."""
    tot = pi[P_LAND_TILES]
    k = 0
    for a in range(MAXP):
        r.discs[a] = 0
        for b in range(MAXP):
            r.ltiles[a, b] = 0
    for a in range(MAXP):
        for b in range(a + 1, MAXP):
            r.ltiles[a, b] = tot // 10 + (1 if k < tot % 10 else 0)
            k += 1


@njit(cache=True, _nrt=False)
def clear_board(st, cx):
    """The empty board: no tiles, every terrain and pampa space free, markets and water sources occupied."""
    MS, SP, _FV = tables(st, cx)
    W = MS.shape[1]
    for i in range(MS.shape[0]):
        for w in range(W):
            MS[i, w] = ZERO
    kind, nb, _nbmask, static, _mkcnt, _mdist, _mkspace, _ball3 = board(cx)
    for i in range(static.shape[0]):
        for w in range(W):
            MS[R_TERR + i, w] = static[i, w]
    clear_sp(SP)
    init_free(SP, kind, nb)
    for w in range(W):
        MS[R_FPAM, w] = MS[R_PAMPA, w]
        for t in range(5):
            MS[R_FTERR + t, w] = MS[R_TERR + t, w]
        MS[R_OCC, w] = MS[R_MARKET, w] | MS[R_SRC, w]


@njit(cache=True, _nrt=False)
def place_sources(st, cx):
    """Each water source carries a 1-hex water tile from the supply."""
    r = st.rec[0]
    pi = cx.tab[0].pi
    MS, SP, _FV = tables(st, cx)
    view = r.pub
    for t in range(4):
        SP[SR, S_WS + t] = pi[P_WTILES + t]
    kind, _nb, nbmask, _static, _mkcnt, _mdist, _mkspace, _ball3 = board(cx)
    for i in range(kind.shape[0]):
        if kind[i] == K_MARKET:
            view[V_SPACE + i] = -3
        elif kind[i] == 7:
            r.cells[0] = i
            place_water(MS, SP, r.cells, np.int64(1), nbmask, kind, view)
            SP[SR, S_WS] = max(0, SP[SR, S_WS] - 1)


@njit(cache=True, _nrt=False)
def deal_land(st, cx):
    """Shuffle the land cards, deal each hand, lay out the face-up cards."""
    r = st.rec[0]
    pi = cx.tab[0].pi
    np_ = r.ctl[C_NP]
    nland = 5 * pi[P_LAND_PER] + pi[P_PAMPA_CARDS]
    ldeck = r.ldeck
    k = 0
    for t in range(5):
        for _ in range(pi[P_LAND_PER]):
            ldeck[k] = t
            k += 1
    for _ in range(pi[P_PAMPA_CARDS]):
        ldeck[k] = T_PAMPA
        k += 1
    shuffle(ldeck, nland, r.rng)
    lp = 0
    for q in range(np_):
        for _ in range(pi[P_SEAT_LAND + q]):  # per seat (params: every seat the same by default)
            r.hand[q, ldeck[lp]] += 1
            lp += 1
    for s in range(pi[P_DISPLAY]):
        if lp < nland:
            r.dland[s] = ldeck[lp]
            lp += 1
    SP = tables(st, cx)[1]
    SP[SR, S_LPTR] = lp
    SP[SR, S_LEND] = nland


@njit(cache=True, _nrt=False)
def deal_animals(st, cx):
    """Shuffle the animal cards, remove some unseen, deal each hand, lay out the face-up cards, split the rest
    in two stacks."""
    r = st.rec[0]
    pi = cx.tab[0].pi
    np_ = r.ctl[C_NP]
    nan = 4 * pi[P_ANIMALS_PER]
    adeck = r.adeck
    k = 0
    for a in range(4):
        for _ in range(pi[P_ANIMALS_PER]):
            adeck[k] = T_ANIMAL + a
            k += 1
    shuffle(adeck, nan, r.rng)
    ap = pi[P_REMOVED + np_ - 2]
    for q in range(np_):
        for _ in range(pi[P_SEAT_ANIMAL + q]):
            r.hand[q, adeck[ap]] += 1
            ap += 1
    for s in range(pi[P_DISPLAY]):
        r.danim[s] = adeck[ap]
        ap += 1
    rest = nan - ap
    SP = tables(st, cx)[1]
    SP[SR, S_APTR] = ap
    SP[SR, S_A1] = ap + rest // 2
    SP[SR, S_A2] = nan


@njit(cache=True, _nrt=False)
def set_table(st, cx):
    """A new game on a seeded stream: clear the table, place the sources' water, deal the cards."""
    r = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    np_ = r.ctl[C_NP]
    n = cxt.n
    for j in range(r.ctl.shape[0]):
        if j != C_NP:
            r.ctl[j] = 0
    r.ctl[C_SEAT] = -1
    view = r.pub
    for j in range(view.shape[0]):
        view[j] = -1
    clear_board(st, cx)
    for q in range(MAXP):
        r.money[q] = 0
        for c in range(2 * NCAT):
            r.brk[q, c] = 0.0
        for t in range(NT):
            r.hand[q, t] = 0
            r.known[q, t] = 0
        r.cwk[q, 0] = -1
        r.cwk[q, 1] = -1
        r.cwv[q] = 0.0
        r.cws[q] = 0.0
        for j in range(3):
            r.cwm[q, j] = -1
    for s in range(8):
        r.dland[s] = -1
        r.danim[s] = -1
    place_sources(st, cx)
    fill_box(r, pi)
    view[V_NP] = np_
    view[V_NSPACES] = n
    view[V_CARD] = -1
    view[V_PHASE] = 0
    _MS, SP, _FV = tables(st, cx)
    SP[SR, S_CHIPS] = pi[P_CHIPS]
    SP[SR, S_HACS] = pi[P_HACS + np_ - 2]
    SP[SR, S_LABEL] = 0
    deal_land(st, cx)
    deal_animals(st, cx)
    for q in range(np_):
        r.money[q] = pi[P_SEAT_MONEY + q]
        lh = 0
        ah = 0
        for t in range(6):
            lh = lh * 32 + r.hand[q, t]
        for a in range(4):
            ah = ah * 32 + r.hand[q, T_ANIMAL + a]
        log_st(st, E_SETUP, q, lh, ah, r.money[q], 0)
    for s in range(8):
        view[V_DISP_LAND + s] = r.dland[s]
        view[V_DISP_ANIMAL + s] = r.danim[s]
    r.ctl[C_PHASE] = PH_ROUND
