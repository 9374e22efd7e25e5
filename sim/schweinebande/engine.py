"""Schweinebande engine on the forward model (``docs/adding-a-game.md``; numba, nopython).

The game is a state machine over ``SBState`` (``state.py``): ``advance`` runs the forced steps of the rule
book (dealing, turning tiles up, sitting out, paying feed, the end-of-game groups) up to the next player
decision and posts its candidates and features; ``apply`` performs the chosen candidate. Phases (ctl
``C_PHASE``): a round is A+B (deal, then placement turns: reveal, place?), C (collect, in order-tile
order, until every farmer has collected), D (farm, each player in order-tile order until they stop) and E
(feed: sack?, then sell while short, then pay). ``play_game`` and the batch are the shared loop of
``sim.core.play``.

Every function here is compiled with ``_nrt=False``: none allocates (``new_state`` does, once per chunk),
so they skip numba's atomic reference counting on their array arguments.
"""

import numpy as np
from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.bits import popcount
from meeplab.sim.core.forward import C_END, C_LENGTH, C_N, C_NP, C_OVER, C_PHASE, C_SEAT
from meeplab.sim.core.records import log_st
from meeplab.sim.core.rng import rng_init, shuffle

from .farming import animals_of, do_farm, post_farm, post_feed, post_sell, sell
from .features import Collect, Place, Reveal
from .layout import (
    E_COLLECT,
    E_DISCARD,
    E_LEFTOVER,
    E_ORDER,
    E_PASS,
    E_PLACE,
    E_REVEAL,
    E_ROUND,
    E_SACKUSE,
    E_SCORE,
    E_SITOUT,
    E_TURNUP,
    FACE_DOWN,
    K_COLLECT,
    K_PLACE,
    K_REVEAL,
    MAXP,
    MAXS,
    NF,
    NK,
    NT,
    P_FARMERS,
    P_ROUNDS,
    P_SACKS,
    P_SEAT_FEED,
    P_SUPPLY,
    P_TILES,
    P_VALUES,
    SACK,
    V_FACEDOWN,
    V_FARM,
    V_FARMER,
    V_FEED,
    V_FLEFT,
    V_HAND,
    V_LEN,
    V_NP,
    V_NROUNDS,
    V_NSPACES,
    V_ORDER,
    V_REVEALED,
    V_ROUND,
    V_SUPPLY,
    V_TILE,
    V_TURNS,
    V_UNSEEN,
)
from .lines import (
    L_UNKF,
    LINE_TIE,
    MAXD,
    gain_of,
    hand_potential,
    line_mask,
    lines_blocked,
    lines_reset,
    lines_revealed,
    potential_table,
    seat_marginals,
    unknown_gain,
)
from .scoring import NC, farm_score, final_groups
from .state import (
    C_ACTIVE,
    C_ANY,
    C_CLEAR,
    C_CUR,
    C_DRAWN,
    C_FIRST,
    C_NEXT_ORDER,
    C_NO,
    C_OI,
    C_SACK_ASKED,
    C_T,
    M_FACEDOWN,
    M_FARMERS,
    M_KINDS,
    MAX_MOVES,
    PH_COLLECT,
    PH_FARM,
    PH_FEED,
    PH_OVER,
    PH_PLACE,
    PH_REVEAL,
    PH_ROUND,
    PH_SELL,
    SBCtx,
    SBState,
    bag_size,
    determinise,
    new_state,
    post_and_show_seat,
)

PIG = 4

__all__ = ["L_UNKF", "MAXD", "MAXP", "MAX_MOVES", "NC", "advance", "apply", "potential_table", "reset", "result"]


