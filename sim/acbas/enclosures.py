"""Fences / Walls: enclosure plans, one after another, until the player stops (``post_borders`` lists the plans
the player can place and pay, ``apply_borders`` places one; the plans themselves come from ``plans.py``)."""

import numpy as np
from numba import njit

from meeplab.sim.core.records import post_decision

from .animals import settle
from .buildings import *
from .evaluation import *
from .evaluation import closed_value, copy_row, eval_known
from .farm import *
from .layout import *
from .params import *
from .plans import *
from .state import C_PLACED, C_SLOT, PH_BORDERS
from .turns import acting, end_turn, log_wide


@njit(cache=True, _nrt=False)
def post_borders(st, tab):
    """The next enclosure plan (or stop, after a first one); -1 when no plan is possible (the action ends)."""
    r, prm, prmf, wk, me, ps = acting(st, tab)
    cxt = tab[0]
    tps = st.scr[0].tps[0]
    res0 = r.res[0]
    res1 = r.res[1]
    moves = r.moves
    feats = r.feats
    walls = r.ctl[C_SLOT] == S_WALLS
    placed = r.ctl[C_PLACED]
    if not can_border(ps, prm, walls, placed):
        end_turn(st)
        return -1
    storage = has_building(ps, B_STORAGE)
    stg = prmf[0] if storage else 0.0
    kmax = max_borders(ps, prm, walls, placed)
    n = gen_plans(
        ps,
        prm,
        moves,
        MAXM - 1,
        kmax,
        NSPACE,
        prm[I_PLAN_MAX],
        True,
        wk,
        cxt.reg,
        cxt.rbnd,
        cxt.rsize,
        cxt.reg_end,
        cxt.reg_with,
    )
    evaluate(ps, prm, prmf, wk, res0)
    ncols, B, T, O = open_spaces(ps)
    DN0, RT0, _LEAK0, past0 = flood_pastures(ncols, O, np.uint64(ps[P_E]))
    nc0 = count_pastures(past0, DN0, RT0)
    # the border positions next to a closed pasture's spaces (a new border there splits it) and what the
    # pastures and lone troughs hold now (the rest of the capacity is the buildings')
    PE0 = U0
    rest = past0
    while rest != U0:
        b = rest & (~rest + U1)
        rest &= ~b
        PE0 |= np.uint64(SPACE_EDGES[np.uint64(lowbit_index(b))])
    capo0, _nexp0 = closed_value(ps, prm, O, B, T, past0, DN0, RT0, U0)
    m = 0
    for i in range(n):
        k = moves[np.uint64(i), 1]
        w, s = border_cost(walls, k, placed, prm)
        if w > ps[P_WOOD] or s > ps[P_STONE]:
            continue
        for j in range(MW):
            moves[np.uint64(m), j] = moves[np.uint64(i), j]
        copy_row(tps, ps)
        build_borders(tps, moves[np.uint64(m), 0], k, w, s)
        # a closure (region R, no open space) always changes the pastures: R's boundary is complete after it,
        # so either R leaked before and is closed now, or R lay in a closed pasture that a missing border of
        # R's boundary (not a farm-edge side: R would leak) joined to a space outside R, and that pasture splits
        need = np.uint64(moves[np.uint64(m), 0])
        if (moves[np.uint64(m), 3] < 0 and moves[np.uint64(m), 2] != 0) or not same_pastures(
            ncols, O, np.uint64(tps[P_E]), past0, nc0
        ):
            DN1, RT1, _LEAK1, past1 = flood_pastures(ncols, O, np.uint64(tps[P_E]))
            if need & PE0 == U0 and keeps_all(prm, wk, T, past1 & ~past0):
                # no closed pasture changes (no new border touches one) and every animal stays housed
                capo1, nexp1 = closed_value(tps, prm, O, B, T, past1, DN1, RT1, U0)
                eval_known(
                    tps, prm, prmf, res1, res0[1] - capo0 + capo1, 0, res0[10], nexp1 * prm[I_EXP_POINTS], storage
                )
            else:
                evaluate(tps, prm, prmf, wk, res1)
        else:
            # same pastures: same containers and housing; only the goods (Storage points) change
            copy_row(res1, res0)
            res1[0] -= stg * (w + s)
            res1[12] -= stg * (w + s)
        feat_row(feats, m, res0, res1, ps, tps, 0)
        m += 1
    if m == 0:
        end_turn(st)
        return -1
    if placed > 0:
        m = stop_row(moves, feats, m, 0, 0, 0, -1)
    return post_decision(st, me, K_PLAN, m)


@njit(cache=True, _nrt=False)
def apply_borders(st, tab, i):
    r, prm, _prmf, _wk, me, ps = acting(st, tab)
    k = r.moves[np.uint64(i), 1]
    if k == 0:
        end_turn(st)
        return
    walls = r.ctl[C_SLOT] == S_WALLS
    w, s = border_cost(walls, k, r.ctl[C_PLACED], prm)
    build_borders(ps, r.moves[np.uint64(i), 0], k, w, s)
    r.ctl[C_PLACED] += k
    log_wide(
        st, E_BORDERS, me, r.moves[np.uint64(i), 0], k, w, s, r.moves[np.uint64(i), 2], r.moves[np.uint64(i), 3], 0, 0
    )
    settle(st, tab, me, np.int64(PH_BORDERS))
