"""The Goofspiel engine on meeplab's forward model (docs/adding-a-game.md in meeplab).

Rules: every seat holds bid cards ``1..N`` (``cards``, 8); the prize deck ``1..N`` is shuffled face down. Each
round the top prize card is turned face up; then every seat, seat 1 first, chooses one of its bid cards FACE DOWN
(a secret decision: the other seats see only that it chose); when all have chosen the bids are revealed together.
The unique highest bid takes the points at stake (the prize, plus any carried prizes); a tie for the highest bid
takes nothing: the prize is discarded (``ties = "discard"``) or carried into the next round (``"carry"``; carried
points still at stake after the last round are discarded). Played bid cards are gone. After ``N`` rounds the most
prize points win; the rules break no tie: equal scores share the win.

The state record (``STATE_DTYPE``): the shared ``pub``/``ctl``/``moves``/``feats``/``rng``, then
``deck`` (the prize deck: ``deck[ctl[C_ROUND]]`` is the prize face up, everything after it is face down),
``hand`` (per seat, the bid cards not yet revealed as a bit mask: public, the face-down bid included),
``facedown`` (per seat: while the seat's bid of this round lies face down, row ``[bid, its other cards
ascending]``, ``hand``'s cards in an order whose slot 0 is the bid; all zeros otherwise), ``won`` (prize points),
``taken`` (prize cards won, bit mask) and ``last`` (the bids revealed in the last round, 0 before the first).
A face-down bid is an ORDER of the seat's public cards: another seat's re-deal (``determinise``) shuffles the row,
the same cards, so the bid becomes any of the seat's cards.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.bits import popcount
from meeplab.sim.core.events import LOG_WIDTH, log_event
from meeplab.sim.core.forward import C_COMMON, C_END, C_KIND, C_LENGTH, C_N, C_NP, C_OVER, C_SEAT
from meeplab.sim.core.rng import rng_init, shuffle

MAXP = 5  # seats the state holds (the rules: 2-5)
MAXN = 16  # bid and prize cards 1..16 at most (one int64 mask per seat)
KIND_BID = 0  # the one decision kind: choose a bid card face down
NF = 6  # features, see BOT_DOC in __init__.py

# the game's own control words
C_ROUND = C_COMMON + 0  # rounds revealed so far (the round being played, from 0)
C_TURN = C_COMMON + 1  # seats that have bid face down this round (seats 0 .. C_TURN - 1)
C_POT = C_COMMON + 2  # points carried into this round by tied rounds (ties = "carry")
C_CARRIED = C_COMMON + 3  # the carried prize cards (bit mask)
C_NCARDS = C_COMMON + 4  # N: cards per seat, prize cards, rounds
C_SHOWN = C_COMMON + 5  # rounds whose prize has been logged as turned up
C_LEN = C_COMMON + 6

# the bots' view (pub): public information only
V_PRIZE = 0  # the prize card face up (0 once the game is over)
V_POT = 1  # points at stake: the prize and the carried points
V_ROUND = 2  # rounds revealed so far
V_NCARDS = 3  # N
V_SEAT = 4  # the seat deciding (0 = seat 1)
V_NP = 5  # players
V_DECK = 6  # prize cards still face down (bit mask)
V_BIDS = 7  # seats that have bid face down this round (seats 0 .. V_BIDS - 1)
V_HAND = 8  # bid cards of seats 0..MAXP-1 not yet revealed (bit masks, a face-down bid included)
V_WON = V_HAND + MAXP  # prize points of each seat
V_LAST = V_WON + MAXP  # the bids revealed in the last round (0 before the first reveal)
V_LEN = V_LAST + MAXP

# params packed for the engine (cx.prm)
P_CARDS, P_CARRY, P_LEN = 0, 1, 2

# event codes (replay): rows [code, seat, a, b, c, d]
E_PRIZE = 1  # seat -1, prize card, points at stake, round (from 0)
E_BID = 2  # seat, bid card (face down), round
E_REVEAL = 3  # seat, bid card, round
E_TAKE = 4  # seat taking (-1: a tie, nobody), points, round, 1 if carried on (0: taken or discarded)

NCAT = 1  # score breakdown: prizes

STATE_DTYPE = np.dtype(
    [
        ("pub", np.int64, V_LEN),
        ("ctl", np.int64, C_LEN),
        ("moves", np.int64, (MAXN, 1)),
        ("feats", np.float64, (MAXN, NF)),
        ("rng", np.uint64, 4),
        ("deck", np.int64, MAXN),  # HIDDEN after the prize face up; CHANCE: shuffled at reset
        ("hand", np.int64, MAXP),
        ("facedown", np.int64, (MAXP, MAXN)),  # HIDDEN from the other seats while a bid lies face down
        ("won", np.int64, MAXP),
        ("taken", np.int64, MAXP),
        ("last", np.int64, MAXP),
    ]
)

GSState = namedtuple("GSState", ["rec", "log", "nlog"])
GSCtx = namedtuple("GSCtx", ["prm"])


def make_ctx(values) -> GSCtx:
    prm = np.zeros(P_LEN, dtype=np.int64)
    prm[P_CARDS] = values["cards"]
    prm[P_CARRY] = 1 if values["ties"] == "carry" else 0
    return GSCtx(prm)


@njit(cache=True)
def new_state(cx, np_, log):
    st = GSState(np.zeros(1, dtype=STATE_DTYPE), log, np.zeros(2, dtype=np.int64))
    st.rec[0].ctl[C_NP] = np_
    return st


@njit(cache=True, _nrt=False)
def bit(c):
    return np.int64(1) << np.int64(c)


@njit(cache=True, _nrt=False)
def count_below(mask, c):
    """How many cards of ``mask`` are below card ``c``."""
    k = 0
    for v in range(1, c):
        if (mask >> np.int64(v)) & 1:
            k += 1
    return k


@njit(cache=True, _nrt=False)
def sum_cards(mask):
    t = 0
    for v in range(1, MAXN + 1):
        if (mask >> np.int64(v)) & 1:
            t += v
    return t


@njit(cache=True, _nrt=False)
def reset(st, cx, seed, g):
    r = st.rec[0]
    np_ = r.ctl[C_NP]
    rng_init(r.rng, seed, g)
    for i in range(r.ctl.shape[0]):
        r.ctl[i] = 0
    r.ctl[C_NP] = np_
    n = cx.prm[P_CARDS]
    r.ctl[C_NCARDS] = n
    for i in range(MAXN):
        r.deck[i] = i + 1 if i < n else 0
    shuffle(r.deck, n, r.rng)
    full = np.int64(0)
    for v in range(1, n + 1):
        full |= bit(v)
    for p in range(MAXP):
        r.hand[p] = full if p < np_ else 0
        r.won[p] = 0
        r.taken[p] = 0
        r.last[p] = 0
        for k in range(MAXN):
            r.facedown[p, k] = 0
    r.ctl[C_SEAT] = -1


@njit(cache=True, _nrt=False)
def prize_mask_ahead(r):
    """The prize cards still face down (after the one face up)."""
    m = np.int64(0)
    for i in range(r.ctl[C_ROUND] + 1, r.ctl[C_NCARDS]):
        m |= bit(r.deck[i])
    return m


@njit(cache=True, _nrt=False)
def post_view(r):
    over = r.ctl[C_ROUND] >= r.ctl[C_NCARDS]
    prize = 0 if over else r.deck[r.ctl[C_ROUND]]
    r.pub[V_PRIZE] = prize
    r.pub[V_POT] = r.ctl[C_POT] + prize
    r.pub[V_ROUND] = r.ctl[C_ROUND]
    r.pub[V_NCARDS] = r.ctl[C_NCARDS]
    r.pub[V_SEAT] = r.ctl[C_SEAT]
    r.pub[V_NP] = r.ctl[C_NP]
    r.pub[V_DECK] = 0 if over else prize_mask_ahead(r)
    r.pub[V_BIDS] = r.ctl[C_TURN]
    for p in range(MAXP):
        r.pub[V_HAND + p] = r.hand[p]
        r.pub[V_WON + p] = r.won[p]
        r.pub[V_LAST + p] = r.last[p]


@njit(cache=True, _nrt=False)
def win_chance(r, seat, b):
    """The chance that bid ``b`` is the unique highest if every other seat bids one of its cards at random."""
    p = 1.0
    for o in range(r.ctl[C_NP]):
        if o != seat:
            p *= count_below(r.hand[o], b) / max(popcount(r.hand[o]), 1)
    return p


@njit(cache=True, _nrt=False)
def post_bid(r, seat):
    """The seat's candidates: each bid card it holds, lowest first, with its features (public information only)."""
    hand = r.hand[seat]
    left = popcount(hand)
    prize = r.deck[r.ctl[C_ROUND]]
    pot = r.ctl[C_POT] + prize
    prizes = prize_mask_ahead(r) | bit(prize)
    worth = sum_cards(prizes) / max(sum_cards(hand), 1)  # prize points per bid point still to play
    prize_rank = count_below(prizes, prize) / max(left - 1, 1)
    n = 0
    for b in range(1, MAXN + 1):
        if (hand >> np.int64(b)) & 1:
            pw = win_chance(r, seat, b)
            r.moves[n, 0] = b
            r.feats[n, 0] = pot * pw - b * worth
            r.feats[n, 1] = b
            r.feats[n, 2] = pot
            r.feats[n, 3] = pw
            r.feats[n, 4] = count_below(hand, b) / max(left - 1, 1)
            r.feats[n, 5] = prize_rank
            n += 1
    r.ctl[C_N] = n