# ---------------------------------------------------------------------------------------------------------------
# start and end
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def reset(st, cx, seed, g):
    """Game ``g``: seed the stream from (seed, g), clear the table, shuffle the bag."""
    cxt = cx.tab[0]
    r = st.rec[0]
    pi = cxt.pi
    np_ = r.ctl[C_NP]
    rng_init(r.rng, seed, g)
    for s in range(MAXP):
        for c in range(NC):
            r.brk[s, c] = 0.0
    view = r.pub
    for j in range(V_LEN):
        view[j] = 0
    for j in range(r.ctl.shape[0]):
        if j != C_NP:
            r.ctl[j] = 0
    for s in range(MAXS):
        view[V_TILE + s] = -1
        view[V_FARMER + s] = -1
    view[V_NP] = np_
    view[V_NROUNDS] = pi[P_ROUNDS]
    view[V_NSPACES] = cxt.ns
    view[V_SUPPLY] = pi[P_SUPPLY] if pi[P_SUPPLY] > 0 else -1
    for s in range(np_):
        view[V_FEED + s] = pi[P_SEAT_FEED + s]
        if view[V_SUPPLY] >= 0:
            view[V_SUPPLY] = max(0, view[V_SUPPLY] - pi[P_SEAT_FEED + s])
    ntiles = bag_size(pi)
    i = 0
    for k in range(NK):
        for _ in range(pi[P_TILES]):
            r.bag[i] = k
            i += 1
    for _ in range(pi[P_SACKS]):
        r.bag[i] = SACK
        i += 1
    shuffle(r.bag, ntiles, r.rng)
    for k in range(NK):
        view[V_UNSEEN + k] = pi[P_TILES]
    view[V_UNSEEN + SACK] = pi[P_SACKS]
    r.ctl[C_PHASE] = PH_ROUND
    r.ctl[forward.C_SEAT] = -1


@njit(cache=True, _nrt=False)
def end_game(st, cx):
    """After the last round: end-of-game mixed groups, then the final score."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    np_ = r.ctl[C_NP]
    for s in range(np_):
        final_groups(view, cxt.pi, s, r.brk[s], st.log, st.nlog, st.nlog[1] != 0)
        left = 0
        for k in range(NT):
            left += view[V_HAND + s * NT + k]
        log_st(st, E_DISCARD, s, left, 0, 0, 0)
    for s in range(np_):
        log_st(st, E_SCORE, s, np.int64(farm_score(view, cxt.pi, s)), view[V_FARM + s * NK + PIG], 0, 0)
    view[V_TURNS] = r.ctl[C_LENGTH]
    r.ctl[C_OVER] = 1
    r.ctl[C_END] = 0
    r.ctl[C_PHASE] = PH_OVER
    r.ctl[C_SEAT] = -1


@njit(cache=True, _nrt=False)
def result(st, cx, sc, tb, brk):
    """Score (farm value), tie-break (pigs on the farm) and breakdown of every seat."""
    cxt = cx.tab[0]
    r = st.rec[0]
    for s in range(r.ctl[C_NP]):
        sc[s] = farm_score(r.pub, cxt.pi, s)
        tb[s] = r.pub[V_FARM + s * NK + PIG]
        for c in range(NC):
            brk[s, c] = r.brk[s, c]


# ---------------------------------------------------------------------------------------------------------------
# A + B: deal and place farmers
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def start_round(st, cx):
    """A. lay out the tiles face down, then B. placement begins."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    log_st(st, E_ROUND, -1, view[V_ROUND], 0, 0, 0)
    fd = np.uint64(0)
    drawn = r.ctl[C_DRAWN]
    for s in range(cxt.ns):
        r.hidden[s] = r.bag[drawn]
        drawn += 1
        view[V_TILE + s] = FACE_DOWN
        fd |= np.uint64(1) << np.uint64(s)
    r.ctl[C_DRAWN] = drawn
    r.mk[M_FACEDOWN] = fd
    view[V_FACEDOWN] = cxt.ns
    if view[V_ROUND] > 0:
        for s in range(r.ctl[C_NP]):
            if view[V_ORDER + s] == 1:
                r.ctl[C_FIRST] = s
    start_placement(st, cx)


