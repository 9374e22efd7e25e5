"""Carcassonne: Gold Rush engine (numba): one game (`play_game`) and a batch (`play_batch`, prange).

Turn: draw a tile (tiles that fit nowhere are removed and another drawn), the bot picks a placement
(KIND_PLACE), tokens go onto the mountain stack, the bot picks one action (KIND_ACTION: cowboy on the new
tile, tent placed/moved, mine, pass; house rule: remove own cowboy), then completed railroads, mountains and
cities score. Decision kinds, view and feature columns: ``bots.md``.
"""
import numpy as np
from numba import njit, prange

from sim.core.bots import entry_of_seat
from sim.core.rng import rng_below, rng_init, shuffle

from .board import city_status, delta, emit, find, fits, new_game_board, place_tile, rail_tiles
from .const import (
    A_COWBOY, A_MINE, A_PASS, A_REMOVE, A_TENT, E_M, E_P, E_R, EV_COWBOY, EV_DISCARD, EV_DRAW, EV_END, EV_MINE,
    EV_PASS, EV_PLACE, EV_REMOVE, EV_START, EV_TENT, F_CITY, F_COW, F_DONE, F_END0, F_HORSE, F_KIND, F_LOCO,
    F_NUG, F_OCC, F_OPEN, F_SEGS, F_STACK, F_TILE, F_TIPI, G_B, G_CUR, G_DRAW, G_NFRONT, G_NLOG, G_NPL,
    G_NTILES, G_SUPPLY, G_TOKPTR, G_TURN, K_CITY, K_MTN, K_PRAIRIE, K_RAIL, KIND_ACTION, KIND_PLACE,
    MAXC, MAXP, NF, NFEAT, NG, NPI, NV, P_CITY_PTS, P_COWBOYS, P_END_CITY, P_END_MTN, P_END_PRAIRIE, P_END_RAIL, P_FARMERS, P_HORSE_PTS, P_HOUSE_REMOVE,
    P_LOCO_EXACT, P_LOCO_MULT, P_NUG_PTS, P_RAIL_PTS, P_TENTS, P_TIPI_PTS, PI_SUPPLY, PI_TENT,
    PI_TOKN, PI_TOKSUM, S_CITY, S_HORSE, S_KIND, S_LOCO, S_NEDGES, S_NUG, S_SPUR, S_TIPI, SLOTS, V_NPLAYERS,
    V_SCORE0, V_SEAT, V_SUPPLY, V_TENT, V_TENT_STACK, V_TILES_LEFT, V_TILES_TOTAL, V_TURN,
)
from .scoring import final_scoring, majority, score_complete, take_token


@njit(cache=True, error_model="numpy")
def token_mean(tok_tot, tok_n, pi, me):
    """Expected value of a face-down token as seat ``me`` knows it: the printed mix (``tok_tot`` points on
    ``tok_n`` tokens) minus my own taken tokens. Tokens other players took stay unknown to me, so they are
    exchangeable with the ones still face down and carry the same mean (their values never enter)."""
    unknown = tok_n - pi[me, PI_TOKN]
    if unknown <= 0:
        return 0.0
    return (tok_tot - pi[me, PI_TOKSUM]) / unknown


@njit(cache=True, error_model="numpy")
def edge_odds(rem_e, kind, open_edges):
    """Rough chance to close ``open_edges`` edges of a feature with the tiles left (per edge rem/(rem+3))."""
    if open_edges <= 0:
        return 1.0
    r = rem_e[E_R] if kind == K_RAIL or kind == K_CITY else rem_e[E_M]
    q = r / (r + 3.0)
    return q ** open_edges


@njit(cache=True, error_model="numpy")
def feature_value(k, tiles, nug, stack, tipi, horse, nspurs, pr, emean, farmers):
    if k == K_RAIL:
        return tiles * pr[P_RAIL_PTS]
    if k == K_MTN:
        return nug * pr[P_NUG_PTS] + stack * emean
    if k == K_CITY:
        return nspurs * pr[P_CITY_PTS]
    if farmers:
        return tipi * pr[P_TIPI_PTS] + horse * pr[P_HORSE_PTS]
    return 0.0


@njit(cache=True, error_model="numpy")
def root_value(nd, r, pr, emean, farmers):
    k = nd[r, F_KIND]
    return feature_value(k, nd[r, F_SEGS], nd[r, F_NUG], nd[r, F_STACK], nd[r, F_TIPI], nd[r, F_HORSE], 0,
                         pr, emean, farmers)


@njit(cache=True, error_model="numpy")
def gfind(grp, s):
    while grp[s] != s:
        s = grp[s]
    return s


