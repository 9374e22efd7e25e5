"""Hacienda on the forward model (``sim/CONTRACT.md``): reset, advance, apply, result.

The game is a state machine over ``HState`` (``state.py``). A round is every player's turn in seat order; a
turn is up to ``actions`` actions, each a decision (``K_ACTION``) that may lead to a second one: where the card
played goes (``K_LAND``/``K_ANIMAL``), which group gets the hacienda bought (``K_HACIENDA``), where the water tile
goes (``K_WATER``), which chain is harvested (``K_HARVEST``). After each round: the mid-game scoring once the
second animal stack is in use, the final scoring once it is exhausted too (the rule book); the safety nets
(``max_rounds`` cap; a round in which no player could do anything but end the turn) end the game early.
``ctl[C_PHASE]`` (``state.PH_*``) says where ``advance`` resumes. The board helpers are in ``engine.py``.

Every function here is compiled with ``_nrt=False``: none allocates (``new_state`` does, once per chunk).
"""

import numpy as np
from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.events import log_event as _log
from meeplab.sim.core.forward import (
    C_END,
    C_KIND,
    C_LENGTH,
    C_N,
    C_NP,
    C_OVER,
    C_PHASE,
    C_SEAT,
    STEP_ADVANCE,
    STEP_RESET,
)
from meeplab.sim.core.play import new_player
from meeplab.sim.core.play import play_game as shared_play_game
from meeplab.sim.core.rng import rng_init, shuffle

from .bits import ONE, ZERO, cb, countrow, ctz, popcnt, sb
from .engine import (
    A_BUY_ANIMAL_BLIND,
    A_BUY_ANIMAL_UP,
    A_BUY_LAND_BLIND,
    A_BUY_LAND_UP,
    A_END,
    A_HACIENDA,
    A_HARVEST,
    A_PLAY,
    A_WATER,
    E_ANIMAL,
    E_BUY,
    E_CAP,
    E_END,
    E_HACIENDA,
    E_HARVEST,
    E_LAND,
    E_REFILL,
    E_SCORE_A,
    E_SCORE_B,
    E_SETUP,
    E_STACK2,
    E_TURN,
    E_WATER,
    F_CBS,
    F_CBV,
    K_ACTION,
    K_ANIMAL,
    K_HACIENDA,
    K_HARVEST,
    K_LAND,
    K_MARKET,
    K_WATER,
    LB_CHIP,
    LB_HAC,
    MAXP,
    NT,
    R_D,
    R_TODO,
    R_VALID,
    R_WD,
    S_A1,
    S_A2,
    S_APTR,
    S_CHIPS,
    S_CVER,
    S_HACS,
    S_HH,
    S_LABEL,
    S_LEND,
    S_LPTR,
    S_LVER,
    S_NPC,
    S_PVER,
    S_STACK2_IN,
    S_WS,
    S_WVER,
    SP_LAB,
    SP_OWNER,
    SP_ROWS,
    SP_STAMP,
    SP_WCNT,
    SR,
    SR_CBH,
    SR_GC,
    T_ANIMAL,
    T_PAMPA,
    V_ACTIONS_LEFT,
    V_CARD,
    V_CHIPS_SUPPLY,
    V_DISCS,
    V_DISP_ANIMAL,
    V_DISP_LAND,
    V_HAC_OK,
    V_HAC_SUPPLY,
    V_HAND,
    V_HANDSIZE,
    V_HARV_OK,
    V_LAND_DECK,
    V_LAND_TILES,
    V_MARKETS,
    V_MONEY,
    V_NP,
    V_NSPACES,
    V_PHASE,
    V_ROUND,
    V_SEAT,
    V_SPACE,
    V_STACK1,
    V_STACK2,
    V_TURN,
    V_WATER_OK,
    V_WSUPPLY,
    _act_row,
    _ball3,
    _dirty_group,
    _dirty_land,
    _draw_animal,
    _group_cached,
    _unreached,
    _water_fits,
    best_group,
    best_values,
    best_water,
    eval_spaces,
    gen_groups,
    gen_harvest,
    gen_water,
    init_free,
    legal_row,
    place_animal,
    place_land,
    place_water,
    water_cells,
)
from .scoring import (
    NCAT,
    NROWS,
    P_ACTIONS,
    P_ANIMAL_HAND,
    P_ANIMALS_PER,
    P_CHIPS,
    P_COMPULSORY,
    P_DISCS,
    P_DISPLAY,
    P_HAC_PRICE,
    P_HAC_PTS,
    P_HAC_TURN,
    P_HACS,
    P_HARV_RATE,
    P_HARV_TURN,
    P_LAND_HAND,
    P_LAND_PER,
    P_LAND_TILES,
    P_MAX_ROUNDS,
    P_MPP,
    P_PAMPA_CARDS,
    P_PRICE_BLIND,
    P_PRICE_UP,
    P_REMOVED,
    P_START_MONEY,
    P_WATER_PRICE,
    P_WATER_TURN,
    P_WTILES,
    R_CHIPS,
    R_FPAM,
    R_FTERR,
    R_HAC,
    R_HERD,
    R_LAND,
    R_MARKET,
    R_NBMK,
    R_OCC,
    R_PAMPA,
    R_REACH,
    R_SRC,
    R_TERR,
    R_X,
    score_player,
)
from .state import (
    C_ACTS,
    C_CARD,
    C_HACN,
    C_HARVN,
    C_MID,
    C_P,
    C_RND,
    C_STUCK,
    C_TURNS,
    C_WATN,
    PH_ACTION,
    PH_HACIENDA,
    PH_HARVEST,
    PH_OVER,
    PH_PLACE,
    PH_ROUND,
    PH_TURN,
    PH_TURN_END,
    PH_WATER,
    SNAPW_EXTRA,
    HCtx,
    HEng,
    HState,
    board,
    state_dtype,
    tables,
)
from .state import (
    determinise as deal_unseen,
)