@njit(cache=True, _nrt=False)
def start_placement(st, cx):
    """B. round 1 the start player begins, later the holder of order tile 1 (``ctl[C_FIRST]``); every player
    takes their farmers; the line estimates start from an all face-down board."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    np_ = r.ctl[C_NP]
    for s in range(np_):
        view[V_FLEFT + s] = cxt.pi[P_FARMERS + np_ - 2]
    r.ctl[C_NEXT_ORDER] = 1
    r.ctl[C_CUR] = r.ctl[C_FIRST]
    r.ctl[C_CLEAR] = 1 if view[V_ROUND] > 0 else 0
    seat_marginals(view, np_, cxt.pi, cxt.ptab, r.tmp, r.mgs)
    lines_reset(cxt.ns, cxt.nd, np_, cxt.raylen, r.lreach, r.lgain)
    r.ctl[C_PHASE] = PH_REVEAL


@njit(cache=True, _nrt=False)
def post_reveal(st, cx):
    """The next placement turn's reveal decision; returns its seat, or -1 when placement is over."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    np_ = r.ctl[C_NP]
    one = np.uint64(1)
    fd = r.mk[M_FACEDOWN]
    cur = r.ctl[C_CUR]
    while True:
        active = 0
        for s in range(np_):
            if view[V_FLEFT + s] > 0:
                active += 1
        if active == 0 or fd == 0:
            return -1
        if view[V_FLEFT + cur] == 0:
            cur = (cur + 1) % np_
            continue
        break
    r.ctl[C_CUR] = cur
    r.ctl[C_ACTIVE] = active
    r.ctl[C_LENGTH] += 1
    view[V_REVEALED] = -1
    lgain = r.lgain
    ug = unknown_gain(r.mgs, cur, r.pub[V_UNSEEN : V_UNSEEN + NT])
    n = 0
    for s in range(cxt.ns):
        if fd & (one << np.uint64(s)):
            x0 = s * MAXD
            bd = 0
            best = lgain[x0, cur] + lgain[x0, L_UNKF] * ug
            for d in range(1, cxt.nd):
                gd = lgain[x0 + d, cur] + lgain[x0 + d, L_UNKF] * ug
                better = gd > best + LINE_TIE
                best = gd if better else best
                bd = d if better else bd
            r.moves[n, 0] = s
            r.moves[n, 1] = 0
            f = r.feats[n]
            for j in range(NF):
                f[j] = 0.0
            f[Reveal.GAIN] = best
            unknown = lgain[x0 + bd, L_UNKF]
            f[Reveal.KNOWN_TILES] = r.lreach[x0 + bd] + 1 - unknown
            f[Reveal.UNKNOWN_TILES] = unknown
            f[Reveal.BIAS] = 1.0
            n += 1
    return post_and_show_seat(st, cur, K_REVEAL, n)


@njit(cache=True, _nrt=False)
def do_reveal(st, cx, space):
    cxt = cx.tab[0]
    r = st.rec[0]
    cur = r.ctl[C_CUR]
    r.mk[M_FACEDOWN] &= ~(np.uint64(1) << np.uint64(space))
    t = r.hidden[space]
    r.pub[V_TILE + space] = t
    r.pub[V_UNSEEN + t] -= 1
    r.pub[V_FACEDOWN] = popcount(r.mk[M_FACEDOWN])
    lines_revealed(r.lreach, r.lgain, cxt.rev, space, t, r.mk[M_FACEDOWN], r.ctl[C_NP], r.mgs)
    log_st(st, E_REVEAL, cur, space, t, 0, 0)
    r.pub[V_REVEALED] = space
    r.ctl[C_PHASE] = PH_PLACE


