"""Gold Rush features: what a seat sees of its candidates (numba).

``list_placements`` lists where the drawn tile fits; ``eval_placements`` and ``action_features`` compute the
feature rows of the placement and follower-action decisions (columns: ``bots.md``); ``fill_view`` writes the
bots' view. Everything here reads public information only: the board, cowboys, tents and stacks (counts of
face-down tokens), the public counts of the tiles left, and the seat's own token faces (``token_mean``).
"""
import numpy as np
from numba import njit

from .board import city_status, delta, find, fits, rail_tiles
from .const import (
    A_COWBOY, A_MINE, A_PASS, A_REMOVE, A_TENT, E_M, E_R, F_COW, F_DONE, F_END0, F_HORSE, F_KIND, F_LOCO,
    F_NUG, F_OCC, F_OPEN, F_SEGS, F_STACK, F_TIPI, G_B, G_DRAW, G_NFRONT, G_NTILES, G_SUPPLY, G_TURN, K_CITY,
    K_MTN, K_PRAIRIE, K_RAIL, MAXC, MAXP, P_CITY_PTS, P_END_CITY, P_END_MTN, P_END_PRAIRIE, P_END_RAIL,
    P_FARMERS, P_HORSE_PTS, P_HOUSE_REMOVE, P_LOCO_EXACT, P_LOCO_MULT, P_NUG_PTS, P_RAIL_PTS, P_TENTS,
    P_TIPI_PTS, PI_SUPPLY, PI_TENT, PI_TOKN, PI_TOKSUM, S_CITY, S_HORSE, S_KIND, S_LOCO, S_NEDGES, S_NUG,
    S_SPUR, S_TIPI, SLOTS, V_NPLAYERS, V_SCORE0, V_SEAT, V_SUPPLY, V_TENT, V_TENT_STACK, V_TILES_LEFT,
    V_TILES_TOTAL, V_TURN,
)
from .scoring import majority


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