@njit(cache=True, error_model="numpy")
def eval_placements(nd, gi, pl, board, moves, n, inst, me, P, seg, nseg, edge_seg, half_seg, cityseg, pr, emean,
               pi, rem_e, feats, sc_s, sc_r, sc_e, grp, gs, gcow, roots, rgrp, gain_opp, grow_opp):
    """Features of each placement ``moves[i] = (cell, rotation)`` of ``inst`` for player ``me`` (read-only
    look-ahead: the merged features are computed without touching the union-find)."""
    for i in range(n):
        pos = moves[i, 0]
        rot = moves[i, 1]
        row = feats[i]
        B = gi[G_B]
        ns = nseg[inst]
        farmers = pr[P_FARMERS] > 0.5
        np_ = 0
        for s in range(ns):
            grp[s] = s
        for d in range(4):
            nt = board[pos + delta(d, B)]
            if nt < 0:
                continue
            ninst = pl[nt, 0]
            nrot = pl[nt, 1]
            od = (d + 2) % 4
            s = edge_seg[inst, rot, d]
            if s >= 0:
                sc_s[np_] = s
                sc_r[np_] = find(nd, nt * SLOTS + edge_seg[ninst, nrot, od])
                sc_e[np_] = 1
                np_ += 1
            for j in range(2):
                s = half_seg[inst, rot, 2 * d + j]
                if s >= 0:
                    sc_s[np_] = s
                    sc_r[np_] = find(nd, nt * SLOTS + half_seg[ninst, nrot, 2 * od + 1 - j])
                    sc_e[np_] = 0
                    np_ += 1
        # new segments sharing a neighbour feature become one feature
        for i in range(np_):
            for j in range(i + 1, np_):
                if sc_r[i] == sc_r[j]:
                    a = gfind(grp, sc_s[i])
                    b = gfind(grp, sc_s[j])
                    if a != b:
                        grp[max(a, b)] = min(a, b)
        # group stats: 0 open, 1 segs, 2 nug, 3 loco, 4 stack, 5 tipi, 6 horse, 7 kind, 8 new spurs, 9 my-before value,
        # 10 my-before open
        for s in range(ns):
            for q in range(11):
                gs[s, q] = 0
            for p in range(P):
                gcow[s, p] = 0
        supply = gi[G_SUPPLY]
        for s in range(ns):
            g = gfind(grp, s)
            grp[s] = g
            gs[g, 0] += seg[inst, s, S_NEDGES]
            gs[g, 1] += 1
            nug = seg[inst, s, S_NUG]
            gs[g, 2] += nug
            if nug > 0 and supply > 0:
                k = min(nug, supply)
                gs[g, 4] += k
                supply -= k
            gs[g, 3] += seg[inst, s, S_LOCO]
            gs[g, 5] += seg[inst, s, S_TIPI]
            gs[g, 6] += seg[inst, s, S_HORSE]
            gs[g, 7] = seg[inst, s, S_KIND]
            if seg[inst, s, S_KIND] == K_RAIL and seg[inst, s, S_SPUR] == 1:
                gs[g, 8] += 1
        nr = 0
        for i in range(np_):
            g = grp[sc_s[i]]
            if sc_e[i] == 1:
                gs[g, 0] -= 2
            r = sc_r[i]
            seen = False
            for q in range(nr):
                if roots[q] == r:
                    seen = True
            if seen:
                continue
            roots[nr] = r
            rgrp[nr] = g
            nr += 1
            gs[g, 0] += nd[r, F_OPEN]
            gs[g, 1] += nd[r, F_SEGS]
            gs[g, 2] += nd[r, F_NUG]
            gs[g, 3] += nd[r, F_LOCO]
            gs[g, 4] += nd[r, F_STACK]
            gs[g, 5] += nd[r, F_TIPI]
            gs[g, 6] += nd[r, F_HORSE]
            for p in range(P):
                gcow[g, p] += nd[r, F_COW + p]
            mr = majority(nd, r, P)
            if mr > 0 and nd[r, F_COW + me] == mr:
                gs[g, 9] += root_value(nd, r, pr, emean, farmers)
                gs[g, 10] += nd[r, F_OPEN]
        gain_me = 0.0
        for p in range(MAXP):
            gain_opp[p] = 0.0
            grow_opp[p] = 0.0
        follow = 0.0
        open_best = 0.0
        open_best_edges = 0.0
        open_best_kind = 0.0
        prairie_best = 0.0
        grow_me = 0.0
        my_open_delta = 0.0
        tent_tokens = 0.0
        stack_best = 0.0
        has_supply = pi[me, PI_SUPPLY] > 0
        my_tent_root = -1
        if pi[me, PI_TENT] >= 0:
            my_tent_root = find(nd, pi[me, PI_TENT])
        city_s = cityseg[inst]
        for s in range(ns):
            if grp[s] != s:
                continue
            k = gs[s, 7]
            if k == K_CITY:
                continue
            opn = gs[s, 0]
            tiles = gs[s, 1] - (gs[s, 8] - 1 if gs[s, 8] > 1 else 0)
            m = 0
            for p in range(P):
                if gcow[s, p] > m:
                    m = gcow[s, p]
            complete = (k == K_RAIL or k == K_MTN) and opn == 0
            val = feature_value(k, tiles, gs[s, 2], gs[s, 4], gs[s, 5], gs[s, 6], 0, pr, emean, farmers)
            if complete and k == K_RAIL:
                lc = gs[s, 3]
                if (pr[P_LOCO_EXACT] > 0.5 and lc == 1) or (pr[P_LOCO_EXACT] <= 0.5 and lc >= 1):
                    val *= pr[P_LOCO_MULT]
            if m > 0:
                nwin = 0
                for p in range(P):
                    if gcow[s, p] == m:
                        nwin += 1
                if complete:
                    share = val
                    if k == K_MTN:
                        share = gs[s, 2] * pr[P_NUG_PTS] + gs[s, 4] * emean / nwin
                    for p in range(P):
                        if gcow[s, p] == m:
                            if p == me:
                                gain_me += share
                            else:
                                gain_opp[p] += share
                else:
                    for p in range(P):
                        if gcow[s, p] == m:
                            if p == me:
                                grow_me += val - gs[s, 9]
                                my_open_delta += opn - gs[s, 10]
                            else:
                                grow_opp[p] += val
            else:
                # free feature: value of a new cowboy here
                if has_supply and (k != K_PRAIRIE or farmers):
                    if complete:
                        if val > follow:
                            follow = val
                    elif val * edge_odds(rem_e, k, opn) + 0.01 > open_best:
                        open_best = val * edge_odds(rem_e, k, opn) + 0.01
                        open_best_edges = opn
                        open_best_kind = k + 1
                    if k == K_PRAIRIE and val > prairie_best:
                        prairie_best = val
            if k == K_MTN and not complete:
                if my_tent_root >= 0:
                    for q in range(nr):
                        if roots[q] == my_tent_root and rgrp[q] == s:
                            tent_tokens += gs[s, 4] - nd[my_tent_root, F_STACK]
                if m == 0 and gs[s, 4] * emean > stack_best:
                    stack_best = gs[s, 4] * emean
        # the new tile's city: complete when every railroad leaving it is complete
        if city_s >= 0 and has_supply:
            complete = True
            nsp = 0
            nd_ = 0
            for s in range(ns):
                if seg[inst, s, S_KIND] == K_RAIL and seg[inst, s, S_CITY] == city_s:
                    nsp += 1
                    g = grp[s]
                    if gs[g, 0] > 0:
                        complete = False
                    else:
                        dup = False
                        for s2 in range(s):
                            if seg[inst, s2, S_KIND] == K_RAIL and seg[inst, s2, S_CITY] == city_s and grp[s2] == g:
                                dup = True
                        if not dup:
                            nd_ += 1
            if complete:
                v = nd_ * pr[P_CITY_PTS]
                if v > follow:
                    follow = v
            else:
                v = nsp * pr[P_CITY_PTS] * 0.5
                if v > open_best:
                    open_best = v
                    open_best_edges = nsp
                    open_best_kind = K_CITY + 1
        # existing cities with a merchant completed by this placement
        for q in range(nr):
            r = roots[q]
            if nd[r, F_KIND] != K_RAIL:
                continue
            g = rgrp[q]
            if gs[g, 0] != 0:
                continue
            for e in range(2):
                te = nd[r, F_END0 + e]
                if te < 0:
                    continue
                cinst = pl[te, 0]
                cs = cityseg[cinst]
                if cs < 0:
                    continue
                c = te * SLOTS + cs
                if nd[c, F_DONE] != 0 or nd[c, F_OCC] < 0:
                    continue
                owner = nd[c, F_OCC]
                # all spurs complete (now or because they join group g)?
                ok = True
                ndist = 0
                counted_g = False
                for s2 in range(nseg[cinst]):
                    if seg[cinst, s2, S_KIND] != K_RAIL or seg[cinst, s2, S_CITY] != cs:
                        continue
                    rr = find(nd, te * SLOTS + s2)
                    ing = False
                    for q2 in range(nr):
                        if roots[q2] == rr and rgrp[q2] == g:
                            ing = True
                    if ing:
                        if not counted_g:
                            counted_g = True
                            ndist += 1
                    elif nd[rr, F_OPEN] == 0:
                        ndist += 1  # (loops through the same city counted per spur here: a rough look-ahead)
                    else:
                        ok = False
                if ok:
                    v = ndist * pr[P_CITY_PTS] * (0.5 if e == 1 and nd[r, F_END0] == te else 1.0)
                    if owner == me:
                        gain_me += v
                    elif owner < MAXP:
                        gain_opp[owner] += v
        best_opp = 0.0
        best_grow_opp = 0.0
        for p in range(P):
            if p != me:
                if gain_opp[p] > best_opp:
                    best_opp = gain_opp[p]
                if grow_opp[p] > best_grow_opp:
                    best_grow_opp = grow_opp[p]
        row[0] = gain_me
        row[1] = best_opp
        row[2] = follow
        row[3] = grow_me
        row[4] = best_grow_opp
        row[5] = open_best
        row[6] = open_best_edges
        row[7] = my_open_delta
        row[8] = tent_tokens * emean
        row[9] = open_best_kind
        row[10] = gi[G_NTILES] - gi[G_DRAW]
        row[11] = prairie_best
        row[12] = stack_best
        row[13] = 0.0
        row[14] = 0.0
        for q in range(15, row.shape[0]):
            row[q] = 0.0


