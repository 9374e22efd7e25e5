"""Agricola: All Creatures Big and Small engine on the forward model (``sim/CONTRACT.md``; numba, nopython).

The game is a state machine over ``AcState`` (``state.py``). ``advance`` runs the forced steps of the rule book
(refilling the action spaces, breeding, the final scoring) up to the next player decision and posts its candidates
and features; ``apply`` performs the chosen candidate. A round is: refill (``PH_ROUND``), then placement turns
(``PH_TURN``: the action space, ``K_ACTION``) until every worker is placed, each action carried out with its own
decisions (``PH_BORDERS`` .. ``PH_EXPAND``), then breeding. The game loop and the batch are the shared ones of
``sim.core.play``.

Rule helpers live in ``evaluation.py`` (housing and scoring, enclosure plans), ``buildings.py`` (troughs, stall,
stables, special buildings, expansion, legality, refill) and ``defaults.py`` (an action's estimate with default
sub-choices, for the action-space features).
"""

import numpy as np
from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.bots import READS_ALL, READS_NONE, entry_of_seat
from meeplab.sim.core.forward import C_END, C_KIND, C_LENGTH, C_N, C_OVER, C_PHASE, C_SEAT
from meeplab.sim.core.rng import rng_init

from .buildings import *
from .buildings import _closed_value, _copy, _eval_known, _log, _pcg, _pcs
from .defaults import est_action
from .evaluation import *
from .farm import *
from .layout import *
from .params import *
from .state import (
    C_BSEAT,
    C_CODE,
    C_CUR,
    C_G,
    C_GOT,
    C_KRET,
    C_KSEAT,
    C_ME,
    C_PLACED,
    C_RND,
    C_SLOT,
    C_TURN,
    PH_ACTION,
    PH_ANIMAL,
    PH_BORDERS,
    PH_BREED,
    PH_EXPAND,
    PH_KEEP,
    PH_OVER,
    PH_ROUND,
    PH_SPECIAL,
    PH_STABLES,
    PH_STALL,
    PH_TROUGHS,
    PH_TURN,
    AcCtx,
    AcState,
    clear_plan_caches,
    determinise,
    new_state,
)


@njit(cache=True, inline="always")
def _post(st, seat, kind, n):
    """Post a decision: ``seat`` chooses among ``n`` candidates of ``kind`` (moves/feats already filled)."""
    r = st.rec[0]
    r.ctl[C_SEAT] = seat
    r.ctl[C_KIND] = kind
    r.ctl[C_N] = n
    return seat


@njit(cache=True, inline="always")
def _logs(st, code, a0, a1, a2, a3, a4, a5, a6, a7, a8):
    _log(st.log, st.nlog, st.nlog[1] != 0, code, a0, a1, a2, a3, a4, a5, a6, a7, a8)


@njit(cache=True, _nrt=False)
def end_turn(st):
    """The action is carried out: the other seat's placement turn is next."""
    r = st.rec[0]
    r.ctl[C_CUR] = 1 - r.ctl[C_ME]
    r.ctl[C_TURN] += 1
    r.ctl[C_PHASE] = PH_TURN
    r.ctl[C_SEAT] = -1


# ---------------------------------------------------------------------------------------------------------------
# start and end
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def reset(st, cx, seed, g):
    """Game ``g``: seed the bots' stream from (seed, g), set up both farms and the board."""
    r = st.rec[0]
    prm = cx.tab[0].prm
    gs = r.gs
    for j in range(r.ctl.shape[0]):
        if j != forward.C_NP:
            r.ctl[j] = 0
    r.ctl[C_SEAT] = -1
    r.ctl[C_G] = g
    for j in range(GS_SIZE):
        gs[j] = 0
    # the enclosure-plan cache and the estimate's default spaces: invalid (E = -1 matches no farm)
    clear_plan_caches(st.scr[0].wk)
    rng_init(r.rng, seed, g)
    for p in range(2):
        ps = r.ps[p]
        new_farm(ps, prm)
        ps[P_BORD] = prm[I_START_BORDERS]
        ps[P_WOOD] = prm[I_START_WOOD]
        ps[P_STONE] = prm[I_START_STONE]
        ps[P_REED] = prm[I_START_REED]
    gs[GS_TROUGHS] = prm[I_TROUGHS]
    gs[GS_STALLS] = prm[I_STALLS]
    gs[GS_EXPS] = prm[I_EXPANSIONS]
    gs[GS_POOL] = prm[I_EXP_POOL]
    for j in range(4):
        gs[GS_SPEC + j] = 1
    r.ctl[C_PHASE] = PH_ROUND


@njit(cache=True, _nrt=False)
def result(st, cx, sc, tb, brk):
    """Score, tie-break (the start player of round 1 loses a tie) and breakdown of both seats."""
    r = st.rec[0]
    for p in range(2):
        sc[p] = r.score[p]
        tb[p] = r.tb[p]
        for c in range(8):
            brk[p, c] = r.brk[p, c]