@njit(cache=True, _nrt=False)
def reveal(st, cx):
    """Turn every face-down bid up: the unique highest takes the points at stake; a tie discards or carries them."""
    r = st.rec[0]
    on = st.nlog[1] != 0
    np_ = r.ctl[C_NP]
    rnd = r.ctl[C_ROUND]
    prize = r.deck[rnd]
    pot = r.ctl[C_POT] + prize
    best = -1
    seat = -1
    for s in range(np_):
        b = r.facedown[s, 0]
        r.last[s] = b
        r.hand[s] &= ~bit(b)
        log_event(st.log, st.nlog, on, E_REVEAL, s, b, rnd, 0, 0)
        if b > best:
            best = b
            seat = s
        elif b == best:
            seat = -1
        for k in range(MAXN):
            r.facedown[s, k] = 0
    if seat >= 0:
        r.won[seat] += pot
        r.taken[seat] |= r.ctl[C_CARRIED] | bit(prize)
        r.ctl[C_POT] = 0
        r.ctl[C_CARRIED] = 0
        log_event(st.log, st.nlog, on, E_TAKE, seat, pot, rnd, 0, 0)
    elif cx.prm[P_CARRY] != 0 and rnd + 1 < r.ctl[C_NCARDS]:
        r.ctl[C_POT] = pot
        r.ctl[C_CARRIED] |= bit(prize)
        log_event(st.log, st.nlog, on, E_TAKE, -1, pot, rnd, 1, 0)
    else:
        r.ctl[C_POT] = 0
        r.ctl[C_CARRIED] = 0
        log_event(st.log, st.nlog, on, E_TAKE, -1, pot, rnd, 0, 0)
    r.ctl[C_ROUND] = rnd + 1
    r.ctl[C_LENGTH] = rnd + 1
    r.ctl[C_TURN] = 0