@njit(cache=True, _nrt=False)
def post_place(st, cx):
    """Place a farmer on the revealed tile, or pass (forced for a lone player on the last face-down tile:
    then the farmer is placed here and -1 returned)."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    cur = r.ctl[C_CUR]
    active = r.ctl[C_ACTIVE]
    space = view[V_REVEALED]
    if active == 1 and r.mk[M_FACEDOWN] == 0:
        do_place(st, cx, True)
        return -1
    lgain = r.lgain
    ug = unknown_gain(r.mgs, cur, r.pub[V_UNSEEN : V_UNSEEN + NT])
    # the best line from the revealed space: its kept line sums (still those of a face-down start) with its
    # own tile now known
    x0 = space * MAXD
    own = r.mgs[cur, view[V_TILE + space]]
    bd = 0
    best = own + lgain[x0, cur] + (lgain[x0, L_UNKF] - 1.0) * ug
    for d in range(1, cxt.nd):
        gd = own + lgain[x0 + d, cur] + (lgain[x0 + d, L_UNKF] - 1.0) * ug
        if gd > best + LINE_TIE:
            best = gd
            bd = d
    r.moves[0, 0] = 0
    r.moves[1, 0] = 1
    r.moves[0, 1] = 0
    r.moves[1, 1] = 0
    f0 = r.feats[0]
    f1 = r.feats[1]
    for j in range(NF):
        f0[j] = 0.0
        f1[j] = 0.0
    # pass: what a typical face-down space is expected to bring later
    f0[Place.GAIN] = ug * 3.0
    f0[Place.IS_PASS] = 1.0
    f1[Place.GAIN] = best
    unknown = lgain[x0 + bd, L_UNKF] - 1.0
    f1[Place.KNOWN_TILES] = r.lreach[x0 + bd] + 1 - unknown
    f1[Place.UNKNOWN_TILES] = unknown
    f1[Place.FARMERS_LEFT] = view[V_FLEFT + cur]
    f1[Place.FACEDOWN_LEFT] = view[V_FACEDOWN]
    f1[Place.PLAYERS_PLACING] = active
    f1[Place.BIAS] = 1.0
    return post_and_show_seat(st, cur, K_PLACE, 2)


@njit(cache=True, _nrt=False)
def do_place(st, cx, place):
    """The end of a placement turn: the farmer (if placed) and the order tile it may earn."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    np_ = r.ctl[C_NP]
    cur = r.ctl[C_CUR]
    space = view[V_REVEALED]
    if place:
        view[V_FARMER + space] = cur
        view[V_FLEFT + cur] -= 1
        lines_blocked(view, cxt.rays, r.lreach, r.lgain, cxt.rev, space, r.mk[M_FACEDOWN], np_, r.mgs)
        log_st(st, E_PLACE, cur, space, 0, 0, 0)
        if view[V_FLEFT + cur] == 0:
            if r.ctl[C_CLEAR]:
                for s in range(np_):
                    view[V_ORDER + s] = 0
                r.ctl[C_CLEAR] = 0
            view[V_ORDER + cur] = r.ctl[C_NEXT_ORDER]
            log_st(st, E_ORDER, cur, r.ctl[C_NEXT_ORDER], 0, 0, 0)
            r.ctl[C_NEXT_ORDER] += 1
    else:
        log_st(st, E_PASS, cur, space, 0, 0, 0)
    if r.ctl[C_CLEAR]:
        # after the first player's first reveal (and optional placement) the order tiles go back
        for s in range(np_):
            view[V_ORDER + s] = 0
        r.ctl[C_CLEAR] = 0
    view[V_REVEALED] = -1
    r.ctl[C_CUR] = (cur + 1) % np_
    r.ctl[C_PHASE] = PH_REVEAL


@njit(cache=True, _nrt=False)
def end_placement(st, cx):
    """Farmers that could not be placed sit out (their owners take the next order tiles in turn order); the
    remaining face-down tiles are turned up."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    np_ = r.ctl[C_NP]
    one = np.uint64(1)
    cur = r.ctl[C_CUR]
    for k in range(np_):
        s = (cur + k) % np_
        if view[V_FLEFT + s] > 0:
            log_st(st, E_SITOUT, s, view[V_FLEFT + s], 0, 0, 0)
            view[V_FLEFT + s] = 0
            view[V_ORDER + s] = r.ctl[C_NEXT_ORDER]
            log_st(st, E_ORDER, s, r.ctl[C_NEXT_ORDER], 0, 0, 0)
            r.ctl[C_NEXT_ORDER] += 1
    fd = r.mk[M_FACEDOWN]
    for s in range(cxt.ns):
        if fd & (one << np.uint64(s)):
            t = r.hidden[s]
            view[V_TILE + s] = t
            view[V_UNSEEN + t] -= 1
            log_st(st, E_TURNUP, -1, s, t, 0, 0)
    r.mk[M_FACEDOWN] = 0
    view[V_FACEDOWN] = 0


# ---------------------------------------------------------------------------------------------------------------
# C: collect
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def start_collect(st, cx):
    """The order of play by order tile, and the board as bit masks: tiles of each kind, farmers of anyone,
    farmers of each seat."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    np_ = r.ctl[C_NP]
    one = np.uint64(1)
    no = 0
    for t in range(1, np_ + 1):
        for s in range(np_):
            if view[V_ORDER + s] == t:
                r.order[no] = s
                no += 1
    r.ctl[C_NO] = no
    r.ctl[C_OI] = 0
    r.ctl[C_ANY] = 0
    mk = r.mk
    for k in range(NT + MAXP):
        mk[M_KINDS + k] = 0
    farmers = np.uint64(0)
    for s in range(cxt.ns):
        t = view[V_TILE + s]
        if t >= 0:
            mk[M_KINDS + t] |= one << np.uint64(s)
        f = view[V_FARMER + s]
        if f >= 0:
            farmers |= one << np.uint64(s)
            mk[M_KINDS + NT + f] |= one << np.uint64(s)
    mk[M_FARMERS] = farmers
    r.ctl[C_PHASE] = PH_COLLECT


