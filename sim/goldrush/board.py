"""Board, union-find features and tile placement (numba).

The board is a fixed ``B x B`` array (``B = 2 * n_tiles + 3``) with the start tile in the centre, so any
layout of the deck fits. Every placed tile gets ``SLOTS`` union-find nodes (one per segment); a root holds
the feature's counters (open edges, segments, nuggets, locomotives, token stack, tipis, horses, railroad end
tiles, cowboys per player). Open positions are kept in a frontier list with each cell's edge constraint.
"""

from numba import njit

from .const import (
    E_M,
    E_R,
    EV_TOKENS,
    F_CITY,
    F_COW,
    F_DONE,
    F_END0,
    F_END1,
    F_HORSE,
    F_KIND,
    F_LOCO,
    F_NUG,
    F_OCC,
    F_OPEN,
    F_PAR,
    F_SEG,
    F_SEGS,
    F_STACK,
    F_TILE,
    F_TIPI,
    G_B,
    G_NFRONT,
    G_NPL,
    G_SUPPLY,
    K_MTN,
    K_RAIL,
    MAXP,
    S_CITY,
    S_HORSE,
    S_KIND,
    S_LOCO,
    S_NEDGES,
    S_NUG,
    S_SPUR,
    S_TIPI,
    SLOTS,
)


@njit(cache=True, inline="always", error_model="numpy")
def delta(d, B):
    if d == 0:
        return -B
    if d == 1:
        return 1
    if d == 2:
        return B
    return -1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def emit(log, nlog, a, b, c, d, e, f, g):
    """Append an event row to ``log`` when logging is on (``nlog``: rows written, on flag)."""
    if nlog[1] == 0:
        return
    i = nlog[0]
    if i >= log.shape[0]:
        return
    log[i, 0] = a
    log[i, 1] = b
    log[i, 2] = c
    log[i, 3] = d
    log[i, 4] = e
    log[i, 5] = f
    log[i, 6] = g
    nlog[0] = i + 1


@njit(cache=True, error_model="numpy", _nrt=False)
def find(nd, x):
    while nd[x, F_PAR] != x:
        p = nd[x, F_PAR]
        gp = nd[p, F_PAR]
        nd[x, F_PAR] = gp
        x = gp
    return x


@njit(cache=True, error_model="numpy", _nrt=False)
def union(nd, a, b):
    ra = find(nd, a)
    rb = find(nd, b)
    if ra == rb:
        return ra
    if nd[ra, F_SEGS] < nd[rb, F_SEGS]:
        t = ra
        ra = rb
        rb = t
    nd[rb, F_PAR] = ra
    nd[ra, F_OPEN] += nd[rb, F_OPEN]
    nd[ra, F_SEGS] += nd[rb, F_SEGS]
    nd[ra, F_NUG] += nd[rb, F_NUG]
    nd[ra, F_LOCO] += nd[rb, F_LOCO]
    nd[ra, F_STACK] += nd[rb, F_STACK]
    nd[ra, F_TIPI] += nd[rb, F_TIPI]
    nd[ra, F_HORSE] += nd[rb, F_HORSE]
    for p in range(MAXP):
        nd[ra, F_COW + p] += nd[rb, F_COW + p]
    if nd[rb, F_DONE] > nd[ra, F_DONE]:
        nd[ra, F_DONE] = nd[rb, F_DONE]
    # closed railroad ends (at most two on a path)
    for k in range(2):
        e = nd[rb, F_END0 + k]
        if e >= 0:
            if nd[ra, F_END0] < 0:
                nd[ra, F_END0] = e
            elif nd[ra, F_END1] < 0:
                nd[ra, F_END1] = e
    return ra


@njit(cache=True, error_model="numpy", _nrt=False)
def constraint_mask(c):
    x = (c | (c >> 1)) & 0x55
    return x * 3


@njit(cache=True, error_model="numpy", _nrt=False)
def fits(code, cons):
    return ((code ^ cons) & constraint_mask(cons)) == 0


