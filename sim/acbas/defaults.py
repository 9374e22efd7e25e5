"""The estimate's default sub-choices: how an action's value is estimated before the player picks an action space.

An action space's features (``actions.post_action``) come from carrying the action out on a copy of the farm with
default sub-choices (no bot is asked): the candidate with the best immediate value plus a little capacity
(``ask_default``), on the cheap evaluation that does not house the animals (``eval_cheap``). These are the
estimate-mode twins of the player's decisions in ``construction.py``: the same candidates (``stall_rows``,
``stables_rows``, ``gen_specials``), one placement each.
"""

import numpy as np
from numba import njit

from .buildings import *
from .buildings import pasture_of
from .evaluation import *
from .evaluation import copy_row
from .farm import *
from .layout import *
from .layout import plan_cache_get, plan_cache_set
from .params import *


@njit(cache=True, _nrt=False)
def ask_default(n, feats):
    """The estimate's choice: the best immediate value plus a little capacity, the first on ties."""
    if n <= 1:
        return 0
    best = -1e18
    bi = 0
    for i in range(n):
        v = feats[i, F_SCORE] + 0.2 * feats[i, F_CAP] + 0.05 * (feats[i, F_WOOD] + feats[i, F_STONE] + feats[i, F_REED])
        if v > best + 1e-9:
            best = v
            bi = i
    return bi


@njit(cache=True)
def est_troughs(ps, gs, me, prm, prmf, wk, moves, feats, res0, res1):
    """Troughs in the estimate: one trough on the default space (cached per farm: est_cache). res0 = eval_cheap(ps)."""
    placed = 0
    storage = has_building(ps, B_STORAGE)
    while gs[GS_TROUGHS] > 0:
        w = trough_cost(placed, prm)
        if ps[P_WOOD] < w:
            break
        est_cache(ps, me, wk, bld_key(ps))
        c = plan_cache_get(wk, me, PC_EST + 4)
        if c != -2:
            if c >= 0:
                build_trough(ps, c, w)
                gs[GS_TROUGHS] -= 1
                placed += 1
            break
        T = np.uint64(ps[P_T])
        m = 0
        seen = np.uint64(0)
        past = pastures_mask(ps)
        for s in range(3 * ps[P_NCOLS]):
            if T & bit(s) != U0:
                continue
            if ps[np.uint64(P_BLD + s)] == 0:
                # the estimate needs one space per kind: a free space outside pastures, or one per pasture
                if past & bit(s) == U0:
                    if seen & bit(18) != U0:
                        continue
                    seen |= bit(18)
                else:
                    if seen & bit(s) != U0:
                        continue
                    seen |= pasture_of(ps, past, s)
            set_move(moves, m, s, w, 0, 0)
            dc, dx = trough_gain(ps, prm, past, s)
            # eval_cheap of the farm with the trough, from eval_cheap(ps) in res0
            wood1 = ps[P_WOOD] - w
            res1[10] = res0[10]
            res1[11] = res0[11] + dx
            res1[12] = prmf[0] * (wood1 + ps[P_STONE] + ps[P_REED]) if storage else 0.0
            res1[0] = res1[10] + res1[11] + res1[12]
            res1[1] = res0[1] + dc
            res1[2] = 0
            res1[3] = 0
            res1[4] = res1[10]
            feats[np.uint64(m), F_SCORE] = res1[0] - res0[0]
            feats[np.uint64(m), F_WOOD] = -w
            feats[np.uint64(m), F_STONE] = 0.0
            feats[np.uint64(m), F_REED] = 0.0
            feats[np.uint64(m), F_BORD] = 0.0
            feats[np.uint64(m), F_CAP] = res1[1] - res0[1]
            feats[np.uint64(m), F_KEPT] = res1[2] - res0[2]
            feats[np.uint64(m), F_LOST] = 0.0
            feats[np.uint64(m), F_PAIRS] = res1[3] - res0[3]
            feats[np.uint64(m), F_BPTS] = res1[4] - res0[4]
            feats[np.uint64(m), F_ONSPACE] = 0.0
            feats[np.uint64(m), F_RULE] = 0.0
            m += 1
        if m == 0:
            plan_cache_set(wk, me, PC_EST + 4, -1)
            break
        i = ask_default(m, feats)
        s = moves[np.uint64(i), 0]
        plan_cache_set(wk, me, PC_EST + 4, s)
        build_trough(ps, s, w)
        gs[GS_TROUGHS] -= 1
        placed += 1
        break  # the estimate places one trough (its caller evaluates the farm)
    return placed