END_RULES = 0  # the rule book's ending
END_CAP = 1  # the max_rounds cap
END_STALLED = 2  # nobody could do anything but end the turn for a whole round


@njit(cache=True)
def new_state(cx, np_, log):
    """A state for ``np_`` players on this context's board (the only allocation; once per chunk of games): a
    zeroed record of the context's state dtype (``cx.proto``)."""
    st = HState(np.zeros_like(cx.proto), log, np.zeros(2, dtype=np.int64))
    st.rec[0].ctl[C_NP] = np_
    return st


@njit(cache=True, inline="always")
def _log_st(st, code, seat, a, b, c, d):
    _log(st.log, st.nlog, st.nlog[1] != 0, code, seat, a, b, c, d)


@njit(cache=True, inline="always")
def _post(st, seat, kind, n):
    """Post a decision: ``seat`` chooses among ``n`` candidates of ``kind`` (moves/feats already filled)."""
    r = st.rec[0]
    r.ctl[C_SEAT] = seat
    r.ctl[C_KIND] = kind
    r.ctl[C_N] = n
    return seat


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


# ---------------------------------------------------------------------------------------------------------------
# setting up
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def clear_board(st, cx):
    """The empty board: no tiles, every terrain and pampa space free, markets and water sources occupied."""
    r = st.rec[0]
    cxt = cx.tab[0]
    MS, SP, _FV = tables(st, cx)
    W = MS.shape[1]
    for i in range(MS.shape[0]):
        for w in range(W):
            MS[i, w] = ZERO
    kind, nb, _nbmask, static, _mkcnt, _mdist, _mkspace, ball3 = board(cx)
    for i in range(static.shape[0]):
        for w in range(W):
            MS[R_TERR + i, w] = static[i, w]
    for i in range(SP_ROWS):
        for j in range(SP.shape[1]):
            SP[i, j] = 0
    for i in range(SP_WCNT):
        for j in range(SP.shape[1]):
            SP[i, j] = -1
    for j in range(SP.shape[1]):
        SP[SP_STAMP, j] = -1
        SP[SR_GC, j] = -1
    for i in range(SR_CBH, SR_CBH + 5):
        for j in range(SP.shape[1]):
            SP[i, j] = -2
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
    cxt = cx.tab[0]
    pi = cxt.pi
    MS, SP, _FV = tables(st, cx)
    view = r.pub
    for t in range(4):
        SP[SR, S_WS + t] = pi[P_WTILES + t]
    kind, _nb, nbmask, _static, _mkcnt, _mdist, _mkspace, ball3 = board(cx)
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
        for _ in range(pi[P_LAND_HAND]):
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
        for _ in range(pi[P_ANIMAL_HAND]):
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
        r.money[q] = pi[P_START_MONEY]
        lh = 0
        ah = 0
        for t in range(6):
            lh = lh * 32 + r.hand[q, t]
        for a in range(4):
            ah = ah * 32 + r.hand[q, T_ANIMAL + a]
        _log_st(st, E_SETUP, q, lh, ah, r.money[q], 0)
    for s in range(8):
        view[V_DISP_LAND + s] = r.dland[s]
        view[V_DISP_ANIMAL + s] = r.danim[s]
    r.ctl[C_PHASE] = PH_ROUND


# ---------------------------------------------------------------------------------------------------------------
# rounds and turns
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def start_round(st):
    r = st.rec[0]
    r.pub[V_ROUND] = r.ctl[C_RND]
    r.ctl[C_STUCK] = 1  # until somebody has anything but "end turn"
    r.ctl[C_P] = 0
    r.ctl[C_PHASE] = PH_TURN


@njit(cache=True, _nrt=False)
def start_turn(st):
    r = st.rec[0]
    p = r.ctl[C_P]
    r.pub[V_TURN] = r.ctl[C_TURNS]
    _log_st(st, E_TURN, p, r.ctl[C_RND], r.money[p], 0, 0)
    r.ctl[C_TURNS] += 1
    r.ctl[C_ACTS] = 0
    r.ctl[C_HACN] = 0
    r.ctl[C_WATN] = 0
    r.ctl[C_HARVN] = 0
    r.ctl[C_PHASE] = PH_ACTION


