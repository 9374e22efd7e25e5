"""Troughs, stall, stables, special buildings, expansion (their costs, what a build does to a farm row, the
candidates of the Stall and Stables with their features), the action spaces' legality, refills and the view:
rule helpers of the engine (the decisions themselves are in ``construction.py`` and ``actions.py``, the
estimates' default choices in ``defaults.py``)."""

import numpy as np
from numba import njit

from .evaluation import *
from .evaluation import copy_row
from .farm import *
from .layout import *
from .layout import log_row, plan_cache_get, plan_cache_set
from .params import *
from .plans import *

# ---------------------------------------------------------------------------------------------
# troughs, stall, stables, special buildings, expansion


@njit(cache=True, inline="always")
def pasture_of(ps, past, s):
    ncols = ps[P_NCOLS]
    O = past
    DN, RT, _LEAK = flood_prep(ncols, O, np.uint64(ps[P_E]))
    return grow(bit(s), O, DN, RT)


@njit(cache=True, inline="always")
def trough_cost(placed, prm):
    return 0 if placed < prm[I_TROUGH_FREE] else prm[I_TROUGH_WOOD]


@njit(cache=True, inline="always")
def build_trough(ps, s, w):
    """A trough on space s of farm row ps, paid w wood."""
    ps[P_T] = np.int64(np.uint64(ps[P_T]) | bit(s))
    ps[P_WOOD] -= w


@njit(cache=True, inline="always")
def build_stall(ps, s, prm):
    """A stall on space s of farm row ps, paid in stone and reed."""
    ps[np.uint64(P_BLD + s)] = B_STALL
    ps[P_STONE] -= prm[I_STALL_STONE]
    ps[P_REED] -= prm[I_STALL_REED]


@njit(cache=True, inline="always")
def build_stables(ps, s, pay, prm):
    """The stall on space s of farm row ps becomes stables, paid in wood (pay 0) or stone (pay 1)."""
    ps[np.uint64(P_BLD + s)] = B_STABLES
    if pay == 0:
        ps[P_WOOD] -= prm[I_STABLES_COST]
    else:
        ps[P_STONE] -= prm[I_STABLES_COST]


@njit(cache=True, _nrt=False)
def trough_gain(ps, prm, past, s):
    """(capacity, expansion points) that one more trough on space s adds to ps's farm (closed pastures past).
    The farm then keeps every animal it houses now: its containers only grow (eval_known scores it)."""
    T = np.uint64(ps[P_T])
    tm = prm[I_TMULT]
    code = ps[np.uint64(P_BLD + s)]
    if code != 0:
        c = prm[np.uint64(I_CAPB + code)]
        return (c * tm - c if c > 0 else 0), 0
    if past & bit(s) != U0:
        P = pasture_of(ps, past, s)
        base = prm[I_PASTURE] * popcount(P)
        c0 = times_pow(base, tm, popcount(P & T))
        c1 = times_pow(base, tm, popcount(P & T) + 1)
        return max(c1, 0) - max(c0, 0), 0
    # an open space: a lone trough, and the space counts as used for the expansions
    used = building_mask(ps) | T | past
    return max(prm[I_LONE], 0), (full_columns(ps, used | bit(s)) - full_columns(ps, used)) * prm[I_EXP_POINTS]


@njit(cache=True, inline="always")
def est_cache(ps, me, wk, key):
    """Make the per-player estimate cache (PC_EST) describe ps's farm (resetting it if the farm changed);
    key: bld_key(ps)."""
    if not (
        plan_cache_get(wk, me, PC_EST) == ps[P_E]
        and plan_cache_get(wk, me, PC_EST + 1) == ps[P_T]
        and plan_cache_get(wk, me, PC_EST + 2) == key
        and plan_cache_get(wk, me, PC_EST + 3) == ps[P_NCOLS]
    ):
        plan_cache_set(wk, me, PC_EST, ps[P_E])
        plan_cache_set(wk, me, PC_EST + 1, ps[P_T])
        plan_cache_set(wk, me, PC_EST + 2, key)
        plan_cache_set(wk, me, PC_EST + 3, ps[P_NCOLS])
        plan_cache_set(wk, me, PC_EST + 4, -2)
        plan_cache_set(wk, me, PC_EST + 5, -2)
        plan_cache_set(wk, me, PC_EST + 6, -1)


