"""Gold Rush's evaluation of candidates: what a seat sees of them (numba).

``list_placements`` lists where the drawn tile fits; ``eval_placements`` computes the feature rows of the
placement decisions (columns: ``features.Place``; the follower actions' rows are ``follower.py``'s);
``fill_view`` writes the bots' view. Everything here reads public information only: the board, cowboys, tents
and stacks (counts of face-down tokens), the public counts of the tiles left, and the seat's own token faces
(``token_mean``).
"""

import numpy as np
from numba import njit

from .board import delta, find, fits
from .const import (
    E_M,
    E_R,
    F_COW,
    F_DONE,
    F_END0,
    F_HORSE,
    F_KIND,
    F_LOCO,
    F_NUG,
    F_OCC,
    F_OPEN,
    F_SEGS,
    F_STACK,
    F_TIPI,
    G_B,
    G_DRAW,
    G_NFRONT,
    G_NTILES,
    G_SUPPLY,
    G_TURN,
    K_CITY,
    K_MTN,
    K_PRAIRIE,
    K_RAIL,
    MAXP,
    P_CITY_PTS,
    P_FARMERS,
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
    S_CITY,
    S_HORSE,
    S_KIND,
    S_LOCO,
    S_NEDGES,
    S_NUG,
    S_SPUR,
    S_TIPI,
    SLOTS,
    V_NPLAYERS,
    V_SCORE0,
    V_SEAT,
    V_SUPPLY,
    V_TENT,
    V_TENT_STACK,
    V_TILES_LEFT,
    V_TILES_TOTAL,
    V_TURN,
)
from .features import Place
from .scoring import majority


@njit(cache=True, error_model="numpy", _nrt=False)
def token_mean(tok_tot, tok_n, pi, me):
    """Expected value of a face-down token as seat ``me`` knows it: the printed mix (``tok_tot`` points on
    ``tok_n`` tokens) minus my own taken tokens. Tokens other players took stay unknown to me, so they are
    exchangeable with the ones still face down and carry the same mean (their values never enter)."""
    unknown = tok_n - pi[me, PI_TOKN]
    if unknown <= 0:
        return 0.0
    return (tok_tot - pi[me, PI_TOKSUM]) / unknown


@njit(cache=True, error_model="numpy", _nrt=False)
def edge_odds(rem_e, kind, open_edges):
    """Rough chance to close ``open_edges`` edges of a feature with the tiles left (per edge rem/(rem+3))."""
    if open_edges <= 0:
        return 1.0
    r = rem_e[E_R] if kind == K_RAIL or kind == K_CITY else rem_e[E_M]
    q = r / (r + 3.0)
    return q**open_edges


@njit(cache=True, error_model="numpy", _nrt=False)
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


@njit(cache=True, error_model="numpy", _nrt=False)
def root_value(nd, r, pr, emean, farmers):
    k = nd[r, F_KIND]
    return feature_value(
        k, nd[r, F_SEGS], nd[r, F_NUG], nd[r, F_STACK], nd[r, F_TIPI], nd[r, F_HORSE], 0, pr, emean, farmers
    )


@njit(cache=True, error_model="numpy", _nrt=False)
def gfind(grp, s):
    while grp[s] != s:
        s = grp[s]
    return s


# placement features: the tile's new features after a placement, valued for the deciding seat
# group stats (gs[g, :]) of a new feature g (new segments joined through shared neighbours)
GS_OPEN, GS_SEGS, GS_NUG, GS_LOCO, GS_STACK, GS_TIPI, GS_HORSE, GS_KIND, GS_SPURS, GS_MINE_VAL, GS_MINE_OPEN = range(11)