@njit(cache=True, _nrt=False)
def advance(st, cx):
    """Reveal a round whose bids are all down; post the next seat's face-down bid, or end the game after N rounds."""
    r = st.rec[0]
    if r.ctl[C_TURN] >= r.ctl[C_NP]:
        reveal(st, cx)
    if r.ctl[C_ROUND] >= r.ctl[C_NCARDS]:
        r.ctl[C_OVER] = 1
        r.ctl[C_SEAT] = -1
        r.ctl[C_END] = 0
        r.ctl[C_N] = 0
        post_view(r)
        return -1
    rnd = r.ctl[C_ROUND]
    if r.ctl[C_SHOWN] <= rnd:  # the round's prize is turned face up (logged once)
        log_event(st.log, st.nlog, st.nlog[1] != 0, E_PRIZE, -1, r.deck[rnd], r.ctl[C_POT] + r.deck[rnd], rnd, 0)
        r.ctl[C_SHOWN] = rnd + 1
    seat = r.ctl[C_TURN]
    r.ctl[C_SEAT] = seat
    r.ctl[C_KIND] = KIND_BID
    post_bid(r, seat)
    post_view(r)
    return seat


@njit(cache=True, _nrt=False)
def apply(st, cx, i):
    """Lay candidate ``i``'s card face down: the seat's row of ``facedown`` becomes [bid, its other cards]."""
    r = st.rec[0]
    seat = r.ctl[C_TURN]
    b = r.moves[i, 0]
    r.facedown[seat, 0] = b
    k = 1
    for v in range(1, MAXN + 1):
        if v != b and (r.hand[seat] >> np.int64(v)) & 1:
            r.facedown[seat, k] = v
            k += 1
    log_event(st.log, st.nlog, st.nlog[1] != 0, E_BID, seat, b, r.ctl[C_ROUND], 0, 0)
    r.ctl[C_TURN] = seat + 1