@njit(cache=True, inline="always")
def can_stall(ps, gs, prm):
    if gs[GS_STALLS] <= 0 or ps[P_STONE] < prm[I_STALL_STONE] or ps[P_REED] < prm[I_STALL_REED]:
        return False
    return building_mask(ps) != ((np.uint64(1) << np.uint64(3 * ps[P_NCOLS])) - np.uint64(1))


@njit(cache=True, inline="always")
def can_stables(ps, prm):
    c = prm[I_STABLES_COST]
    if ps[P_WOOD] < c and ps[P_STONE] < c:
        return False
    for s in range(3 * ps[P_NCOLS]):
        if ps[P_BLD + s] == B_STALL:
            return True
    return False


@njit(cache=True, _nrt=False)
def stall_rows(ps, prm, prmf, wk, moves, feats, tps, res0, res1, cheap):
    """The Stall's candidates: every building-free space, each with the features of the farm with the stall there
    (from res0, ps's evaluation; evaluated exactly, or when ``cheap`` by eval_cheap). Returns their number."""
    m = 0
    for s in range(3 * ps[P_NCOLS]):
        if ps[np.uint64(P_BLD + s)] != 0:
            continue
        set_move(moves, m, s, 0, 0, 0)
        copy_row(tps, ps)
        build_stall(tps, s, prm)
        evalx(tps, prm, prmf, wk, res1, cheap)
        feat_row(feats, m, res0, res1, ps, tps, 0)
        m += 1
    return m


@njit(cache=True, _nrt=False)
def stables_rows(ps, prm, prmf, wk, moves, feats, tps, res0, res1, cheap):
    """The Stables' candidates: every stall, paid in wood (pay 0) or stone (pay 1) where the player has enough,
    each with the features of the farm with those stables (as stall_rows). Returns their number."""
    c = prm[I_STABLES_COST]
    m = 0
    for s in range(3 * ps[P_NCOLS]):
        if ps[np.uint64(P_BLD + s)] != B_STALL:
            continue
        for pay in range(2):
            if (pay == 0 and ps[P_WOOD] < c) or (pay == 1 and ps[P_STONE] < c):
                continue
            set_move(moves, m, s, pay, 0, 0)
            copy_row(tps, ps)
            build_stables(tps, s, pay, prm)
            evalx(tps, prm, prmf, wk, res1, cheap)
            feat_row(feats, m, res0, res1, ps, tps, 0)
            m += 1
    return m


@njit(cache=True, inline="always")
def special_cost(code, pay, prm):
    """(wood, stone, reed) of a special building (pay: 0 wood / 1 stone for the Open Stables)."""
    if code == B_HTH:
        return prm[I_HTH_W], prm[I_HTH_S], prm[I_HTH_R]
    if code == B_STORAGE:
        return prm[I_STO_W], prm[I_STO_S], prm[I_STO_R]
    if code == B_SHELTER:
        return prm[I_SHE_W], prm[I_SHE_S], prm[I_SHE_R]
    if pay == 0:
        return prm[I_OPEN_COST], 0, 0
    return 0, prm[I_OPEN_COST], 0


@njit(cache=True, inline="always")
def special_offer(ps, gs, j, pay, prm):
    """The code of special building j (SPECIAL_CODES) when it is still available, can be paid that way (pay 1,
    stone, only for the Open Stables) and ps's player has the goods for it; else 0."""
    if gs[GS_SPEC + j] == 0:
        return 0
    code = SPECIAL_CODES[j]
    if pay == 1 and code != B_OPEN:
        return 0
    w, st, r = special_cost(code, pay, prm)
    if ps[P_WOOD] < w or ps[P_STONE] < st or ps[P_REED] < r:
        return 0
    return code


@njit(cache=True, inline="always")
def special_fits(code, b):
    """Can special building ``code`` stand on a space holding building b? The Half-Timbered House replaces the
    cottage, the Open Stables a stall; the others need a space without a building."""
    if code == B_HTH:
        return b == B_COTTAGE
    if code == B_OPEN:
        return b == B_STALL
    return b == 0


@njit(cache=True, inline="always")
def has_special_space(ps, code):
    """Has farm row ps a space on which special building ``code`` can stand?"""
    for s in range(3 * ps[P_NCOLS]):
        if special_fits(code, ps[P_BLD + s]):
            return True
    return False


@njit(cache=True)
def gen_specials(ps, gs, prm, moves):
    """Rows [code, space, pay]: every available, affordable special building on every legal space."""
    m = 0
    for j in range(4):
        for pay in range(2):
            code = special_offer(ps, gs, j, pay, prm)
            if code == 0:
                continue
            for s in range(3 * ps[P_NCOLS]):
                if special_fits(code, ps[P_BLD + s]):
                    set_move(moves, m, code, s, pay, 0)
                    m += 1
    return m