@njit(cache=True, error_model="numpy")
def margin(nd, r, me, P):
    """(my cowboys - most cowboys of an opponent, most cowboys of an opponent) on feature ``r``."""
    best = 0
    for p in range(P):
        if p != me and nd[r, F_COW + p] > best:
            best = nd[r, F_COW + p]
    return nd[r, F_COW + me] - best, best


@njit(cache=True, error_model="numpy")
def other_tents(troot, r, me, P):
    """Other players' tents on mountain ``r`` (``troot[p]``: root under player p's tent, -1 = none)."""
    n = 0
    for p in range(P):
        if p != me and troot[p] == r:
            n += 1
    return n


@njit(cache=True, error_model="numpy")
def list_placements(gi, board, front, cons, inst, edges, rots, nrots, moves):
    n = 0
    for i in range(gi[G_NFRONT]):
        pos = front[i]
        c = cons[pos]
        for j in range(nrots[inst]):
            r = rots[inst, j]
            if fits(edges[inst, r], c):
                moves[n, 0] = pos
                moves[n, 1] = r
                moves[n, 2] = 0
                n += 1
    return n


@njit(cache=True, error_model="numpy")
def action_features(nd, gi, pl, t, me, P, seg, nseg, through, pr, emean, pi, cow, rem_e, mtn_nodes, moves, feats,
                    troot):
    """Legal actions after placing tile ``t`` and their features; returns their count (``troot``: scratch
    int64[MAXP])."""
    inst = pl[t, 0]
    n = 0
    left = gi[G_NTILES] - gi[G_DRAW]
    frac = left / max(1.0, gi[G_NTILES] - 1.0)
    farmers = pr[P_FARMERS] > 0.5
    for q in range(feats.shape[1]):
        feats[0, q] = 0.0
    moves[0, 0] = A_PASS
    moves[0, 1] = -1
    moves[0, 2] = 0
    feats[0, 9] = frac
    feats[0, 10] = pi[me, PI_SUPPLY]
    n = 1
    if pi[me, PI_SUPPLY] > 0:
        for s in range(nseg[inst]):
            x = t * SLOTS + s
            k = seg[inst, s, S_KIND]
            if k == K_PRAIRIE and not farmers:
                continue
            r = find(nd, x)
            if majority(nd, r, P) > 0:
                continue
            for q in range(feats.shape[1]):
                feats[n, q] = 0.0
            moves[n, 0] = A_COWBOY
            moves[n, 1] = x
            moves[n, 2] = k
            opn = nd[r, F_OPEN]
            if k == K_RAIL:
                val = rail_tiles(nd, r, pl, through) * pr[P_RAIL_PTS]
                full = val
                lc = nd[r, F_LOCO]
                if (pr[P_LOCO_EXACT] > 0.5 and lc == 1) or (pr[P_LOCO_EXACT] <= 0.5 and lc >= 1):
                    full = val * pr[P_LOCO_MULT]
                if opn == 0:
                    val = full
                    feats[n, 0] = val
                feats[n, 1] = val
                feats[n, 11] = edge_odds(rem_e, k, opn)
                feats[n, 14] = lc
                feats[n, 19] = full
                feats[n, 20] = val * pr[P_END_RAIL]
            elif k == K_MTN:
                val = nd[r, F_NUG] * pr[P_NUG_PTS] + nd[r, F_STACK] * emean
                if opn == 0:
                    feats[n, 0] = val
                feats[n, 1] = val
                feats[n, 11] = edge_odds(rem_e, k, opn)
                feats[n, 14] = nd[r, F_STACK]
                feats[n, 15] = nd[r, F_NUG]
                feats[n, 19] = val
                feats[n, 20] = nd[r, F_NUG] * pr[P_NUG_PTS] * pr[P_END_MTN]  # tokens leave at the end
            elif k == K_CITY:
                complete, ndist = city_status(nd, x, pl, seg, nseg)
                nsp = 0
                oe = 0
                for s2 in range(nseg[inst]):
                    if seg[inst, s2, S_KIND] == K_RAIL and seg[inst, s2, S_CITY] == s:
                        nsp += 1
                        oe += nd[find(nd, t * SLOTS + s2), F_OPEN]
                opn = oe
                if complete:
                    feats[n, 0] = ndist * pr[P_CITY_PTS]
                    feats[n, 1] = ndist * pr[P_CITY_PTS]
                    feats[n, 19] = ndist * pr[P_CITY_PTS]
                else:
                    feats[n, 1] = nsp * pr[P_CITY_PTS]
                    feats[n, 19] = nsp * pr[P_CITY_PTS]
                feats[n, 11] = edge_odds(rem_e, k, oe)
                feats[n, 14] = ndist
                feats[n, 20] = ndist * pr[P_CITY_PTS] * pr[P_END_CITY]
            else:
                feats[n, 1] = nd[r, F_TIPI] * pr[P_TIPI_PTS] + nd[r, F_HORSE] * pr[P_HORSE_PTS]
                feats[n, 11] = 1.0
                feats[n, 19] = feats[n, 1]
                feats[n, 20] = feats[n, 1] * pr[P_END_PRAIRIE]
            feats[n, 2] = opn
            feats[n, 3 + k] = 1.0
            feats[n, 9] = frac
            feats[n, 10] = pi[me, PI_SUPPLY]
            n += 1
    if pr[P_TENTS] > 0.5:
        for p in range(P):
            troot[p] = find(nd, pi[p, PI_TENT]) if pi[p, PI_TENT] >= 0 else -1
        mine_root = troot[me]
        i = 0
        while i < mtn_nodes[0]:
            x = mtn_nodes[i + 1]
            r = find(nd, x)
            if nd[r, F_OPEN] == 0:
                # a completed mountain never reopens: drop its nodes from the list for good
                last = mtn_nodes[0]
                mtn_nodes[i + 1] = mtn_nodes[last]
                mtn_nodes[0] = last - 1
                continue
            i += 1
            if nd[x, F_OCC] >= 0:
                continue
            for q in range(feats.shape[1]):
                feats[n, q] = 0.0
            moves[n, 0] = A_TENT
            moves[n, 1] = x
            moves[n, 2] = K_MTN
            if r == mine_root:
                feats[n, 21] = 1.0  # another area of the mountain under my tent: the same stack, nothing gained
            else:
                feats[n, 1] = nd[r, F_STACK] * emean
            feats[n, 2] = nd[r, F_OPEN]
            feats[n, 7] = 1.0
            feats[n, 9] = frac
            feats[n, 10] = pi[me, PI_SUPPLY]
            feats[n, 11] = edge_odds(rem_e, K_MTN, nd[r, F_OPEN])
            feats[n, 12] = 1.0 if mine_root >= 0 else 0.0
            feats[n, 14] = nd[r, F_STACK]
            feats[n, 15] = nd[r, F_NUG]
            mg, ob = margin(nd, r, me, P)
            feats[n, 16] = mg
            feats[n, 17] = ob
            feats[n, 18] = other_tents(troot, r, me, P)
            n += 1
        if mine_root >= 0 and nd[mine_root, F_STACK] > 0:
            for q in range(feats.shape[1]):
                feats[n, q] = 0.0
            moves[n, 0] = A_MINE
            moves[n, 1] = pi[me, PI_TENT]
            moves[n, 2] = K_MTN
            feats[n, 0] = emean
            feats[n, 1] = nd[mine_root, F_STACK] * emean
            feats[n, 2] = nd[mine_root, F_OPEN]
            feats[n, 8] = 1.0
            feats[n, 9] = frac
            feats[n, 10] = pi[me, PI_SUPPLY]
            feats[n, 11] = edge_odds(rem_e, K_MTN, nd[mine_root, F_OPEN])
            feats[n, 14] = nd[mine_root, F_STACK]
            feats[n, 15] = nd[mine_root, F_NUG]
            mg, ob = margin(nd, mine_root, me, P)
            feats[n, 16] = mg
            feats[n, 17] = ob
            feats[n, 18] = other_tents(troot, mine_root, me, P)
            n += 1
    if pr[P_HOUSE_REMOVE] > 0.5:
        for k in range(MAXC):
            x = cow[me, k]
            if x < 0:
                continue
            for q in range(feats.shape[1]):
                feats[n, q] = 0.0
            moves[n, 0] = A_REMOVE
            moves[n, 1] = x
            moves[n, 2] = k
            r = find(nd, x)
            feats[n, 1] = -root_value(nd, r, pr, emean, farmers)
            feats[n, 2] = nd[r, F_OPEN]
            feats[n, 9] = frac
            feats[n, 10] = pi[me, PI_SUPPLY]
            feats[n, 11] = edge_odds(rem_e, nd[r, F_KIND], nd[r, F_OPEN])
            feats[n, 13] = 1.0
            n += 1
    return n