@njit(cache=True, _nrt=False)
def sort_shuffle(a, n, rnd):
    """``a[:n]`` sorted (its canonical order: what is known is the multiset), then shuffled from ``rnd``."""
    for i in range(1, n):
        c = a[i]
        j = i - 1
        while j >= 0 and a[j] > c:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = c
    shuffle(a, n, rnd)


@njit(cache=True, _nrt=False)
def redeal_prizes(r, rnd):
    """The prize cards still face down, in a fresh order."""
    first = r.ctl[C_ROUND] + 1
    n = r.ctl[C_NCARDS]
    if first < n:
        sort_shuffle(r.deck[first:n], n - first, rnd)


@njit(cache=True, _nrt=False)
def determinise(st, cx, seat, rnd):
    """Re-deal what ``seat`` has not seen: the face-down prize cards' order, and every other seat's face-down bid of
    this round (its row of ``facedown`` shuffled: the bid becomes any card of its public hand)."""
    r = st.rec[0]
    redeal_prizes(r, rnd)
    if r.ctl[C_ROUND] >= r.ctl[C_NCARDS]:
        return
    left = r.ctl[C_NCARDS] - r.ctl[C_ROUND]
    for s in range(min(r.ctl[C_TURN], r.ctl[C_NP])):
        if s != seat:
            sort_shuffle(r.facedown[s], left, rnd)


@njit(cache=True, _nrt=False)
def redraw(st, cx, rnd):
    """Fresh future chance from the true state: only the prize deck's face-down order (a face-down bid is known to
    the seat that laid it, so it is kept)."""
    redeal_prizes(st.rec[0], rnd)


@njit(cache=True, _nrt=False)
def result(st, cx, score, tiebreak, brk):
    r = st.rec[0]
    for p in range(r.ctl[C_NP]):
        brk[p, 0] = r.won[p]
        score[p] = r.won[p]
        tiebreak[p] = 0.0  # the rules break no tie: a shared win


# option classes (restricted play): bit 0 = the lowest card held, bit 1 = the highest, bit 2 = the prize's own value
O_LOWEST, O_HIGHEST, O_MATCH = 0, 1, 2


@njit(cache=True, _nrt=False)
def option_mask(st, cx, i):
    r = st.rec[0]
    n = r.ctl[C_N]
    b = r.moves[i, 0]
    m = np.int64(0)
    if b == r.moves[0, 0]:
        m |= bit(O_LOWEST)
    if b == r.moves[n - 1, 0]:
        m |= bit(O_HIGHEST)
    if b == r.deck[r.ctl[C_ROUND]]:
        m |= bit(O_MATCH)
    return m


forward.register(
    GSState, GSCtx, new=new_state, reset=reset, advance=advance, apply=apply, determinise=determinise, result=result,
    redraw=redraw,
)  # fmt: skip
forward.register_options(GSState, GSCtx, option_mask)

LOGW = LOG_WIDTH
