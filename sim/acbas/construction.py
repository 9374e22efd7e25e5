"""The building actions other than borders, each carried out as the player's decisions: Troughs (one trough after
another, until the player stops), Stall, Stables (one stall after another), Special building (which, where, how
paid, then the free animal of the Shelter or the Open Stables) and Expand (which side)."""

import numpy as np
from numba import njit

from meeplab.sim.core.forward import C_PHASE
from meeplab.sim.core.records import post_decision

from .animals import settle, settle_turn
from .buildings import *
from .evaluation import *
from .evaluation import closed_value, copy_row, eval_known
from .farm import *
from .layout import *
from .params import *
from .state import C_CODE, C_GOT, C_PLACED, PH_ANIMAL, PH_SPECIAL, PH_STABLES, PH_TROUGHS
from .turns import acting, end_turn, log_wide


# ---------------------------------------------------------------------------------------------------------------
# Troughs, Stall, Stables
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def post_troughs(st, tab):
    """The next trough's space (or stop, after a first one); -1 when none can be placed (the action ends)."""
    r, prm, prmf, wk, me, ps = acting(st, tab)
    tps = st.scr[0].tps[0]
    res0 = r.res[0]
    res1 = r.res[1]
    moves = r.moves
    placed = r.ctl[C_PLACED]
    if r.gs[GS_TROUGHS] <= 0:
        end_turn(st)
        return -1
    w = trough_cost(placed, prm)
    if ps[P_WOOD] < w:
        end_turn(st)
        return -1
    storage = has_building(ps, B_STORAGE)
    evaluate(ps, prm, prmf, wk, res0)
    T = np.uint64(ps[P_T])
    m = 0
    past = pastures_mask(ps)
    for s in range(3 * ps[P_NCOLS]):
        if T & bit(s) != U0:
            continue
        set_move(moves, m, s, w, 0, 0)
        copy_row(tps, ps)
        build_trough(tps, s, w)
        # a trough keeps every animal: no housing needed, only its capacity and expansions (trough_gain)
        dc, dx = trough_gain(ps, prm, past, s)
        if wk[S_ROW, MONO_COL] == 1:
            eval_kept(tps, prm, prmf, res0, res1, dc, dx, storage)
        else:
            evaluate(tps, prm, prmf, wk, res1)
        feat_row(r.feats, m, res0, res1, ps, tps, 0)
        m += 1
    if m == 0:
        end_turn(st)
        return -1
    if placed > 0:
        m = stop_row(moves, r.feats, m, -1, 0, 0, 0)
    return post_decision(st, me, K_TROUGH, m)


@njit(cache=True, _nrt=False)
def apply_troughs(st, tab, i):
    r, prm, _prmf, _wk, me, ps = acting(st, tab)
    s = r.moves[np.uint64(i), 0]
    if s < 0:
        end_turn(st)
        return
    w = trough_cost(r.ctl[C_PLACED], prm)
    build_trough(ps, s, w)
    r.gs[GS_TROUGHS] -= 1
    r.ctl[C_PLACED] += 1
    log_wide(st, E_TROUGH, me, s, w, 0, 0, 0, 0, 0, 0)
    settle(st, tab, me, np.int64(PH_TROUGHS))


@njit(cache=True, _nrt=False)
def post_stall(st, tab):
    """The Stall's space (any building-free space; the action space is offered only when one exists)."""
    r, prm, prmf, wk, me, ps = acting(st, tab)
    evaluate(ps, prm, prmf, wk, r.res[0])
    m = stall_rows(ps, prm, prmf, wk, r.moves, r.feats, st.scr[0].tps[0], r.res[0], r.res[1], False)
    return post_decision(st, me, K_STALL, m)


@njit(cache=True, _nrt=False)
def apply_stall(st, tab, i):
    r, prm, _prmf, _wk, me, ps = acting(st, tab)
    s = r.moves[np.uint64(i), 0]
    build_stall(ps, s, prm)
    r.gs[GS_STALLS] -= 1
    log_wide(st, E_STALL, me, s, 0, 0, 0, 0, 0, 0, 0)
    settle_turn(st, tab, me)