@njit(cache=True, _nrt=False)
def can_special(ps, gs, prm):
    """Can ps's player build a special building now (one is available, affordable and has a space)?"""
    for j in range(4):
        for pay in range(2):
            code = special_offer(ps, gs, j, pay, prm)
            if code != 0 and has_special_space(ps, code):
                return True
    return False


@njit(cache=True, inline="always")
def build_special(ps, code, s, pay, prm):
    """Special building ``code`` on space s of farm row ps, paid (pay: 0 wood / 1 stone for the Open Stables)."""
    w, st, r = special_cost(code, pay, prm)
    ps[P_WOOD] -= w
    ps[P_STONE] -= st
    ps[P_REED] -= r
    ps[np.uint64(P_BLD + s)] = code


@njit(cache=True, inline="always")
def place_special(ps, gs, code, s, pay, prm):
    build_special(ps, code, s, pay, prm)
    if code == B_OPEN:
        gs[GS_STALLS] += 1  # the stall tile goes back to the supply
    for j in range(4):
        if SPECIAL_CODES[j] == code:
            gs[GS_SPEC + j] = 0


@njit(cache=True, inline="always")
def quick_free_animal(ps, code, prm):
    """The estimate's free animal: the type whose next animal adds the most points (housing ignored)."""
    best = -1 << 30
    bt = 0
    for t in range(4):
        if code == B_OPEN and t < 2:
            continue
        n = ps[P_AN + t]
        v = fval(prm, t, n + 1) - fval(prm, t, n)
        if v > best:
            best = v
            bt = t
    return bt


@njit(cache=True)
def best_free_animal(ps, code, prm, prmf, wk, tps, res1):
    """Default choice of the free animal (Shelter: any type, Open Stables: cow or horse). The farm is the same
    for every type: its containers are found once (kept in row S2_ROW)."""
    best = -1e18
    bt = 0
    K = np.int64(-1)
    past = U0
    bk = bld_key(ps)
    for t in range(4):
        if code == B_OPEN and t < 2:
            continue
        copy_row(tps, ps)
        tps[P_AN + t] += 1
        K, past = evaluate_m(tps, prm, prmf, wk, res1, K, past, np.int64(S2_ROW), bk)
        if res1[0] > best + 1e-9:
            best = res1[0]
            bt = t
    return bt


@njit(cache=True, inline="always")
def add_column(ps, left):
    if left:
        ps[P_E] = np.int64(np.uint64(ps[P_E]) << np.uint64(7))
        ps[P_T] = np.int64(np.uint64(ps[P_T]) << np.uint64(3))
        for s in range(17, 2, -1):
            ps[np.uint64(P_BLD + s)] = ps[np.uint64(P_BLD + s - 3)]
        ps[P_BLD] = 0
        ps[P_BLD + 1] = 0
        ps[P_BLD + 2] = 0
        ps[P_HOME] += 1
    ps[P_NCOLS] += 1


# ---------------------------------------------------------------------------------------------
# action spaces


@njit(cache=True, inline="always")
def slot_legal(ps, gs, slot, prm, me, wk, moves):
    """Can ps's player take this action space now?"""
    return slot_legal_u(ps, gs, slot, prm, me, wk, moves, useful_edges(ps))


@njit(cache=True, inline="always")
def slot_legal_u(ps, gs, slot, prm, me, wk, moves, ue):
    """slot_legal() with ue = useful_edges(ps) known."""
    if gs[np.uint64(GS_OCC + slot)] >= 0:
        return False
    if slot == S_SPEC2 and gs[GS_OCC + S_SPEC1] < 0:
        return False  # the two special-building slots are the same action: offer the first free one
    if slot == S_FENCES or slot == S_WALLS:
        # the action must be carried out: at least one enclosure plan (a single border at least) has to be
        # affordable at a position that helps
        return can_border_u(ps, prm, slot == S_WALLS, 0, ue)
    if slot == S_TROUGHS:
        return (
            gs[GS_TROUGHS] > 0
            and ps[P_WOOD] >= trough_cost(0, prm)
            and np.uint64(ps[P_T]) != ((np.uint64(1) << np.uint64(3 * ps[P_NCOLS])) - np.uint64(1))
        )
    if slot == S_STALL:
        return can_stall(ps, gs, prm)
    if slot == S_STABLES:
        return can_stables(ps, prm)
    if slot == S_SPEC1 or slot == S_SPEC2:
        return can_special(ps, gs, prm)
    return True


