"""Hacienda's actions (numba, nopython): the action decision and what each action does.

A turn is up to ``actions`` action decisions (``post_action``: every buy, play, hacienda, water tile and harvest
the player can afford and place, each with its best immediate value; ``do_action``: a buy happens at once).
Playing a card, buying a hacienda or a water tile and harvesting each ask a second decision: where the card goes
(``post_place``/``do_place``), which group gets the hacienda (``post_hacienda``/``do_hacienda``), where the water
tile goes (``post_water``/``do_water``), which chain is harvested and whose chip it takes
(``post_harvest``/``do_harvest``).

Every function here is compiled with ``_nrt=False`` or inlined: none allocates.
"""

import numpy as np
from numba import njit

from meeplab.sim.core.bits import popcount
from meeplab.sim.core.forward import C_NP, C_PHASE
from meeplab.sim.core.records import log_st, post_decision

from .bits import ONE, ZERO, cb, countrow, ctz, sb
from .engine import (
    dirty_group,
    dirty_land,
    dirty_markets,
    dirty_water,
    mark_ball3,
    place_animal,
    place_hacienda,
    place_land,
    place_water,
    water_cells,
)
from .features import Action, Water
from .groups import best_group, gen_groups, gen_harvest, group_cached
from .layout import *
from .scoring import (
    P_ACTIONS,
    P_COMPULSORY,
    P_DISPLAY,
    P_HAC_PRICE,
    P_HAC_PTS,
    P_HAC_TURN,
    P_HARV_RATE,
    P_HARV_TURN,
    P_LAND_PER,
    P_MPP,
    P_PAMPA_CARDS,
    P_PRICE_BLIND,
    P_PRICE_UP,
    P_WATER_PRICE,
    P_WATER_PTS,
    P_WATER_TURN,
    R_CHIPS,
    R_OCC,
    R_REACH,
    R_X,
)
from .setup import NO_LIMIT, discs_left, land_left, take_land
from .state import (
    C_ACTS,
    C_CARD,
    C_HACN,
    C_HARVN,
    C_P,
    C_RND,
    C_STUCK,
    C_WATN,
    PH_ACTION,
    PH_HACIENDA,
    PH_HARVEST,
    PH_PLACE,
    PH_TURN_END,
    PH_WATER,
    board,
    tables,
)
from .values import best_values, eval_spaces, legal_row, unreached_markets
from .water import best_water, gen_water, water_fits


# ---------------------------------------------------------------------------------------------------------------
# the action decision: its rows (post_action)
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _act_row(moves, feats, m, code, arg, t, value, pesos, size, inhand, handsize, money, acts):
    """Action row m: (code, argument, card type) and its features; returns the next row."""
    moves[m, 0] = code
    moves[m, 1] = arg
    moves[m, 2] = t
    moves[m, 3] = 0
    feats[m, Action.VALUE] = value
    feats[m, Action.PESOS] = pesos
    feats[m, Action.SIZE] = size
    feats[m, Action.IN_HAND] = inhand
    feats[m, Action.HAND_SIZE] = handsize
    feats[m, Action.MONEY] = money
    feats[m, Action.ACTIONS_USED] = acts
    feats[m, Action.CARD_TYPE] = t
    return m + 1