@njit(cache=True, error_model="numpy")
def fill_view(view, gi, me, P, pi, nd, bd):
    view[V_SEAT] = me
    view[V_NPLAYERS] = P
    view[V_TILES_LEFT] = gi[G_NTILES] - gi[G_DRAW]
    view[V_TILES_TOTAL] = gi[G_NTILES]
    view[V_TURN] = gi[G_TURN]
    view[V_SUPPLY] = pi[me, PI_SUPPLY]
    view[V_TENT] = pi[me, PI_TENT]
    view[V_TENT_STACK] = nd[find(nd, pi[me, PI_TENT]), F_STACK] if pi[me, PI_TENT] >= 0 else 0
    for p in range(MAXP):
        if p < P:
            s = 0.0
            for c in range(bd.shape[1] - 1):
                s += bd[p, c]
            view[V_SCORE0 + p] = np.int64(s)
        else:
            view[V_SCORE0 + p] = 0


@njit(cache=True, error_model="numpy")
def do_action(nd, gi, cur, a, x, arg, tokvals, pi, cow, log, logging):
    """Apply one follower action of player ``cur`` (A_PASS, A_COWBOY, A_TENT, A_MINE, A_REMOVE)."""
    if a == A_COWBOY:
        r = find(nd, x)
        nd[r, F_COW + cur] += 1
        nd[x, F_OCC] = cur
        for kk in range(MAXC):
            if cow[cur, kk] < 0:
                cow[cur, kk] = x
                break
        pi[cur, PI_SUPPLY] -= 1
        emit(log, gi, logging, EV_COWBOY, cur, x, arg, 0, 0, 0)
    elif a == A_TENT:
        old = pi[cur, PI_TENT]
        if old >= 0:
            nd[old, F_OCC] = -1
        pi[cur, PI_TENT] = x
        nd[x, F_OCC] = 8 + cur
        emit(log, gi, logging, EV_TENT, cur, x, old, 0, 0, 0)
    elif a == A_MINE:
        r = find(nd, x)
        v = take_token(gi, pi, cur, tokvals)
        nd[r, F_STACK] -= 1
        emit(log, gi, logging, EV_MINE, cur, x, v, nd[r, F_STACK], 0, 0)
    elif a == A_REMOVE:
        r = find(nd, x)
        nd[r, F_COW + cur] -= 1
        nd[x, F_OCC] = -1
        cow[cur, arg] = -1
        pi[cur, PI_SUPPLY] += 1
        emit(log, gi, logging, EV_REMOVE, cur, x, 0, 0, 0, 0)
    else:
        emit(log, gi, logging, EV_PASS, cur, 0, 0, 0, 0, 0)


