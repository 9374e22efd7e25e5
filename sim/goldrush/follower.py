"""Gold Rush: the features of the follower actions a seat may take after placing a tile (bots.md: ACTION feats):
a cowboy on a railroad, a mountain, a city or a prairie, a tent, mining, removing a follower.

Filled for the deciding seat from what it can see; the engine's decision post calls :func:`action_features`.
"""

import numpy as np
from numba import njit

from .board import city_status, find, rail_tiles
from .const import (
    A_COWBOY,
    A_MINE,
    A_PASS,
    A_REMOVE,
    A_TENT,
    F_HORSE,
    F_KIND,
    F_LOCO,
    F_NUG,
    F_OCC,
    F_OPEN,
    F_STACK,
    F_TIPI,
    G_DRAW,
    G_NTILES,
    K_CITY,
    K_MTN,
    K_PRAIRIE,
    K_RAIL,
    MAXC,
    P_CITY_PTS,
    P_END_CITY,
    P_END_MTN,
    P_END_PRAIRIE,
    P_END_RAIL,
    P_FARMERS,
    P_HORSE_PTS,
    P_HOUSE_REMOVE,
    P_LOCO_MULT,
    P_NUG_PTS,
    P_RAIL_PTS,
    P_SEAT_TENTS,
    P_TIPI_PTS,
    PI_SUPPLY,
    PI_TENT,
    S_CITY,
    S_KIND,
    SLOTS,
)
from .evaluate import edge_odds, loco_applies, margin, other_tents, root_value
from .features import Action
from .scoring import majority


@njit(cache=True, error_model="numpy", _nrt=False)
def action_row(moves, feats, n, a, x, arg, frac, supply):
    """Start candidate ``n``: move (type, node, arg), features cleared but the share of tiles left and my supply."""
    for q in range(feats.shape[1]):
        feats[n, q] = 0.0
    moves[n, 0] = a
    moves[n, 1] = x
    moves[n, 2] = arg
    feats[n, Action.TILES_FRAC] = frac
    feats[n, Action.SUPPLY] = supply


@njit(cache=True, error_model="numpy", _nrt=False)
def cowboy_on_railroad(nd, r, opn, pl, through, pr, rem_e, row):
    """A railwayman: 1 per tile (x the locomotive multiplier once complete)."""
    val = rail_tiles(nd, r, pl, through) * pr[P_RAIL_PTS]
    full = val
    lc = nd[r, F_LOCO]
    if loco_applies(pr, lc):
        full = val * pr[P_LOCO_MULT]
    if opn == 0:
        val = full
        row[Action.POINTS] = val
    row[Action.VALUE] = val
    row[Action.ODDS] = edge_odds(rem_e, np.int64(K_RAIL), opn)
    row[Action.SIZE] = lc
    row[Action.IF_DONE] = full
    row[Action.IF_OPEN] = val * pr[P_END_RAIL]


@njit(cache=True, error_model="numpy", _nrt=False)
def cowboy_on_mountain(nd, r, opn, pr, emean, rem_e, row):
    """A gold miner: the nuggets and the tokens of the stack (at their expected value)."""
    val = nd[r, F_NUG] * pr[P_NUG_PTS] + nd[r, F_STACK] * emean
    if opn == 0:
        row[Action.POINTS] = val
    row[Action.VALUE] = val
    row[Action.ODDS] = edge_odds(rem_e, np.int64(K_MTN), opn)
    row[Action.SIZE] = nd[r, F_STACK]
    row[Action.NUGGETS] = nd[r, F_NUG]
    row[Action.IF_DONE] = val
    row[Action.IF_OPEN] = nd[r, F_NUG] * pr[P_NUG_PTS] * pr[P_END_MTN]  # tokens leave at the end


@njit(cache=True, error_model="numpy", _nrt=False)
def cowboy_in_city(nd, x, t, inst, s, pl, seg, nseg, pr, rem_e, row):
    """A merchant: points per distinct completed railroad of the city. Returns the city's open railroad edges."""
    complete, ndist = city_status(nd, x, pl, seg, nseg)
    nsp = 0
    oe = 0
    for s2 in range(nseg[inst]):
        if seg[inst, s2, S_KIND] == K_RAIL and seg[inst, s2, S_CITY] == s:
            nsp += 1
            oe += nd[find(nd, t * SLOTS + s2), F_OPEN]
    if complete:
        row[Action.POINTS] = ndist * pr[P_CITY_PTS]
        row[Action.VALUE] = ndist * pr[P_CITY_PTS]
        row[Action.IF_DONE] = ndist * pr[P_CITY_PTS]
    else:
        row[Action.VALUE] = nsp * pr[P_CITY_PTS]
        row[Action.IF_DONE] = nsp * pr[P_CITY_PTS]
    row[Action.ODDS] = edge_odds(rem_e, np.int64(K_CITY), oe)
    row[Action.SIZE] = ndist
    row[Action.IF_OPEN] = ndist * pr[P_CITY_PTS] * pr[P_END_CITY]
    return oe


@njit(cache=True, error_model="numpy", _nrt=False)
def cowboy_on_prairie(nd, r, pr, row):
    """A farmer: tipis and horses of the prairie, scored at the end."""
    row[Action.VALUE] = nd[r, F_TIPI] * pr[P_TIPI_PTS] + nd[r, F_HORSE] * pr[P_HORSE_PTS]
    row[Action.ODDS] = 1.0
    row[Action.IF_DONE] = row[Action.VALUE]
    row[Action.IF_OPEN] = row[Action.VALUE] * pr[P_END_PRAIRIE]