@njit(cache=True, _nrt=False)
def scoring(st, cx, phase):
    """A scoring (phase 1 mid-game, 2 final) of every player into the breakdown (columns 0..4 or 5..9)."""
    r = st.rec[0]
    cxt = cx.tab[0]
    np_ = r.ctl[C_NP]
    MS, SP, _FV = tables(st, cx)
    nbmask = board(cx)[2]
    off = 0 if phase == 1 else NCAT
    out = r.sout
    for q in range(np_):
        score_player(q, MS, SP[SR, S_NPC], r.money[q], nbmask, cxt.pi, out)
        for c in range(NCAT):
            r.brk[q, off + c] = out[c]
        _log_st(st, E_SCORE_A, q, phase, out[0], out[1], out[2])
        _log_st(st, E_SCORE_B, q, phase, out[3], out[4], r.money[q])
    if st.nlog[1] != 0:
        snap = r.snap
        k = 0
        for i in range(NROWS):
            for w in range(MS.shape[1]):
                snap[phase - 1, k] = MS[i, w]
                k += 1
        for q in range(np_):
            snap[phase - 1, k + q] = np.uint64(r.money[q])
        snap[phase - 1, k + 5] = np.uint64(SP[SR, S_NPC])


@njit(cache=True, _nrt=False)
def game_over(st, how):
    r = st.rec[0]
    r.pub[V_PHASE] = 2
    r.ctl[C_END] = how
    r.ctl[C_PHASE] = PH_OVER
    r.ctl[C_OVER] = 1
    r.ctl[C_LENGTH] = r.ctl[C_TURNS]
    r.ctl[C_SEAT] = -1


@njit(cache=True, _nrt=False)
def end_round(st, cx):
    """After every player's turn: the mid-game scoring once stack 2 is in use, the final scoring once it is
    exhausted too (the rule book). Safety nets: a round in which nobody could do anything but end the turn
    means nobody ever can again (stalled: the board is scored once as it stands, as a final scoring; a
    mid-game scoring already made stays); the ``max_rounds`` cap makes the outstanding scorings."""
    r = st.rec[0]
    pi = cx.tab[0].pi
    SP = tables(st, cx)[1]
    r.ctl[C_RND] += 1
    if r.ctl[C_STUCK] != 0:
        _log_st(st, E_CAP, -1, r.ctl[C_RND], 1, 0, 0)
        scoring(st, cx, np.int64(2))
        game_over(st, np.int64(END_STALLED))
        return
    cap = r.ctl[C_RND] >= pi[P_MAX_ROUNDS]
    if cap:
        _log_st(st, E_CAP, -1, r.ctl[C_RND], 0, 0, 0)
    if r.ctl[C_MID] == 0 and (SP[SR, S_STACK2_IN] == 1 or cap):
        scoring(st, cx, np.int64(1))
        r.ctl[C_MID] = 1
        r.pub[V_PHASE] = 1
    if r.ctl[C_MID] != 0 and (SP[SR, S_APTR] >= SP[SR, S_A2] or cap):
        scoring(st, cx, np.int64(2))
        game_over(st, np.int64(END_CAP if cap else END_RULES))
        return
    r.ctl[C_PHASE] = PH_ROUND


@njit(cache=True, _nrt=False)
def end_turn(st, cx):
    r = st.rec[0]
    p = r.ctl[C_P]
    _log_st(st, E_END, p, r.ctl[C_ACTS], r.money[p], 0, 0)
    if p + 1 < r.ctl[C_NP]:
        r.ctl[C_P] = p + 1
        r.ctl[C_PHASE] = PH_TURN
    else:
        end_round(st, cx)