@njit(cache=True, error_model="numpy")
def score_turn(nd, gi, t, inst, cur, P, pl, seg, nseg, through, cityseg, pr, tokvals, cow, pi, bd, done, log,
               logging):
    """Score what placing tile ``t`` completed: railroads, mountains, then cities."""
    nd_done = 0
    ns = nseg[inst]
    for kind in range(2):
        for s in range(ns):
            if seg[inst, s, S_KIND] != kind:
                continue
            r = find(nd, t * SLOTS + s)
            if nd[r, F_OPEN] == 0 and nd[r, F_DONE] == 0:
                if kind == K_RAIL:
                    done[nd_done] = r
                    nd_done += 1
                score_complete(nd, r, cur, P, pl, seg, nseg, through, pr, tokvals, cow, pi, bd, gi, log,
                               logging)
    # cities: the new tile's and those at the ends of completed railroads
    for q in range(nd_done + 1):
        for e in range(2):
            if q == nd_done:
                if e == 1:
                    continue
                te = t
            else:
                te = nd[done[q], F_END0 + e]
            if te < 0:
                continue
            cs = cityseg[pl[te, 0]]
            if cs < 0:
                continue
            cnode = te * SLOTS + cs
            if nd[cnode, F_DONE] != 0:
                continue
            complete, ndist = city_status(nd, cnode, pl, seg, nseg)
            if complete:
                score_complete(nd, cnode, cur, P, pl, seg, nseg, through, pr, tokvals, cow, pi, bd, gi, log,
                               logging)