@njit(cache=True, _nrt=False)
def start_round(st, tab):
    """Refill the action spaces; the start player places first."""
    r = st.rec[0]
    prm = tab[0].prm
    gs = r.gs
    rnd = r.ctl[C_RND]
    gs[GS_ROUND] = rnd
    gs[GS_START] = gs[GS_NEXT]
    for j in range(NSLOT):
        gs[GS_OCC + j] = -1
    refill(gs, prm)
    _logs(st, E_ROUND, rnd, gs[GS_START], 0, 0, 0, 0, 0, 0, 0)
    r.left[0] = prm[I_WORKERS]
    r.left[1] = prm[I_WORKERS]
    r.ctl[C_CUR] = gs[GS_START]
    r.ctl[C_TURN] = 0
    r.ctl[C_PHASE] = PH_TURN


@njit(cache=True, _nrt=False)
def end_round(st, tab):
    """Every worker is placed: breeding, seat 0 first (PH_BREED)."""
    r = st.rec[0]
    r.ctl[C_BSEAT] = 0
    r.ctl[C_PHASE] = PH_BREED


@njit(cache=True, _nrt=False)
def breed(st, tab):
    """Breeding of the next seat (every type with at least two animals gets one more; the seat keeps the animals
    as settle() says: a keep-or-release decision when more than one maximal set fits, its seat returned), or,
    after both seats, the next round or the final scoring (-1)."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    prmf = cxt.prmf
    wk = st.scr[0].wk
    res0 = r.res[0]
    p = r.ctl[C_BSEAT]
    if p < 2:
        ps = r.ps[np.uint64(p)]
        b0 = 1 if ps[P_AN] >= prm[I_BREED_MIN] else 0
        b1 = 1 if ps[P_AN + 1] >= prm[I_BREED_MIN] else 0
        b2 = 1 if ps[P_AN + 2] >= prm[I_BREED_MIN] else 0
        b3 = 1 if ps[P_AN + 3] >= prm[I_BREED_MIN] else 0
        before = ps[P_AN] + ps[P_AN + 1] + ps[P_AN + 2] + ps[P_AN + 3]
        r.ctl[C_BSEAT] = p + 1
        ps[P_AN] += b0
        ps[P_AN + 1] += b1
        ps[P_AN + 2] += b2
        ps[P_AN + 3] += b3
        if settle(st, tab, p, np.int64(PH_BREED)):
            # the seat chooses what to keep (E_KEEP follows, then the farm)
            _logs(st, E_BREED, p, b0, b1, b2, b3, -1, 0, 0, 0)
            return p
        after = ps[P_AN] + ps[P_AN + 1] + ps[P_AN + 2] + ps[P_AN + 3]
        nb = b0 + b1 + b2 + b3
        _logs(st, E_BREED, p, b0, b1, b2, b3, before + nb - after, 0, 0, 0)
        log_farm(ps, p, st.log, st.nlog, st.nlog[1] != 0)
        return -1
    r.ctl[C_RND] += 1
    r.ctl[C_LENGTH] = r.ctl[C_RND]
    if r.ctl[C_RND] < prm[I_ROUNDS]:
        r.ctl[C_PHASE] = PH_ROUND
        return -1
    parts = st.scr[0].parts
    for p in range(2):
        ps = r.ps[p]
        evaluate(ps, prm, prmf, wk, res0)
        past = pastures_mask(ps)
        r.score[p] = score_parts(ps, prm, prmf, past, parts)
        for c in range(8):
            r.brk[p, c] = parts[c]
        r.tb[p] = 1.0 if p == 1 else 0.0
        _logs(st, E_SCORE, p, np.int64(r.score[p] * 2), 0, 0, 0, 0, 0, 0, 0)
    r.ctl[C_OVER] = 1
    r.ctl[C_END] = 0
    r.ctl[C_PHASE] = PH_OVER
    r.ctl[C_SEAT] = -1
    return -1


# ---------------------------------------------------------------------------------------------------------------
# keep or release: the player chooses which animals stay when not all fit
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def settle(st, tab, p, ret):
    """Seat p's farm got animals or changed: house them. evaluate() keeps the fixed rule's set (most points, then
    animals, then breeding pairs, then the solver's type order; r.res[0] its evaluation). When animals must run
    away and more than one maximal set fits (keep_frontier: sets to which no animal can be added), the book lets
    the player choose: the sets are posted as decision K_KEEP for p, the farm holds every animal on hand until
    the choice, ``ret`` is the phase to go on with afterwards (PH_TURN: the turn ends), and True is returned.
    Otherwise the rule's set is the only maximal one and stays (False). With parameters under which one more
    animal can score less (cx mono 0) the rule decides alone, as before."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    prmf = cxt.prmf
    sc = st.scr[0]
    wk = sc.wk
    ps = r.ps[np.uint64(p)]
    res0 = r.res[0]
    h0 = ps[P_AN]
    h1 = ps[P_AN + 1]
    h2 = ps[P_AN + 2]
    h3 = ps[P_AN + 3]
    evaluate(ps, prm, prmf, wk, res0)
    if (ps[P_AN] == h0 and ps[P_AN + 1] == h1 and ps[P_AN + 2] == h2 and ps[P_AN + 3] == h3) or cxt.mono == 0:
        return False
    kf = sc.kf
    n = keep_frontier(ps, prm, wk, kf, h0, h1, h2, h3)
    if n <= 1:
        return False
    rule = ps[P_AN] | (ps[P_AN + 1] << 16) | (ps[P_AN + 2] << 32) | (ps[P_AN + 3] << 48)
    held = h0 + h1 + h2 + h3
    moves = r.moves
    feats = r.feats
    # the rule's set first, then the other maximal sets in the frontier's order
    m = 0
    for i in range(-1, n):
        v = rule
        if i >= 0:
            v = kf[0, np.uint64(i)]
            if v == rule:
                continue
        # every animal of the set is housed and the farm is the same: only the animals' points and the breeding
        # pairs differ from the rule's set
        k = 0
        dv = 0
        dp = 0
        for t in range(4):
            x = (v >> np.int64(16 * t)) & 0xFFFF
            y = ps[np.uint64(P_AN + t)]
            k += x
            dv += fval(prm, t, x) - fval(prm, t, y)
            dp += (1 if x >= prm[I_BREED_MIN] else 0) - (1 if y >= prm[I_BREED_MIN] else 0)
        moves[np.uint64(m), 0] = v
        moves[np.uint64(m), 1] = held - k
        moves[np.uint64(m), 2] = 0
        moves[np.uint64(m), 3] = 0
        for j in range(NF):
            feats[np.uint64(m), j] = 0.0
        feats[np.uint64(m), F_SCORE] = dv
        feats[np.uint64(m), F_PAIRS] = dp
        feats[np.uint64(m), F_RULE] = 1.0 if i < 0 else 0.0
        m += 1
    # the farm holds what is on hand until the choice
    ps[P_AN] = h0
    ps[P_AN + 1] = h1
    ps[P_AN + 2] = h2
    ps[P_AN + 3] = h3
    slot = r.ctl[C_SLOT] if ret != PH_BREED else -1
    fill_view(r.pub, r.gs, ps, r.ps[np.uint64(1 - p)], p, slot, r.left[np.uint64(p)], r.left[np.uint64(1 - p)], prm)
    r.ctl[C_KRET] = ret
    r.ctl[C_KSEAT] = p
    r.ctl[C_PHASE] = PH_KEEP
    _post(st, p, K_KEEP, m)
    return True


@njit(cache=True, _nrt=False)
def apply_keep(st, tab, i):
    """The chosen set stays (it fits: every animal of it is housed), the rest run away; then go on."""
    r = st.rec[0]
    cxt = tab[0]
    p = r.ctl[C_KSEAT]
    ps = r.ps[np.uint64(p)]
    v = r.moves[np.uint64(i), 0]
    for t in range(4):
        ps[np.uint64(P_AN + t)] = (v >> np.int64(16 * t)) & 0xFFFF
    evaluate(ps, cxt.prm, cxt.prmf, st.scr[0].wk, r.res[0])
    _logs(
        st,
        E_KEEP,
        p,
        ps[P_AN],
        ps[P_AN + 1],
        ps[P_AN + 2],
        ps[P_AN + 3],
        r.moves[np.uint64(i), 1],
        r.ctl[C_N],
        np.int64(r.feats[np.uint64(i), F_RULE]),
        0,
    )
    ret = r.ctl[C_KRET]
    if ret == PH_TURN:
        end_turn(st)
    elif ret == PH_BREED:
        log_farm(ps, p, st.log, st.nlog, st.nlog[1] != 0)
        r.ctl[C_PHASE] = PH_BREED
    else:
        r.ctl[C_PHASE] = ret


# ---------------------------------------------------------------------------------------------------------------
# the action space
# ---------------------------------------------------------------------------------------------------------------
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
            moves0[np.uint64(n), 0] = slot
            moves0[np.uint64(n), 1] = 0
            moves0[np.uint64(n), 2] = 0
            moves0[np.uint64(n), 3] = 0
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
            for j in range(NF):
                feats0[np.uint64(row), j] = 0.0
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
                for j in range(NF):
                    feats0[np.uint64(row), j] = 0.0
                feats0[np.uint64(row), F_SCORE] = bound
                continue
        # the action's value: carried out on copies with the default sub-choices
        _copy(tps2, pme)
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
                _copy(tgs, gs)
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
                    cs = _pcg(wk, me, PC_EST + (4 if slot == S_TROUGHS else 5))
                if cs == -2:
                    est_action(tps2, tgs, me, slot, prm, prmf, wk, moves1, feats1, tps, tps3, res1, res2)
                elif cs >= 0:
                    if slot == S_TROUGHS:
                        rtr = wk[S_ROW, MONO_COL] == 1
                        if rtr and _pcg(wk, me, PC_EST + 6) < 0:
                            dc, dx = trough_gain(tps2, prm, past0, cs)
                            _pcs(wk, me, PC_EST + 6, dc)
                            _pcs(wk, me, PC_EST + 7, dx)
                        tps2[P_T] = np.int64(np.uint64(tps2[P_T]) | bit(cs))
                        tps2[P_WOOD] -= trough_cost(0, prm)
                    else:
                        tps2[np.uint64(P_BLD + cs)] = B_STALL
                        tps2[P_STONE] -= prm[I_STALL_STONE]
                        tps2[P_REED] -= prm[I_STALL_REED]
            if rfw >= 0 and _pcg(wk, me, rfw + 3) == 1:
                # the plan keeps every animal (keeps_all): only capacity, expansions and goods change
                _eval_known(
                    tps2,
                    prm,
                    prmf,
                    res1,
                    res0[1] + _pcg(wk, me, rfw + 5),
                    0,
                    res0[10],
                    res0[11] + _pcg(wk, me, rfw + 4) // 2,
                    has_storage_key(bk0),
                )
            elif rtr:
                _eval_known(
                    tps2,
                    prm,
                    prmf,
                    res1,
                    res0[1] + _pcg(wk, me, PC_EST + 6),
                    0,
                    res0[10],
                    res0[11] + _pcg(wk, me, PC_EST + 7),
                    has_storage_key(bk0),
                )
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
    return _post(st, me, K_ACTION, n)


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
    _logs(st, E_PLACE, me, slot, 0, 0, 0, 0, 0, 0, 0)
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
        _logs(st, E_GAIN, me, slot, prm[I_BM_WOOD], prm[I_BM_STONE], prm[I_BM_REED], 0, 0, 0, 0)
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
            _logs(st, E_EXPAND, me, -1, got, 0, 0, 0, 0, 0, 0)
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
    cxt = tab[0]
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
    _logs(st, E_GAIN, me, slot, gs[acc + G_WOOD], gs[acc + G_STONE], gs[acc + G_REED], a0, a1, a2, a3)
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
            _logs(st, E_HOUSE, me, ps[P_AN], ps[P_AN + 1], ps[P_AN + 2], ps[P_AN + 3], -1, 0, 0, 0)
            return True
        _logs(
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


# ---------------------------------------------------------------------------------------------------------------
# Fences / Walls: enclosure plans, one after another, until the player stops
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def post_borders(st, tab):
    """The next enclosure plan (or stop, after a first one); -1 when no plan is possible (the action ends)."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    prmf = cxt.prmf
    wk = st.scr[0].wk
    tps = st.scr[0].tps[0]
    res0 = r.res[0]
    res1 = r.res[1]
    moves = r.moves
    feats = r.feats
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
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
    ncols = ps[P_NCOLS]
    B = building_mask(ps)
    T = np.uint64(ps[P_T])
    O = ((np.uint64(1) << np.uint64(3 * ncols)) - U1) & ~B
    DN0, RT0, LEAK0 = flood_prep(ncols, O, np.uint64(ps[P_E]))
    past0 = O & ~grow(LEAK0, O, DN0, RT0)
    nc0 = count_pastures(past0, DN0, RT0)
    # the border positions next to a closed pasture's spaces (a new border there splits it) and what the
    # pastures and lone troughs hold now (the rest of the capacity is the buildings')
    PE0 = U0
    rest = past0
    while rest != U0:
        b = rest & (~rest + U1)
        rest &= ~b
        PE0 |= np.uint64(SPACE_EDGES[np.uint64(lowbit_index(b))])
    capo0, _nexp0 = _closed_value(ps, prm, O, B, T, past0, DN0, RT0, U0)
    m = 0
    for i in range(n):
        k = moves[np.uint64(i), 1]
        w, s = border_cost(walls, k, placed, prm)
        if w > ps[P_WOOD] or s > ps[P_STONE]:
            continue
        for j in range(MW):
            moves[np.uint64(m), j] = moves[np.uint64(i), j]
        _copy(tps, ps)
        tps[P_E] = tps[P_E] | moves[np.uint64(m), 0]
        tps[P_BORD] -= k
        tps[P_WOOD] -= w
        tps[P_STONE] -= s
        # a closure (region R, no open space) always changes the pastures: R's boundary is complete after it,
        # so either R leaked before and is closed now, or R lay in a closed pasture that a missing border of
        # R's boundary (not a farm-edge side: R would leak) joined to a space outside R, and that pasture splits
        need = np.uint64(moves[np.uint64(m), 0])
        if (moves[np.uint64(m), 3] < 0 and moves[np.uint64(m), 2] != 0) or not same_pastures(
            ncols, O, np.uint64(tps[P_E]), past0, nc0
        ):
            DN1, RT1, LEAK1 = flood_prep(ncols, O, np.uint64(tps[P_E]))
            past1 = O & ~grow(LEAK1, O, DN1, RT1)
            if need & PE0 == U0 and keeps_all(prm, wk, T, past1 & ~past0):
                # no closed pasture changes (no new border touches one) and every animal stays housed
                capo1, nexp1 = _closed_value(tps, prm, O, B, T, past1, DN1, RT1, U0)
                _eval_known(
                    tps, prm, prmf, res1, res0[1] - capo0 + capo1, 0, res0[10], nexp1 * prm[I_EXP_POINTS], storage
                )
            else:
                evaluate(tps, prm, prmf, wk, res1)
        else:
            # same pastures: same containers and housing; only the goods (Storage points) change
            for j in range(13):
                res1[j] = res0[j]
            res1[0] -= stg * (w + s)
            res1[12] -= stg * (w + s)
        feat_row(feats, m, res0, res1, ps, tps, 0)
        m += 1
    if m == 0:
        end_turn(st)
        return -1
    if placed > 0:
        moves[np.uint64(m), 0] = 0
        moves[np.uint64(m), 1] = 0
        moves[np.uint64(m), 2] = 0
        moves[np.uint64(m), 3] = -1
        for j in range(NF):
            feats[np.uint64(m), j] = 0.0
        m += 1
    return _post(st, me, K_PLAN, m)


@njit(cache=True, _nrt=False)
def apply_borders(st, tab, i):
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    k = r.moves[np.uint64(i), 1]
    if k == 0:
        end_turn(st)
        return
    walls = r.ctl[C_SLOT] == S_WALLS
    w, s = border_cost(walls, k, r.ctl[C_PLACED], prm)
    ps[P_E] = ps[P_E] | r.moves[np.uint64(i), 0]
    ps[P_BORD] -= k
    ps[P_WOOD] -= w
    ps[P_STONE] -= s
    r.ctl[C_PLACED] += k
    _logs(
        st, E_BORDERS, me, r.moves[np.uint64(i), 0], k, w, s, r.moves[np.uint64(i), 2], r.moves[np.uint64(i), 3], 0, 0
    )
    settle(st, tab, me, np.int64(PH_BORDERS))


# ---------------------------------------------------------------------------------------------------------------
# Troughs, Stall, Stables
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def post_troughs(st, tab):
    """The next trough's space (or stop, after a first one); -1 when none can be placed (the action ends)."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    prmf = cxt.prmf
    wk = st.scr[0].wk
    tps = st.scr[0].tps[0]
    res0 = r.res[0]
    res1 = r.res[1]
    moves = r.moves
    feats = r.feats
    gs = r.gs
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    placed = r.ctl[C_PLACED]
    if gs[GS_TROUGHS] <= 0:
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
        moves[np.uint64(m), 0] = s
        moves[np.uint64(m), 1] = w
        moves[np.uint64(m), 2] = 0
        moves[np.uint64(m), 3] = 0
        _copy(tps, ps)
        tps[P_T] = np.int64(T | bit(s))
        tps[P_WOOD] -= w
        # a trough keeps every animal: no housing needed, only its capacity and expansions (trough_gain)
        dc, dx = trough_gain(ps, prm, past, s)
        if wk[S_ROW, MONO_COL] == 1:
            _eval_known(tps, prm, prmf, res1, res0[1] + dc, 0, res0[10], res0[11] + dx, storage)
        else:
            evaluate(tps, prm, prmf, wk, res1)
        feat_row(feats, m, res0, res1, ps, tps, 0)
        m += 1
    if m == 0:
        end_turn(st)
        return -1
    if placed > 0:
        moves[np.uint64(m), 0] = -1
        moves[np.uint64(m), 1] = 0
        moves[np.uint64(m), 2] = 0
        moves[np.uint64(m), 3] = 0
        for j in range(NF):
            feats[np.uint64(m), j] = 0.0
        m += 1
    return _post(st, me, K_TROUGH, m)


@njit(cache=True, _nrt=False)
def apply_troughs(st, tab, i):
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    s = r.moves[np.uint64(i), 0]
    if s < 0:
        end_turn(st)
        return
    w = trough_cost(r.ctl[C_PLACED], prm)
    ps[P_T] = np.int64(np.uint64(ps[P_T]) | bit(s))
    ps[P_WOOD] -= w
    r.gs[GS_TROUGHS] -= 1
    r.ctl[C_PLACED] += 1
    _logs(st, E_TROUGH, me, s, w, 0, 0, 0, 0, 0, 0)
    settle(st, tab, me, np.int64(PH_TROUGHS))


@njit(cache=True, _nrt=False)
def post_stall(st, tab):
    """The Stall's space (any building-free space; the action space is offered only when one exists)."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    prmf = cxt.prmf
    wk = st.scr[0].wk
    tps = st.scr[0].tps[0]
    res0 = r.res[0]
    res1 = r.res[1]
    moves = r.moves
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    evaluate(ps, prm, prmf, wk, res0)
    m = 0
    for s in range(3 * ps[P_NCOLS]):
        if ps[np.uint64(P_BLD + s)] != 0:
            continue
        moves[np.uint64(m), 0] = s
        moves[np.uint64(m), 1] = 0
        moves[np.uint64(m), 2] = 0
        moves[np.uint64(m), 3] = 0
        _copy(tps, ps)
        tps[np.uint64(P_BLD + s)] = B_STALL
        tps[P_STONE] -= prm[I_STALL_STONE]
        tps[P_REED] -= prm[I_STALL_REED]
        evaluate(tps, prm, prmf, wk, res1)
        feat_row(r.feats, m, res0, res1, ps, tps, 0)
        m += 1
    return _post(st, me, K_STALL, m)


@njit(cache=True, _nrt=False)
def apply_stall(st, tab, i):
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    s = r.moves[np.uint64(i), 0]
    ps[np.uint64(P_BLD + s)] = B_STALL
    ps[P_STONE] -= prm[I_STALL_STONE]
    ps[P_REED] -= prm[I_STALL_REED]
    r.gs[GS_STALLS] -= 1
    _logs(st, E_STALL, me, s, 0, 0, 0, 0, 0, 0, 0)
    if not settle(st, tab, me, np.int64(PH_TURN)):
        end_turn(st)


@njit(cache=True, _nrt=False)
def post_stables(st, tab):
    """The next stall to upgrade and how to pay (or stop, after a first one); -1 when none can be (the action
    ends)."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    prmf = cxt.prmf
    wk = st.scr[0].wk
    tps = st.scr[0].tps[0]
    res0 = r.res[0]
    res1 = r.res[1]
    moves = r.moves
    feats = r.feats
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    if not can_stables(ps, prm):
        evaluate(ps, prm, prmf, wk, res0)
        end_turn(st)
        return -1
    c = prm[I_STABLES_COST]
    evaluate(ps, prm, prmf, wk, res0)
    m = 0
    for s in range(3 * ps[P_NCOLS]):
        if ps[np.uint64(P_BLD + s)] != B_STALL:
            continue
        for pay in range(2):
            if (pay == 0 and ps[P_WOOD] < c) or (pay == 1 and ps[P_STONE] < c):
                continue
            moves[np.uint64(m), 0] = s
            moves[np.uint64(m), 1] = pay
            moves[np.uint64(m), 2] = 0
            moves[np.uint64(m), 3] = 0
            _copy(tps, ps)
            tps[np.uint64(P_BLD + s)] = B_STABLES
            if pay == 0:
                tps[P_WOOD] -= c
            else:
                tps[P_STONE] -= c
            evaluate(tps, prm, prmf, wk, res1)
            feat_row(feats, m, res0, res1, ps, tps, 0)
            m += 1
    if r.ctl[C_PLACED] > 0:
        moves[np.uint64(m), 0] = -1
        moves[np.uint64(m), 1] = -1
        moves[np.uint64(m), 2] = 0
        moves[np.uint64(m), 3] = 0
        for j in range(NF):
            feats[np.uint64(m), j] = 0.0
        m += 1
    return _post(st, me, K_STABLES, m)


@njit(cache=True, _nrt=False)
def apply_stables(st, tab, i):
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    s = r.moves[np.uint64(i), 0]
    if s < 0:
        evaluate(ps, prm, cxt.prmf, st.scr[0].wk, r.res[0])
        end_turn(st)
        return
    ps[np.uint64(P_BLD + s)] = B_STABLES
    if r.moves[np.uint64(i), 1] == 0:
        ps[P_WOOD] -= prm[I_STABLES_COST]
    else:
        ps[P_STONE] -= prm[I_STABLES_COST]
    r.ctl[C_PLACED] += 1
    _logs(st, E_STABLES, me, s, r.moves[np.uint64(i), 1], 0, 0, 0, 0, 0, 0)
    settle(st, tab, me, np.int64(PH_STABLES))


# ---------------------------------------------------------------------------------------------------------------
# Special building (and its free animal), Expand
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def post_special(st, tab):
    """Which special building, on which space, paid how (the action space is offered only when one can be)."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    prmf = cxt.prmf
    wk = st.scr[0].wk
    tps = st.scr[0].tps[0]
    tps2 = st.scr[0].tps[1]
    res0 = r.res[0]
    res1 = r.res[1]
    moves = r.moves
    feats = r.feats
    gs = r.gs
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    evaluate(ps, prm, prmf, wk, res0)
    m = gen_specials(ps, gs, prm, moves)
    # a Storage Building or Shelter on a free space outside the pastures and without a trough keeps every animal
    # (and the Shelter holds its free animal) when what it closes keeps them too (keeps_all): it is scored from the
    # farm's closed pastures without housing (the farm as it is: past0, its pastures' and lone troughs' capacity)
    quick = wk[S_ROW, MONO_COL] == 1
    ncols = ps[P_NCOLS]
    B = building_mask(ps)
    T = np.uint64(ps[P_T])
    E0 = np.uint64(ps[P_E])
    O = ((np.uint64(1) << np.uint64(3 * ncols)) - U1) & ~B
    past0 = U0
    capo0 = 0
    if quick:
        DN0, RT0, LEAK0 = flood_prep(ncols, O, E0)
        past0 = O & ~grow(LEAK0, O, DN0, RT0)
        capo0, _nexp0 = _closed_value(ps, prm, O, B, T, past0, DN0, RT0, U0)
    storage0 = has_building(ps, B_STORAGE)
    for i in range(m):
        _copy(tps2, ps)
        code = moves[np.uint64(i), 0]
        sp = moves[np.uint64(i), 1]
        w, stn, rd = special_cost(code, moves[np.uint64(i), 2], prm)
        tps2[P_WOOD] -= w
        tps2[P_STONE] -= stn
        tps2[P_REED] -= rd
        tps2[np.uint64(P_BLD + sp)] = code
        done = False
        capb = prm[np.uint64(I_CAPB + code)]
        if quick and (code == B_STORAGE or (code == B_SHELTER and capb >= 1)) and (past0 | T) & bit(sp) == U0:
            O1 = O & ~bit(sp)
            DN1, RT1, LEAK1 = flood_prep(ncols, O1, E0)
            past1 = O1 & ~grow(LEAK1, O1, DN1, RT1)
            if keeps_all(prm, wk, T, past1 & ~past0):
                capo1, nexp1 = _closed_value(tps2, prm, O1, B | bit(sp), T, past1, DN1, RT1, U0)
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
                        _eval_known(tps2, prm, prmf, res1, cap1, 0, pts1, exp1, storage1)
                        tps2[np.uint64(P_AN + t)] -= 1
                        if res1[0] > best + 1e-9:
                            best = res1[0]
                            bt = t
                    tps2[np.uint64(P_AN + bt)] += 1
                _eval_known(tps2, prm, prmf, res1, cap1, 0, pts1, exp1, storage1)
                done = True
        if not done:
            if code == B_SHELTER or code == B_OPEN:
                t = best_free_animal(tps2, code, prm, prmf, wk, tps, res1)
                tps2[np.uint64(P_AN + t)] += 1
            evaluate(tps2, prm, prmf, wk, res1)
        feat_row(feats, i, res0, res1, ps, tps2, 0)
    r.ctl[C_PHASE] = PH_SPECIAL
    return _post(st, me, K_SPECIAL, m)


@njit(cache=True, _nrt=False)
def apply_special(st, tab, i):
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    code = r.moves[np.uint64(i), 0]
    s = r.moves[np.uint64(i), 1]
    pay = r.moves[np.uint64(i), 2]
    place_special(ps, r.gs, code, s, pay, prm)
    _logs(st, E_SPECIAL, me, code, s, pay, 0, 0, 0, 0, 0)
    if code == B_SHELTER or code == B_OPEN:
        # the free animal comes first: the animals are settled once, after it (evaluated on a copy here, the
        # free animal's features start from it)
        tps = st.scr[0].tps[0]
        _copy(tps, ps)
        evaluate(tps, prm, cxt.prmf, st.scr[0].wk, r.res[0])
        r.ctl[C_CODE] = code
        r.ctl[C_PHASE] = PH_ANIMAL
    elif not settle(st, tab, me, np.int64(PH_TURN)):
        end_turn(st)


@njit(cache=True, _nrt=False)
def post_animal(st, tab):
    """The free animal of the Shelter (any type) or the Open Stables (cow or horse)."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    prmf = cxt.prmf
    wk = st.scr[0].wk
    tps = st.scr[0].tps[0]
    res0 = r.res[0]
    res1 = r.res[1]
    moves = r.moves
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    code = r.ctl[C_CODE]
    m = 0
    for t in range(4):
        if code == B_OPEN and t < 2:
            continue
        moves[np.uint64(m), 0] = t
        moves[np.uint64(m), 1] = 0
        moves[np.uint64(m), 2] = 0
        moves[np.uint64(m), 3] = 0
        _copy(tps, ps)
        tps[np.uint64(P_AN + t)] += 1
        evaluate(tps, prm, prmf, wk, res1)
        feat_row(r.feats, m, res0, res1, ps, tps, 1)
        m += 1
    return _post(st, me, K_SHELTER if code == B_SHELTER else K_OPENST, m)


@njit(cache=True, _nrt=False)
def apply_animal(st, tab, i):
    r = st.rec[0]
    cxt = tab[0]
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    t = r.moves[np.uint64(i), 0]
    ps[np.uint64(P_AN + t)] += 1
    _logs(st, E_ANIMAL, me, t, ps[np.uint64(P_AN + t)], 0, 0, 0, 0, 0, 0)
    if not settle(st, tab, me, np.int64(PH_TURN)):
        end_turn(st)


@njit(cache=True, _nrt=False)
def post_expand(st, tab):
    """Expand: the new column on the left (1) or the right (0)."""
    r = st.rec[0]
    cxt = tab[0]
    prm = cxt.prm
    prmf = cxt.prmf
    wk = st.scr[0].wk
    tps = st.scr[0].tps[0]
    res0 = r.res[0]
    res1 = r.res[1]
    moves = r.moves
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    evaluate(ps, prm, prmf, wk, res0)
    for left in range(2):
        moves[left, 0] = 1 - left  # row 0 = left (1), row 1 = right (0)
        moves[left, 1] = 0
        moves[left, 2] = 0
        moves[left, 3] = 0
        _copy(tps, ps)
        add_column(tps, left == 0)
        evaluate(tps, prm, prmf, wk, res1)
        feat_row(r.feats, left, res0, res1, ps, tps, 0)
    return _post(st, me, K_EXPAND, 2)


@njit(cache=True, _nrt=False)
def apply_expand(st, tab, i):
    r = st.rec[0]
    cxt = tab[0]
    me = r.ctl[C_ME]
    ps = r.ps[np.uint64(me)]
    side = r.moves[np.uint64(i), 0]
    add_column(ps, side == 1)
    r.gs[GS_EXPS] -= 1
    _logs(st, E_EXPAND, me, side, r.ctl[C_GOT], 0, 0, 0, 0, 0, 0)
    if not settle(st, tab, me, np.int64(PH_TURN)):
        end_turn(st)


# ---------------------------------------------------------------------------------------------------------------
# the forward model
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def advance_in(st, tab):
    """Forced steps up to the next decision; returns its seat, or -1 once the game is over."""
    r = st.rec[0]
    while True:
        ph = r.ctl[C_PHASE]
        if ph == PH_TURN:
            if r.ctl[C_TURN] == 2 * tab[0].prm[I_WORKERS]:
                end_round(st, tab)
                continue
            return post_action(st, tab)
        if ph == PH_BREED:
            seat = breed(st, tab)
            if seat >= 0:
                return seat
            continue
        if ph == PH_ROUND:
            start_round(st, tab)
            continue
        if ph == PH_OVER:
            return -1
        seat = -1
        if ph == PH_BORDERS:
            seat = post_borders(st, tab)
        elif ph == PH_TROUGHS:
            seat = post_troughs(st, tab)
        elif ph == PH_STALL:
            seat = post_stall(st, tab)
        elif ph == PH_STABLES:
            seat = post_stables(st, tab)
        elif ph == PH_SPECIAL:
            seat = post_special(st, tab)
        elif ph == PH_ANIMAL:
            seat = post_animal(st, tab)
        elif ph == PH_EXPAND:
            seat = post_expand(st, tab)
        else:  # PH_ACTION, PH_KEEP: the decision is still pending
            return r.ctl[C_SEAT]
        if seat >= 0:
            return seat


@njit(cache=True, _nrt=False, inline="always")
def apply_in(st, tab, i):
    """Perform candidate ``i`` of the pending decision."""
    k = st.rec[0].ctl[C_KIND]
    if k == K_ACTION:
        apply_action(st, tab, i)
    elif k == K_PLAN:
        apply_borders(st, tab, i)
    elif k == K_TROUGH:
        apply_troughs(st, tab, i)
    elif k == K_STALL:
        apply_stall(st, tab, i)
    elif k == K_STABLES:
        apply_stables(st, tab, i)
    elif k == K_SPECIAL:
        apply_special(st, tab, i)
    elif k == K_SHELTER or k == K_OPENST:
        apply_animal(st, tab, i)
    elif k == K_KEEP:
        apply_keep(st, tab, i)
    else:
        apply_expand(st, tab, i)


def _step(st, tab, i):
    """The whole engine behind one function pointer: ``i < 0`` advances to the next decision (returns its seat
    or -1), ``i >= 0`` applies candidate ``i`` (returns 0)."""
    if i < 0:
        return advance_in(st, tab)
    apply_in(st, tab, i)
    return 0


# Compile time. numba links the machine code of every function a function calls into the caller's own and
# optimises it all again there, so an engine called directly from the shared loop would be optimised once per
# level above it (the loop, its batch, the search and each of their entry points). Called through a function
# pointer (the context's ``step``, as the loop calls bots), it is compiled and optimised once, in ``step``.
step = njit(cache=True, _nrt=False)(_step)


def step_function(tab):
    """``step`` for the state type and the context table ``tab`` as a function pointer (compiled once per
    process, loaded from numba's cache after the first run; sim.core.forward.step_pointer)."""
    from .state import SCR_DTYPE, STATE_DTYPE

    dummy = AcState(
        np.zeros(1, dtype=STATE_DTYPE),
        np.zeros((0, LOGW), dtype=np.int64),
        np.zeros(2, dtype=np.int64),
        np.zeros(1, dtype=SCR_DTYPE),
    )
    return forward.step_pointer(step, dummy, tab, 0, parts=COMPILE_PARTS)


# ``step``'s direct callees in two groups of about equal compile time (CPU s, 2026-12-02: ~52 and ~65 of ~117;
# the first is compiled by this process, which also compiles the shared loop afterwards): on a cold cache the
# second compiles in a helper process on the other core (sim.core.parcompile).
COMPILE_PARTS = (
    (
        breed,
        start_round,
        post_borders,
        post_troughs,
        post_stall,
        post_stables,
        post_special,
        post_animal,
        post_expand,
        apply_stables,
        apply_special,
        apply_animal,
        apply_keep,
        apply_expand,
    ),
    (post_action, apply_action, apply_borders, apply_troughs, apply_stall),
)


@njit(cache=True)
def advance(st, cx):
    """Run the forced steps up to the next decision; returns its seat, or -1 once the game is over."""
    return cx.step(st, cx.tab, -1)


@njit(cache=True)
def apply(st, cx, i):
    """Perform candidate ``i`` of the pending decision."""
    cx.step(st, cx.tab, i)


forward.register(
    AcState, AcCtx, new=new_state, reset=reset, advance=advance, apply=apply, determinise=determinise, result=result
)