@njit(cache=True, inline="always")
def _write_view(rc, MS, SP, pi, p, acts, hac_left, water_left, harv_left):
    """The bots' view at p's action decision: what is left this turn and in the supply, pesos, hand sizes and
    markets reached per player, p's own hand (written inline: every array argument of a call would cost a
    reference-count round trip)."""
    view = rc.pub
    view[V_SEAT] = p
    view[V_ACTIONS_LEFT] = pi[P_ACTIONS] - acts
    view[V_HAC_OK] = hac_left
    view[V_WATER_OK] = water_left
    view[V_HARV_OK] = harv_left
    view[V_HAC_SUPPLY] = SP[SR, S_HACS]
    view[V_CHIPS_SUPPLY] = SP[SR, S_CHIPS]
    view[V_LAND_DECK] = SP[SR, S_LEND] - SP[SR, S_LPTR]
    view[V_STACK1] = max(0, SP[SR, S_A1] - SP[SR, S_APTR])
    view[V_STACK2] = SP[SR, S_A2] - max(SP[SR, S_A1], SP[SR, S_APTR])
    for q in range(rc.ctl[C_NP]):
        view[V_MONEY + q] = rc.money[q]
        hs = 0
        for t in range(NT):
            hs += rc.hand[q, t]
        view[V_HANDSIZE + q] = hs
        c = 0
        for w in range(MS.shape[1]):
            c += popcount(MS[R_REACH + q, w])
        view[V_MARKETS + q] = c
    for t in range(NT):
        view[V_HAND + t] = rc.hand[p, t]
    for s in range(4):
        view[V_WSUPPLY + s] = SP[SR, S_WS + s]
    view[V_CARD] = -1


@njit(cache=True, inline="always")
def _no_value(bv, bsz, bn, lo, hi):
    """Card types lo..hi-1 cannot be played: no value, no size, no legal space."""
    for t in range(lo, hi):
        bv[t] = 0.0
        bsz[t] = 0.0
        bn[t] = 0.0


@njit(cache=True, inline="always")
def _card_values(rc, MS, SP, FV, pi, p, nb, mkcnt, mdist, feats):
    """The best immediate value of playing each card type now (plays and buys) into rc.bv, its group size into
    rc.bsz, 1 where it has a legal space into rc.bn. Cached per player (``values.best_values``): after p's own
    placements only the spaces in the dirty masks MS[R_D + 5 p + 0 land / 1 + a animal a] are re-evaluated (a
    water tile marks the spaces next to it dirty for everybody, a hacienda those next to its group); the first
    hacienda on a herd of an animal recomputes that type in full (best space -2). No call when no type needs
    redoing (the call alone costs a reference-count round trip per array). The box's limits: without a tile of
    its colour (a disc) left the player cannot play land (animal) cards, and such a card is worth nothing to buy."""
    bv = rc.bv
    bsz = rc.bsz
    bn = rc.bn
    need = False
    for t in range(NT):
        h0 = SP[SR_CBH + p, t]
        if h0 == -2 or (h0 >= 0 and (MS[R_OCC, h0 >> 6] >> np.uint64(h0 & 63)) & ONE != ZERO):
            need = True
            break
    if not need:
        for r in range(5 * p, 5 * p + 5):
            for w in range(MS.shape[1]):
                if MS[R_D + r, w] != ZERO:
                    need = True
    if need:
        best_values(MS, SP, pi, p, nb, mkcnt, mdist, feats, FV)
    for t in range(NT):
        bv[t] = FV[F_CBV + p, t]
        bsz[t] = FV[F_CBS + p, t]
        bn[t] = 1.0 if SP[SR_CBH + p, t] >= 0 else 0.0
    lleft = land_left(rc, pi, p)
    dleft = discs_left(rc, pi, p)
    rc.pub[V_LAND_TILES] = lleft if lleft < NO_LIMIT else -1
    rc.pub[V_DISCS] = dleft if dleft < NO_LIMIT else -1
    if lleft <= 0:
        _no_value(bv, bsz, bn, 0, T_ANIMAL)
    if dleft <= 0:
        _no_value(bv, bsz, bn, T_ANIMAL, NT)


@njit(cache=True, inline="always")
def _buy_up_rows(moves, feats, m, code, display, pi, bv, bsz, hand, p, handsize, money, acts):
    """Rows m, m + 1, ... for buying a face-up card of ``display`` (land or animal): one per card type shown;
    returns the next row."""
    price_up = pi[P_PRICE_UP]
    mpp = pi[P_MPP]
    for s in range(pi[P_DISPLAY]):
        t = display[s]
        if t < 0:
            continue
        dup = False
        for s2 in range(s):
            if display[s2] == t:
                dup = True
        if dup:
            continue
        m = _act_row(
            moves, feats, m, code, s, t, bv[t] - price_up / mpp, -price_up, bsz[t], hand[p, t], handsize, money, acts
        )
    return m


