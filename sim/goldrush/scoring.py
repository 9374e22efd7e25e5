"""Scoring of completed features during play and the end-of-game scoring (numba).

Breakdown columns: railroads, mountains, cities, prairies, gold_tokens (``const.CATEGORIES``).
"""

import numpy as np
from numba import njit

from .board import city_status, emit, find, rail_tiles
from .const import (
    C_CITY,
    C_MTN,
    C_PRAIRIE,
    C_RAIL,
    C_TOKENS,
    EV_FINAL,
    EV_LOST,
    EV_RETURN,
    EV_SCORE,
    EV_TAKE,
    EV_TENT_HOME,
    F_COW,
    F_DONE,
    F_HORSE,
    F_KIND,
    F_LOCO,
    F_NUG,
    F_OCC,
    F_OPEN,
    F_PAR,
    F_STACK,
    F_TIPI,
    G_NPL,
    G_TOKPTR,
    K_CITY,
    K_MTN,
    K_RAIL,
    MAXC,
    P_CITY_PTS,
    P_END_CITY,
    P_END_MTN,
    P_END_PRAIRIE,
    P_END_RAIL,
    P_HORSE_PTS,
    P_LOCO_EXACT,
    P_LOCO_MULT,
    P_NUG_PTS,
    P_RAIL_PTS,
    P_TIPI_PTS,
    PI_SUPPLY,
    PI_TENT,
    PI_TOKN,
    PI_TOKSUM,
    SLOTS,
)


@njit(cache=True, error_model="numpy", _nrt=False)
def majority(nd, r, P):
    """Highest cowboy count on feature ``r`` (0 = nobody)."""
    m = 0
    for p in range(P):
        c = nd[r, F_COW + p]
        if c > m:
            m = c
    return m


@njit(cache=True, error_model="numpy", _nrt=False)
def rail_points(nd, r, pl, through, pr, complete):
    tiles = rail_tiles(nd, r, pl, through)
    pts = tiles * pr[P_RAIL_PTS]
    if complete:
        lc = nd[r, F_LOCO]
        if (pr[P_LOCO_EXACT] > 0.5 and lc == 1) or (pr[P_LOCO_EXACT] <= 0.5 and lc >= 1):
            pts *= pr[P_LOCO_MULT]
    return pts


@njit(cache=True, error_model="numpy", _nrt=False)
def return_cowboys(nd, r, P, cow, pi, log, nlog):
    """Cowboys standing on feature ``r`` go home."""
    for p in range(P):
        for k in range(MAXC):
            x = cow[p, k]
            if x >= 0 and find(nd, x) == r:
                cow[p, k] = -1
                pi[p, PI_SUPPLY] += 1
                nd[x, F_OCC] = -1
                emit(log, nlog, EV_RETURN, p, x, 0, 0, 0, 0)
        nd[r, F_COW + p] = 0


@njit(cache=True, error_model="numpy", _nrt=False)
def tents_home(nd, r, P, pi, log, nlog):
    for p in range(P):
        x = pi[p, PI_TENT]
        if x >= 0 and find(nd, x) == r:
            pi[p, PI_TENT] = -1
            nd[x, F_OCC] = -1
            emit(log, nlog, EV_TENT_HOME, p, x, 0, 0, 0, 0)


@njit(cache=True, error_model="numpy", _nrt=False)
def take_token(gi, pi, p, tokvals, tokown):
    """The top token of a stack: its face is the next unrevealed token (tokens are exchangeable face down);
    ``tokown`` records who holds it (its face is hidden from the others until the end)."""
    v = tokvals[gi[G_TOKPTR]]
    tokown[gi[G_TOKPTR]] = p
    gi[G_TOKPTR] += 1
    pi[p, PI_TOKSUM] += v
    pi[p, PI_TOKN] += 1
    return v


