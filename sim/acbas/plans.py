"""Enclosure plans: the candidates of Fences and Walls (``gen_plans``), what borders cost and when they can be
placed, and the action estimate's default enclosure with its per-player cache (``default_borders``)."""

import numpy as np
from numba import njit

from .evaluation import *
from .evaluation import closed_value
from .farm import *
from .layout import *
from .layout import plan_cache_get, plan_cache_set
from .params import *


@njit(cache=True)
def _hg(wk, f):
    return wk[np.uint64(H_ROW + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)]


@njit(cache=True)
def _hs(wk, f, v):
    wk[np.uint64(H_ROW + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)] = v


@njit(cache=True)
def _plan_add(moves, n, maxm, wk, stamp, need, k, R, x):
    """Append plan row [need, k, R, x] unless its border set is already listed (hash set in wk)."""
    if n >= maxm:
        return n
    h = np.int64((need * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - HS_BITS))
    nv = np.int64(need)
    while True:
        if _hg(wk, HS + h) != stamp:
            _hs(wk, HS + h, stamp)
            _hs(wk, h, nv)
            break
        if _hg(wk, h) == nv:
            return n
        h = (h + 1) & (HS - 1)
    moves[np.uint64(n), 0] = nv
    moves[np.uint64(n), 1] = k
    moves[np.uint64(n), 2] = np.int64(R)
    moves[np.uint64(n), 3] = x
    return n + 1


@njit(cache=True)
def useful_edges(ps):
    """Border positions that can still matter: free sides of building-free spaces (a side towards a
    building or between buildings is a border already)."""
    ncols = ps[P_NCOLS]
    EB = U0
    U = U0
    for s in range(3 * ncols):
        if ps[P_BLD + s] != 0:
            EB |= np.uint64(SPACE_EDGES[s])
        else:
            U |= np.uint64(SPACE_EDGES[s])
    return U & ~EB & ~np.uint64(ps[P_E])


@njit(cache=True)
def _regions_without(with_bits, B, w, nreg):
    """Bit j: region 64*w + j (< nreg) holds none of the spaces in B (with_bits: REG_WITH or SREG_WITH)."""
    m = ~U0
    while B != U0:
        lb = B & (~B + U1)
        B &= ~lb
        m &= ~with_bits[np.uint64(popcount(lb - U1)), np.uint64(w)]
    if (w + 1) * 64 > nreg:
        m &= (U1 << np.uint64(nreg - w * 64)) - U1
    return m


@njit(cache=True, _nrt=False)
def _closure_plans(with_bits, regs, bnd, sizes, maxsize, nreg, B, X, kmax, moves, n, maxm, wk, stamp):
    """Append (after the n rows so far) the closure plans of the first nreg regions (regs, their boundaries bnd,
    their sizes; with_bits: REG_WITH or SREG_WITH): every building-free region of at most maxsize spaces whose
    missing borders (its boundary less X: borders and building sides) number 1..kmax, in region order. Regions
    with a building are skipped 64 at a time; the rest get one combined condition (no short-circuit): few pass,
    so its single branch is well predicted. Returns the new row count."""
    for w in range((nreg + 63) >> 6):
        m = _regions_without(with_bits, B, w, nreg)
        while m != U0:
            lb = m & (~m + U1)
            m &= ~lb
            i = w * 64 + popcount(lb - U1)
            need = np.uint64(bnd[np.uint64(i)]) & ~X
            k = popcount(need)
            if (k >= 1) & (k <= kmax) & (sizes[np.uint64(i)] <= maxsize):
                if n >= maxm:
                    break
                n = _plan_add(moves, n, maxm, wk, stamp, need, k, np.uint64(regs[np.uint64(i)]), -1)
        if n >= maxm:
            break
    return n


@njit(cache=True, inline="always")
def _plan_start(ps, wk):
    """What plan generation starts from: (columns, buildings B, their sides EB, borders E) of farm row ps, and a
    new stamp for the hash set that lists each border set once (_plan_add)."""
    ncols = ps[P_NCOLS]
    B = U0
    EB = U0
    for s in range(3 * ncols):
        if ps[P_BLD + s] != 0:
            B |= bit(s)
            EB |= np.uint64(SPACE_EDGES[s])
    stamp = _hg(wk, 2 * HS) + 1
    _hs(wk, 2 * HS, stamp)
    return ncols, B, EB, np.uint64(ps[P_E]), stamp


