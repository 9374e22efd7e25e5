"""The Hacienda state record (``sim/CONTRACT.md``): named fields, allocation, re-deal for a seat, print.

``HState.rec`` holds the whole game in one numpy structured array of shape (1,) (``state_dtype(n, W)``: the
board's size sets the shapes, so one compiled engine serves every map of that size): the bots' view ``pub``
(offsets ``V_*`` in ``layout.py``; public information only), the control words ``ctl`` (the shared ``C_*`` of
``sim.core.forward``, then the ``C_*`` below), the pending decision (``moves``, ``feats``), the random stream,
the board (``MS`` masks, ``SP`` integer table, ``FV`` value caches: ``layout.py`` and ``scoring.py`` name their
rows), the
cards (``hand``, ``known``, ``dland``/``danim`` face up, ``ldeck``/``adeck`` the decks), the pesos, the best
water tile cache (``cw*``) and the score breakdown.

What a seat cannot see (``determinise`` re-deals it): the order of the land deck, the two animal stacks and the
removed animal cards, and the cards in the other players' hands except those it saw them buy face up
(``known``; a played card of that type counts against it first).
"""

from collections import namedtuple
from enum import IntEnum

import numpy as np
from numba import njit

from meeplab.sim.core.forward import C_COMMON, C_NP
from meeplab.sim.core.records import log_st as log_st  # flow.py logs through the state module
from meeplab.sim.core.rng import rng_below
from meeplab.sim.core.views import rows

from .layout import (
    F_ROWS,
    MAXP,
    MW,
    NF,
    NROWS_ALL,
    NT,
    S_A2,
    S_APTR,
    S_LEND,
    S_LPTR,
    SP_ROWS,
    SR,
    T_ANIMAL,
    V_HDR,
)
from .scoring import NCAT, NROWS, P_LEN, P_REMOVED

MAX_LAND = 5 * 100 + 100  # 5 terrains x land_per_terrain (hi 100) + pampa_cards (hi 100)
MAX_ANIMAL = 4 * 100  # 4 kinds x animals_per_kind (hi 100)

# -- the game's own control words (after the shared ones) ------------------------------------------------------
C_P = C_COMMON + 0  # player on turn
C_ACTS = C_COMMON + 1  # actions used this turn
C_HACN = C_COMMON + 2  # haciendas bought this turn
C_WATN = C_COMMON + 3  # water tiles bought this turn
C_HARVN = C_COMMON + 4  # harvests this turn
C_RND = C_COMMON + 5  # round
C_TURNS = C_COMMON + 6  # turns begun
C_MID = C_COMMON + 7  # 1 once the mid-game scoring is done
C_STUCK = C_COMMON + 8  # 1 while nobody had anything but "end turn" this round
C_CARD = C_COMMON + 9  # card type being placed (after A_PLAY)
C_LEN = C_COMMON + 10


class Phase(IntEnum):
    """Where ``advance`` resumes (``ctl[C_PHASE]``)."""

    ROUND = 0  # a round begins
    TURN = 1  # a turn begins
    ACTION = 2  # the next action of the player on turn (or the end of the turn after the last)
    PLACE = 3  # where to place the card played
    HACIENDA = 4  # which group gets the hacienda bought
    WATER = 5  # where the water tile bought goes
    HARVEST = 6  # which chain is harvested (and whose chip)
    TURN_END = 7
    OVER = 8


PH_ROUND, PH_TURN, PH_ACTION, PH_PLACE, PH_HACIENDA, PH_WATER, PH_HARVEST, PH_TURN_END, PH_OVER = Phase

SNAPW_EXTRA = 8  # snapshot row: the scoring rows of MS, then money per seat (5), then water tiles in play


# board sizes the records are laid out for: every map up to 256 spaces (the book's two sides have 240) shares one
# compiled engine, larger maps one per capacity. The smallest capacity keeps the record small (1,108 KB at 640,
# 440 KB at 256): a search copies it before every playout
CAPACITIES = (256, 640, 1024)


def capacity(n):
    """The record capacity (spaces) for a board of ``n`` spaces: the smallest of CAPACITIES that holds it (the
    engine is compiled once per capacity, not per map)."""
    for c in CAPACITIES:
        if n <= c:
            return c
    raise ValueError(f"{n} spaces exceed the largest capacity {CAPACITIES[-1]}")