@njit(cache=True, inline="always")
def _blind_land_value(pi, bv):
    """The expected value of a land card bought blind: the best values of the types weighted by their cards."""
    land_w = 0.0
    for _ in range(5):
        land_w += pi[P_LAND_PER]
    land_w += pi[P_PAMPA_CARDS]
    est = 0.0
    for t in range(5):
        est += bv[t] * pi[P_LAND_PER]
    est += bv[T_PAMPA] * pi[P_PAMPA_CARDS]
    return est / land_w


@njit(cache=True, inline="always")
def _largest_group(MS, SP, p, harvest):
    """The best row of gen_groups (harvest False) or gen_harvest (True): the largest group, without listing rows
    (cached: best_group)."""
    gs = group_cached(SP, p, harvest)
    if gs < 0:
        gs = best_group(MS, SP, p, harvest)
    return gs


@njit(cache=True, inline="always")
def _water_estimate(rc, MS, SP, pi, p, nb, nbmask, moves, feats, m):
    """The water tile's row: (placements found, value, own tiles next to it) of the best water tile next to p's
    own tiles. Cached per player: valid while the best spot is free and its shape left; p's own placements since
    only change (raise) the values of spots near them (MS[R_WD + p]). Other tiles and water tiles only take spots
    away (the own tiles next to a spot never change otherwise), so while the best spot stays, the best value
    does too; with water_points 0 every spot has the same value and the row reports the own tiles of the first
    one found, so there a water tile still makes the cache stale (as it always did). Without an anchor next to
    own tiles, whether any free spot exists at all (gen_water, one row at m)."""
    cwk = rc.cwk
    cwv = rc.cwv
    cws = rc.cws
    cwm = rc.cwm
    W = MS.shape[1]
    ok = (pi[P_WATER_PTS] > 0 or cwk[p, 1] == SP[SR, S_WVER]) and cwm[p, 0] >= 0
    if ok:
        k = water_cells(cwm[p, 1], cwm[p, 0], cwm[p, 2], nb, rc.cells)
        ok = SP[SR, S_WS + cwm[p, 0]] > 0 and water_fits(MS, rc.cells, k)
    if ok and cwk[p, 0] != SP[SR, S_PVER + p]:
        _nw, bwv, bwo, bws, bwh, bwr = best_water(MS, SP, pi, p, nb, nbmask, np.int64(2), cwv[p])
        if bws >= 0:
            cwv[p] = bwv
            cws[p] = bwo
            cwm[p, 0] = bws
            cwm[p, 1] = bwh
            cwm[p, 2] = bwr
        cwk[p, 0] = SP[SR, S_PVER + p]
        for w in range(W):
            MS[R_WD + p, w] = ZERO
    if ok:
        return 1, cwv[p], cws[p]
    nw, wv, wsz, bws, bwh, bwr = best_water(MS, SP, pi, p, nb, nbmask, np.int64(1), -1e9)
    for w in range(W):
        MS[R_WD + p, w] = ZERO
    if nw == 0:
        wv = -1e9
        wsz = 0.0
    cwm[p, 0] = -1
    if nw > 0:
        cwk[p, 0] = SP[SR, S_PVER + p]
        cwk[p, 1] = SP[SR, S_WVER]
        cwv[p] = wv
        cws[p] = wsz
        cwm[p, 0] = bws
        cwm[p, 1] = bwh
        cwm[p, 2] = bwr
    else:
        # no anchor next to own tiles: is there any free spot at all?
        nw = gen_water(MS, SP, pi, p, nb, nbmask, moves, feats, np.int64(1), 0, m)
        wv = -pi[P_WATER_PRICE] / pi[P_MPP]
    return nw, wv, wsz