# per decision, a table per direction ``d`` of the cell being looked at: the neighbour placement (``nb[d, 0]``, -1
# none) and, per contact slot ``k = 3 * d + c`` (c = 0 the edge, 1 + j prairie half j), the root of the neighbour's
# segment facing the cell (``nb[d, 1 + c]``, -1 where it has none) and what that feature brings to the deciding
# seat: ``nbv[k]`` its value and ``nbo[k]`` its open edges where the seat holds the majority, else 0. Placements
# are listed cell by cell, so the table serves every rotation at a cell.
NB_TILE, NB_EDGE, NB_HALF = 0, 1, 2


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def mine_terms(nd, r, me, P, pr, emean, farmers, nbv, nbo, k):
    """What feature ``r`` next to the cell brings to seat ``me`` if it holds the majority there (else 0)."""
    mr = majority(nd, r, P)
    if mr > 0 and nd[r, F_COW + me] == mr:
        nbv[k] = root_value(nd, r, pr, emean, farmers)
        nbo[k] = nd[r, F_OPEN]
    else:
        nbv[k] = 0.0
        nbo[k] = 0


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def look_around(nd, pl, board, B, pos, edge_seg, half_seg, me, P, pr, emean, farmers, nb, nbv, nbo):
    """Fill the neighbour table of cell ``pos`` (see ``NB_*``)."""
    for d in range(4):
        nt = board[pos + delta(d, B)]
        nb[d, NB_TILE] = nt
        if nt < 0:
            continue
        ninst = pl[nt, 0]
        nrot = pl[nt, 1]
        od = (d + 2) % 4
        es = edge_seg[ninst, nrot, od]
        nb[d, NB_EDGE] = -1
        if es >= 0:
            r = find(nd, nt * SLOTS + es)
            nb[d, NB_EDGE] = r
            mine_terms(nd, r, me, P, pr, emean, farmers, nbv, nbo, 3 * d)
        for j in range(2):
            hs = half_seg[ninst, nrot, 2 * od + 1 - j]
            nb[d, NB_HALF + j] = -1
            if hs >= 0:
                r = find(nd, nt * SLOTS + hs)
                nb[d, NB_HALF + j] = r
                mine_terms(nd, r, me, P, pr, emean, farmers, nbv, nbo, 3 * d + 1 + j)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def neighbour_contacts(nb, inst, rot, edge_seg, half_seg, sc_s, sc_r, sc_e, sc_k):
    """Where the tile turned ``rot`` touches placed tiles (the cell's neighbour table ``nb``): per contact the new
    segment, the root of the neighbour's feature, whether a whole edge (railroad or mountain) or a prairie half
    meets, and the table entry (``d * 3 + k``). Returns the number of contacts. (The deck's edge codes make a
    segment meet a segment: ``list_placements`` lists only placements whose edges fit.)"""
    nc = 0
    for d in range(4):
        if nb[d, NB_TILE] < 0:
            continue
        s = edge_seg[inst, rot, d]
        if s >= 0:
            sc_s[nc] = s
            sc_r[nc] = nb[d, NB_EDGE]
            sc_e[nc] = 1
            sc_k[nc] = 3 * d
            nc += 1
        for j in range(2):
            s = half_seg[inst, rot, 2 * d + j]
            if s >= 0:
                sc_s[nc] = s
                sc_r[nc] = nb[d, NB_HALF + j]
                sc_e[nc] = 0
                sc_k[nc] = 3 * d + 1 + j
                nc += 1
    return nc


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def join_segments(grp, tch, ns, sc_s, sc_r, nc):
    """New segments that touch the same neighbour feature become one feature (``grp``: union-find over the
    tile's segments; ``tch[s]``: segment ``s`` touches a placed tile)."""
    for s in range(ns):
        grp[s] = s
        tch[s] = 0
    for i in range(nc):
        tch[sc_s[i]] = 1
    for i in range(nc):
        for j in range(i + 1, nc):
            if sc_r[i] == sc_r[j]:
                a = gfind(grp, sc_s[i])
                b = gfind(grp, sc_s[j])
                if a != b:
                    grp[max(a, b)] = min(a, b)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def tile_base(tb, seg, inst, ns, supply):
    """Each of the drawn tile's segments' own counters (``GS_*`` columns; its mountains take tokens from the
    supply in segment order), once per decision."""
    for s in range(ns):
        tb[s, GS_OPEN] = seg[inst, s, S_NEDGES]
        tb[s, GS_SEGS] = 1
        nug = seg[inst, s, S_NUG]
        tb[s, GS_NUG] = nug
        k = 0
        if nug > 0 and supply > 0:
            k = min(nug, supply)
            supply -= k
        tb[s, GS_STACK] = k
        tb[s, GS_LOCO] = seg[inst, s, S_LOCO]
        tb[s, GS_TIPI] = seg[inst, s, S_TIPI]
        tb[s, GS_HORSE] = seg[inst, s, S_HORSE]
        tb[s, GS_KIND] = seg[inst, s, S_KIND]
        tb[s, GS_SPURS] = 1 if seg[inst, s, S_KIND] == K_RAIL and seg[inst, s, S_SPUR] == 1 else 0
        tb[s, GS_MINE_VAL] = 0
        tb[s, GS_MINE_OPEN] = 0


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def tile_stats(gs, gcow, grp, tch, tb, ns, P):
    """The counters of each new feature that touches a placed tile, from its segments' own (``tb``); a segment
    that touches nothing is a feature of its own, valued once per decision (``lone_terms``)."""
    for s in range(ns):
        if tch[s] == 0:
            continue
        g = gfind(grp, s)
        grp[s] = g
        if g == s:
            for q in range(11):
                gs[s, q] = tb[s, q]
            for p in range(P):
                gcow[s, p] = 0
        else:
            for q in range(GS_KIND):
                gs[g, q] += tb[s, q]
            gs[g, GS_KIND] = tb[s, GS_KIND]
            gs[g, GS_SPURS] += tb[s, GS_SPURS]


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def neighbour_stats(nd, gs, gcow, grp, sc_s, sc_r, sc_e, sc_k, nc, roots, rgrp, P, nbv, nbo):
    """Add each neighbour feature once to the new feature it joins (a joined edge closes two open edges), with
    the value and open edges of those where the deciding seat has the majority (the cell's table). Returns the
    number of neighbour features (``roots[q]`` joins new feature ``rgrp[q]``)."""
    nr = 0
    for i in range(nc):
        g = grp[sc_s[i]]
        if sc_e[i] == 1:
            gs[g, GS_OPEN] -= 2
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
        gs[g, GS_OPEN] += nd[r, F_OPEN]
        gs[g, GS_SEGS] += nd[r, F_SEGS]
        gs[g, GS_NUG] += nd[r, F_NUG]
        gs[g, GS_LOCO] += nd[r, F_LOCO]
        gs[g, GS_STACK] += nd[r, F_STACK]
        gs[g, GS_TIPI] += nd[r, F_TIPI]
        gs[g, GS_HORSE] += nd[r, F_HORSE]
        for p in range(P):
            gcow[g, p] += nd[r, F_COW + p]
        gs[g, GS_MINE_VAL] += nbv[sc_k[i]]
        gs[g, GS_MINE_OPEN] += nbo[sc_k[i]]
    return nr