def state_dtype(cap):
    """The state record's dtype for boards of at most ``cap`` spaces. The board-sized tables are flat
    (``MSf``, ``SPf``, ``FVf``): ``tables(st, cx)`` views their first part as 2-D tables of the board's own
    size, so the helpers see the very arrays (shape and words per mask) they would for that board alone."""
    wc = cap // 64
    maxm = 9 * cap + 64  # move rows: enough for every water placement (9 per free pampa space)
    return np.dtype(
        [
            ("pub", np.int64, V_HDR + cap),  # the bots' view (layout V_*): public information only
            ("ctl", np.int64, C_LEN),  # control words: sim.core.forward C_*, then the C_* above
            ("moves", np.int64, (maxm, MW)),  # candidates of the pending decision
            ("feats", np.float64, (maxm, NF)),  # their features
            ("rng", np.uint64, 4),  # the game's random stream
            ("MSf", np.uint64, (NROWS_ALL + cap + 2) * wc),  # board masks MS (scoring.R_*, layout R_*), one row a label
            ("SPf", np.int64, SP_ROWS * max(cap + 2, 64)),  # SP: per-space / per-label rows, the scalar row (SP_*)
            ("FVf", np.float64, F_ROWS * max(cap, NT)),  # FV: value caches (layout F_*)
            ("money", np.int64, MAXP),  # pesos
            ("hand", np.int64, (MAXP, NT)),  # HIDDEN (other seats): cards in hand per type
            ("known", np.int64, (MAXP, NT)),  # cards of each hand every seat saw bought face up (and not yet played)
            ("dland", np.int64, 8),  # face-up land cards (type or -1)
            ("danim", np.int64, 8),  # face-up animal cards
            ("ldeck", np.int64, MAX_LAND),  # HIDDEN: land deck; ldeck[S_LPTR:S_LEND] not yet drawn
            ("adeck", np.int64, MAX_ANIMAL),  # HIDDEN: removed cards, then stack 1 and 2 (SP S_APTR, S_A1, S_A2)
            ("cwk", np.int64, (MAXP, 2)),  # best water tile cache: player's version, water version
            ("cwv", np.float64, MAXP),  # its value
            ("cws", np.float64, MAXP),  # its size
            ("cwm", np.int64, (MAXP, 3)),  # its shape, anchor, orientation (-1 recompute)
            ("ltiles", np.int64, (MAXP, MAXP)),  # land tiles left in the box with colours a < b (supply on)
            ("discs", np.int64, MAXP),  # animal discs each player has on the board
            ("brk", np.float64, (MAXP, 2 * NCAT)),  # score breakdown: mid-game 0..4, final 5..9
            ("snap", np.uint64, (2, NROWS * wc + SNAPW_EXTRA)),  # board at each scoring (logged games only)
            ("bv", np.float64, NT),  # scratch: best value of each card type
            ("bsz", np.float64, NT),  # scratch: group size at that value
            ("bn", np.float64, NT),  # scratch: 1 where the type has a legal space
            ("cells", np.int64, 3),  # scratch: a water tile's spaces
            ("sout", np.int64, NCAT),  # scratch: one player's scoring
            ("pool", np.int64, MAX_LAND),  # scratch: determinise's unseen cards
        ],
        align=True,
    )


def ctx_dtype(cap):
    """The run's read-only context record for boards of at most ``cap`` spaces: packed parameters and the board
    (flat where 2-D: ``board(cx)`` gives the board-sized views)."""
    wc = cap // 64
    return np.dtype(
        [
            ("n", np.int64),  # spaces on the board
            ("W", np.int64),  # mask words (ceil(n / 64))
            ("nmk", np.int64),  # markets
            ("pi", np.int64, P_LEN),  # packed parameters (scoring.P_*)
            ("kind", np.int64, cap),  # space kind: 0..4 terrain, 5 pampa, 6 market, 7 water source
            ("nb", np.int64, (cap, 6)),  # neighbours (-1 off the board)
            ("nbmaskf", np.uint64, cap * wc),  # [n, W] neighbours as masks
            ("staticf", np.uint64, 9 * wc),  # [9, W] terrain masks 0..4, pampa, market, next to a market, source
            ("mkcnt", np.int64, cap),  # markets next to each space
            ("mdistf", np.int64, cap * cap),  # [n, max(1, nmk)] board distance to each market
            ("mkspace", np.int64, cap),  # the market spaces
            ("ball3f", np.uint64, cap * wc),  # [n, W] spaces at most 3 steps from each space
        ],
        align=True,
    )