@njit(cache=True, error_model="numpy", _nrt=False)
def place_tile(
    nd, gi, pl, board, front, fidx, cons, mtn_nodes, pos, inst, rot, seg, nseg, edges, edge_seg, half_seg, log, nlog
):
    """Put tile ``inst`` at ``pos`` turned ``rot``; merge features; put mining tokens; update the frontier.

    Returns the placement index of the tile.
    """
    B = gi[G_B]
    t = gi[G_NPL]
    gi[G_NPL] = t + 1
    pl[t, 0] = inst
    pl[t, 1] = rot
    pl[t, 2] = pos
    board[pos] = t
    ns = nseg[inst]
    base = t * SLOTS
    for s in range(ns):
        x = base + s
        nd[x, F_PAR] = x
        k = seg[inst, s, S_KIND]
        nd[x, F_KIND] = k
        nd[x, F_OPEN] = seg[inst, s, S_NEDGES]
        nd[x, F_SEGS] = 1
        nd[x, F_NUG] = seg[inst, s, S_NUG]
        nd[x, F_LOCO] = seg[inst, s, S_LOCO]
        nd[x, F_STACK] = 0
        nd[x, F_TIPI] = seg[inst, s, S_TIPI]
        nd[x, F_HORSE] = seg[inst, s, S_HORSE]
        nd[x, F_END0] = t if (k == K_RAIL and seg[inst, s, S_SPUR] == 1) else -1
        nd[x, F_END1] = -1
        nd[x, F_OCC] = -1
        nd[x, F_TILE] = t
        nd[x, F_DONE] = 0
        nd[x, F_CITY] = base + seg[inst, s, S_CITY] if seg[inst, s, S_CITY] >= 0 else -1
        nd[x, F_SEG] = s
        for p in range(MAXP):
            nd[x, F_COW + p] = 0
        if k == K_MTN:
            mtn_nodes[mtn_nodes[0] + 1] = x
            mtn_nodes[0] += 1
    code = edges[inst, rot]
    for d in range(4):
        npos = pos + delta(d, B)
        nt = board[npos]
        od = (d + 2) % 4
        if nt < 0:
            # frontier: constraint of the empty neighbour
            cons[npos] |= ((code >> (2 * d)) & 3) << (2 * od)
            if fidx[npos] < 0:
                n = gi[G_NFRONT]
                front[n] = npos
                fidx[npos] = n
                gi[G_NFRONT] = n + 1
            continue
        ninst = pl[nt, 0]
        nrot = pl[nt, 1]
        e = (code >> (2 * d)) & 3
        nbase = nt * SLOTS
        if e == E_R or e == E_M:
            a = base + edge_seg[inst, rot, d]
            b = nbase + edge_seg[ninst, nrot, od]
            r = union(nd, a, b)
            nd[r, F_OPEN] -= 2
        for j in range(2):
            s = half_seg[inst, rot, 2 * d + j]
            if s < 0:
                continue
            sn = half_seg[ninst, nrot, 2 * od + 1 - j]
            union(nd, base + s, nbase + sn)
    # remove pos from the frontier
    i = fidx[pos]
    if i >= 0:
        n = gi[G_NFRONT] - 1
        last = front[n]
        front[i] = last
        fidx[last] = i
        fidx[pos] = -1
        gi[G_NFRONT] = n
    cons[pos] = 0
    # mining tokens: one per nugget on the mountain's single stack
    for s in range(ns):
        if seg[inst, s, S_KIND] == K_MTN and seg[inst, s, S_NUG] > 0:
            k = seg[inst, s, S_NUG]
            if k > gi[G_SUPPLY]:
                k = gi[G_SUPPLY]
            if k > 0:
                r = find(nd, base + s)
                nd[r, F_STACK] += k
                gi[G_SUPPLY] -= k
                emit(log, nlog, EV_TOKENS, base + s, k, nd[r, F_STACK], 0, 0, 0)
    return t


@njit(cache=True, error_model="numpy", _nrt=False)
def rail_tiles(nd, r, pl, through):
    """Tiles of railroad feature ``r`` (segments minus tiles counted twice)."""
    n = nd[r, F_SEGS]
    e0 = nd[r, F_END0]
    e1 = nd[r, F_END1]
    if e0 >= 0 and e0 == e1:
        n -= 1
    for k in range(2):
        te = nd[r, F_END0 + k]
        if te < 0 or (k == 1 and te == e0):
            continue
        ts = through[pl[te, 0]]
        if ts >= 0 and find(nd, te * SLOTS + ts) == r:
            n -= 1
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def city_status(nd, c, pl, seg, nseg):
    """(complete?, distinct completed railroads) of the city node ``c``."""
    t = nd[c, F_TILE]
    inst = pl[t, 0]
    cs = nd[c, F_SEG]
    complete = True
    ndist = 0
    for s in range(nseg[inst]):
        if seg[inst, s, S_KIND] != K_RAIL or seg[inst, s, S_CITY] != cs:
            continue
        r = find(nd, t * SLOTS + s)
        if nd[r, F_OPEN] > 0:
            complete = False
            continue
        dup = False
        for s2 in range(s):
            if seg[inst, s2, S_KIND] == K_RAIL and seg[inst, s2, S_CITY] == cs and find(nd, t * SLOTS + s2) == r:
                dup = True
        if not dup:
            ndist += 1
    return complete, ndist


@njit(cache=True, error_model="numpy", _nrt=False)
def new_game_board(nd, gi, pl, board, front, fidx, cons, mtn_nodes):
    """Reset the arrays touched by a previous game."""
    for t in range(gi[G_NPL]):
        board[pl[t, 2]] = -1
    for i in range(gi[G_NFRONT]):
        fidx[front[i]] = -1
        cons[front[i]] = 0
    gi[G_NPL] = 0
    gi[G_NFRONT] = 0
    mtn_nodes[0] = 0