@njit(cache=True)
def est_stall(ps, gs, me, prm, prmf, wk, moves, feats, tps, res0, res1):
    """The Stall in the estimate: the default space (cached per farm: est_cache)."""
    est_cache(ps, me, wk, bld_key(ps))
    s = plan_cache_get(wk, me, PC_EST + 5)
    if s < 0:
        m = stall_rows(ps, prm, prmf, wk, moves, feats, tps, res0, res1, True)
        i = ask_default(m, feats)
        s = moves[np.uint64(i), 0]
        plan_cache_set(wk, me, PC_EST + 5, s)
    build_stall(ps, s, prm)
    gs[GS_STALLS] -= 1


@njit(cache=True)
def est_stables(ps, prm, prmf, wk, moves, feats, tps, res0, res1):
    """Stables in the estimate: one, on the default stall and payment."""
    if not can_stables(ps, prm):
        return 0
    m = stables_rows(ps, prm, prmf, wk, moves, feats, tps, res0, res1, True)
    i = ask_default(m, feats)
    build_stables(ps, moves[np.uint64(i), 0], moves[np.uint64(i), 1], prm)
    return 1


@njit(cache=True)
def est_special(ps, gs, prm, prmf, wk, moves, feats, tps2, res0, res1):
    """A special building in the estimate: the default building and space; the Shelter's or Open Stables' free
    animal is the first type (eval_cheap does not see animals: every type has the same, zero, features)."""
    m = gen_specials(ps, gs, prm, moves)
    # the estimate needs one free space outside the pastures per building (pasture spaces all kept)
    past = pastures_mask(ps)
    m2 = 0
    seen = np.uint64(0)
    for i in range(m):
        code = moves[np.uint64(i), 0]
        sp = moves[np.uint64(i), 1]
        if (code == B_STORAGE or code == B_SHELTER) and past & bit(sp) == U0:
            key = bit(code)
            if seen & key != U0:
                continue
            seen |= key
        for j in range(MW):
            moves[np.uint64(m2), j] = moves[np.uint64(i), j]
        m2 += 1
    m = m2
    for i in range(m):
        copy_row(tps2, ps)
        code = moves[np.uint64(i), 0]
        build_special(tps2, code, moves[np.uint64(i), 1], moves[np.uint64(i), 2], prm)
        if code == B_SHELTER or code == B_OPEN:
            t = quick_free_animal(tps2, code, prm)
            tps2[np.uint64(P_AN + t)] += 1
        eval_cheap(tps2, prm, prmf, wk, res1)
        feat_row(feats, i, res0, res1, ps, tps2, 0)
    i = ask_default(m, feats)
    code = moves[np.uint64(i), 0]
    s = moves[np.uint64(i), 1]
    pay = moves[np.uint64(i), 2]
    place_special(ps, gs, code, s, pay, prm)
    if code == B_SHELTER or code == B_OPEN:
        ps[np.uint64(P_AN + (2 if code == B_OPEN else 0))] += 1


@njit(cache=True)
def est_action(ps, gs, me, slot, prm, prmf, wk, moves, feats, tps, tps2, res0, res1):
    """Troughs, Stall, Stables or a special building carried out on a copy (ps, gs) with the default sub-choices
    (res0 = eval_cheap(ps)); the other action spaces are estimated directly by the caller."""
    if slot == S_TROUGHS:
        est_troughs(ps, gs, me, prm, prmf, wk, moves, feats, res0, res1)
    elif slot == S_STALL:
        est_stall(ps, gs, me, prm, prmf, wk, moves, feats, tps, res0, res1)
    elif slot == S_STABLES:
        est_stables(ps, prm, prmf, wk, moves, feats, tps, res0, res1)
    else:
        est_special(ps, gs, prm, prmf, wk, moves, feats, tps2, res0, res1)