# ---------------------------------------------------------------------------------------------------------------
# an action: the candidates (post_action), then what the chosen one does (do_action)
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def post_action(st, cx):
    """The action decision of the player on turn: every buy, play, hacienda, water tile and harvest the player
    can afford and place, each with its best immediate value; "end turn" only when nothing else is legal (with
    compulsory actions, the book's rule). Returns the seat."""
    rc = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    _kind, nb, nbmask, _static, mkcnt, mdist, mkspace, ball3 = board(cx)
    view = rc.pub
    moves = rc.moves
    feats = rc.feats
    MS, SP, FV = tables(st, cx)
    money = rc.money
    hand = rc.hand
    dland = rc.dland
    danim = rc.danim
    cells = rc.cells
    np_ = rc.ctl[C_NP]
    W = MS.shape[1]
    p = rc.ctl[C_P]
    bv = rc.bv
    bsz = rc.bsz
    bn = rc.bn
    cwk = rc.cwk
    cwv = rc.cwv
    cws = rc.cws
    cwm = rc.cwm
    acts = rc.ctl[C_ACTS]
    hac_n = rc.ctl[C_HACN]
    water_n = rc.ctl[C_WATN]
    harv_n = rc.ctl[C_HARVN]
    mpp = pi[P_MPP]
    disp = pi[P_DISPLAY]
    price_up = pi[P_PRICE_UP]
    price_bl = pi[P_PRICE_BLIND]
    compulsory = pi[P_COMPULSORY] != 0
    land_w = 0.0
    for t in range(5):
        land_w += pi[P_LAND_PER]
    land_w += pi[P_PAMPA_CARDS]
    wv = 0.0
    wsz = 0.0
    wn = 0
    hac_left = pi[P_HAC_TURN] - hac_n
    water_left = pi[P_WATER_TURN] - water_n
    harv_left = pi[P_HARV_TURN] - harv_n
    # the view (written here, not in a helper: every array argument costs a reference-count round trip)
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
    for q in range(np_):
        view[V_MONEY + q] = money[q]
        hs = 0
        for t in range(NT):
            hs += hand[q, t]
        view[V_HANDSIZE + q] = hs
        c = 0
        for w in range(W):
            c += np.int64(popcnt(MS[R_REACH + q, w]))
        view[V_MARKETS + q] = c
    for t in range(NT):
        view[V_HAND + t] = hand[p, t]
    for s in range(4):
        view[V_WSUPPLY + s] = SP[SR, S_WS + s]
    view[V_CARD] = -1
    # best immediate value of every card type (plays and buys), cached per player (see cbh): after
    # p's own placements only the spaces in the dirty masks MS[R_D + 5 p + 0 land / 1 + a animal a] are
    # re-evaluated (a water tile marks the spaces next to it dirty for everybody, a hacienda those next to
    # its group); the first hacienda on a herd of an animal recomputes that type in full (cbh = -2)
    # (no call when no type needs redoing: the call alone costs a reference-count round trip per array)
    need = False
    for t in range(NT):
        h0 = SP[SR_CBH + p, t]
        if h0 == -2 or (h0 >= 0 and (MS[R_OCC, h0 >> 6] >> np.uint64(h0 & 63)) & ONE != ZERO):
            need = True
            break
    if not need:
        for r in range(5 * p, 5 * p + 5):
            for w in range(W):
                if MS[R_D + r, w] != ZERO:
                    need = True
    if need:
        best_values(MS, SP, pi, p, nb, mkcnt, mdist, mkspace, feats, FV)
    for t in range(NT):
        bv[t] = FV[F_CBV + p, t]
        bsz[t] = FV[F_CBS + p, t]
        bn[t] = 1.0 if SP[SR_CBH + p, t] >= 0 else 0.0
    # the box's limits: without a tile of its colour (a disc) left the player cannot play land (animal) cards,
    # and such a card is worth nothing to buy
    lleft = land_left(rc, pi, p)
    dleft = discs_left(rc, pi, p)
    view[V_LAND_TILES] = lleft if lleft < NO_LIMIT else -1
    view[V_DISCS] = dleft if dleft < NO_LIMIT else -1
    if lleft <= 0:
        for t in range(T_ANIMAL):
            bv[t] = 0.0
            bsz[t] = 0.0
            bn[t] = 0.0
    if dleft <= 0:
        for t in range(T_ANIMAL, NT):
            bv[t] = 0.0
            bsz[t] = 0.0
            bn[t] = 0.0
    handsize = 0
    for t in range(NT):
        handsize += hand[p, t]
    m = 0
    # buys
    if money[p] >= price_up:
        for s in range(disp):
            t = dland[s]
            if t < 0:
                continue
            dup = False
            for s2 in range(s):
                if dland[s2] == t:
                    dup = True
            if dup:
                continue
            _act_row(
                moves,
                feats,
                m,
                A_BUY_LAND_UP,
                s,
                t,
                bv[t] - price_up / mpp,
                -price_up,
                bsz[t],
                hand[p, t],
                handsize,
                money[p],
                acts,
            )
            m += 1
        for s in range(disp):
            t = danim[s]
            if t < 0:
                continue
            dup = False
            for s2 in range(s):
                if danim[s2] == t:
                    dup = True
            if dup:
                continue
            _act_row(
                moves,
                feats,
                m,
                A_BUY_ANIMAL_UP,
                s,
                t,
                bv[t] - price_up / mpp,
                -price_up,
                bsz[t],
                hand[p, t],
                handsize,
                money[p],
                acts,
            )
            m += 1
    if money[p] >= price_bl:
        if SP[SR, S_LPTR] < SP[SR, S_LEND]:
            est = 0.0
            for t in range(5):
                est += bv[t] * pi[P_LAND_PER]
            est += bv[T_PAMPA] * pi[P_PAMPA_CARDS]
            _act_row(
                moves,
                feats,
                m,
                A_BUY_LAND_BLIND,
                -1,
                -1,
                est / land_w - price_bl / mpp,
                -price_bl,
                0.0,
                0,
                handsize,
                money[p],
                acts,
            )
            m += 1
        if SP[SR, S_APTR] < SP[SR, S_A2]:
            est = 0.25 * (bv[6] + bv[7] + bv[8] + bv[9])
            _act_row(
                moves,
                feats,
                m,
                A_BUY_ANIMAL_BLIND,
                -1,
                -1,
                est - price_bl / mpp,
                -price_bl,
                0.0,
                0,
                handsize,
                money[p],
                acts,
            )
            m += 1
    # plays
    for t in range(NT):
        if hand[p, t] > 0 and bn[t] > 0:
            _act_row(moves, feats, m, A_PLAY, t, t, bv[t], 0.0, bsz[t], hand[p, t], handsize, money[p], acts)
            m += 1
    # hacienda
    if hac_left > 0 and SP[SR, S_HACS] > 0 and money[p] >= pi[P_HAC_PRICE]:
        # (the best row of gen_groups: the largest group; no rows listed)
        gs = _group_cached(SP, p, False)
        if gs < 0:
            gs = best_group(MS, SP, p, False)
        if gs > 0:
            v = np.float64(gs * pi[P_HAC_PTS] - pi[P_HAC_PRICE] / pi[P_MPP])
            sz = np.float64(gs)
            _act_row(moves, feats, m, A_HACIENDA, -1, -1, v, -pi[P_HAC_PRICE], sz, 0, handsize, money[p], acts)
            m += 1
    # water
    if water_left > 0 and money[p] >= pi[P_WATER_PRICE]:
        # best water tile next to own tiles, cached: valid while no water tile came and the best spot
        # is free; p's own placements since only change (raise) the values of spots near them (MS[R_WD + p])
        ok = cwk[p, 1] == SP[SR, S_WVER] and cwm[p, 0] >= 0
        if ok:
            k = water_cells(cwm[p, 1], cwm[p, 0], cwm[p, 2], nb, cells)
            ok = SP[SR, S_WS + cwm[p, 0]] > 0 and _water_fits(MS, cells, k)
        if ok and cwk[p, 0] != SP[SR, S_PVER + p]:
            nw, bwv, bwo, bws, bwh, bwr = best_water(MS, SP, pi, p, nb, nbmask, np.int64(2), cwv[p])
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
            wv = cwv[p]
            wsz = cws[p]
            wn = 1
        else:
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
                wv = -pi[P_WATER_PRICE] / mpp
            wn = nw
        if wn > 0:
            _act_row(moves, feats, m, A_WATER, -1, -1, wv, -pi[P_WATER_PRICE], wsz, 0, handsize, money[p], acts)
            m += 1
    # harvest
    if harv_left > 0:
        # (the best row of gen_harvest: the largest chain; no rows listed)
        gs = _group_cached(SP, p, True)
        if gs < 0:
            gs = best_group(MS, SP, p, True)
        if gs > 0:
            pes = np.float64(gs * pi[P_HARV_RATE])
            v = pes / pi[P_MPP]
            sz = np.float64(gs)
            _act_row(moves, feats, m, A_HARVEST, -1, -1, v, pes, sz, 0, handsize, money[p], acts)
            m += 1
    if m > 0:
        rc.ctl[C_STUCK] = 0
    # "end turn": always when nothing else is legal; otherwise only without compulsory actions.
    # An unused action is worth a little less than a blind buy of a card without value.
    if m == 0 or not compulsory:
        _act_row(moves, feats, m, A_END, -1, -1, -(price_bl + 0.5) / mpp, 0.0, 0.0, 0, handsize, money[p], acts)
        m += 1
    return _post(st, p, K_ACTION, m)


