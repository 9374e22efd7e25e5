"""The action space: which free space the seat places its worker on (``post_action``, each candidate with the
features of carrying the action out now with default sub-choices, ``defaults.py``), then the placement and the
start of the action (``apply_action``; the goods and animal spaces are carried out at once, ``take_goods``)."""

import numpy as np
from numba import njit

from meeplab.sim.core.bots import READS_ALL, READS_NONE, entry_of_seat
from meeplab.sim.core.forward import C_PHASE
from meeplab.sim.core.records import post_decision

from .animals import settle
from .buildings import *
from .defaults import est_action
from .evaluation import *
from .evaluation import copy_row
from .farm import *
from .layout import *
from .layout import plan_cache_get, plan_cache_set
from .params import *
from .plans import *
from .state import (
    C_CUR,
    C_G,
    C_GOT,
    C_ME,
    C_PLACED,
    C_SLOT,
    PH_ACTION,
    PH_BORDERS,
    PH_EXPAND,
    PH_SPECIAL,
    PH_STABLES,
    PH_STALL,
    PH_TROUGHS,
    PH_TURN,
)
from .turns import end_turn, log_wide


@njit(cache=True, _nrt=False)
def post_action(st, tab):
    """A placement turn: the free action spaces the seat can carry out, each with the features of carrying it
    out now with default sub-choices (defaults.py)."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    prmf = cxt.prmf
    sc = st.scr[0]
    wk = sc.wk
    moves1 = sc.m1
    feats1 = sc.f1
    tps = sc.tps[0]
    tps2 = sc.tps[1]
    tps3 = sc.tps[2]
    tgs = sc.tgs
    gs = r.gs
    res0 = r.res[0]
    res1 = r.res[1]
    res2 = r.res[2]
    res3 = r.res[3]  # eval_cheap of the deciding player's farm (once per decision, for the estimates)
    moves0 = r.moves
    feats0 = r.feats
    view = r.pub
    cur = r.ctl[C_CUR]
    if r.left[np.uint64(cur)] == 0:
        cur = 1 - cur
    me = cur
    opp = 1 - me
    r.ctl[C_ME] = me
    e = entry_of_seat(me, r.ctl[C_G], 2, cxt.rotate != 0)
    pme = r.ps[np.uint64(me)]
    fill_view(view, gs, pme, r.ps[np.uint64(opp)], me, -1, r.left[np.uint64(me)], r.left[np.uint64(opp)], prm)
    # evaluate(pme), keeping its containers: the goods and animal spaces leave the farm as it is
    bk0 = bld_key(pme)  # the deciding player's buildings: the same in every estimate's copy of the farm
    ue0 = useful_edges(pme)
    K0, past0 = evaluate_m(pme, prm, prmf, wk, res0, np.int64(-1), U0, np.int64(S_ROW), bk0)
    cheap_done = False
    tgs_done = False  # tgs: a copy of gs for the estimates, made when first needed
    n = 0
    for slot in range(NSLOT):
        if slot_legal_u(pme, gs, slot, prm, me, wk, moves1, ue0):
            set_move(moves0, n, slot, 0, 0, 0)
            n += 1
    # the features, row by row. For a bot that reads only the best feature 0 (READS "max0"), when the
    # parameters make the bounds hold (cx mono, see bounds_hold), the rows of Fences, Walls, Troughs and
    # Stall come in a second sweep, and one whose score change provably stays more than 1e-6 below the
    # best so far is left out (feature 0 = the bound, the rest 0): none of the four adds animals or
    # keeps more of them (the farm houses all it has), none raises the Storage points (they pay goods),
    # and only the stall adds building points; expansions can only fill up (bound: exp_bound)
    rd = cxt.reads[e]
    defer = rd != READS_ALL and cxt.mono == 1
    bexp = -1.0
    best = -1e18
    q = 0
    sweep2 = False
    while True:
        if q == n:
            if sweep2 or not defer:
                break
            sweep2 = True
            q = 0
            continue
        row = q
        q += 1
        slot = moves0[np.uint64(row), 0]
        late = defer and (slot == S_FENCES or slot == S_WALLS or slot == S_TROUGHS or slot == S_STALL)
        if late != sweep2:
            continue
        if rd == READS_NONE:
            # a bot that reads no features: none are computed
            clear_feats(feats0, row)
            continue
        onsp = 0
        for j in range(NG):
            onsp += gs[np.uint64(GS_ACC + slot * NG + j)]
        if sweep2:
            if bexp < 0.0:
                bexp = exp_bound(pme, prm, res0)
            bound = bexp
            if slot == S_STALL:
                bound += max(prm[I_PTSB + B_STALL], 0)
            if bound < best - 1e-6:
                clear_feats(feats0, row)
                feats0[np.uint64(row), F_SCORE] = bound
                continue
        # the action's value: carried out on copies with the default sub-choices
        copy_row(tps2, pme)
        off = 0
        if slot <= S_BM or slot >= S_MILL:
            # goods and animal spaces, written out here (no call with array arguments)
            acc = GS_ACC + slot * NG
            if slot == S_BM:
                tps2[P_WOOD] += prm[I_BM_WOOD]
                tps2[P_STONE] += prm[I_BM_STONE]
                tps2[P_REED] += prm[I_BM_REED]
            else:
                tps2[P_WOOD] += gs[np.uint64(acc + G_WOOD)]
                tps2[P_STONE] += gs[np.uint64(acc + G_STONE)]
                tps2[P_REED] += gs[np.uint64(acc + G_REED)]
                for t in range(4):
                    tps2[P_AN + t] += gs[np.uint64(acc + G_SHEEP + t)]
                    off += gs[np.uint64(acc + G_SHEEP + t)]
            if off > 0:
                K0, past0 = evaluate_m(tps2, prm, prmf, wk, res1, K0, past0, np.int64(S_ROW), bk0)
            else:
                # goods only: the farm is unchanged, only the Storage Building's points move
                for j in range(13):
                    res1[j] = res0[j]
                if res0[12] != 0.0 or has_building(tps2, B_STORAGE):
                    dg = tps2[P_WOOD] + tps2[P_STONE] + tps2[P_REED] - pme[P_WOOD] - pme[P_STONE] - pme[P_REED]
                    res1[0] += prmf[0] * dg
                    res1[12] += prmf[0] * dg
        elif slot == S_EXPAND:
            # Expand with its default side (left: both sides always tie) adds an empty column that is open towards
            # the farm edge: no pasture closes or opens, no container appears and no expansion is full, so the farm
            # evaluates exactly as now; only the borders come in
            tps2[P_BORD] += gs[GS_ACC + S_EXPAND * NG + G_BORD]
            for j in range(13):
                res1[j] = res0[j]
        else:
            # the estimates touch only the counters before GS_OCC and this slot's goods: restore those
            if not tgs_done:
                copy_row(tgs, gs)
                tgs_done = True
            else:
                for j in range(GS_OCC):
                    tgs[j] = gs[j]
                for j in range(GS_ACC + slot * NG, GS_ACC + slot * NG + NG):
                    tgs[j] = gs[j]
            # the default sub-choices start from eval_cheap of the farm: computed once per decision
            if not cheap_done:
                eval_cheap(pme, prm, prmf, wk, res3)
                cheap_done = True
            for j in range(13):
                res1[j] = res3[j]
            # the frequent estimates straight from their caches; slot_legal has checked what the borders,
            # troughs and stall check first
            rfw = -1
            rtr = False  # the default trough is placed: the farm keeps every animal
            if slot == S_FENCES or slot == S_WALLS:
                rfw = default_borders(tps2, me, slot == S_WALLS, prm, prmf, wk, moves1, bk0, True)
            else:
                cs = -2
                if slot == S_TROUGHS or slot == S_STALL:
                    est_cache(tps2, me, wk, bk0)
                    cs = plan_cache_get(wk, me, PC_EST + (4 if slot == S_TROUGHS else 5))
                if cs == -2:
                    est_action(tps2, tgs, me, slot, prm, prmf, wk, moves1, feats1, tps, tps3, res1, res2)
                elif cs >= 0:
                    if slot == S_TROUGHS:
                        rtr = wk[S_ROW, MONO_COL] == 1
                        if rtr and plan_cache_get(wk, me, PC_EST + 6) < 0:
                            dc, dx = trough_gain(tps2, prm, past0, cs)
                            plan_cache_set(wk, me, PC_EST + 6, dc)
                            plan_cache_set(wk, me, PC_EST + 7, dx)
                        build_trough(tps2, cs, trough_cost(0, prm))
                    else:
                        build_stall(tps2, cs, prm)
            if rfw >= 0 and plan_cache_get(wk, me, rfw + 3) == 1:
                # the plan keeps every animal (keeps_all): only capacity, expansions and goods change
                dcap = plan_cache_get(wk, me, rfw + 5)
                eval_kept(tps2, prm, prmf, res0, res1, dcap, plan_cache_get(wk, me, rfw + 4) // 2, has_storage_key(bk0))
            elif rtr:
                dcap = plan_cache_get(wk, me, PC_EST + 6)
                eval_kept(tps2, prm, prmf, res0, res1, dcap, plan_cache_get(wk, me, PC_EST + 7), has_storage_key(bk0))
            elif slot == S_FENCES or slot == S_WALLS or slot == S_TROUGHS:
                # borders and troughs leave the buildings as they are
                evaluate_m(tps2, prm, prmf, wk, res1, np.int64(-1), U0, np.int64(-1), bk0)
            else:
                evaluate(tps2, prm, prmf, wk, res1)
        feat_row(feats0, row, res0, res1, pme, tps2, off)
        feats0[np.uint64(row), F_ONSPACE] = onsp
        if feats0[np.uint64(row), F_SCORE] > best:
            best = feats0[np.uint64(row), F_SCORE]
    r.ctl[C_PHASE] = PH_ACTION
    return post_decision(st, me, K_ACTION, n)


@njit(cache=True, _nrt=False)
def apply_action(st, tab, i):
    """Place the worker on the chosen action space and start carrying it out."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    gs = r.gs
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    slot = r.moves[np.uint64(i), 0]
    gs[np.uint64(GS_OCC + slot)] = me
    r.left[np.uint64(me)] -= 1
    log_wide(st, E_PLACE, me, slot, 0, 0, 0, 0, 0, 0, 0)
    r.pub[V_SLOT] = slot
    r.ctl[C_SLOT] = slot
    r.ctl[C_PLACED] = 0
    acc = GS_ACC + slot * NG
    if slot == S_SP:
        gs[GS_NEXT] = me
    if slot == S_BM:
        ps[P_WOOD] += prm[I_BM_WOOD]
        ps[P_STONE] += prm[I_BM_STONE]
        ps[P_REED] += prm[I_BM_REED]
        log_wide(st, E_GAIN, me, slot, prm[I_BM_WOOD], prm[I_BM_STONE], prm[I_BM_REED], 0, 0, 0, 0)
        end_turn(st)
    elif slot <= S_STONE2 or slot >= S_MILL:
        if not take_goods(st, tab, me, slot):
            end_turn(st)
    elif slot == S_FENCES or slot == S_WALLS:
        r.ctl[C_PHASE] = PH_BORDERS
    elif slot == S_EXPAND:
        got = gs[np.uint64(acc + G_BORD)]
        ps[P_BORD] += got
        gs[np.uint64(acc + G_BORD)] = 0
        r.ctl[C_GOT] = got
        if gs[GS_EXPS] > 0 and ps[P_NCOLS] < 6:
            r.ctl[C_PHASE] = PH_EXPAND
        else:
            log_wide(st, E_EXPAND, me, -1, got, 0, 0, 0, 0, 0, 0)
            evaluate(ps, prm, cxt.prmf, st.scr[0].wk, r.res[0])
            end_turn(st)
    elif slot == S_TROUGHS:
        r.ctl[C_PHASE] = PH_TROUGHS
    elif slot == S_STALL:
        r.ctl[C_PHASE] = PH_STALL
    elif slot == S_STABLES:
        r.ctl[C_PHASE] = PH_STABLES
    else:
        r.ctl[C_PHASE] = PH_SPECIAL