@njit(cache=True, error_model="numpy", _nrt=False)
def loco_applies(pr, locos):
    """Does a completed railroad with ``locos`` locomotives score the multiplier?"""
    return (pr[P_LOCO_EXACT] > 0.5 and locos == 1) or (pr[P_LOCO_EXACT] <= 0.5 and locos >= 1)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def value_group(nd, gs, gcow, s, me, P, pr, emean, rem_e, has_supply, farmers, row, gain_opp, grow_opp):
    """The new feature ``s`` (railroad, mountain or prairie): points it completes for its majority, growth of
    open features, or, when nobody stands on it, the value of claiming it."""
    k = gs[s, GS_KIND]
    opn = gs[s, GS_OPEN]
    tiles = gs[s, GS_SEGS] - (gs[s, GS_SPURS] - 1 if gs[s, GS_SPURS] > 1 else 0)
    m = 0
    for p in range(P):
        if gcow[s, p] > m:
            m = gcow[s, p]
    complete = (k == K_RAIL or k == K_MTN) and opn == 0
    val = feature_value(
        k, tiles, gs[s, GS_NUG], gs[s, GS_STACK], gs[s, GS_TIPI], gs[s, GS_HORSE], 0, pr, emean, farmers
    )
    if complete and k == K_RAIL and loco_applies(pr, gs[s, GS_LOCO]):
        val *= pr[P_LOCO_MULT]
    if m > 0:
        nwin = 0
        for p in range(P):
            if gcow[s, p] == m:
                nwin += 1
        if complete:
            share = val
            if k == K_MTN:
                share = gs[s, GS_NUG] * pr[P_NUG_PTS] + gs[s, GS_STACK] * emean / nwin
            for p in range(P):
                if gcow[s, p] == m:
                    if p == me:
                        row[Place.GAIN] += share
                    else:
                        gain_opp[p] += share
        else:
            for p in range(P):
                if gcow[s, p] == m:
                    if p == me:
                        row[Place.GROW] += val - gs[s, GS_MINE_VAL]
                        row[Place.EDGES_DELTA] += opn - gs[s, GS_MINE_OPEN]
                    else:
                        grow_opp[p] += val
    elif has_supply and (k != K_PRAIRIE or farmers):
        # free feature: the value of a new cowboy here
        if complete:
            if val > row[Place.FOLLOW]:
                row[Place.FOLLOW] = val
        else:
            v = val * edge_odds(rem_e, k, opn) + 0.01
            if v > row[Place.OPEN]:
                row[Place.OPEN] = v
                row[Place.OPEN_EDGES] = opn
                row[Place.OPEN_KIND] = k + 1
        if k == K_PRAIRIE and val > row[Place.PRAIRIE]:
            row[Place.PRAIRIE] = val
    return m, complete


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def value_mountain_stack(nd, gs, s, m, roots, rgrp, nr, my_tent_root, emean, row):
    """An unfinished mountain: tokens the tile adds under my tent, or a free stack worth a tent or a miner."""
    if my_tent_root >= 0:
        for q in range(nr):
            if roots[q] == my_tent_root and rgrp[q] == s:
                row[Place.TENT_TOK] += gs[s, GS_STACK] - nd[my_tent_root, F_STACK]
    if m == 0 and gs[s, GS_STACK] * emean > row[Place.STACK]:
        row[Place.STACK] = gs[s, GS_STACK] * emean


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def value_new_city(seg, inst, ns, city_s, grp, gs, tch, tb, pr, row):
    """The tile's own city for a merchant: complete when every railroad leaving it is complete (points per
    distinct completed railroad), else half its railroads' worth as an open feature."""
    complete = True
    nsp = 0
    nd_ = 0
    for s in range(ns):
        if seg[inst, s, S_KIND] == K_RAIL and seg[inst, s, S_CITY] == city_s:
            nsp += 1
            g = grp[s]
            if (gs[g, GS_OPEN] if tch[g] else tb[g, GS_OPEN]) > 0:
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
        if v > row[Place.FOLLOW]:
            row[Place.FOLLOW] = v
    else:
        v = nsp * pr[P_CITY_PTS] * 0.5
        if v > row[Place.OPEN]:
            row[Place.OPEN] = v
            row[Place.OPEN_EDGES] = nsp
            row[Place.OPEN_KIND] = K_CITY + 1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def value_merchant_cities(nd, pl, seg, nseg, cityseg, roots, rgrp, nr, gs, me, pr, row, gain_opp):
    """Cities with a merchant at the ends of railroads this placement completes: their points if every railroad
    of the city is then complete."""
    for q in range(nr):
        r = roots[q]
        if nd[r, F_KIND] != K_RAIL:
            continue
        g = rgrp[q]
        if gs[g, GS_OPEN] != 0:
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
                    row[Place.GAIN] += v
                elif owner < MAXP:
                    gain_opp[owner] += v