@njit(cache=True, _nrt=False)
def do_action(st, cx, i):
    """Perform action candidate ``i``: a buy at once; a play, hacienda, water tile or harvest asks where next."""
    rc = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    view = rc.pub
    moves = rc.moves
    _MS, SP, _FV = tables(st, cx)
    money = rc.money
    hand = rc.hand
    dland = rc.dland
    danim = rc.danim
    ldeck = rc.ldeck
    adeck = rc.adeck
    p = rc.ctl[C_P]
    price_up = pi[P_PRICE_UP]
    price_bl = pi[P_PRICE_BLIND]
    rnd = rc.ctl[C_RND]
    code = moves[i, 0]
    arg = moves[i, 1]
    if code == A_END:
        rc.ctl[C_PHASE] = PH_TURN_END
        return
    rc.ctl[C_ACTS] += 1
    if code == A_BUY_LAND_UP:
        t = dland[arg]
        money[p] -= price_up
        hand[p, t] += 1
        rc.known[p, t] += 1  # every seat saw it
        _log_st(st, E_BUY, p, t, 1, price_up, 0)
        if SP[SR, S_LPTR] < SP[SR, S_LEND]:
            dland[arg] = ldeck[SP[SR, S_LPTR]]
            SP[SR, S_LPTR] += 1
        else:
            dland[arg] = -1
        view[V_DISP_LAND + arg] = dland[arg]
        _log_st(st, E_REFILL, -1, 0, arg, dland[arg], 0)
    elif code == A_BUY_LAND_BLIND:
        t = ldeck[SP[SR, S_LPTR]]
        SP[SR, S_LPTR] += 1
        money[p] -= price_bl
        hand[p, t] += 1
        _log_st(st, E_BUY, p, t, 0, price_bl, 0)
    elif code == A_BUY_ANIMAL_UP or code == A_BUY_ANIMAL_BLIND:
        if code == A_BUY_ANIMAL_UP:
            t = danim[arg]
            money[p] -= price_up
            rc.known[p, t] += 1  # every seat saw it
            _log_st(st, E_BUY, p, t, 1, price_up, 0)
            danim[arg] = _draw_animal(SP, adeck)
            view[V_DISP_ANIMAL + arg] = danim[arg]
            _log_st(st, E_REFILL, -1, 1, arg, danim[arg], 0)
        else:
            t = _draw_animal(SP, adeck)
            money[p] -= price_bl
            _log_st(st, E_BUY, p, t, 0, price_bl, 0)
        hand[p, t] += 1
        if SP[SR, S_STACK2_IN] == 0 and SP[SR, S_APTR] >= SP[SR, S_A1]:
            SP[SR, S_STACK2_IN] = 1
            _log_st(st, E_STACK2, -1, rnd, 0, 0, 0)
    elif code == A_PLAY:
        rc.ctl[C_CARD] = arg
        rc.ctl[C_PHASE] = PH_PLACE
    elif code == A_HACIENDA:
        rc.ctl[C_PHASE] = PH_HACIENDA
    elif code == A_WATER:
        rc.ctl[C_PHASE] = PH_WATER
    elif code == A_HARVEST:
        rc.ctl[C_PHASE] = PH_HARVEST