@njit(cache=True, error_model="numpy")
def new_state(ntiles, P, pr):
    """Fresh per-game arrays: nodes, game ints, placements, board, frontier, mountain list, players, cowboys."""
    B = 2 * ntiles + 3
    nd = np.empty((ntiles * SLOTS, NF), np.int64)  # every node is initialised when its tile is placed
    gi = np.zeros(NG, np.int64)
    gi[G_B] = B
    gi[G_NTILES] = ntiles
    pl = np.zeros((ntiles, 3), np.int64)
    board = np.full(B * B, -1, np.int32)
    fidx = np.full(B * B, -1, np.int32)
    cons = np.zeros(B * B, np.int32)
    front = np.zeros(4 * ntiles + 8, np.int64)
    mtn_nodes = np.zeros(ntiles * 4 + 1, np.int64)
    pi = np.zeros((P, 4), np.int64)
    cow = -np.ones((P, MAXC), np.int64)
    ncow = int(pr[P_COWBOYS])
    for p in range(P):
        pi[p, PI_SUPPLY] = ncow
        pi[p, PI_TENT] = -1
    return nd, gi, pl, board, fidx, cons, front, mtn_nodes, pi, cow


@njit(cache=True, error_model="numpy")
def new_scratch(ntiles, ntok):
    """Per-game scratch buffers (allocated once per game, or once per batch chunk and reused)."""
    maxmv = max(4 * (4 * ntiles + 8), 16 + ntiles * 4 + MAXC)
    moves = np.empty((maxmv, 3), np.int64)
    feats = np.empty((maxmv, NFEAT), np.float64)
    view = np.zeros(NV, np.int64)
    sc_s = np.zeros(16, np.int64)
    sc_r = np.zeros(16, np.int64)
    sc_e = np.zeros(16, np.int64)
    grp = np.zeros(SLOTS, np.int64)
    gs = np.zeros((SLOTS, 11), np.int64)
    gcow = np.zeros((SLOTS, MAXP), np.int64)
    roots = np.zeros(16, np.int64)
    rgrp = np.zeros(16, np.int64)
    done = np.zeros(3 * SLOTS, np.int64)
    gain_opp = np.zeros(MAXP)
    grow_opp = np.zeros(MAXP)
    troot = np.zeros(MAXP, np.int64)
    order = np.zeros(ntiles, np.int64)
    rem_e = np.zeros(4, np.int64)
    tokvals = np.zeros(ntok, np.int64)
    rng = np.zeros(4, np.uint64)
    return (moves, feats, view, sc_s, sc_r, sc_e, grp, gs, gcow, roots, rgrp, done, gain_opp, grow_opp,
            troot, order, rem_e, tokvals, rng)


@njit(cache=True, error_model="numpy")
def reset_state(st, P, pr):
    """Clear what a previous game left in the state arrays ``st`` (from ``new_state``)."""
    nd, gi, pl, board, fidx, cons, front, mtn_nodes, pi, cow = st
    new_game_board(nd, gi, pl, board, front, fidx, cons, mtn_nodes)
    B = gi[G_B]
    ntiles = gi[G_NTILES]
    for k in range(gi.shape[0]):
        gi[k] = 0
    gi[G_B] = B
    gi[G_NTILES] = ntiles
    ncow = int(pr[P_COWBOYS])
    for p in range(P):
        pi[p, PI_SUPPLY] = ncow
        pi[p, PI_TENT] = -1
        pi[p, PI_TOKSUM] = 0
        pi[p, PI_TOKN] = 0
        for k in range(MAXC):
            cow[p, k] = -1