# the terms a segment that touches no placed tile brings to a feature row, once per decision (``lone``): it is a
# free feature of its own, so only the "free feature" branch of ``value_group`` and the free stack apply
L_ON, L_MODE, L_VAL, L_EDGES, L_KIND1, L_PRAIRIE, L_STACK = range(7)  # L_MODE: 0 none, 1 FOLLOW, 2 OPEN
NO_TERM = -1.0  # L_PRAIRIE, L_STACK where the term does not apply: those columns start at 0 and only grow, so a
# term of 0 or less never changes them


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def lone_terms(tb, s, lone, pr, emean, rem_e, has_supply, farmers):
    """``value_group`` and ``value_mountain_stack`` of segment ``s`` as a feature of its own (nobody on it)."""
    k = tb[s, GS_KIND]
    lone[s, L_ON] = 0.0 if k == K_CITY else 1.0
    opn = tb[s, GS_OPEN]
    tiles = tb[s, GS_SEGS] - (tb[s, GS_SPURS] - 1 if tb[s, GS_SPURS] > 1 else 0)
    complete = (k == K_RAIL or k == K_MTN) and opn == 0
    val = feature_value(
        k, tiles, tb[s, GS_NUG], tb[s, GS_STACK], tb[s, GS_TIPI], tb[s, GS_HORSE], 0, pr, emean, farmers
    )
    if complete and k == K_RAIL and loco_applies(pr, tb[s, GS_LOCO]):
        val *= pr[P_LOCO_MULT]
    lone[s, L_MODE] = 0.0
    lone[s, L_PRAIRIE] = NO_TERM
    lone[s, L_STACK] = NO_TERM
    if has_supply and (k != K_PRAIRIE or farmers):
        if complete:
            lone[s, L_MODE] = 1.0
            lone[s, L_VAL] = val
        else:
            lone[s, L_MODE] = 2.0
            lone[s, L_VAL] = val * edge_odds(rem_e, k, opn) + 0.01
            lone[s, L_EDGES] = opn
            lone[s, L_KIND1] = k + 1
        if k == K_PRAIRIE:
            lone[s, L_PRAIRIE] = val
    if k == K_MTN and not complete:
        lone[s, L_STACK] = tb[s, GS_STACK] * emean


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def add_lone(lone, s, row):
    """Segment ``s``'s terms (``lone_terms``) into the row, in ``value_group``'s order."""
    mode = lone[s, L_MODE]
    v = lone[s, L_VAL]
    if mode == 1.0:
        if v > row[Place.FOLLOW]:
            row[Place.FOLLOW] = v
    elif mode == 2.0 and v > row[Place.OPEN]:
        row[Place.OPEN] = v
        row[Place.OPEN_EDGES] = lone[s, L_EDGES]
        row[Place.OPEN_KIND] = lone[s, L_KIND1]
    if lone[s, L_PRAIRIE] > row[Place.PRAIRIE]:
        row[Place.PRAIRIE] = lone[s, L_PRAIRIE]
    if lone[s, L_STACK] > row[Place.STACK]:
        row[Place.STACK] = lone[s, L_STACK]


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def eval_placement(r, cxt, inst, me, P, emean, farmers, has_supply, my_tent_root, row, nc):
    """The feature row of placing ``inst`` with the ``nc`` contacts listed in ``r.sc_*`` (one cell, one rotation:
    ``neighbour_contacts``); a look-ahead: the merged features are computed beside the union-find, which is not
    changed."""
    gs = r.gs
    grp = r.grp
    tch = r.tch
    gain_opp = r.gain_opp
    grow_opp = r.grow_opp
    ns = cxt.nseg[inst]
    for q in range(row.shape[0]):
        row[q] = 0.0
    for p in range(MAXP):
        gain_opp[p] = 0.0
        grow_opp[p] = 0.0
    join_segments(grp, tch, ns, r.sc_s, r.sc_r, nc)
    tile_stats(gs, r.gcow, grp, tch, r.tb, ns, P)
    nr = neighbour_stats(r.nd, gs, r.gcow, grp, r.sc_s, r.sc_r, r.sc_e, r.sc_k, nc, r.roots, r.rgrp, P, r.nbv, r.nbo)
    for s in range(ns):
        if grp[s] != s:
            continue
        if tch[s] == 0:
            if r.lone[s, L_ON] != 0.0:
                add_lone(r.lone, s, row)
            continue
        if gs[s, GS_KIND] == K_CITY:
            continue
        m, complete = value_group(
            r.nd, gs, r.gcow, s, me, P, cxt.pr, emean, r.rem_e, has_supply, farmers, row, gain_opp, grow_opp
        )
        if gs[s, GS_KIND] == K_MTN and not complete:
            value_mountain_stack(r.nd, gs, s, m, r.roots, r.rgrp, nr, my_tent_root, emean, row)
    if cxt.cityseg[inst] >= 0 and has_supply:
        value_new_city(cxt.seg, inst, ns, cxt.cityseg[inst], grp, gs, tch, r.tb, cxt.pr, row)
    value_merchant_cities(
        r.nd, r.pl, cxt.seg, cxt.nseg, cxt.cityseg, r.roots, r.rgrp, nr, gs, me, cxt.pr, row, gain_opp
    )
    for p in range(P):
        if p != me:
            if gain_opp[p] > row[Place.OPP_GAIN]:
                row[Place.OPP_GAIN] = gain_opp[p]
            if grow_opp[p] > row[Place.OPP_GROW]:
                row[Place.OPP_GROW] = grow_opp[p]
    row[Place.TENT_TOK] = row[Place.TENT_TOK] * emean
    row[Place.TILES_LEFT] = r.gi[G_NTILES] - r.gi[G_DRAW]