@njit(cache=True, _nrt=False)
def post_place(st, cx):
    """Where the card played goes: every legal space, with its value."""
    rc = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    _kind, nb, _nbmask, _static, mkcnt, mdist, mkspace, ball3 = board(cx)
    view = rc.pub
    moves = rc.moves
    feats = rc.feats
    MS, SP, _FV = tables(st, cx)
    W = MS.shape[1]
    p = rc.ctl[C_P]
    t = rc.ctl[C_CARD]
    as_p = legal_row(MS, p, t, R_X)
    nunr = _unreached(MS, SP, p, mkspace)
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
    eval_spaces(MS, SP, pi, p, 1 << kp, nb, mkcnt, mdist, nunr, reached, feats, True)
    view[V_CARD] = t
    return _post(st, p, K_LAND if t < T_ANIMAL else K_ANIMAL, nm)


@njit(cache=True, _nrt=False)
def do_place(st, cx, j):
    """Place the card played on candidate space ``j`` (a tile or disc from the player's supply)."""
    rc = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    kind, nb, nbmask, _static, mkcnt, _mdist, _mkspace, ball3 = board(cx)
    view = rc.pub
    moves = rc.moves
    MS, SP, _FV = tables(st, cx)
    money = rc.money
    hand = rc.hand
    W = MS.shape[1]
    p = rc.ctl[C_P]
    t = rc.ctl[C_CARD]
    h = moves[j, 0]
    hand[p, t] -= 1
    if rc.known[p, t] > 0:
        rc.known[p, t] -= 1  # (a card bought face up counts as played first)
    if t < T_ANIMAL:
        take_land(rc, pi, p, rc.ctl[C_NP])
        sz = place_land(MS, SP, p, h, kind, nbmask, view)
        _dirty_land(MS, SP, p, h, nbmask)
        _ball3(MS, p, h, ball3)
        _log_st(st, E_LAND, p, t, h, sz, moves[j, 2])
    else:
        a = t - T_ANIMAL
        r0 = countrow(MS, R_REACH + p) if mkcnt[h] > 0 else 0
        sz, inc = place_animal(MS, SP, p, a, h, kind, nb, nbmask, mkcnt, view)
        rc.discs[p] += 1
        money[p] += inc
        if mkcnt[h] > 0 and countrow(MS, R_REACH + p) != r0:
            # markets reached changed: the market term of every animal type (only spaces next to a
            # market have one: elsewhere no new market is reached and the term is 0)
            for t2 in range(T_ANIMAL, NT):
                SP[SR_CBH + p, t2] = -2
                for w in range(W):
                    MS[R_VALID + 5 * p + 1 + t2 - T_ANIMAL, w] &= ~MS[R_NBMK, w]
        _dirty_group(MS, 5 * p + 1 + a, nbmask)
        _ball3(MS, p, h, ball3)
        _log_st(st, E_ANIMAL, p, a, h, sz, inc)
    rc.ctl[C_PHASE] = PH_ACTION


@njit(cache=True, _nrt=False)
def post_hacienda(st, cx):
    """Which of the player's chains and herds without a hacienda gets the one bought."""
    rc = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    moves = rc.moves
    feats = rc.feats
    MS, SP, _FV = tables(st, cx)
    p = rc.ctl[C_P]
    ng = gen_groups(MS, SP, pi, p, moves, feats)
    return _post(st, p, K_HACIENDA, ng)


