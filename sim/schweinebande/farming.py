"""Schweinebande: D, farming (each player in order-tile order closes groups of animals until they stop), and E,
feeding (a feed sack may stand in, animals are sold while feed is short, then the feed is paid).

Rule functions of the engine's state machine (``engine.advance``/``engine.apply`` call them); compiled like the
engine with ``_nrt=False`` (nothing here allocates).
"""

from numba import njit

from meeplab.sim.core.forward import C_NP, C_PHASE, C_SEAT
from meeplab.sim.core.records import log_st

from .features import Farm, Sack, Sell
from .layout import (
    E_MIXED,
    E_PAY,
    E_PIGBONUS,
    E_QUARTET,
    E_SELL,
    K_FARM,
    K_SACK,
    K_SELL,
    NF,
    NK,
    NT,
    P_FEEDPER,
    P_MIXED,
    P_PIGF,
    P_PIGG,
    P_QUART,
    P_VALUES,
    SACK,
    V_FARM,
    V_FEED,
    V_HAND,
    V_NROUNDS,
    V_ORDER,
    V_ROUND,
    V_SEAT,
    V_SUPPLY,
)
from .scoring import C_MIXED, C_PIGBONUS, C_QUARTETS
from .state import (
    C_SACK_ASKED,
    C_T,
    PH_FEED,
    PH_SELL,
    post_and_show_seat,
)

PIG = 4


@njit(cache=True, inline="always")
def holder_of(view, np_, t):
    for s in range(np_):
        if view[V_ORDER + s] == t:
            return s
    return -1


@njit(cache=True, inline="always")
def _mixed_farm_kind(mask, pi):
    """Most valuable kind in a mixed group (ties: the higher kind index)."""
    best = -1
    bv = -1
    for k in range(NK):
        if mask & (1 << k):
            v = pi[P_VALUES + k]
            if v >= bv:
                bv = v
                best = k
    return best