@njit(cache=True)
def gen_plans(ps, prm, moves, maxm, kmax, maxsize, partial_max, singles, wk, reg, rbnd, rsize, reg_end, reg_with):
    """Enclosure plans, rows [edge mask, borders, region space mask, open space or -1], at most ``maxm``,
    each with 1..kmax borders, each border set once:
    * singles (when ``singles``): every useful border position alone (region 0), so that any border set
      the rules allow can be built border by border, over several actions too;
    * closures: for every connected region R of building-free spaces (every polyomino on the farm, up
      to ``maxsize`` spaces) the borders still missing around it (sides towards buildings need none).
      A region inside a pasture gives a split, a region around an unfinished enclosure its completion,
      a region containing an existing pasture an extension;
    * partial closures (regions up to ``partial_max`` spaces): the same minus the sides towards one free
      neighbour space (the open space), to be closed later by a building or more borders.
    reg, rbnd, rsize, reg_end, reg_with: the region tables (farm.REG, RBND, RSIZE, REG_END, layout.REG_WITH), passed
    in (the engine keeps them in its context record) rather than read as globals: numba would freeze their 700 kB
    into the machine code of every function that calls this one."""
    ncols, B, EB, E, stamp = _plan_start(ps, wk)
    free = active_mask(ncols) & ~B
    n = 0
    if kmax < 1:
        return 0
    if singles:
        U = U0
        for s in range(3 * ncols):
            if free & bit(s) != U0:
                U |= np.uint64(SPACE_EDGES[s])
        U &= ~EB & ~E
        while U != U0:
            b = U & (~U + U1)
            U &= ~b
            n = _plan_add(moves, n, maxm, wk, stamp, b, 1, U0, -1)
    # closures first, then (while room is left) the partial closures
    n = _closure_plans(reg_with, reg, rbnd, rsize, maxsize, reg_end[ncols], B, EB | E, kmax, moves, n, maxm, wk, stamp)
    # REG is sorted by last column, then size: in each column's block the small regions come first
    for cb in range(ncols):
        if n >= maxm:
            break
        for i in range(reg_end[cb], reg_end[cb + 1]):
            if n >= maxm:
                break
            if rsize[i] > partial_max:
                break
            R = np.uint64(reg[i])
            if R & B != U0:
                continue
            need = np.uint64(rbnd[i]) & ~EB & ~E
            k = popcount(need)
            if k < 2:
                continue
            nbm = ((R << U1) & ~ROW0) | ((R >> U1) & ~ROW2) | (R << np.uint64(3)) | (R >> np.uint64(3))
            nbm &= free & ~R
            while nbm != U0:
                bx = nbm & (~nbm + U1)
                nbm &= ~bx
                x = lowbit_index(bx)
                shared = need & np.uint64(SPACE_EDGES[np.uint64(x)])
                if shared == U0:
                    continue
                part = need & ~shared
                kp = popcount(part)
                if kp >= 1 and kp <= kmax:
                    n = _plan_add(moves, n, maxm, wk, stamp, part, kp, R, x)
    if singles:
        # last (while room is left): a border beside a building, alone. The book allows any border anywhere
        # ("Add any number of borders from your supply to your farm"); next to a building it changes no pasture
        # (a building's sides already close it), so it is offered, ranked last, and never makes the action legal
        # by itself (can_border asks for a position that helps)
        V = U0
        for s in range(3 * ncols):
            if B & bit(s) != U0:
                V |= np.uint64(SPACE_EDGES[s])
        V &= ~E
        while V != U0:
            b = V & (~V + U1)
            V &= ~b
            n = _plan_add(moves, n, maxm, wk, stamp, b, 1, U0, -1)
    return n