@njit(cache=True, _nrt=False)
def do_hacienda(st, cx, j):
    rc = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    _kind, _nb, nbmask, _static, _mkcnt, _mdist, _mkspace, ball3 = board(cx)
    view = rc.pub
    moves = rc.moves
    MS, SP, _FV = tables(st, cx)
    money = rc.money
    W = MS.shape[1]
    p = rc.ctl[C_P]
    h = moves[j, 0]
    r = moves[j, 1]
    money[p] -= pi[P_HAC_PRICE]
    SP[SR, S_HACS] -= 1
    sb(MS, R_HAC, h)
    SP[LB_HAC, SP[SP_LAB, h]] += 1
    SP[SR, S_PVER + p] += 1
    # the hacienda term of the spaces next to the group: recompute that card type (or the land types);
    # only the values next to the group change
    if r == 0:
        SP[SR, S_LVER + p] += 1
        grow = R_LAND + p
    else:
        # (the first hacienda on a herd of this animal makes the spaces next to all its herds
        # candidates: recompute in full)
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
    _log_st(st, E_HACIENDA, p, h, moves[j, 2], r, 0)
    rc.ctl[C_HACN] += 1
    rc.ctl[C_PHASE] = PH_ACTION


@njit(cache=True, _nrt=False)
def post_water(st, cx):
    """Where the water tile bought goes: shape, anchor and orientation."""
    rc = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    _kind, nb, nbmask, _static, _mkcnt, _mdist, _mkspace, ball3 = board(cx)
    moves = rc.moves
    feats = rc.feats
    MS, SP, _FV = tables(st, cx)
    p = rc.ctl[C_P]
    nw = gen_water(MS, SP, pi, p, nb, nbmask, moves, feats, moves.shape[0], 0, np.int64(0))
    return _post(st, p, K_WATER, nw)


@njit(cache=True, _nrt=False)
def do_water(st, cx, j):
    rc = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    kind, nb, nbmask, _static, _mkcnt, _mdist, _mkspace, ball3 = board(cx)
    view = rc.pub
    moves = rc.moves
    feats = rc.feats
    MS, SP, _FV = tables(st, cx)
    money = rc.money
    cells = rc.cells
    np_ = rc.ctl[C_NP]
    W = MS.shape[1]
    p = rc.ctl[C_P]
    s = moves[j, 0]
    k = water_cells(moves[j, 1], s, moves[j, 2], nb, cells)
    money[p] -= pi[P_WATER_PRICE]
    SP[SR, S_WS + s] -= 1
    place_water(MS, SP, cells, k, nbmask, kind, view)
    # water counts change next to the tile: those values are stale for everybody
    for w in range(W):
        x = ZERO
        for c in range(k):
            x |= nbmask[cells[c], w]
        for r in range(5 * np_):
            MS[R_VALID + r, w] &= ~x
            MS[R_D + r, w] |= x
    _log_st(st, E_WATER, p, s, moves[j, 3], np.int64(feats[j, 2]), 0)
    rc.ctl[C_WATN] += 1
    rc.ctl[C_PHASE] = PH_ACTION


@njit(cache=True, _nrt=False)
def post_harvest(st, cx):
    """Which chain is harvested, and from where its chip comes (the supply, or another player's chain)."""
    rc = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    moves = rc.moves
    feats = rc.feats
    MS, SP, _FV = tables(st, cx)
    p = rc.ctl[C_P]
    nh = gen_harvest(MS, SP, pi, p, moves, feats)
    return _post(st, p, K_HARVEST, nh)


@njit(cache=True, _nrt=False)
def do_harvest(st, cx, j):
    rc = st.rec[0]
    cxt = cx.tab[0]
    pi = cxt.pi
    view = rc.pub
    moves = rc.moves
    MS, SP, _FV = tables(st, cx)
    money = rc.money
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
    pes = moves[j, 2] * pi[P_HARV_RATE]
    money[p] += pes
    _log_st(st, E_HARVEST, p, h, moves[j, 2], pes, victim)
    rc.ctl[C_HARVN] += 1
    rc.ctl[C_PHASE] = PH_ACTION


# ---------------------------------------------------------------------------------------------------------------
# the forward model
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def advance_in(st, cx):
    """Run the forced steps (turns and rounds beginning and ending, the scorings) up to the next decision and
    post it; returns the deciding seat, or -1 once the game is over."""
    r = st.rec[0]
    n_actions = cx.tab[0].pi[P_ACTIONS]
    while True:
        ph = r.ctl[C_PHASE]
        if ph == PH_ACTION:
            if r.ctl[C_ACTS] < n_actions:
                return post_action(st, cx)
            r.ctl[C_PHASE] = PH_TURN_END
        elif ph == PH_PLACE:
            return post_place(st, cx)
        elif ph == PH_HACIENDA:
            return post_hacienda(st, cx)
        elif ph == PH_WATER:
            return post_water(st, cx)
        elif ph == PH_HARVEST:
            return post_harvest(st, cx)
        elif ph == PH_TURN:
            start_turn(st)
        elif ph == PH_TURN_END:
            end_turn(st, cx)
        elif ph == PH_ROUND:
            start_round(st)
        else:
            return -1