HState = namedtuple("HState", ["rec", "log", "nlog"])
# the engine's context (what every rule function takes as ``cx``): the context record; a zeroed state record (its dtype)
HEng = namedtuple("HEng", ["tab", "proto"])
# the context the shared loop gets: the same two and the engine as one function pointer (flow.step, called with
# HEng(tab, proto): compiled once, not once per level of the shared loop above it; sim.core.forward.step_pointer).
# Not nested (HEng inside HCtx): numba's parallel batch cannot pass a tuple inside a tuple
HCtx = namedtuple("HCtx", ["tab", "proto", "step"])


def make_ctx(pi, kind, nb, nbmask, static, mkcnt, mdist, mkspace, ball3):
    """The engine context ``HEng`` of a run: its context record (``cx.tab[0]`` in the engine) and a zeroed state
    record of its capacity (the game's face adds the step function: ``flow.step_function``)."""
    n, W = nbmask.shape
    cap = capacity(n)
    tab = np.zeros(1, dtype=ctx_dtype(cap))
    t = tab[0]
    t["n"] = n
    t["W"] = W
    t["nmk"] = len(mkspace)
    t["pi"][:] = pi
    t["kind"][:] = -1
    t["kind"][:n] = kind
    t["nb"][:] = -1
    t["nb"][:n] = nb
    t["nbmaskf"][: n * W] = nbmask.ravel()
    t["staticf"][: 9 * W] = static.ravel()
    t["mkcnt"][:n] = mkcnt
    t["mdistf"][: mdist.size] = mdist.ravel()
    t["mkspace"][: len(mkspace)] = mkspace
    t["ball3f"][: n * W] = ball3.ravel()
    return HEng(tab, np.zeros(1, dtype=state_dtype(cap)))


@njit(cache=True, inline="always")
def board(cx):
    """The board arrays at the board's own size: (kind, nb, nbmask, static, mkcnt, mdist, mkspace, ball3)."""
    t = cx.tab[0]
    n = t.n
    W = t.W
    return (
        t.kind[:n],
        t.nb[:n],
        rows(t.nbmaskf, n, W),
        rows(t.staticf, 9, W),
        t.mkcnt[:n],
        rows(t.mdistf, n, max(1, t.nmk)),
        t.mkspace[: t.nmk],
        rows(t.ball3f, n, W),
    )


@njit(cache=True, inline="always")
def tables(st, cx):
    """The state's board tables at the board's own size: (MS, SP, FV) (layout.py and scoring.py name their rows)."""
    r = st.rec[0]
    t = cx.tab[0]
    n = t.n
    W = t.W
    nrow = NROWS_ALL + n + 2
    spw = max(n + 2, 64)
    fvw = max(n, NT)
    return (rows(r.MSf, nrow, W), rows(r.SPf, SP_ROWS, spw), rows(r.FVf, F_ROWS, fvw))


def py_tables(st, cx):
    """``tables`` in Python: numpy views (MS, SP, FV) of a state's board tables at the board's size."""
    t = cx.tab[0]
    n, W = int(t["n"]), int(t["W"])
    r = st.rec[0]
    nrow, spw, fvw = NROWS_ALL + n + 2, max(n + 2, 64), max(n, NT)
    return (
        r["MSf"][: nrow * W].reshape(nrow, W),
        r["SPf"][: SP_ROWS * spw].reshape(SP_ROWS, spw),
        r["FVf"][: F_ROWS * fvw].reshape(F_ROWS, fvw),
    )


def empty_state(cx, np_, log=None):
    """A zeroed state record for this context (Python side: tests and describe)."""
    rec = np.zeros_like(cx.proto)
    rec[0]["ctl"][C_NP] = np_
    if log is None:
        log = np.zeros((0, 6), dtype=np.int64)
    return HState(rec, log, np.zeros(2, dtype=np.int64))


@njit(cache=True, _nrt=False)
def _deal_back(pool, k, hand, known, lo, hi, seat, np_):
    """Give the other seats' unseen cards of types lo..hi-1 back from ``pool`` (in seat order: each keeps as
    many unseen cards of those types as before); returns the next pool index."""
    for q in range(np_):
        if q == seat:
            continue
        m = 0
        for t in range(lo, hi):
            m += hand[q, t] - known[q, t]
            hand[q, t] = known[q, t]
        for _ in range(m):
            hand[q, pool[k]] += 1
            k += 1
    return k