@njit(cache=True)
def max_borders(ps, prm, walls, placed):
    """Most borders the player can place now (in hand and paid) after ``placed`` in this action."""
    have = ps[P_BORD]
    if not walls:
        if prm[I_FENCE_WOOD] > 0:
            return min(have, ps[P_WOOD] // prm[I_FENCE_WOOD])
        return have
    free = prm[I_WALLS_FREE] - placed
    if free < 0:
        free = 0
    if prm[I_WALL_STONE] > 0:
        return min(have, free + ps[P_STONE] // prm[I_WALL_STONE])
    return have


@njit(cache=True)
def count_pastures(past, DN, RT):
    """Number of closed pastures in the closed-pasture space mask past (flood masks DN, RT). Adding borders
    only refines pastures, so an equal (past, count) means identical pastures (and containers)."""
    nc = 0
    rest = past
    while rest != U0:
        seed = rest & (~rest + U1)
        rest &= ~grow(seed, past, DN, RT)
        nc += 1
    return nc


@njit(cache=True)
def same_pastures(ncols, O, E, past0, nc0):
    """Has ps's farm (open spaces O) with border mask E the closed pastures past0, nc0 of them
    (count_pastures)? They are found by one flood from the leaking spaces, and counted only when they cover
    the same spaces."""
    DN, RT, _LEAK, past = flood_pastures(ncols, O, E)
    if past != past0:
        return False
    return count_pastures(past, DN, RT) == nc0


@njit(cache=True)
def border_cost(walls, k, placed, prm):
    """(wood, stone) for k more borders after ``placed`` in this action."""
    if not walls:
        return k * prm[I_FENCE_WOOD], 0
    free = prm[I_WALLS_FREE] - placed
    if free < 0:
        free = 0
    paid = k - free
    if paid < 0:
        paid = 0
    return 0, paid * prm[I_WALL_STONE]


@njit(cache=True, inline="always")
def build_borders(ps, need, k, w, s):
    """The k borders of edge mask ``need`` from the hand onto farm row ps, paid w wood and s stone."""
    ps[P_E] = ps[P_E] | need
    ps[P_BORD] -= k
    ps[P_WOOD] -= w
    ps[P_STONE] -= s


@njit(cache=True)
def can_border(ps, prm, walls, placed):
    """Can one more border be placed and paid, at a position that still helps (then the single-border plan
    at least is offered)?"""
    return can_border_u(ps, prm, walls, placed, useful_edges(ps))


@njit(cache=True)
def can_border_u(ps, prm, walls, placed, ue):
    """can_border() with ps's useful border positions ue (useful_edges(ps)) known."""
    if ps[P_BORD] <= 0:
        return False
    w, s = border_cost(walls, 1, placed, prm)
    if ps[P_WOOD] < w or ps[P_STONE] < s:
        return False
    return ue != U0


@njit(cache=True)
def default_plans(ps, moves, maxm, kmax, wk):
    """gen_plans(ps, prm, moves, maxm, kmax, DEFAULT_PLAN_SPACES, 0, False, wk) over the short list of small
    regions (SREG): the same rows in the same order."""
    ncols, B, EB, E, stamp = _plan_start(ps, wk)
    if kmax < 1:
        return 0
    return _closure_plans(
        SREG_WITH, SREG, SRBND, SRSIZE, DEFAULT_PLAN_SPACES, SREG_END[ncols], B, EB | E, kmax, moves, 0, maxm, wk, stamp
    )


@njit(cache=True)
def plan_cache_fill(ps, me, prm, wk, moves):
    """Fill player me's cache of the estimate's enclosure plans for ps's farm and borders in hand."""
    b = 0
    key = bld_key(ps)
    n = default_plans(ps, moves, MAXM - 1, ps[P_BORD], wk)
    # a plan's effect on the farm (r + 4, r + 5) is found when a selection first needs it (PC_LAZY until then)
    for i in range(n):
        r = 8 + i * PC_ROW
        plan_cache_set(wk, me, r, moves[i, 0])
        plan_cache_set(wk, me, r + 1, moves[i, 1])
        plan_cache_set(wk, me, r + 2, moves[i, 2])
        plan_cache_set(wk, me, r + 3, moves[i, 3])
        plan_cache_set(wk, me, r + 4, PC_LAZY)
    plan_cache_set(wk, me, b, ps[P_E])
    plan_cache_set(wk, me, b + 1, ps[P_T])
    plan_cache_set(wk, me, b + 2, key)
    plan_cache_set(wk, me, b + 3, ps[P_NCOLS])
    plan_cache_set(wk, me, b + 4, ps[P_BORD])
    plan_cache_set(wk, me, b + 5, 1)
    plan_cache_set(wk, me, b + 6, n)
    # the best plan per affordable border count: unknown (only counts up to the borders in hand are asked for
    # until the next fill: the cache key holds them)
    for j in range(min(ps[P_BORD] + 1, PC_KC)):
        plan_cache_set(wk, me, PC_BEST + j, -2)
        plan_cache_set(wk, me, PC_BEST + PC_KC + j, -2)


@njit(cache=True, _nrt=False)
def default_borders(ps, me, walls, prm, prmf, wk, moves, key, checked):
    """The estimate's enclosure: the best plan (regions up to DEFAULT_PLAN_SPACES spaces, closed at once) by
    cheap value + capacity/5 - goods/20, placed once. Plans and their farm effect are cached per player
    until the farm or the borders in hand change (plan_cache_fill). key: bld_key(ps); checked: the caller
    has checked can_border(ps, prm, walls, 0). Returns the placed plan's cache offset r (its borders at r + 1,
    expansion points x 2 and capacity it adds at r + 4, r + 5, and at r + 3 1 when the farm keeps all its
    animals after it: keeps_all), or -1 when none is placed."""
    if not checked and not can_border(ps, prm, walls, 0):
        return -1
    b = 0
    if not (
        plan_cache_get(wk, me, b + 5) == 1
        and plan_cache_get(wk, me, b) == ps[P_E]
        and plan_cache_get(wk, me, b + 1) == ps[P_T]
        and plan_cache_get(wk, me, b + 2) == key
        and plan_cache_get(wk, me, b + 3) == ps[P_NCOLS]
        and plan_cache_get(wk, me, b + 4) == ps[P_BORD]
    ):
        plan_cache_fill(ps, me, prm, wk, moves)
    n = plan_cache_get(wk, me, b + 6)
    # which plans are affordable depends only on the most borders kc that can be paid (every plan has at
    # most ps[P_BORD] borders): the best plan is remembered per (walls, kc) with the cached plans
    kc = ps[P_BORD]
    if walls:
        if prm[I_WALL_STONE] > 0:
            kc = min(kc, max(prm[I_WALLS_FREE], 0) + ps[P_STONE] // prm[I_WALL_STONE])
    elif prm[I_FENCE_WOOD] > 0:
        kc = min(kc, ps[P_WOOD] // prm[I_FENCE_WOOD])
    slot = -1
    if kc >= 0 and kc < PC_KC:
        slot = PC_BEST + (PC_KC if walls else 0) + kc
        bi = plan_cache_get(wk, me, slot)
    if slot < 0 or bi == -2:
        st = prmf[0] if has_building(ps, B_STORAGE) else 0.0
        best = -1e18
        bi = -1
        masks = False
        for i in range(n):
            r = 8 + i * PC_ROW
            w, s = border_cost(walls, plan_cache_get(wk, me, r + 1), 0, prm)
            if w > ps[P_WOOD] or s > ps[P_STONE]:
                continue
            if plan_cache_get(wk, me, r + 4) == PC_LAZY:
                # a plan changes only the borders: of eval_cheap's value only the expansion points and the
                # capacity of pastures and lone troughs can change (closed_value)
                if not masks:
                    ncols, B, T, O = open_spaces(ps)
                    DN, RT, LEAK, past0 = flood_pastures(ncols, O, np.uint64(ps[P_E]))
                    cap0, nexp0 = closed_value(ps, prm, O, B, T, past0, DN, RT, U0)
                    masks = True
                # closing R borders exactly R's boundary: R is closed and the rest floods as before without R
                R = np.uint64(plan_cache_get(wk, me, r + 2))
                past1 = O & ~grow(LEAK & ~R, O & ~R, DN, RT)
                cap1, nexp1 = closed_value(ps, prm, O, B, T, past1, DN, RT, R)
                plan_cache_set(wk, me, r + 4, 2 * (nexp1 - nexp0) * prm[I_EXP_POINTS])
                plan_cache_set(wk, me, r + 5, cap1 - cap0)
                # no closed pasture changes when R holds none of their spaces (their sides are all borders)
                plan_cache_set(wk, me, r + 3, 1 if R & past0 == U0 and keeps_all(prm, wk, T, past1 & ~past0) else 0)
            v = (
                0.5 * plan_cache_get(wk, me, r + 4)
                - st * (w + s)
                + 0.2 * plan_cache_get(wk, me, r + 5)
                - 0.05 * (w + s)
            )
            if v > best + 1e-9:
                best = v
                bi = i
        if slot >= 0:
            plan_cache_set(wk, me, slot, bi)
    if bi < 0:
        return -1
    r = 8 + bi * PC_ROW
    w, s = border_cost(walls, plan_cache_get(wk, me, r + 1), 0, prm)
    build_borders(ps, plan_cache_get(wk, me, r), plan_cache_get(wk, me, r + 1), w, s)
    return r
