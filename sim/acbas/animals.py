"""Animals on the farm: every gain is housed at once (``settle``), and where not all animals fit and more than one
maximal set does, the player chooses which stay (keep or release, ``apply_keep``); breeding at the end of every
round (``breed``), after the last round the final scoring."""

import numpy as np
from numba import njit

from meeplab.sim.core.forward import C_END, C_LENGTH, C_N, C_OVER, C_PHASE, C_SEAT
from meeplab.sim.core.records import post_decision

from .buildings import *
from .evaluation import *
from .farm import *
from .layout import *
from .params import *
from .state import C_BSEAT, C_KRET, C_KSEAT, C_RND, C_SLOT, PH_BREED, PH_KEEP, PH_OVER, PH_ROUND, PH_TURN
from .turns import end_turn, log_wide


# ---------------------------------------------------------------------------------------------------------------
# breeding at the end of a round, then the next round or the final scoring
# ---------------------------------------------------------------------------------------------------------------
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
            log_wide(st, E_BREED, p, b0, b1, b2, b3, -1, 0, 0, 0)
            return p
        after = ps[P_AN] + ps[P_AN + 1] + ps[P_AN + 2] + ps[P_AN + 3]
        nb = b0 + b1 + b2 + b3
        log_wide(st, E_BREED, p, b0, b1, b2, b3, before + nb - after, 0, 0, 0)
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
        log_wide(st, E_SCORE, p, np.int64(r.score[p] * 2), 0, 0, 0, 0, 0, 0, 0)
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
    post_decision(st, p, K_KEEP, m)
    return True


@njit(cache=True, inline="always")
def settle_turn(st, tab, p):
    """Seat p's farm got animals or changed at the end of its action: house them; the turn ends, unless p now
    chooses which animals to keep (the turn ends after that choice)."""
    if not settle(st, tab, p, np.int64(PH_TURN)):
        end_turn(st)


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
    log_wide(
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