@njit(cache=True, _nrt=False)
def apply_in(st, cx, i):
    """Perform candidate ``i`` of the pending decision."""
    k = st.rec[0].ctl[C_KIND]
    if k == K_ACTION:
        do_action(st, cx, i)
    elif k == K_LAND or k == K_ANIMAL:
        do_place(st, cx, i)
    elif k == K_HACIENDA:
        do_hacienda(st, cx, i)
    elif k == K_WATER:
        do_water(st, cx, i)
    else:
        do_harvest(st, cx, i)


@njit(cache=True, _nrt=False)
def result(st, cx, sc, tb, brk):
    """Score = the sum of both scorings; tie-break = pesos; breakdown = mid-game 0..4, final 5..9."""
    r = st.rec[0]
    for q in range(r.ctl[C_NP]):
        tot = 0.0
        for c in range(2 * NCAT):
            brk[q, c] = r.brk[q, c]
            tot += r.brk[q, c]
        sc[q] = tot
        tb[q] = r.money[q]


def _step(st, cx, i):
    """The whole engine behind one function pointer (``HCtx.step``, called with the engine context ``HEng``):
    ``i >= 0`` applies candidate ``i`` (returns 0), STEP_ADVANCE advances to the next decision (returns its seat
    or -1), STEP_RESET sets up the table of a game whose stream is seeded (returns 0)."""
    if i >= 0:
        apply_in(st, cx, i)
        return 0
    if i == STEP_ADVANCE:
        return advance_in(st, cx)
    set_table(st, cx)
    return 0


step = njit(cache=True, _nrt=False)(_step)


def step_function(eng):
    """``step`` for the engine context ``eng`` as a function pointer (sim.core.forward.step_pointer)."""
    st = HState(np.zeros_like(eng.proto), np.zeros((0, 6), dtype=np.int64), np.zeros(2, dtype=np.int64))
    return forward.step_pointer(step, st, eng, 0, parts=COMPILE_PARTS)


# Functions of ``step``'s tree that take a prefix of its arguments, in two groups of about equal compile time
# (2026-12-02, a slow hour: about 40 s CPU each of the tree's ~89 s; the first is compiled by this process, which
# then compiles ``advance_in``, ``apply_in``, ``step`` and the shared loop): on a cold cache the second compiles in
# a helper process on the other core (sim.core.parcompile).
COMPILE_PARTS = (
    (post_place, post_hacienda, do_action, do_place, do_water, end_turn, set_table),
    (post_action, post_water, post_harvest, do_hacienda, do_harvest, start_round, start_turn),
)


@njit(cache=True, _nrt=False)
def reset(st, cx, seed, g):
    """Game ``g``: seed the stream from (seed, g), clear the table, place the sources' water, deal the cards."""
    rng_init(st.rec[0].rng, seed, g)
    cx.step(st, HEng(cx.tab, cx.proto), STEP_RESET)


@njit(cache=True, _nrt=False)
def advance(st, cx):
    """Run the forced steps (turns and rounds beginning and ending, the scorings) up to the next decision and
    post it; returns the deciding seat, or -1 once the game is over."""
    return cx.step(st, HEng(cx.tab, cx.proto), STEP_ADVANCE)


@njit(cache=True, _nrt=False)
def apply(st, cx, i):
    """Perform candidate ``i`` of the pending decision."""
    cx.step(st, HEng(cx.tab, cx.proto), i)


@njit(cache=True, _nrt=False)
def determinise(st, cx, seat, rnd):
    """Re-deal what ``seat`` has not seen (``state.determinise``)."""
    deal_unseen(st, HEng(cx.tab, cx.proto), seat, rnd)


forward.register(
    HState, HCtx, new=new_state, reset=reset, advance=advance, apply=apply, determinise=determinise, result=result
)


@njit(cache=True)
def play_logged(cx, fns, weights, search, np_, rotate, seed, g, log, ncat, srch):
    """Game ``g`` with its event log (the batch's very game, through the shared loop): (events written, score,
    tiebreak, breakdown, turns, snapshots of the board at both scorings)."""
    st, sim, acc, cand, used, sc, tb, sbrk = new_player(cx, np_, ncat, log)
    st.nlog[1] = 1
    shared_play_game(st, sim, cx, fns, weights, search, rotate, seed, g, acc, cand, used, sc, tb, sbrk, srch)
    score = np.zeros(np_)
    tiebreak = np.zeros(np_)
    brk = np.zeros((np_, ncat))
    result(st, cx, score, tiebreak, brk)
    r = st.rec[0]
    return st.nlog[0], score, tiebreak, brk, r.ctl[C_LENGTH], r.snap.copy()