@njit(cache=True, _nrt=False)
def farm_candidates(st, cx, seat, last_round):
    """Stop, and every group ``seat`` can close now (same kind, mixed, the last round's pig bonus)."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    pi = cxt.pi
    moves = r.moves
    feats = r.feats
    q = pi[P_QUART]
    m = pi[P_MIXED]
    h0 = V_HAND + seat * NT
    tiles = 0
    for k in range(NT):
        tiles += view[h0 + k]
    moves[0, 0] = 0
    moves[0, 1] = 0
    for f in range(NF):
        feats[0, f] = 0.0
    feats[0, Farm.IS_STOP] = 1.0
    feats[0, Farm.TILES_LEFT] = tiles
    feats[0, Farm.LAST_ROUND] = 1.0 if last_round else 0.0
    n = 1
    for k in range(NK):
        if view[h0 + k] >= q:
            moves[n, 0] = 1
            moves[n, 1] = k
            for f in range(NF):
                feats[n, f] = 0.0
            v = pi[P_VALUES + k]
            feats[n, Farm.POINTS] = v
            feats[n, Farm.DISCARDED_VALUE] = v * (q - 1)
            feats[n, Farm.EARLY_PIG_GROUP] = 1.0 if (k == PIG and not last_round and pi[P_PIGF] > 0) else 0.0
            feats[n, Farm.TILES_LEFT] = tiles - q
            feats[n, Farm.LAST_ROUND] = 1.0 if last_round else 0.0
            feats[n, Farm.BIAS] = 1.0
            n += 1
    # mixed groups: every set of m different kinds all present
    present = 0
    npresent = 0
    for k in range(NK):
        if view[h0 + k] > 0:
            present |= 1 << k
            npresent += 1
    for mask in range(1, (1 << NK) if npresent >= m else 1):
        if (mask & present) != mask:
            continue
        c = 0
        for k in range(NK):
            if mask & (1 << k):
                c += 1
        if c != m:
            continue
        kf = _mixed_farm_kind(mask, pi)
        moves[n, 0] = 2
        moves[n, 1] = mask
        for f in range(NF):
            feats[n, f] = 0.0
        feats[n, Farm.POINTS] = pi[P_VALUES + kf]
        lost = 0.0
        pigs = 0
        for k in range(NK):
            if mask & (1 << k) and k != kf:
                lost += pi[P_VALUES + k]
            if mask & (1 << k) and k == PIG:
                pigs = 1
        feats[n, Farm.DISCARDED_VALUE] = lost
        feats[n, Farm.EARLY_PIG_GROUP] = 1.0 if (pigs and not last_round and pi[P_PIGF] > 0) else 0.0
        feats[n, Farm.IS_MIXED] = 1.0
        feats[n, Farm.TILES_LEFT] = tiles - m
        feats[n, Farm.LAST_ROUND] = 1.0 if last_round else 0.0
        feats[n, Farm.BIAS] = 1.0
        n += 1
    if last_round and pi[P_PIGF] > 0 and view[h0 + PIG] >= pi[P_PIGG]:
        moves[n, 0] = 3
        moves[n, 1] = PIG
        for f in range(NF):
            feats[n, f] = 0.0
        feats[n, Farm.POINTS] = pi[P_VALUES + PIG] * pi[P_PIGF]
        feats[n, Farm.DISCARDED_VALUE] = pi[P_VALUES + PIG] * (pi[P_PIGG] - pi[P_PIGF])
        feats[n, Farm.TILES_LEFT] = tiles - pi[P_PIGG]
        feats[n, Farm.LAST_ROUND] = 1.0
        feats[n, Farm.BIAS] = 1.0
        n += 1
    return n


@njit(cache=True, _nrt=False)
def post_farm(st, cx):
    """Phase D: the holder of order tile C_T closes groups until they stop (or nothing can be closed)."""
    r = st.rec[0]
    view = r.pub
    np_ = r.ctl[C_NP]
    last = view[V_ROUND] == view[V_NROUNDS] - 1
    while r.ctl[C_T] <= np_:
        seat = holder_of(view, np_, r.ctl[C_T])
        n = farm_candidates(st, cx, seat, last)
        if n > 1:
            return post_and_show_seat(st, seat, K_FARM, n)
        r.ctl[C_T] += 1
    return -1


@njit(cache=True, _nrt=False)
def do_farm(st, cx, act, arg):
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    pi = cxt.pi
    seat = r.ctl[C_SEAT]
    h0 = V_HAND + seat * NT
    brk = r.brk[seat]
    if act == 0:
        r.ctl[C_T] += 1
    elif act == 1:
        q = pi[P_QUART]
        view[h0 + arg] -= q
        view[V_FARM + seat * NK + arg] += 1
        brk[C_QUARTETS] += pi[P_VALUES + arg]
        log_st(st, E_QUARTET, seat, arg, 0, 0, 0)
    elif act == 2:
        kf = _mixed_farm_kind(arg, pi)
        for k in range(NK):
            if arg & (1 << k):
                view[h0 + k] -= 1
        view[V_FARM + seat * NK + kf] += 1
        brk[C_MIXED] += pi[P_VALUES + kf]
        log_st(st, E_MIXED, seat, arg, kf, 0, 0)
    else:
        view[h0 + PIG] -= pi[P_PIGG]
        view[V_FARM + seat * NK + PIG] += pi[P_PIGF]
        brk[C_PIGBONUS] += pi[P_VALUES + PIG] * pi[P_PIGF]
        log_st(st, E_PIGBONUS, seat, pi[P_PIGF], 0, 0, 0)


@njit(cache=True, inline="always")
def animals_of(view, seat):
    a = 0
    for k in range(NK):
        a += view[V_HAND + seat * NT + k]
    return a


@njit(cache=True, _nrt=False)
def post_feed(st, cx):
    """Phase E for the holder of order tile C_T: a player with animals off the farm and a feed sack chooses
    whether to use it (it feeds everything once); otherwise they sell while short and pay."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    np_ = r.ctl[C_NP]
    pi = cxt.pi
    per = pi[P_FEEDPER]
    while r.ctl[C_T] <= np_:
        seat = holder_of(view, np_, r.ctl[C_T])
        animals = animals_of(view, seat)
        if animals == 0 or per == 0:
            r.ctl[C_T] += 1
            continue
        if view[V_HAND + seat * NT + SACK] > 0 and r.ctl[C_SACK_ASKED] == 0:
            moves = r.moves
            feats = r.feats
            moves[0, 0] = 0
            moves[1, 0] = 1
            moves[0, 1] = 0
            moves[1, 1] = 0
            for f in range(NF):
                feats[0, f] = 0.0
                feats[1, f] = 0.0
            need = animals * per
            feats[1, Sack.FEED_SAVED] = min(need, view[V_FEED + seat]) + max(0, need - view[V_FEED + seat]) * 2.0
            feats[1, Sack.FEED_NEEDED] = need
            feats[1, Sack.ROUNDS_LEFT] = view[V_NROUNDS] - view[V_ROUND] - 1
            feats[1, Sack.BIAS] = 1.0
            feats[0, Sack.FEED_NEEDED] = view[V_FEED + seat]
            r.ctl[C_PHASE] = PH_FEED
            return post_and_show_seat(st, seat, K_SACK, 2)
        r.ctl[C_PHASE] = PH_SELL
        r.ctl[C_SEAT] = seat
        s = post_sell(st, cx, seat)
        if s >= 0:
            return s
    return -1