@njit(cache=True, _nrt=False)
def post_action(st, cx):
    """The action decision of the player on turn: every buy, play, hacienda, water tile and harvest the player
    can afford and place, each with its best immediate value; "end turn" only when nothing else is legal (with
    compulsory actions, the book's rule). Returns the seat."""
    rc = st.rec[0]
    pi = cx.tab[0].pi
    _kind, nb, nbmask, _static, mkcnt, mdist, _mkspace, _ball3 = board(cx)
    moves = rc.moves
    feats = rc.feats
    MS, SP, FV = tables(st, cx)
    money = rc.money
    hand = rc.hand
    p = rc.ctl[C_P]
    bv = rc.bv
    bsz = rc.bsz
    acts = rc.ctl[C_ACTS]
    mpp = pi[P_MPP]
    price_bl = pi[P_PRICE_BLIND]
    hac_left = pi[P_HAC_TURN] - rc.ctl[C_HACN]
    water_left = pi[P_WATER_TURN] - rc.ctl[C_WATN]
    harv_left = pi[P_HARV_TURN] - rc.ctl[C_HARVN]
    _write_view(rc, MS, SP, pi, p, acts, hac_left, water_left, harv_left)
    _card_values(rc, MS, SP, FV, pi, p, nb, mkcnt, mdist, feats)
    handsize = 0
    for t in range(NT):
        handsize += hand[p, t]
    mp = money[p]
    m = 0
    # buys
    if mp >= pi[P_PRICE_UP]:
        m = _buy_up_rows(moves, feats, m, A_BUY_LAND_UP, rc.dland, pi, bv, bsz, hand, p, handsize, mp, acts)
        m = _buy_up_rows(moves, feats, m, A_BUY_ANIMAL_UP, rc.danim, pi, bv, bsz, hand, p, handsize, mp, acts)
    if mp >= price_bl:
        if SP[SR, S_LPTR] < SP[SR, S_LEND]:
            est = _blind_land_value(pi, bv)
            m = _act_row(
                moves, feats, m, A_BUY_LAND_BLIND, -1, -1, est - price_bl / mpp, -price_bl, 0.0, 0, handsize, mp, acts
            )
        if SP[SR, S_APTR] < SP[SR, S_A2]:
            est = 0.25 * (bv[6] + bv[7] + bv[8] + bv[9])
            m = _act_row(
                moves, feats, m, A_BUY_ANIMAL_BLIND, -1, -1, est - price_bl / mpp, -price_bl, 0.0, 0, handsize, mp, acts
            )
    # plays
    for t in range(NT):
        if hand[p, t] > 0 and rc.bn[t] > 0:
            m = _act_row(moves, feats, m, A_PLAY, t, t, bv[t], 0.0, bsz[t], hand[p, t], handsize, mp, acts)
    # hacienda
    if hac_left > 0 and SP[SR, S_HACS] > 0 and mp >= pi[P_HAC_PRICE]:
        gs = _largest_group(MS, SP, p, False)
        if gs > 0:
            v = np.float64(gs * pi[P_HAC_PTS] - pi[P_HAC_PRICE] / pi[P_MPP])
            sz = np.float64(gs)
            m = _act_row(moves, feats, m, A_HACIENDA, -1, -1, v, -pi[P_HAC_PRICE], sz, 0, handsize, mp, acts)
    # water
    if water_left > 0 and mp >= pi[P_WATER_PRICE]:
        wn, wv, wsz = _water_estimate(rc, MS, SP, pi, p, nb, nbmask, moves, feats, m)
        if wn > 0:
            m = _act_row(moves, feats, m, A_WATER, -1, -1, wv, -pi[P_WATER_PRICE], wsz, 0, handsize, mp, acts)
    # harvest
    if harv_left > 0:
        gs = _largest_group(MS, SP, p, True)
        if gs > 0:
            pes = np.float64(gs * pi[P_HARV_RATE])
            v = pes / pi[P_MPP]
            sz = np.float64(gs)
            m = _act_row(moves, feats, m, A_HARVEST, -1, -1, v, pes, sz, 0, handsize, mp, acts)
    if m > 0:
        rc.ctl[C_STUCK] = 0
    # "end turn": always when nothing else is legal; otherwise only without compulsory actions.
    # An unused action is worth a little less than a blind buy of a card without value.
    if m == 0 or pi[P_COMPULSORY] == 0:
        m = _act_row(moves, feats, m, A_END, -1, -1, -(price_bl + 0.5) / mpp, 0.0, 0.0, 0, handsize, mp, acts)
    return post_decision(st, p, K_ACTION, m)