@njit(cache=True)
def refill(gs, prm):
    a = GS_ACC
    gs[np.uint64(a + S_SP * NG + G_WOOD)] += prm[I_SP_WOOD]
    gs[np.uint64(a + S_WOOD * NG + G_WOOD)] += prm[I_WOOD3]
    gs[np.uint64(a + S_STONE1 * NG + G_STONE)] += prm[I_STONE1]
    gs[np.uint64(a + S_STONE2 * NG + G_STONE)] += prm[I_STONE2]
    add = min(prm[I_EXP_REFILL], gs[GS_POOL])
    gs[np.uint64(a + S_EXPAND * NG + G_BORD)] += add
    gs[GS_POOL] -= add
    _xy(gs, S_MILL, G_REED, prm[I_MILL_X], G_SHEEP, prm[I_MILL_Y])
    _xy(gs, S_PIGSHEEP, G_PIG, prm[I_PS_X], G_SHEEP, prm[I_PS_Y])
    _xy(gs, S_COWPIG, G_COW, prm[I_CP_X], G_PIG, prm[I_CP_Y])
    _xy(gs, S_HORSESHEEP, G_HORSE, prm[I_HS_X], G_SHEEP, prm[I_HS_Y])


@njit(cache=True, inline="always")
def _xy(gs, slot, gx, x, gy, y):
    """'X (Y)': X if the space is empty, else add Y."""
    a = GS_ACC + slot * NG
    empty = True
    for j in range(NG):
        if gs[np.uint64(a + j)] != 0:
            empty = False
    if empty:
        gs[np.uint64(a + gx)] += x
    else:
        gs[np.uint64(a + gy)] += y


@njit(cache=True)
def fill_view(view, gs, ps_me, ps_opp, me, slot, myleft, oppleft, prm):
    view[V_ROUND] = gs[GS_ROUND]
    view[V_ROUNDS] = prm[I_ROUNDS]
    view[V_SEAT] = me
    view[V_START] = gs[GS_START]
    view[V_SLOT] = slot
    view[V_MYLEFT] = myleft
    view[V_OPPLEFT] = oppleft
    for i in range(P_SIZE):
        view[V_ME + i] = ps_me[i]
        view[V_OPP + i] = ps_opp[i]
    for i in range(GS_SIZE):
        view[V_GS + i] = gs[i]


@njit(cache=True)
def bounds_hold(prm, prmf):
    """Do the bounds of the pruned estimates (post_action, READS "max0") hold for these parameters? Points per
    type never fall with one more animal (up to WCOLS - 1 of a type), the Storage Building pays >= 0 per good,
    costs are >= 0 (the parameter check demands it; checked again here). The shortcuts that skip the housing
    of a farm that keeps all its animals (MONO_COL) need the same."""
    for t in range(4):
        for k in range(WCOLS - 1):
            if fval(prm, t, k + 1) < fval(prm, t, k):
                return False
    if prmf[0] < 0.0:
        return False
    return (
        prm[I_FENCE_WOOD] >= 0
        and prm[I_WALL_STONE] >= 0
        and prm[I_TROUGH_WOOD] >= 0
        and prm[I_STALL_STONE] >= 0
        and prm[I_STALL_REED] >= 0
    )


@njit(cache=True, inline="always")
def exp_bound(ps, prm, res):
    """The most expansion points an action can add to ps's farm (res: its evaluation; res[11] = the points of
    its full expansions): every expansion column not full yet becoming full. Buildings, troughs and closed
    pastures only ever grow, so an expansion never stops being full."""
    ep = prm[I_EXP_POINTS]
    if ep <= 0:
        return 0.0
    return ep * (ps[P_NCOLS] - 2) - res[11]


@njit(cache=True)
def log_farm(ps, me, log, nlog, log_on):
    if not log_on:
        return
    packed = np.int64(0)
    for s in range(18):
        packed |= np.int64(ps[P_BLD + s]) << np.int64(3 * s)
    log_row(
        log,
        nlog,
        log_on,
        E_FARM,
        me,
        ps[P_NCOLS],
        ps[P_HOME],
        ps[P_E],
        ps[P_T],
        packed,
        ps[P_AN] | (ps[P_AN + 1] << 16) | (ps[P_AN + 2] << 32) | (ps[P_AN + 3] << 48),
        ps[P_WOOD] | (ps[P_STONE] << 16) | (ps[P_REED] << 32) | (ps[P_BORD] << 48),
        0,
    )