@njit(cache=True, error_model="numpy", _nrt=False)
def cowboy_actions(nd, t, me, P, pl, seg, nseg, through, pr, emean, rem_e, frac, supply, farmers, moves, feats, n):
    """A cowboy on any feature of the new tile nobody stands on yet (prairies only with farmers)."""
    inst = pl[t, 0]
    for s in range(nseg[inst]):
        x = t * SLOTS + s
        k = seg[inst, s, S_KIND]
        if k == K_PRAIRIE and not farmers:
            continue
        r = find(nd, x)
        if majority(nd, r, P) > 0:
            continue
        action_row(moves, feats, n, A_COWBOY, x, k, frac, supply)
        row = feats[n]
        opn = nd[r, F_OPEN]
        if k == K_RAIL:
            cowboy_on_railroad(nd, r, opn, pl, through, pr, rem_e, row)
        elif k == K_MTN:
            cowboy_on_mountain(nd, r, opn, pr, emean, rem_e, row)
        elif k == K_CITY:
            opn = cowboy_in_city(nd, x, t, inst, s, pl, seg, nseg, pr, rem_e, row)
        else:
            cowboy_on_prairie(nd, r, pr, row)
        row[Action.OPEN_EDGES] = opn
        row[Action.RAILROAD + k] = 1.0
        n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def mining_row(nd, r, me, P, troot, rem_e, row):
    """Columns shared by tent and mine candidates on mountain ``r``: open edges, odds, stack, majorities, tents."""
    row[Action.OPEN_EDGES] = nd[r, F_OPEN]
    row[Action.ODDS] = edge_odds(rem_e, np.int64(K_MTN), nd[r, F_OPEN])
    row[Action.SIZE] = nd[r, F_STACK]
    row[Action.NUGGETS] = nd[r, F_NUG]
    mg, ob = margin(nd, r, me, P)
    row[Action.MINER_LEAD] = mg
    row[Action.OPP_MINERS] = ob
    row[Action.OTHER_TENTS] = other_tents(troot, r, me, P)


@njit(cache=True, error_model="numpy", _nrt=False)
def tent_actions(nd, me, P, pi, mtn_nodes, emean, rem_e, frac, supply, troot, moves, feats, n):
    """The tent onto any free mountain area of an unfinished mountain (completed mountains leave the list)."""
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
        action_row(moves, feats, n, A_TENT, x, K_MTN, frac, supply)
        row = feats[n]
        if r == mine_root:
            row[Action.SAME_MOUNTAIN] = (
                1.0  # another area of the mountain under my tent: the same stack, nothing gained
            )
        else:
            row[Action.VALUE] = nd[r, F_STACK] * emean
        row[Action.TENT] = 1.0
        row[Action.TENT_PLACED] = 1.0 if mine_root >= 0 else 0.0
        mining_row(nd, r, me, P, troot, rem_e, row)
        n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def mine_action(nd, me, P, pi, emean, rem_e, frac, supply, troot, moves, feats, n):
    """Take the top token of the stack under my tent (when there is one)."""
    mine_root = troot[me]
    if mine_root >= 0 and nd[mine_root, F_STACK] > 0:
        action_row(moves, feats, n, A_MINE, pi[me, PI_TENT], K_MTN, frac, supply)
        row = feats[n]
        row[Action.POINTS] = emean
        row[Action.VALUE] = nd[mine_root, F_STACK] * emean
        row[Action.MINE] = 1.0
        mining_row(nd, mine_root, me, P, troot, rem_e, row)
        n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def remove_actions(nd, me, cow, pr, emean, rem_e, frac, supply, farmers, moves, feats, n):
    """House rule: take one of my cowboys back without scoring."""
    for k in range(MAXC):
        x = cow[me, k]
        if x < 0:
            continue
        action_row(moves, feats, n, A_REMOVE, x, k, frac, supply)
        row = feats[n]
        r = find(nd, x)
        row[Action.VALUE] = -root_value(nd, r, pr, emean, farmers)
        row[Action.OPEN_EDGES] = nd[r, F_OPEN]
        row[Action.ODDS] = edge_odds(rem_e, nd[r, F_KIND], nd[r, F_OPEN])
        row[Action.REMOVE] = 1.0
        n += 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def action_features(
    nd, gi, pl, t, me, P, seg, nseg, through, pr, emean, pi, cow, rem_e, mtn_nodes, moves, feats, troot
):
    """Legal follower actions after placing tile ``t`` and their features; returns their count (pass first)."""
    left = gi[G_NTILES] - gi[G_DRAW]
    frac = left / max(1.0, gi[G_NTILES] - 1.0)
    farmers = pr[P_FARMERS] > 0.5
    supply = pi[me, PI_SUPPLY]
    action_row(moves, feats, 0, A_PASS, -1, 0, frac, supply)
    n = 1
    if supply > 0:
        n = cowboy_actions(
            nd, t, me, P, pl, seg, nseg, through, pr, emean, rem_e, frac, supply, farmers, moves, feats, n
        )
    if pr[P_SEAT_TENTS + me] > 0.5:  # this seat plays with a tent (per seat: a compensation what-if)
        for p in range(P):
            troot[p] = find(nd, pi[p, PI_TENT]) if pi[p, PI_TENT] >= 0 else -1
        n = tent_actions(nd, me, P, pi, mtn_nodes, emean, rem_e, frac, supply, troot, moves, feats, n)
        n = mine_action(nd, me, P, pi, emean, rem_e, frac, supply, troot, moves, feats, n)
    if pr[P_HOUSE_REMOVE] > 0.5:
        n = remove_actions(nd, me, cow, pr, emean, rem_e, frac, supply, farmers, moves, feats, n)
    return n