# ---------------------------------------------------------------------------------------------------------------
# what the chosen action does (do_action): a buy at once, the others ask where next
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _draw_animal(SP, adeck):
    """Top card of the current animal stack, or -1."""
    if SP[SR, S_APTR] >= SP[SR, S_A2]:
        return -1
    c = adeck[SP[SR, S_APTR]]
    SP[SR, S_APTR] += 1
    return c


@njit(cache=True, _nrt=False)
def do_action(st, cx, i):
    """Perform action candidate ``i``: a buy at once; a play, hacienda, water tile or harvest asks where next.
    Buying the last card of animal stack 1 (or turning it face up) brings in stack 2."""
    rc = st.rec[0]
    pi = cx.tab[0].pi
    view = rc.pub
    SP = tables(st, cx)[1]
    money = rc.money
    hand = rc.hand
    dland = rc.dland
    danim = rc.danim
    p = rc.ctl[C_P]
    price_up = pi[P_PRICE_UP]
    price_bl = pi[P_PRICE_BLIND]
    code = rc.moves[i, 0]
    arg = rc.moves[i, 1]
    if code == A_END:
        rc.ctl[C_PHASE] = PH_TURN_END
        return
    rc.ctl[C_ACTS] += 1
    if code == A_BUY_LAND_UP:
        t = dland[arg]
        money[p] -= price_up
        hand[p, t] += 1
        rc.known[p, t] += 1  # every seat saw it
        log_st(st, E_BUY, p, t, 1, price_up, 0)
        if SP[SR, S_LPTR] < SP[SR, S_LEND]:
            dland[arg] = rc.ldeck[SP[SR, S_LPTR]]
            SP[SR, S_LPTR] += 1
        else:
            dland[arg] = -1
        view[V_DISP_LAND + arg] = dland[arg]
        log_st(st, E_REFILL, -1, 0, arg, dland[arg], 0)
    elif code == A_BUY_LAND_BLIND:
        t = rc.ldeck[SP[SR, S_LPTR]]
        SP[SR, S_LPTR] += 1
        money[p] -= price_bl
        hand[p, t] += 1
        log_st(st, E_BUY, p, t, 0, price_bl, 0)
    elif code == A_BUY_ANIMAL_UP or code == A_BUY_ANIMAL_BLIND:
        if code == A_BUY_ANIMAL_UP:
            t = danim[arg]
            money[p] -= price_up
            rc.known[p, t] += 1  # every seat saw it
            log_st(st, E_BUY, p, t, 1, price_up, 0)
            danim[arg] = _draw_animal(SP, rc.adeck)
            view[V_DISP_ANIMAL + arg] = danim[arg]
            log_st(st, E_REFILL, -1, 1, arg, danim[arg], 0)
        else:
            t = _draw_animal(SP, rc.adeck)
            money[p] -= price_bl
            log_st(st, E_BUY, p, t, 0, price_bl, 0)
        hand[p, t] += 1
        if SP[SR, S_STACK2_IN] == 0 and SP[SR, S_APTR] >= SP[SR, S_A1]:
            SP[SR, S_STACK2_IN] = 1
            log_st(st, E_STACK2, -1, rc.ctl[C_RND], 0, 0, 0)
    elif code == A_PLAY:
        rc.ctl[C_CARD] = arg
        rc.ctl[C_PHASE] = PH_PLACE
    elif code == A_HACIENDA:
        rc.ctl[C_PHASE] = PH_HACIENDA
    elif code == A_WATER:
        rc.ctl[C_PHASE] = PH_WATER
    elif code == A_HARVEST:
        rc.ctl[C_PHASE] = PH_HARVEST


