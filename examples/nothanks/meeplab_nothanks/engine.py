"""The No Thanks! engine on meeplab's forward model (docs/adding-a-game.md in meeplab).

Rules: one card of every value from ``low_card`` to ``high_card`` (3..35), ``removed`` (9) of them set aside face
down, unseen by anyone. The top card is turned up; the player to act either takes it (with every chip on it) and
turns up the next card, acting again, or pays one chip onto it ("No thanks!") and play passes left. A player with
no chip must take. When the last card is taken the game ends: each run of consecutive cards a player holds counts
only its lowest card, each chip counts -1, and the lowest total wins.

The state record (``STATE_DTYPE``): the shared ``pub``/``ctl``/``moves``/``feats``/``rng``, then ``deck`` (the
shuffled cards: ``deck[:ctl[C_INPLAY]]`` are played in order, the rest are the removed cards; ``deck[ctl[C_POS]]``
is the card face up; everything after it is hidden), ``chips`` and ``held`` (per seat: chips, cards as a bit mask).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.events import LOG_WIDTH, log_event
from meeplab.sim.core.forward import C_COMMON, C_END, C_KIND, C_LENGTH, C_N, C_NP, C_OVER, C_SEAT
from meeplab.sim.core.rng import rng_init, shuffle

MAXP = 10  # seats the state holds (the rules: 3-7; a test plays 10 to check that meeplab has no seat cap)
MAXC = 64  # card values 0..63 (one int64 mask per seat)
TAKE = 0  # move 0: take the card and its chips
PASS = 1  # move 1: pay a chip ("No thanks!")
K_CARD = 0  # the one decision kind: take or pass
NF = 4  # features: 0 immediate value (minus the score change: higher is better), 1 card, 2 chips on it, 3 own chips

# the game's own control words
C_POS = C_COMMON + 0  # deck index of the card face up
C_POT = C_COMMON + 1  # chips on it
C_TURN = C_COMMON + 2  # seat to act
C_INPLAY = C_COMMON + 3  # cards in play (the deck less the removed ones)
C_NCARDS = C_COMMON + 4  # cards in the deck
C_LEN = C_COMMON + 5

# the bots' view (pub): public information only
V_CARD = 0  # the card face up (-1 once the game is over)
V_POT = 1  # chips on it
V_LEFT = 2  # cards still to be turned up after it
V_SEAT = 3  # the seat deciding (0 = start player)
V_NP = 4  # players
V_CHIPS = 5  # chips of seats 0..MAXP-1 (every payment is public)
V_HELD = V_CHIPS + MAXP  # cards of seats 0..MAXP-1 (bit mask)
V_LEN = V_HELD + MAXP

# params packed for the engine (cx.prm)
P_LOW, P_HIGH, P_REMOVED, P_CHIPS, P_LEN = 0, 1, 2, 3, 4

# event codes (replay)
E_TURN = 1  # seat, card, chips on it
E_TAKE = 2  # seat, card, chips taken
E_PASS = 3  # seat, card, chips left

NCAT = 2  # score breakdown: cards (lowest card of each run), chips (-1 each)

STATE_DTYPE = np.dtype(
    [
        ("pub", np.int64, V_LEN),
        ("ctl", np.int64, C_LEN),
        ("moves", np.int64, (2, 1)),
        ("feats", np.float64, (2, NF)),
        ("rng", np.uint64, 4),
        ("deck", np.int64, MAXC),  # HIDDEN after the card face up; CHANCE: shuffled at reset
        ("chips", np.int64, MAXP),
        ("held", np.int64, MAXP),
    ]
)

NTState = namedtuple("NTState", ["rec", "log", "nlog"])
NTCtx = namedtuple("NTCtx", ["prm"])


def make_ctx(values) -> NTCtx:
    prm = np.zeros(P_LEN, dtype=np.int64)
    prm[P_LOW] = values["low_card"]
    prm[P_HIGH] = values["high_card"]
    prm[P_REMOVED] = values["removed"]
    prm[P_CHIPS] = values["chips"]
    return NTCtx(prm)


@njit(cache=True)
def new_state(cx, np_, log):
    st = NTState(np.zeros(1, dtype=STATE_DTYPE), log, np.zeros(2, dtype=np.int64))
    st.rec[0].ctl[C_NP] = np_
    return st


@njit(cache=True, _nrt=False)
def cards_score(mask):
    """The sum of the lowest card of each run of consecutive cards in ``mask``."""
    total = 0
    prev = False
    for c in range(MAXC):
        have = ((mask >> np.int64(c)) & 1) == 1
        if have and not prev:
            total += c
        prev = have
    return total


@njit(cache=True, _nrt=False)
def reset(st, cx, seed, g):
    r = st.rec[0]
    np_ = r.ctl[C_NP]
    rng_init(r.rng, seed, g)
    for i in range(r.ctl.shape[0]):
        r.ctl[i] = 0
    r.ctl[C_NP] = np_
    lo = cx.prm[P_LOW]
    n = cx.prm[P_HIGH] - lo + 1
    for i in range(MAXC):
        r.deck[i] = lo + i if i < n else -1
    shuffle(r.deck, n, r.rng)
    r.ctl[C_NCARDS] = n
    r.ctl[C_INPLAY] = n - cx.prm[P_REMOVED]
    for p in range(MAXP):
        r.chips[p] = cx.prm[P_CHIPS] if p < np_ else 0
        r.held[p] = 0
    r.ctl[C_SEAT] = -1


@njit(cache=True, _nrt=False)
def post_view(r):
    np_ = r.ctl[C_NP]
    over = r.ctl[C_POS] >= r.ctl[C_INPLAY]
    r.pub[V_CARD] = -1 if over else r.deck[r.ctl[C_POS]]
    r.pub[V_POT] = r.ctl[C_POT]
    r.pub[V_LEFT] = 0 if over else r.ctl[C_INPLAY] - r.ctl[C_POS] - 1
    r.pub[V_SEAT] = r.ctl[C_SEAT]
    r.pub[V_NP] = np_
    for p in range(MAXP):
        r.pub[V_CHIPS + p] = r.chips[p]
        r.pub[V_HELD + p] = r.held[p]


@njit(cache=True, _nrt=False)
def advance(st, cx):
    """Post the decision of the seat to act on the card face up, or end the game after the last card."""
    r = st.rec[0]
    if r.ctl[C_POS] >= r.ctl[C_INPLAY]:
        r.ctl[C_OVER] = 1
        r.ctl[C_SEAT] = -1
        r.ctl[C_END] = 0
        post_view(r)
        return -1
    seat = r.ctl[C_TURN]
    card = r.deck[r.ctl[C_POS]]
    pot = r.ctl[C_POT]
    r.ctl[C_SEAT] = seat
    r.ctl[C_KIND] = K_CARD
    log_event(st.log, st.nlog, st.nlog[1] != 0, E_TURN, seat, card, pot, 0, 0)
    mask = r.held[seat]
    gain = cards_score(mask | (np.int64(1) << np.int64(card))) - cards_score(mask)
    r.moves[TAKE, 0] = TAKE
    r.feats[TAKE, 0] = pot - gain  # chips taken lower the score, the card raises it by gain
    r.feats[TAKE, 1] = card
    r.feats[TAKE, 2] = pot
    r.feats[TAKE, 3] = r.chips[seat]
    n = 1
    if r.chips[seat] > 0:
        r.moves[PASS, 0] = PASS
        r.feats[PASS, 0] = -1.0  # a chip paid is a point more
        r.feats[PASS, 1] = card
        r.feats[PASS, 2] = pot
        r.feats[PASS, 3] = r.chips[seat]
        n = 2
    r.ctl[C_N] = n
    post_view(r)
    return seat


@njit(cache=True, _nrt=False)
def apply(st, cx, i):
    r = st.rec[0]
    seat = r.ctl[C_TURN]
    card = r.deck[r.ctl[C_POS]]
    on = st.nlog[1] != 0
    r.ctl[C_LENGTH] += 1
    if i == TAKE or r.chips[seat] == 0:
        r.held[seat] |= np.int64(1) << np.int64(card)
        r.chips[seat] += r.ctl[C_POT]
        log_event(st.log, st.nlog, on, E_TAKE, seat, card, r.ctl[C_POT], 0, 0)
        r.ctl[C_POT] = 0
        r.ctl[C_POS] += 1  # the taker turns up the next card and acts again
    else:
        r.chips[seat] -= 1
        r.ctl[C_POT] += 1
        log_event(st.log, st.nlog, on, E_PASS, seat, card, r.chips[seat], 0, 0)
        r.ctl[C_TURN] = (seat + 1) % r.ctl[C_NP]


@njit(cache=True, _nrt=False)
def determinise(st, cx, seat, rnd):
    """Re-deal the cards nobody has seen (the rest of the deck and the removed cards), from their sorted order,
    so the result depends only on what is public and on ``rnd``."""
    r = st.rec[0]
    first = r.ctl[C_POS] + 1
    n = r.ctl[C_NCARDS]
    if first >= n:
        return
    for i in range(first + 1, n):  # insertion sort: the unseen cards in canonical order
        c = r.deck[i]
        j = i - 1
        while j >= first and r.deck[j] > c:
            r.deck[j + 1] = r.deck[j]
            j -= 1
        r.deck[j + 1] = c
    shuffle(r.deck[first:n], n - first, rnd)


@njit(cache=True, _nrt=False)
def result(st, cx, score, tiebreak, brk):
    r = st.rec[0]
    for p in range(r.ctl[C_NP]):
        cards = cards_score(r.held[p])
        brk[p, 0] = cards
        brk[p, 1] = -r.chips[p]
        score[p] = cards - r.chips[p]
        tiebreak[p] = 0.0  # the rules break no tie: a shared win


@njit(cache=True, _nrt=False)
def option_mask(st, cx, i):
    """Option classes (restricted play): bit 0 = take, bit 1 = pass."""
    return np.int64(1) << st.rec[0].moves[i, 0]


@njit(cache=True, _nrt=False)
def redraw(st, cx, rnd):
    """Fresh future chance from the true state: the cards nobody has seen. That is all ``determinise`` re-deals (every
    card taken is face up), whatever the seat."""
    determinise(st, cx, -1, rnd)


forward.register(
    NTState, NTCtx, new=new_state, reset=reset, advance=advance, apply=apply, determinise=determinise, result=result,
    redraw=redraw,
)  # fmt: skip
forward.register_options(NTState, NTCtx, option_mask)

LOGW = LOG_WIDTH