@njit(cache=True, error_model="numpy", _nrt=False)
def eval_placements(r, cxt, n, inst, me, P, emean):
    """Feature rows of the placements ``r.moves[i] = (cell, rotation)`` of ``inst`` for seat ``me``: what the
    tile's segments bring on their own and what each cell's neighbours bring are worked out once, then each
    placement joins them."""
    pr = cxt.pr
    farmers = pr[P_FARMERS] > 0.5
    has_supply = r.pl_int[me, PI_SUPPLY] > 0
    my_tent_root = -1
    if r.pl_int[me, PI_TENT] >= 0:
        my_tent_root = find(r.nd, r.pl_int[me, PI_TENT])
    ns = cxt.nseg[inst]
    tile_base(r.tb, cxt.seg, inst, ns, r.gi[G_SUPPLY])
    for s in range(ns):
        lone_terms(r.tb, s, r.lone, pr, emean, r.rem_e, has_supply, farmers)
    B = r.gi[G_B]
    cell = -1
    for i in range(n):
        pos = r.moves[i, 0]
        if pos != cell:
            cell = pos
            look_around(
                r.nd, r.pl, r.board, B, pos, cxt.edge_seg, cxt.half_seg, me, P, pr, emean, farmers, r.nb, r.nbv, r.nbo
            )
        nc = neighbour_contacts(r.nb, inst, r.moves[i, 1], cxt.edge_seg, cxt.half_seg, r.sc_s, r.sc_r, r.sc_e, r.sc_k)
        eval_placement(r, cxt, inst, me, P, emean, farmers, has_supply, my_tent_root, r.feats[i], nc)


@njit(cache=True, error_model="numpy", _nrt=False)
def margin(nd, r, me, P):
    """(my cowboys - most cowboys of an opponent, most cowboys of an opponent) on feature ``r``."""
    best = 0
    for p in range(P):
        if p != me and nd[r, F_COW + p] > best:
            best = nd[r, F_COW + p]
    return nd[r, F_COW + me] - best, best


@njit(cache=True, error_model="numpy", _nrt=False)
def other_tents(troot, r, me, P):
    """Other players' tents on mountain ``r`` (``troot[p]``: root under player p's tent, -1 = none)."""
    n = 0
    for p in range(P):
        if p != me and troot[p] == r:
            n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
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


@njit(cache=True, error_model="numpy", _nrt=False)
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