@njit(cache=True, _nrt=False)
def post_stables(st, tab):
    """The next stall to upgrade and how to pay (or stop, after a first one); -1 when none can be (the action
    ends)."""
    r, prm, prmf, wk, me, ps = acting(st, tab)
    evaluate(ps, prm, prmf, wk, r.res[0])
    if not can_stables(ps, prm):
        end_turn(st)
        return -1
    m = stables_rows(ps, prm, prmf, wk, r.moves, r.feats, st.scr[0].tps[0], r.res[0], r.res[1], False)
    if r.ctl[C_PLACED] > 0:
        m = stop_row(r.moves, r.feats, m, -1, -1, 0, 0)
    return post_decision(st, me, K_STABLES, m)


@njit(cache=True, _nrt=False)
def apply_stables(st, tab, i):
    r, prm, prmf, wk, me, ps = acting(st, tab)
    s = r.moves[np.uint64(i), 0]
    if s < 0:
        evaluate(ps, prm, prmf, wk, r.res[0])
        end_turn(st)
        return
    build_stables(ps, s, r.moves[np.uint64(i), 1], prm)
    r.ctl[C_PLACED] += 1
    log_wide(st, E_STABLES, me, s, r.moves[np.uint64(i), 1], 0, 0, 0, 0, 0, 0)
    settle(st, tab, me, np.int64(PH_STABLES))


# ---------------------------------------------------------------------------------------------------------------
# Special building (and its free animal), Expand
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def post_special(st, tab):
    """Which special building, on which space, paid how (the action space is offered only when one can be)."""
    r, prm, prmf, wk, me, ps = acting(st, tab)
    tps = st.scr[0].tps[0]
    tps2 = st.scr[0].tps[1]
    res0 = r.res[0]
    res1 = r.res[1]
    moves = r.moves
    evaluate(ps, prm, prmf, wk, res0)
    m = gen_specials(ps, r.gs, prm, moves)
    # a Storage Building or Shelter on a free space outside the pastures and without a trough keeps every animal
    # (and the Shelter holds its free animal) when what it closes keeps them too (keeps_all): it is scored from the
    # farm's closed pastures without housing (the farm as it is: past0, its pastures' and lone troughs' capacity)
    quick = wk[S_ROW, MONO_COL] == 1
    ncols, B, T, O = open_spaces(ps)
    E0 = np.uint64(ps[P_E])
    past0 = U0
    capo0 = 0
    if quick:
        DN0, RT0, _LEAK0, past0 = flood_pastures(ncols, O, E0)
        capo0, _nexp0 = closed_value(ps, prm, O, B, T, past0, DN0, RT0, U0)
    storage0 = has_building(ps, B_STORAGE)
    for i in range(m):
        copy_row(tps2, ps)
        code = moves[np.uint64(i), 0]
        sp = moves[np.uint64(i), 1]
        build_special(tps2, code, sp, moves[np.uint64(i), 2], prm)
        done = False
        capb = prm[np.uint64(I_CAPB + code)]
        if quick and (code == B_STORAGE or (code == B_SHELTER and capb >= 1)) and (past0 | T) & bit(sp) == U0:
            O1 = O & ~bit(sp)
            DN1, RT1, _LEAK1, past1 = flood_pastures(ncols, O1, E0)
            if keeps_all(prm, wk, T, past1 & ~past0):
                capo1, nexp1 = closed_value(tps2, prm, O1, B | bit(sp), T, past1, DN1, RT1, U0)
                cap1 = res0[1] - capo0 + capo1 + max(capb, 0)
                pts1 = res0[10] + prm[np.uint64(I_PTSB + code)]
                exp1 = nexp1 * prm[I_EXP_POINTS]
                storage1 = storage0 or code == B_STORAGE
                if code == B_SHELTER:
                    # the free animal goes into the empty Shelter: every type keeps all (best_free_animal's choice)
                    best = -1e18
                    bt = 0
                    for t in range(4):
                        tps2[np.uint64(P_AN + t)] += 1
                        eval_known(tps2, prm, prmf, res1, cap1, 0, pts1, exp1, storage1)
                        tps2[np.uint64(P_AN + t)] -= 1
                        if res1[0] > best + 1e-9:
                            best = res1[0]
                            bt = t
                    tps2[np.uint64(P_AN + bt)] += 1
                eval_known(tps2, prm, prmf, res1, cap1, 0, pts1, exp1, storage1)
                done = True
        if not done:
            if code == B_SHELTER or code == B_OPEN:
                t = best_free_animal(tps2, code, prm, prmf, wk, tps, res1)
                tps2[np.uint64(P_AN + t)] += 1
            evaluate(tps2, prm, prmf, wk, res1)
        feat_row(r.feats, i, res0, res1, ps, tps2, 0)
    r.ctl[C_PHASE] = PH_SPECIAL
    return post_decision(st, me, K_SPECIAL, m)