@njit(cache=True, error_model="numpy")
def play_game(g, seed, P, rotate, fns, weights, seg, nseg, edges, edge_seg, half_seg, rots, nrots, through,
              cityseg, start, tokvals_src, pr, score, tiebreak, bd, log, logging):
    """Play game ``g``; fill score[P], tiebreak[P], bd[P, C]; return the number of turns (tiles placed).

    ``log`` (int64[L, LOGW]) receives event records when ``logging`` (the batch passes logging off and
    otherwise runs exactly the same ``_play``).
    """
    ntiles = nseg.shape[0]
    st = new_state(ntiles, P, pr)
    sc = new_scratch(ntiles, tokvals_src.shape[0])
    return _play(g, seed, P, rotate, fns, weights, seg, nseg, edges, edge_seg, half_seg, rots, nrots, through,
                 cityseg, start, tokvals_src, pr, score, tiebreak, bd, log, logging, st, sc)


@njit(cache=True, error_model="numpy")
def _play(g, seed, P, rotate, fns, weights, seg, nseg, edges, edge_seg, half_seg, rots, nrots, through,
          cityseg, start, tokvals_src, pr, score, tiebreak, bd, log, logging, st, sc):
    nd, gi, pl, board, fidx, cons, front, mtn_nodes, pi, cow = st
    (moves, feats, view, sc_s, sc_r, sc_e, grp, gs, gcow, roots, rgrp, done, gain_opp, grow_opp,
     troot, order, rem_e, tokvals, rng) = sc
    reset_state(st, P, pr)
    for p in range(P):
        for c in range(bd.shape[1]):
            bd[p, c] = 0.0
    rng_init(rng, seed, g)
    ntiles = nseg.shape[0]
    tok_n = tokvals_src.shape[0]
    tok_tot = 0.0
    for i in range(tok_n):
        tokvals[i] = tokvals_src[i]
        tok_tot += tokvals[i]
    shuffle(tokvals, tok_n, rng)
    gi[G_SUPPLY] = tok_n
    B = gi[G_B]
    k = 0
    for i in range(ntiles):
        if i != start:
            order[k] = i
            k += 1
    shuffle(order, ntiles - 1, rng)
    for e in range(4):
        rem_e[e] = 0
    for i in range(ntiles - 1):
        c = edges[order[i], 0]
        for e in range(1, 4):
            for d in range(4):
                if ((c >> (2 * d)) & 3) == e:
                    rem_e[e] += 1
                    break
    # start tile
    gi[G_DRAW] = 1
    cpos = (B // 2) * B + B // 2
    emit(log, gi, logging, EV_START, start, cpos, 0, 0, 0, 0)
    place_tile(nd, gi, pl, board, front, fidx, cons, mtn_nodes, cpos, start, 0, seg, nseg, edges, edge_seg,
               half_seg, log, logging)
    cur = 0
    turns = 0
    di = 0
    while di < ntiles - 1:
        inst = order[di]
        di += 1
        gi[G_DRAW] = di + 1
        c = edges[inst, 0]
        for e in range(1, 4):
            for d in range(4):
                if ((c >> (2 * d)) & 3) == e:
                    rem_e[e] -= 1
                    break
        n = list_placements(gi, board, front, cons, inst, edges, rots, nrots, moves)
        if n == 0:
            emit(log, gi, logging, EV_DISCARD, cur, inst, 0, 0, 0, 0)
            continue
        gi[G_CUR] = cur
        gi[G_TURN] = turns
        ent = entry_of_seat(cur, g, P, rotate)
        emean = token_mean(tok_tot, tok_n, pi, cur)
        eval_placements(nd, gi, pl, board, moves, n, inst, cur, P, seg, nseg, edge_seg, half_seg, cityseg, pr,
                        emean, pi, rem_e, feats, sc_s, sc_r, sc_e, grp, gs, gcow, roots, rgrp, gain_opp, grow_opp)
        for i in range(n):
            moves[i, 2] = inst
        fill_view(view, gi, cur, P, pi, nd, bd)
        ch = fns[ent](KIND_PLACE, view, moves, n, feats, weights[ent], rng)
        if ch < 0 or ch >= n:
            ch = 0
        pos = moves[ch, 0]
        rot = moves[ch, 1]
        emit(log, gi, logging, EV_PLACE, cur, inst, pos, rot, 0, 0)
        t = place_tile(nd, gi, pl, board, front, fidx, cons, mtn_nodes, pos, inst, rot, seg, nseg, edges, edge_seg,
                       half_seg, log, logging)
        # action
        emean = token_mean(tok_tot, tok_n, pi, cur)
        n = action_features(nd, gi, pl, t, cur, P, seg, nseg, through, pr, emean, pi, cow, rem_e, mtn_nodes, moves,
                            feats, troot)
        ch = 0
        if n > 1:
            fill_view(view, gi, cur, P, pi, nd, bd)
            ch = fns[ent](KIND_ACTION, view, moves, n, feats, weights[ent], rng)
            if ch < 0 or ch >= n:
                ch = 0
        do_action(nd, gi, cur, moves[ch, 0], moves[ch, 1], moves[ch, 2], tokvals, pi, cow, log, logging)
        score_turn(nd, gi, t, inst, cur, P, pl, seg, nseg, through, cityseg, pr, tokvals, cow, pi, bd, done, log,
                   logging)
        turns += 1
        cur = (cur + 1) % P
    final_scoring(nd, gi, P, pl, seg, nseg, through, pr, cow, pi, bd, log, logging)
    for p in range(P):
        s = 0.0
        for c in range(bd.shape[1]):
            s += bd[p, c]
        score[p] = s
        tiebreak[p] = 0.0
    emit(log, gi, logging, EV_END, turns, 0, 0, 0, 0, 0)
    return turns


@njit(cache=True, parallel=True, error_model="numpy")
def play_batch(seed, start_game, n_games, P, rotate, fns, weights, seg, nseg, edges, edge_seg, half_seg, rots,
               nrots, through, cityseg, start, tokvals, pr, score, tiebreak, bd, length):
    """Games ``start_game ..`` in chunks (a few per thread): each chunk copies the shared read-only arrays and
    allocates its state once (64 chunks at most; no reference-count traffic on arrays shared between threads, no per-game
    allocation); every game still depends on (seed, game index) alone."""
    nchunk = min(n_games, 64)
    ntiles = nseg.shape[0]
    for c in prange(nchunk):
        lo = c * n_games // nchunk
        hi = (c + 1) * n_games // nchunk
        log = np.zeros((1, 7), np.int64)
        w = weights.copy()
        seg_c = seg.copy()
        nseg_c = nseg.copy()
        edges_c = edges.copy()
        edge_seg_c = edge_seg.copy()
        half_seg_c = half_seg.copy()
        rots_c = rots.copy()
        nrots_c = nrots.copy()
        through_c = through.copy()
        cityseg_c = cityseg.copy()
        tok_c = tokvals.copy()
        pr_c = pr.copy()
        st = new_state(ntiles, P, pr_c)
        sc = new_scratch(ntiles, tok_c.shape[0])
        sc_ = np.zeros(P)
        tb_ = np.zeros(P)
        bd_ = np.zeros((P, bd.shape[2]))
        for i in range(lo, hi):
            length[i] = _play(start_game + i, seed, P, rotate, fns, w, seg_c, nseg_c, edges_c, edge_seg_c,
                              half_seg_c, rots_c, nrots_c, through_c, cityseg_c, start, tok_c, pr_c, sc_, tb_, bd_,
                              log, False, st, sc)
            for p in range(P):
                score[i, p] = sc_[p]
                tiebreak[i, p] = tb_[p]
                for q in range(bd.shape[2]):
                    bd[i, p, q] = bd_[p, q]


@njit(cache=True, error_model="numpy")
def run_script(script, P, seg, nseg, edges, edge_seg, half_seg, through, cityseg, tokvals, pr, bd, log, logging):
    """Build a position through the engine's own functions (tests, hand-built layouts).

    ``script`` rows (op, a, b, c, d, player): op 0 places instance ``a`` at (x=b, y=c) relative to the
    centre turned ``d`` (the first row places the first tile in the centre, unchecked; later rows must fit);
    op 1 is the action of ``player`` after the last placement (a = action type, b = segment on the new tile
    for a cowboy, or (b = segment, c = tile index) for a tent; d = cowboy slot for a removal), followed by
    the turn's scoring; op 2 is the final scoring. Tokens are revealed in ``tokvals`` order.
    Returns the state arrays and the index of the first illegal row (-1 = all legal).
    """
    ntiles = nseg.shape[0]
    nd, gi, pl, board, fidx, cons, front, mtn_nodes, pi, cow = new_state(ntiles, P, pr)
    gi[G_SUPPLY] = tokvals.shape[0]
    B = gi[G_B]
    done = np.zeros(3 * SLOTS, np.int64)
    bad = -1
    t = -1
    inst = -1
    for i in range(script.shape[0]):
        op = script[i, 0]
        cur = script[i, 5]
        if op == 0:
            inst = script[i, 1]
            pos = (script[i, 3] + B // 2) * B + script[i, 2] + B // 2
            rot = script[i, 4]
            if gi[G_NPL] > 0 and (fidx[pos] < 0 or not fits(edges[inst, rot], cons[pos])):
                bad = i
                break
            t = place_tile(nd, gi, pl, board, front, fidx, cons, mtn_nodes, pos, inst, rot, seg, nseg, edges,
                           edge_seg, half_seg, log, logging)
        elif op == 1:
            a = script[i, 1]
            x = -1
            arg = 0
            if a == A_COWBOY:
                x = t * SLOTS + script[i, 2]
                arg = seg[inst, script[i, 2], S_KIND]
                if majority(nd, find(nd, x), P) > 0 or pi[cur, PI_SUPPLY] <= 0:
                    bad = i
                    break
            elif a == A_TENT:
                x = script[i, 3] * SLOTS + script[i, 2]
                if nd[x, F_OCC] >= 0 or nd[find(nd, x), F_OPEN] == 0 or nd[x, F_KIND] != K_MTN:
                    bad = i
                    break
            elif a == A_MINE:
                x = pi[cur, PI_TENT]
                if x < 0 or nd[find(nd, x), F_STACK] <= 0:
                    bad = i
                    break
            elif a == A_REMOVE:
                arg = script[i, 4]
                x = cow[cur, arg]
                if x < 0:
                    bad = i
                    break
            do_action(nd, gi, cur, a, x, arg, tokvals, pi, cow, log, logging)
            score_turn(nd, gi, t, inst, cur, P, pl, seg, nseg, through, cityseg, pr, tokvals, cow, pi, bd, done,
                       log, logging)
        else:
            final_scoring(nd, gi, P, pl, seg, nseg, through, pr, cow, pi, bd, log, logging)
    return nd, gi, pl, board, fidx, cons, front, mtn_nodes, pi, cow, bad