@njit(cache=True, _nrt=False)
def _unseen_pool(pool, lo, hi, rnd):
    """pool[0:k] = the multiset of types lo..hi-1 whose counts stand in pool[CNT + t], laid out by type and
    shuffled with ``rnd``; returns k."""
    k = 0
    for t in range(lo, hi):
        for _ in range(pool[CNT + t]):
            pool[k] = t
            k += 1
    for i in range(k - 1, 0, -1):
        x = rng_below(rnd, i + 1)
        a = pool[i]
        pool[i] = pool[x]
        pool[x] = a
    return k


CNT = MAX_LAND - NT  # pool[CNT + t]: scratch count of unseen cards of type t


@njit(cache=True, _nrt=False)
def determinise(st, cx, seat, rnd):
    """Re-deal what ``seat`` has not seen, drawing from ``rnd``: the land deck still to draw, the animal cards
    still in the stacks and the removed ones, and the other players' cards it did not see them buy. Each of
    these multisets is what the game holds less what ``seat`` saw (its hand, the face-up cards, the board, the
    cards it saw bought), so it is rebuilt by type from its counts, shuffled and dealt: first each other hand
    (as many land and as many animal cards as it holds, in seat order), then the deck and the stacks in draw
    order (the removed animal cards last). The result depends only on what ``seat`` sees and on ``rnd``."""
    r = st.rec[0]
    pi = cx.tab[0].pi
    SP = tables(st, cx)[1]
    np_ = r.ctl[C_NP]
    hand = r.hand
    known = r.known
    pool = r.pool
    # land
    for t in range(NT):
        pool[CNT + t] = 0
    lp = SP[SR, S_LPTR]
    le = SP[SR, S_LEND]
    for j in range(lp, le):
        pool[CNT + r.ldeck[j]] += 1
    for q in range(np_):
        if q != seat:
            for t in range(T_ANIMAL):
                pool[CNT + t] += hand[q, t] - known[q, t]
    _unseen_pool(pool, 0, T_ANIMAL, rnd)
    k = _deal_back(pool, 0, hand, known, 0, T_ANIMAL, seat, np_)
    for j in range(lp, le):
        r.ldeck[j] = pool[k]
        k += 1
    # animals
    removed = pi[P_REMOVED + np_ - 2]
    ap = SP[SR, S_APTR]
    a2 = SP[SR, S_A2]
    for t in range(NT):
        pool[CNT + t] = 0
    for j in range(removed):
        pool[CNT + r.adeck[j]] += 1
    for j in range(ap, a2):
        pool[CNT + r.adeck[j]] += 1
    for q in range(np_):
        if q != seat:
            for t in range(T_ANIMAL, NT):
                pool[CNT + t] += hand[q, t] - known[q, t]
    _unseen_pool(pool, T_ANIMAL, NT, rnd)
    k = _deal_back(pool, 0, hand, known, T_ANIMAL, NT, seat, np_)
    for j in range(ap, a2):
        r.adeck[j] = pool[k]
        k += 1
    for j in range(removed):
        r.adeck[j] = pool[k]
        k += 1


def describe(st) -> str:
    """The state record as text: every control word and view slot by name, then the other fields."""
    from meeplab.sim.core import forward

    from . import layout

    rec = st.rec[0]
    names = {v: k for k, v in vars(forward).items() if k.startswith("C_") and isinstance(v, int)}
    names.update(
        {
            v: k
            for k, v in globals().items()
            if k.startswith("C_") and isinstance(v, int) and k not in ("C_LEN", "C_COMMON", "C_NP")
        }
    )
    lines = ["ctl: " + ", ".join(f"{names.get(i, i)}={int(x)}" for i, x in enumerate(rec["ctl"]))]
    slots = sorted(
        (v, k) for k, v in vars(layout).items() if k.startswith("V_") and isinstance(v, int) and k not in ("V_HDR",)
    )
    for j, (off, name) in enumerate(slots):
        end = slots[j + 1][0] if j + 1 < len(slots) else len(rec["pub"])
        vals = rec["pub"][off:end]
        lines.append(f"pub.{name}: " + (str(int(vals[0])) if len(vals) == 1 else " ".join(map(str, vals))))
    for f in rec.dtype.names:
        if f not in ("pub", "ctl"):
            lines.append(f"{f}: {np.array2string(rec[f], threshold=60, max_line_width=200)}")
    return "\n".join(lines)