@njit(cache=True, _nrt=False)
def post_sell(st, cx, seat):
    """Sell one animal while short of feed (a lone kind is sold without asking); then pay and go on to the
    next player. Returns the seat when a choice is posted, else -1."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    pi = cxt.pi
    per = pi[P_FEEDPER]
    h0 = V_HAND + seat * NT
    view[V_SEAT] = seat
    while True:
        animals = animals_of(view, seat)
        if not (view[V_FEED + seat] < animals * per and animals > 0):
            break
        n = 0
        for k in range(NK):
            c = view[h0 + k]
            if c == 0:
                continue
            r.moves[n, 0] = k
            r.moves[n, 1] = 0
            v = pi[P_VALUES + k]
            f = r.feats[n]
            for j in range(NF):
                f[j] = 0.0
            f[Sell.MINUS_VALUE] = -float(v)
            f[Sell.VALUE] = v
            f[Sell.COUNT] = c
            f[Sell.IS_PIG] = 1.0 if k == PIG else 0.0
            f[Sell.PARTIAL_GROUP] = c % pi[P_QUART]
            short = animals * per - view[V_FEED + seat]
            f[Sell.COVERS_GAP] = 1.0 if v + per >= short else 0.0
            f[Sell.FULL_GROUP] = 1.0 if c >= pi[P_QUART] else 0.0
            f[Sell.BIAS] = 1.0
            n += 1
        if n > 1:
            return post_and_show_seat(st, seat, K_SELL, n)
        sell(st, cx, seat, r.moves[0, 0])
    pay = animals_of(view, seat) * per
    view[V_FEED + seat] -= pay
    if view[V_SUPPLY] >= 0:
        view[V_SUPPLY] += pay
    log_st(st, E_PAY, seat, pay, view[V_FEED + seat], 0, 0)
    r.ctl[C_SACK_ASKED] = 0
    r.ctl[C_T] += 1
    r.ctl[C_PHASE] = PH_FEED
    return -1


@njit(cache=True, _nrt=False)
def sell(st, cx, seat, k):
    """One animal of kind ``k`` out of the game for its value in feed (at most what a limited supply has)."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    v = cxt.pi[P_VALUES + k]
    got = v
    if view[V_SUPPLY] >= 0:
        got = min(v, view[V_SUPPLY])
        view[V_SUPPLY] -= got
    view[V_HAND + seat * NT + k] -= 1
    view[V_FEED + seat] += got
    log_st(st, E_SELL, seat, k, got, 0, 0)