@njit(cache=True, _nrt=False)
def collect_candidates(st, cx, seat):
    """Every (farmer, direction) of ``seat``, with its features; returns the count."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    pi = cxt.pi
    one = np.uint64(1)
    mk = r.mk
    counts = r.counts
    rounds_left = np.float64(view[V_NROUNDS] - view[V_ROUND])
    n = 0
    base = hand_potential(view, seat, pi, cxt.ptab, r.tmp)
    mine = mk[M_KINDS + NT + seat]
    farmers = mk[M_FARMERS]
    while mine:
        s = popcount((mine & (~mine + one)) - one)
        mine &= mine - one
        for d in range(cxt.nd):
            lm = line_mask(cxt.rmask[s * MAXD + d], s, farmers)
            for k in range(NT):
                counts[k] = popcount(lm & mk[M_KINDS + k])
            counts[NT] = 0
            r.moves[n, 0] = s
            r.moves[n, 1] = d
            f = r.feats[n]
            for j in range(NF):
                f[j] = 0.0
            f[Collect.GAIN] = gain_of(view, seat, pi, cxt.ptab, counts, base, r.tmp, 0.0)
            val = 0.0
            nan = 0
            for k in range(NK):
                val += counts[k] * pi[P_VALUES + k]
                nan += counts[k]
            f[Collect.VALUE] = val
            f[Collect.ANIMALS] = nan
            f[Collect.PIGS] = counts[PIG]
            f[Collect.SACKS] = counts[SACK]
            f[Collect.FEED_BURDEN] = nan * rounds_left
            f[Collect.BIAS] = 1.0
            n += 1
    return n


@njit(cache=True, _nrt=False)
def post_collect(st, cx):
    """The next collect decision in order-tile order (passes repeat until no farmer is left); -1 when done."""
    r = st.rec[0]
    while True:
        if r.ctl[C_OI] == r.ctl[C_NO]:
            if r.ctl[C_ANY] == 0:
                return -1
            r.ctl[C_OI] = 0
            r.ctl[C_ANY] = 0
        seat = r.order[r.ctl[C_OI]]
        n = collect_candidates(st, cx, seat)
        if n == 0:
            r.ctl[C_OI] += 1
            continue
        r.ctl[C_ANY] = 1
        r.ctl[C_LENGTH] += 1
        return post_and_show_seat(st, seat, K_COLLECT, n)


@njit(cache=True, _nrt=False)
def do_collect(st, cx, s0, d):
    """The farmer on ``s0`` goes home with its tile and every tile in direction ``d`` up to the edge or the
    space before any farmer."""
    cxt = cx.tab[0]
    r = st.rec[0]
    view = r.pub
    one = np.uint64(1)
    mk = r.mk
    seat = r.ctl[C_SEAT]
    counts = r.counts
    lm = line_mask(cxt.rmask[s0 * MAXD + d], s0, mk[M_FARMERS])
    for k in range(NT):
        mk[M_KINDS + k] &= ~lm
    mk[M_FARMERS] &= ~(one << np.uint64(s0))
    mk[M_KINDS + NT + seat] &= ~(one << np.uint64(s0))
    for k in range(NT + 1):
        counts[k] = 0
    view[V_FARMER + s0] = -1
    taken = 0
    t = view[V_TILE + s0]
    if t >= 0:
        counts[t] += 1
        view[V_TILE + s0] = -1
        taken += 1
    for j in range(cxt.rays.shape[2]):
        s = cxt.rays[s0, d, j]
        if s < 0 or view[V_FARMER + s] >= 0:
            break
        t = view[V_TILE + s]
        if t >= 0:
            counts[t] += 1
            view[V_TILE + s] = -1
            taken += 1
    packed = 0
    for k in range(NT):
        view[V_HAND + seat * NT + k] += counts[k]
        packed |= min(counts[k], 15) << (4 * k)
    log_st(st, E_COLLECT, seat, s0, d, taken, packed)
    r.ctl[C_OI] += 1


@njit(cache=True, _nrt=False)
def end_collect(st, cx):
    """Tiles left on the board leave the game."""
    cxt = cx.tab[0]
    r = st.rec[0]
    left = 0
    for s in range(cxt.ns):
        if r.pub[V_TILE + s] >= 0:
            left += 1
            r.pub[V_TILE + s] = -1
    log_st(st, E_LEFTOVER, -1, left, 0, 0, 0)


# ---------------------------------------------------------------------------------------------------------------
# the forward model
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def advance(st, cx):
    """Run forced steps up to the next decision; returns its seat, or -1 when the game is over."""
    r = st.rec[0]
    view = r.pub
    while True:
        ph = r.ctl[C_PHASE]
        if ph == PH_REVEAL:
            s = post_reveal(st, cx)
            if s >= 0:
                return s
            end_placement(st, cx)
            start_collect(st, cx)
        elif ph == PH_PLACE:
            s = post_place(st, cx)
            if s >= 0:
                return s
        elif ph == PH_COLLECT:
            s = post_collect(st, cx)
            if s >= 0:
                return s
            end_collect(st, cx)
            r.ctl[C_T] = 1
            r.ctl[C_PHASE] = PH_FARM
        elif ph == PH_FARM:
            s = post_farm(st, cx)
            if s >= 0:
                return s
            r.ctl[C_T] = 1
            r.ctl[C_SACK_ASKED] = 0
            r.ctl[C_PHASE] = PH_FEED
        elif ph == PH_FEED:
            s = post_feed(st, cx)
            if s >= 0:
                return s
            if view[V_ROUND] == view[V_NROUNDS] - 1:
                end_game(st, cx)
                return -1
            view[V_ROUND] += 1
            r.ctl[C_PHASE] = PH_ROUND
        elif ph == PH_SELL:
            s = post_sell(st, cx, r.ctl[C_SEAT])
            if s >= 0:
                return s
        elif ph == PH_ROUND:
            start_round(st, cx)
        else:
            return -1


@njit(cache=True, _nrt=False)
def apply(st, cx, i):
    """Perform candidate ``i`` of the pending decision."""
    r = st.rec[0]
    ph = r.ctl[C_PHASE]
    if ph == PH_REVEAL:
        do_reveal(st, cx, r.moves[i, 0])
    elif ph == PH_PLACE:
        do_place(st, cx, r.moves[i, 0] == 1)
    elif ph == PH_COLLECT:
        do_collect(st, cx, r.moves[i, 0], r.moves[i, 1])
    elif ph == PH_FARM:
        do_farm(st, cx, r.moves[i, 0], r.moves[i, 1])
    elif ph == PH_FEED:
        seat = r.ctl[C_SEAT]
        if r.moves[i, 0] == 1:
            r.pub[V_HAND + seat * NT + SACK] -= 1
            log_st(st, E_SACKUSE, seat, animals_of(r.pub, seat), 0, 0, 0)
            r.ctl[C_T] += 1
        else:
            r.ctl[C_SACK_ASKED] = 1
            r.ctl[C_PHASE] = PH_SELL
    elif ph == PH_SELL:
        sell(st, cx, r.ctl[C_SEAT], r.moves[i, 0])
    r.ctl[C_N] = 0


@njit(cache=True, _nrt=False)
def redraw(st, cx, rnd):
    """Fresh future chance from the true state: the tiles under the face-down spaces and the undealt bag. That is
    all ``determinise`` re-deals (no player ever holds a hidden tile), whatever the seat."""
    determinise(st, cx, -1, rnd)


# the engine's heaviest functions in two groups of about equal compile time (a cold compile's events, 2026-12-07:
# the phases after a reveal, a placement and a collection, the round's start and the game's end ~6 s; farming,
# feeding and apply ~5 s, plus the helper's start): the shared loop compiles the engine inline, so on a cold cache
# the second group compiles in a helper process while this one compiles the first, and the loop then loads both
# (sim.core.forward.warm_engine; a first `meeplab run` 20.1-20.9 s -> 14.9-16.3 s on a quiet 2-core machine)
COMPILE_PARTS = (
    (post_reveal, post_place, post_collect, start_round, end_game),
    (post_farm, post_feed, apply),
)

forward.register(
    SBState, SBCtx, new=new_state, reset=reset, advance=advance, apply=apply, determinise=determinise, result=result,
    redraw=redraw, parts=COMPILE_PARTS,
)  # fmt: skip