@njit(cache=True, error_model="numpy", _nrt=False)
def score_complete(nd, r, cur, P, pl, seg, nseg, through, pr, tokvals, tokown, cow, pi, bd, gi, log, nlog):
    """Score the completed feature ``r`` (railroad, mountain or city), return cowboys (and tents)."""
    k = nd[r, F_KIND]
    m = majority(nd, r, P)
    if k == K_RAIL:
        pts = rail_points(nd, r, pl, through, pr, np.bool_(True))
        if m > 0:
            for p in range(P):
                if nd[r, F_COW + p] == m:
                    bd[p, C_RAIL] += pts
                    emit(log, nlog, EV_SCORE, C_RAIL, r, p, np.int64(pts), 1, 0)
    elif k == K_MTN:
        if m > 0:
            q = cur
            while nd[r, F_STACK] > 0:
                if nd[r, F_COW + q] == m:
                    v = take_token(gi, pi, q, tokvals, tokown)
                    nd[r, F_STACK] -= 1
                    emit(log, nlog, EV_TAKE, q, r, v, 0, 0, 0)
                q = (q + 1) % P
            pts = nd[r, F_NUG] * pr[P_NUG_PTS]
            for p in range(P):
                if nd[r, F_COW + p] == m:
                    bd[p, C_MTN] += pts
                    emit(log, nlog, EV_SCORE, C_MTN, r, p, np.int64(pts), 1, 0)
        elif nd[r, F_STACK] > 0:
            emit(log, nlog, EV_LOST, r, nd[r, F_STACK], 0, 0, 0, 0)
            nd[r, F_STACK] = 0
        tents_home(nd, r, P, pi, log, nlog)
    else:
        _complete, ndist = city_status(nd, r, pl, seg, nseg)
        pts = ndist * pr[P_CITY_PTS]
        if m > 0:
            for p in range(P):
                if nd[r, F_COW + p] == m:
                    bd[p, C_CITY] += pts
                    emit(log, nlog, EV_SCORE, C_CITY, r, p, np.int64(pts), 1, 0)
    nd[r, F_DONE] = 1
    return_cowboys(nd, r, P, cow, pi, log, nlog)


@njit(cache=True, error_model="numpy", _nrt=False)
def final_scoring(nd, gi, P, pl, seg, nseg, through, pr, cow, pi, bd, log, nlog):
    """End of game: incomplete railroads, mountains (tents and tokens removed first), cities; prairies; tokens."""
    n = gi[G_NPL]
    for t in range(n):
        inst = pl[t, 0]
        for s in range(nseg[inst]):
            x = t * SLOTS + s
            if nd[x, F_PAR] != x:
                continue
            k = nd[x, F_KIND]
            m = majority(nd, x, P)
            pts = 0.0
            cat = -1
            if k == K_RAIL:
                if nd[x, F_OPEN] > 0 and pr[P_END_RAIL] > 0.5:
                    pts = rail_points(nd, x, pl, through, pr, np.bool_(False))
                    cat = C_RAIL
            elif k == K_MTN:
                if nd[x, F_DONE] == 0:
                    if nd[x, F_STACK] > 0:
                        emit(log, nlog, EV_LOST, x, nd[x, F_STACK], 1, 0, 0, 0)
                    nd[x, F_STACK] = 0
                    tents_home(nd, x, P, pi, log, nlog)
                    if pr[P_END_MTN] > 0.5:
                        pts = nd[x, F_NUG] * pr[P_NUG_PTS]
                        cat = C_MTN
            elif k == K_CITY:
                if nd[x, F_DONE] == 0 and pr[P_END_CITY] > 0.5:
                    _complete, ndist = city_status(nd, x, pl, seg, nseg)
                    pts = ndist * pr[P_CITY_PTS]
                    cat = C_CITY
            else:
                if pr[P_END_PRAIRIE] > 0.5:
                    pts = nd[x, F_TIPI] * pr[P_TIPI_PTS] + nd[x, F_HORSE] * pr[P_HORSE_PTS]
                    cat = C_PRAIRIE
            if m > 0 and cat >= 0:
                for p in range(P):
                    if nd[x, F_COW + p] == m:
                        bd[p, cat] += pts
                        emit(log, nlog, EV_SCORE, cat, x, p, np.int64(pts), 0, 0)
    for p in range(P):
        bd[p, C_TOKENS] += pi[p, PI_TOKSUM]
        emit(log, nlog, EV_FINAL, p, pi[p, PI_TOKSUM], pi[p, PI_TOKN], 0, 0, 0)