# ---------------------------------------------------------------------------------------------------------------
# the second decisions: where the card played goes, which group gets the hacienda, where the water tile goes,
# which chain is harvested
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def post_place(st, cx):
    """Where the card played goes: every legal space, with its value."""
    rc = st.rec[0]
    _kind, nb, _nbmask, _static, mkcnt, mdist, mkspace, _ball3 = board(cx)
    moves = rc.moves
    MS, SP, _FV = tables(st, cx)
    W = MS.shape[1]
    p = rc.ctl[C_P]
    t = rc.ctl[C_CARD]
    as_p = legal_row(MS, p, t, R_X)
    nunr = unreached_markets(MS, SP, p, mkspace)
    reached = countrow(MS, R_REACH + p)
    nm = 0
    for w in range(W):
        x = MS[R_X, w]
        while x != ZERO:
            h = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            moves[nm, 0] = h
            moves[nm, 1] = t
            moves[nm, 2] = as_p
            moves[nm, 3] = 0
            nm += 1
    kp = 0 if t < T_ANIMAL else t - T_ANIMAL + 1
    for w in range(W):
        MS[R_TODO + kp, w] = MS[R_X, w]
    eval_spaces(MS, SP, cx.tab[0].pi, p, 1 << kp, nb, mkcnt, mdist, nunr, reached, rc.feats, True)
    rc.pub[V_CARD] = t
    return post_decision(st, p, K_LAND if t < T_ANIMAL else K_ANIMAL, nm)


@njit(cache=True, _nrt=False)
def do_place(st, cx, j):
    """Place the card played on candidate space ``j`` (a tile or disc from the player's supply); an animal next
    to a market earns its income."""
    rc = st.rec[0]
    pi = cx.tab[0].pi
    kind, nb, nbmask, _static, mkcnt, _mdist, _mkspace, ball3 = board(cx)
    view = rc.pub
    moves = rc.moves
    MS, SP, _FV = tables(st, cx)
    p = rc.ctl[C_P]
    t = rc.ctl[C_CARD]
    h = moves[j, 0]
    rc.hand[p, t] -= 1
    if rc.known[p, t] > 0:
        rc.known[p, t] -= 1  # (a card bought face up counts as played first)
    if t < T_ANIMAL:
        take_land(rc, pi, p, rc.ctl[C_NP])
        sz = place_land(MS, SP, p, h, kind, nbmask, view)
        dirty_land(MS, SP, p, h, nbmask)
        mark_ball3(MS, p, h, ball3)
        log_st(st, E_LAND, p, t, h, sz, moves[j, 2])
    else:
        a = t - T_ANIMAL
        r0 = countrow(MS, R_REACH + p) if mkcnt[h] > 0 else 0
        sz, inc = place_animal(MS, SP, p, a, h, kind, nb, nbmask, mkcnt, view)
        rc.discs[p] += 1
        rc.money[p] += inc
        if mkcnt[h] > 0 and countrow(MS, R_REACH + p) != r0:
            dirty_markets(MS, SP, p)
        dirty_group(MS, 5 * p + 1 + a, nbmask)
        mark_ball3(MS, p, h, ball3)
        log_st(st, E_ANIMAL, p, a, h, sz, inc)
    rc.ctl[C_PHASE] = PH_ACTION


@njit(cache=True, _nrt=False)
def post_hacienda(st, cx):
    """Which of the player's chains and herds without a hacienda gets the one bought."""
    rc = st.rec[0]
    MS, SP, _FV = tables(st, cx)
    p = rc.ctl[C_P]
    return post_decision(st, p, K_HACIENDA, gen_groups(MS, SP, cx.tab[0].pi, p, rc.moves, rc.feats))