@njit(cache=True, _nrt=False)
def take_goods(st, tab, me, slot):
    """A goods or animal space: take everything on it; the animals are housed (settle: True when the player
    chooses which to keep next)."""
    r = st.rec[0]
    gs = r.gs
    ps = r.ps[np.uint64(me)]
    acc = GS_ACC + slot * NG
    ps[P_WOOD] += gs[np.uint64(acc + G_WOOD)]
    ps[P_STONE] += gs[np.uint64(acc + G_STONE)]
    ps[P_REED] += gs[np.uint64(acc + G_REED)]
    a0 = gs[np.uint64(acc + G_SHEEP)]
    a1 = gs[np.uint64(acc + G_PIG)]
    a2 = gs[np.uint64(acc + G_COW)]
    a3 = gs[np.uint64(acc + G_HORSE)]
    offered = a0 + a1 + a2 + a3
    log_wide(st, E_GAIN, me, slot, gs[acc + G_WOOD], gs[acc + G_STONE], gs[acc + G_REED], a0, a1, a2, a3)
    for j in range(NG):
        gs[np.uint64(acc + j)] = 0
    if offered > 0:
        before = ps[P_AN] + ps[P_AN + 1] + ps[P_AN + 2] + ps[P_AN + 3]
        ps[P_AN] += a0
        ps[P_AN + 1] += a1
        ps[P_AN + 2] += a2
        ps[P_AN + 3] += a3
        if settle(st, tab, me, np.int64(PH_TURN)):
            # every animal on hand, run-away count -1: the player chooses what to keep (E_KEEP)
            log_wide(st, E_HOUSE, me, ps[P_AN], ps[P_AN + 1], ps[P_AN + 2], ps[P_AN + 3], -1, 0, 0, 0)
            return True
        log_wide(
            st,
            E_HOUSE,
            me,
            ps[P_AN],
            ps[P_AN + 1],
            ps[P_AN + 2],
            ps[P_AN + 3],
            before + offered - (ps[P_AN] + ps[P_AN + 1] + ps[P_AN + 2] + ps[P_AN + 3]),
            0,
            0,
            0,
        )
    return False