@njit(cache=True, _nrt=False)
def apply_special(st, tab, i):
    r, prm, prmf, wk, me, ps = acting(st, tab)
    code = r.moves[np.uint64(i), 0]
    s = r.moves[np.uint64(i), 1]
    pay = r.moves[np.uint64(i), 2]
    place_special(ps, r.gs, code, s, pay, prm)
    log_wide(st, E_SPECIAL, me, code, s, pay, 0, 0, 0, 0, 0)
    if code == B_SHELTER or code == B_OPEN:
        # the free animal comes first: the animals are settled once, after it (evaluated on a copy here, the
        # free animal's features start from it)
        tps = st.scr[0].tps[0]
        copy_row(tps, ps)
        evaluate(tps, prm, prmf, wk, r.res[0])
        r.ctl[C_CODE] = code
        r.ctl[C_PHASE] = PH_ANIMAL
    else:
        settle_turn(st, tab, me)


@njit(cache=True, _nrt=False)
def post_animal(st, tab):
    """The free animal of the Shelter (any type) or the Open Stables (cow or horse)."""
    r, prm, prmf, wk, me, ps = acting(st, tab)
    tps = st.scr[0].tps[0]
    code = r.ctl[C_CODE]
    m = 0
    for t in range(4):
        if code == B_OPEN and t < 2:
            continue
        set_move(r.moves, m, t, 0, 0, 0)
        copy_row(tps, ps)
        tps[np.uint64(P_AN + t)] += 1
        evaluate(tps, prm, prmf, wk, r.res[1])
        feat_row(r.feats, m, r.res[0], r.res[1], ps, tps, 1)
        m += 1
    return post_decision(st, me, K_SHELTER if code == B_SHELTER else K_OPENST, m)


@njit(cache=True, _nrt=False)
def apply_animal(st, tab, i):
    r, _prm, _prmf, _wk, me, ps = acting(st, tab)
    t = r.moves[np.uint64(i), 0]
    ps[np.uint64(P_AN + t)] += 1
    log_wide(st, E_ANIMAL, me, t, ps[np.uint64(P_AN + t)], 0, 0, 0, 0, 0, 0)
    settle_turn(st, tab, me)


@njit(cache=True, _nrt=False)
def post_expand(st, tab):
    """Expand: the new column on the left (1) or the right (0)."""
    r, prm, prmf, wk, me, ps = acting(st, tab)
    tps = st.scr[0].tps[0]
    evaluate(ps, prm, prmf, wk, r.res[0])
    for left in range(2):
        set_move(r.moves, left, 1 - left, 0, 0, 0)  # row 0 = left (1), row 1 = right (0)
        copy_row(tps, ps)
        add_column(tps, left == 0)
        evaluate(tps, prm, prmf, wk, r.res[1])
        feat_row(r.feats, left, r.res[0], r.res[1], ps, tps, 0)
    return post_decision(st, me, K_EXPAND, 2)


@njit(cache=True, _nrt=False)
def apply_expand(st, tab, i):
    r, _prm, _prmf, _wk, me, ps = acting(st, tab)
    side = r.moves[np.uint64(i), 0]
    add_column(ps, side == 1)
    r.gs[GS_EXPS] -= 1
    log_wide(st, E_EXPAND, me, side, r.ctl[C_GOT], 0, 0, 0, 0, 0, 0)
    settle_turn(st, tab, me)