@njit(cache=True, _nrt=False)
def do_hacienda(st, cx, j):
    """The hacienda bought goes on candidate group ``j``."""
    rc = st.rec[0]
    MS, SP, _FV = tables(st, cx)
    moves = rc.moves
    p = rc.ctl[C_P]
    h = moves[j, 0]
    r = moves[j, 1]
    rc.money[p] -= cx.tab[0].pi[P_HAC_PRICE]
    SP[SR, S_HACS] -= 1
    place_hacienda(MS, SP, p, r, h, board(cx)[2], rc.pub)
    log_st(st, E_HACIENDA, p, h, moves[j, 2], r, 0)
    rc.ctl[C_HACN] += 1
    rc.ctl[C_PHASE] = PH_ACTION


@njit(cache=True, _nrt=False)
def post_water(st, cx):
    """Where the water tile bought goes: shape, anchor and orientation."""
    rc = st.rec[0]
    _kind, nb, nbmask, _static, _mkcnt, _mdist, _mkspace, _ball3 = board(cx)
    moves = rc.moves
    MS, SP, _FV = tables(st, cx)
    p = rc.ctl[C_P]
    nw = gen_water(MS, SP, cx.tab[0].pi, p, nb, nbmask, moves, rc.feats, moves.shape[0], 0, np.int64(0))
    return post_decision(st, p, K_WATER, nw)


@njit(cache=True, _nrt=False)
def do_water(st, cx, j):
    """The water tile bought goes on candidate placement ``j``."""
    rc = st.rec[0]
    kind, nb, nbmask, _static, _mkcnt, _mdist, _mkspace, _ball3 = board(cx)
    moves = rc.moves
    MS, SP, _FV = tables(st, cx)
    cells = rc.cells
    p = rc.ctl[C_P]
    s = moves[j, 0]
    k = water_cells(moves[j, 1], s, moves[j, 2], nb, cells)
    rc.money[p] -= cx.tab[0].pi[P_WATER_PRICE]
    SP[SR, S_WS + s] -= 1
    place_water(MS, SP, cells, k, nbmask, kind, rc.pub)
    dirty_water(MS, cells, k, rc.ctl[C_NP], nbmask)
    log_st(st, E_WATER, p, s, moves[j, 3], np.int64(rc.feats[j, Water.OWN_TILES]), 0)
    rc.ctl[C_WATN] += 1
    rc.ctl[C_PHASE] = PH_ACTION


@njit(cache=True, _nrt=False)
def post_harvest(st, cx):
    """Which chain is harvested, and from where its chip comes (the supply, or another player's chain)."""
    rc = st.rec[0]
    MS, SP, _FV = tables(st, cx)
    p = rc.ctl[C_P]
    return post_decision(st, p, K_HARVEST, gen_harvest(MS, SP, cx.tab[0].pi, p, rc.moves, rc.feats))


@njit(cache=True, _nrt=False)
def do_harvest(st, cx, j):
    """Harvest candidate ``j``: a chip on the chain (from the supply, or taken from another player's chain),
    3 pesos (harvest_rate) per tile."""
    rc = st.rec[0]
    view = rc.pub
    moves = rc.moves
    MS, SP, _FV = tables(st, cx)
    p = rc.ctl[C_P]
    h = moves[j, 0]
    src = moves[j, 1]
    victim = 0
    if src >= 0:
        cb(MS, R_CHIPS, src)
        SP[LB_CHIP, SP[SP_LAB, src]] -= 1
        view[V_SPACE + src] -= 64
        victim = (SP[SP_OWNER, src] + 1) * 100000 + src + 1
    else:
        SP[SR, S_CHIPS] -= 1
    sb(MS, R_CHIPS, h)
    SP[LB_CHIP, SP[SP_LAB, h]] += 1
    SP[SR, S_CVER] += 1
    view[V_SPACE + h] += 64
    pes = moves[j, 2] * cx.tab[0].pi[P_HARV_RATE]
    rc.money[p] += pes
    log_st(st, E_HARVEST, p, h, moves[j, 2], pes, victim)
    rc.ctl[C_HARVN] += 1
    rc.ctl[C_PHASE] = PH_ACTION
