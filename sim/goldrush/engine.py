"""Carcassonne: Gold Rush engine on the forward model (``docs/adding-a-game.md``; numba, nopython).

The game is a state machine over ``GRState`` (``state.py``). A turn, as the rule book has it: draw a tile
(a tile that fits nowhere is removed and the next drawn), place it (decision KIND_PLACE; mining tokens go onto
the mountain's stack), do one follower action (decision KIND_ACTION: cowboy on the new tile, tent placed or
moved, mine, pass; house rule: take a cowboy back), then completed railroads, mountains and cities score.
After the last tile comes the final scoring. ``advance`` runs the forced steps up to the next decision,
``apply`` performs a candidate; the game loop and the batch are the shared ``sim.core.play``.

Rules live in ``board.py`` (placement, features as union-find), ``scoring.py`` (completions, the end) and
``features.py`` (what a seat sees of its candidates); decision kinds, view and feature columns: ``bots.md``.
"""

import numpy as np
from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.forward import (
    C_END,
    C_LENGTH,
    C_N,
    C_NP,
    C_OVER,
    C_PHASE,
    C_SEAT,
    STEP_ADVANCE,
    STEP_RESET,
)
from meeplab.sim.core.records import post_decision
from meeplab.sim.core.rng import rng_init, shuffle

from .board import city_status, emit, find, fits, new_game_board, place_tile
from .const import (
    A_COWBOY,
    A_MINE,
    A_REMOVE,
    A_TENT,
    EV_COWBOY,
    EV_DISCARD,
    EV_END,
    EV_MINE,
    EV_PASS,
    EV_PLACE,
    EV_REMOVE,
    EV_START,
    EV_TENT,
    F_COW,
    F_DONE,
    F_END0,
    F_KIND,
    F_OCC,
    F_OPEN,
    F_STACK,
    G_B,
    G_CUR,
    G_DRAW,
    G_NPL,
    G_NTILES,
    G_SUPPLY,
    G_TURN,
    K_MTN,
    K_RAIL,
    KIND_ACTION,
    KIND_PLACE,
    MAXC,
    MAXP,
    NCAT,
    NF,
    NG,
    NV,
    P_SEAT_COWBOYS,
    PI_SUPPLY,
    PI_TENT,
    PI_TOKN,
    PI_TOKSUM,
    S_KIND,
    SLOTS,
)
from .evaluate import eval_placements, fill_view, list_placements, token_mean
from .follower import action_features
from .redraw import redraw_chance
from .scoring import final_scoring, majority, score_complete, take_token
from .state import (
    C_CUR,
    C_DRAWN,
    C_INST,
    C_TILE,
    PH_ACTION,
    PH_ACTIONS,
    PH_DRAW,
    PH_OVER,
    PH_PLACE,
    STATE_DTYPE,
    GRCtx,
    GREng,
    GRState,
    determinise,
    new_state,
)

__all__ = ["action_features", "advance", "apply", "list_placements", "reset", "result", "run_script", "token_mean"]


# ---------------------------------------------------------------------------------------------------------------
# setting up
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy", _nrt=False)
def clear_table(r, np_, pr, ntiles):
    """Take the previous game's tiles off the board and give every player cowboys and a tent."""
    new_game_board(r.nd, r.gi, r.pl, r.board, r.front, r.fidx, r.cons, r.mtn)
    gi = r.gi
    for k in range(NG):
        gi[k] = 0
    gi[G_B] = 2 * ntiles + 3
    gi[G_NTILES] = ntiles
    for p in range(MAXP):
        r.pl_int[p, PI_SUPPLY] = int(pr[P_SEAT_COWBOYS + p])
        r.pl_int[p, PI_TENT] = -1
        r.pl_int[p, PI_TOKSUM] = 0
        r.pl_int[p, PI_TOKN] = 0
        for k in range(MAXC):
            r.cow[p, k] = -1
        for c in range(NCAT):
            r.brk[p, c] = 0.0
    for j in range(NV):
        r.pub[j] = 0
    for j in range(r.ctl.shape[0]):
        if j != C_NP:
            r.ctl[j] = 0


@njit(cache=True, error_model="numpy", _nrt=False)
def shuffle_tokens(r, cxt):
    """The mining tokens, shuffled face down."""
    for i in range(cxt.ntok):
        r.tokvals[i] = cxt.tokvals[i]
    shuffle(r.tokvals, cxt.ntok, r.rng)
    r.gi[G_SUPPLY] = cxt.ntok


@njit(cache=True, error_model="numpy", _nrt=False)
def count_edges(rem_e, code, sign):
    """Add ``sign`` to the public count of pile tiles with an edge of each kind, for one tile."""
    for e in range(1, 4):
        for d in range(4):
            if ((code >> (2 * d)) & 3) == e:
                rem_e[e] += sign
                break


@njit(cache=True, error_model="numpy", _nrt=False)
def shuffle_pile(r, cxt):
    """Every tile but the start tile, shuffled into the draw pile."""
    ntiles = cxt.ntiles
    k = 0
    for i in range(ntiles):
        if i != cxt.start:
            r.order[k] = i
            k += 1
    shuffle(r.order, ntiles - 1, r.rng)
    for e in range(4):
        r.rem_e[e] = 0
    for i in range(ntiles - 1):
        count_edges(r.rem_e, cxt.edges[r.order[i], 0], 1)


@njit(cache=True, error_model="numpy", _nrt=False)
def place_start_tile(st, cxt):
    """The start tile face up in the centre (its mountain gets its token)."""
    r = st.rec[0]
    gi = r.gi
    gi[G_DRAW] = 1
    B = gi[G_B]
    cpos = (B // 2) * B + B // 2
    emit(st.log, st.nlog, EV_START, cxt.start, cpos, 0, 0, 0, 0)
    place_tile(
        r.nd,
        gi,
        r.pl,
        r.board,
        r.front,
        r.fidx,
        r.cons,
        r.mtn,
        cpos,
        cxt.start,
        np.int64(0),
        cxt.seg,
        cxt.nseg,
        cxt.edges,
        cxt.edge_seg,
        cxt.half_seg,
        st.log,
        st.nlog,
    )


@njit(cache=True, error_model="numpy", _nrt=False)
def set_table(st, cx):
    """A new game on a seeded stream: clear the table, shuffle tokens and tiles, lay the start tile."""
    r = st.rec[0]
    cxt = cx.tab[0]
    clear_table(r, r.ctl[C_NP], cxt.pr, cxt.ntiles)
    shuffle_tokens(r, cxt)
    shuffle_pile(r, cxt)
    place_start_tile(st, cxt)
    r.ctl[C_PHASE] = PH_DRAW
    r.ctl[C_SEAT] = -1


# ---------------------------------------------------------------------------------------------------------------
# a turn: draw and place, one follower action, scoring
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy", _nrt=False)
def draw_tile(st, cx):
    """Draw the next tile. Returns True with its placements posted, False when it fits nowhere (removed)."""
    r = st.rec[0]
    cxt = cx.tab[0]
    gi = r.gi
    cur = r.ctl[C_CUR]
    np_ = r.ctl[C_NP]
    inst = r.order[r.ctl[C_DRAWN]]
    r.ctl[C_DRAWN] += 1
    gi[G_DRAW] = r.ctl[C_DRAWN] + 1
    count_edges(r.rem_e, cxt.edges[inst, 0], -1)
    n = list_placements(gi, r.board, r.front, r.cons, inst, cxt.edges, cxt.rots, cxt.nrots, r.moves)
    if n == 0:
        emit(st.log, st.nlog, EV_DISCARD, cur, inst, 0, 0, 0, 0)
        return False
    gi[G_CUR] = cur
    gi[G_TURN] = r.ctl[C_LENGTH]
    emean = token_mean(cxt.toktot, cxt.ntok, r.pl_int, cur)
    eval_placements(r, cxt, n, inst, cur, np_, emean)
    for i in range(n):
        r.moves[i, 2] = inst
    fill_view(r.pub, gi, cur, np_, r.pl_int, r.nd, r.brk)
    r.ctl[C_INST] = inst
    post_decision(st, cur, KIND_PLACE, n)
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def place(st, cx, pos, rot):
    """Lay the drawn tile at ``pos`` turned ``rot`` (features merge, tokens go onto its mountains)."""
    r = st.rec[0]
    cxt = cx.tab[0]
    inst = r.ctl[C_INST]
    emit(st.log, st.nlog, EV_PLACE, r.ctl[C_CUR], inst, pos, rot, 0, 0)
    r.ctl[C_TILE] = place_tile(
        r.nd,
        r.gi,
        r.pl,
        r.board,
        r.front,
        r.fidx,
        r.cons,
        r.mtn,
        pos,
        inst,
        rot,
        cxt.seg,
        cxt.nseg,
        cxt.edges,
        cxt.edge_seg,
        cxt.half_seg,
        st.log,
        st.nlog,
    )


@njit(cache=True, error_model="numpy", _nrt=False)
def list_actions(st, cx):
    """The follower actions after the placement; posts them when there is a choice. Returns their count."""
    r = st.rec[0]
    cxt = cx.tab[0]
    cur = r.ctl[C_CUR]
    np_ = r.ctl[C_NP]
    emean = token_mean(cxt.toktot, cxt.ntok, r.pl_int, cur)
    n = action_features(
        r.nd,
        r.gi,
        r.pl,
        r.ctl[C_TILE],
        cur,
        np_,
        cxt.seg,
        cxt.nseg,
        cxt.through,
        cxt.pr,
        emean,
        r.pl_int,
        r.cow,
        r.rem_e,
        r.mtn,
        r.moves,
        r.feats,
        r.troot,
    )
    if n > 1:
        fill_view(r.pub, r.gi, cur, np_, r.pl_int, r.nd, r.brk)
        post_decision(st, cur, KIND_ACTION, n)
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def do_action(nd, gi, cur, a, x, arg, tokvals, tokown, pi, cow, log, nlog):
    """Apply one follower action of player ``cur`` (A_PASS, A_COWBOY, A_TENT, A_MINE, A_REMOVE)."""
    if a == A_COWBOY:
        r = find(nd, x)
        nd[r, F_COW + cur] += 1
        nd[x, F_OCC] = cur
        for kk in range(MAXC):
            if cow[cur, kk] < 0:
                cow[cur, kk] = x
                break
        pi[cur, PI_SUPPLY] -= 1
        emit(log, nlog, EV_COWBOY, cur, x, arg, 0, 0, 0)
    elif a == A_TENT:
        old = pi[cur, PI_TENT]
        if old >= 0:
            nd[old, F_OCC] = -1
        pi[cur, PI_TENT] = x
        nd[x, F_OCC] = 8 + cur
        emit(log, nlog, EV_TENT, cur, x, old, 0, 0, 0)
    elif a == A_MINE:
        r = find(nd, x)
        v = take_token(gi, pi, cur, tokvals, tokown)
        nd[r, F_STACK] -= 1
        emit(log, nlog, EV_MINE, cur, x, v, nd[r, F_STACK], 0, 0)
    elif a == A_REMOVE:
        r = find(nd, x)
        nd[r, F_COW + cur] -= 1
        nd[x, F_OCC] = -1
        cow[cur, arg] = -1
        pi[cur, PI_SUPPLY] += 1
        emit(log, nlog, EV_REMOVE, cur, x, 0, 0, 0, 0)
    else:
        emit(log, nlog, EV_PASS, cur, 0, 0, 0, 0, 0)


@njit(cache=True, error_model="numpy", _nrt=False)
def score_turn(
    nd, gi, t, inst, cur, P, pl, seg, nseg, through, cityseg, pr, tokvals, tokown, cow, pi, bd, done, log, nlog
):
    """Score what placing tile ``t`` completed: railroads, mountains, then cities."""
    nd_done = 0
    ns = nseg[inst]
    for kind in range(2):
        for s in range(ns):
            if seg[inst, s, S_KIND] != kind:
                continue
            r = find(nd, t * SLOTS + s)
            if nd[r, F_OPEN] == 0 and nd[r, F_DONE] == 0:
                if kind == K_RAIL:
                    done[nd_done] = r
                    nd_done += 1
                score_complete(nd, r, cur, P, pl, seg, nseg, through, pr, tokvals, tokown, cow, pi, bd, gi, log, nlog)
    # cities: the new tile's and those at the ends of completed railroads
    for q in range(nd_done + 1):
        for e in range(2):
            if q == nd_done:
                if e == 1:
                    continue
                te = t
            else:
                te = nd[done[q], F_END0 + e]
            if te < 0:
                continue
            cs = cityseg[pl[te, 0]]
            if cs < 0:
                continue
            cnode = te * SLOTS + cs
            if nd[cnode, F_DONE] != 0:
                continue
            complete, _ndist = city_status(nd, cnode, pl, seg, nseg)
            if complete:
                score_complete(
                    nd, cnode, cur, P, pl, seg, nseg, through, pr, tokvals, tokown, cow, pi, bd, gi, log, nlog
                )


@njit(cache=True, error_model="numpy", _nrt=False)
def act(st, cx, i):
    """Perform follower action ``i``, score the turn and pass the turn on."""
    r = st.rec[0]
    cxt = cx.tab[0]
    cur = r.ctl[C_CUR]
    np_ = r.ctl[C_NP]
    do_action(
        r.nd,
        r.gi,
        cur,
        r.moves[i, 0],
        r.moves[i, 1],
        r.moves[i, 2],
        r.tokvals,
        r.tokown,
        r.pl_int,
        r.cow,
        st.log,
        st.nlog,
    )
    score_turn(
        r.nd,
        r.gi,
        r.ctl[C_TILE],
        r.ctl[C_INST],
        cur,
        np_,
        r.pl,
        cxt.seg,
        cxt.nseg,
        cxt.through,
        cxt.cityseg,
        cxt.pr,
        r.tokvals,
        r.tokown,
        r.cow,
        r.pl_int,
        r.brk,
        r.done,
        st.log,
        st.nlog,
    )
    r.ctl[C_LENGTH] += 1
    r.ctl[C_CUR] = (cur + 1) % np_
    r.ctl[C_PHASE] = PH_DRAW


@njit(cache=True, error_model="numpy", _nrt=False)
def end_game(st, cx):
    """After the last tile: the final scoring (incomplete features, prairies, token faces)."""
    r = st.rec[0]
    cxt = cx.tab[0]
    final_scoring(
        r.nd, r.gi, r.ctl[C_NP], r.pl, cxt.seg, cxt.nseg, cxt.through, cxt.pr, r.cow, r.pl_int, r.brk, st.log, st.nlog
    )
    emit(st.log, st.nlog, EV_END, r.ctl[C_LENGTH], 0, 0, 0, 0, 0)
    r.ctl[C_OVER] = 1
    r.ctl[C_END] = 0
    r.ctl[C_PHASE] = PH_OVER
    r.ctl[C_SEAT] = -1


# ---------------------------------------------------------------------------------------------------------------
# the forward model
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy", _nrt=False)
def advance_in(st, cx):
    """Run forced steps up to the next decision; returns its seat, or -1 when the game is over."""
    r = st.rec[0]
    cxt = cx.tab[0]
    while True:
        ph = r.ctl[C_PHASE]
        if ph == PH_DRAW:
            if r.ctl[C_DRAWN] >= cxt.ntiles - 1:
                end_game(st, cx)
                return -1
            if draw_tile(st, cx):
                r.ctl[C_PHASE] = PH_PLACE
                return r.ctl[C_CUR]
        elif ph == PH_ACTIONS:
            if list_actions(st, cx) > 1:
                r.ctl[C_PHASE] = PH_ACTION
                return r.ctl[C_CUR]
            act(st, cx, 0)
        elif ph == PH_PLACE or ph == PH_ACTION:
            return r.ctl[C_SEAT]
        else:
            return -1


@njit(cache=True, error_model="numpy", _nrt=False)
def apply_in(st, cx, i):
    """Perform candidate ``i`` of the pending decision."""
    r = st.rec[0]
    ph = r.ctl[C_PHASE]
    if ph == PH_PLACE:
        place(st, cx, r.moves[i, 0], r.moves[i, 1])
        r.ctl[C_PHASE] = PH_ACTIONS
    elif ph == PH_ACTION:
        act(st, cx, i)
    r.ctl[C_N] = 0


@njit(cache=True, error_model="numpy", _nrt=False)
def result(st, cx, sc, tb, brk):
    """Score (sum of the breakdown), no tie-break (a tie is shared) and breakdown of every seat."""
    r = st.rec[0]
    for p in range(r.ctl[C_NP]):
        s = 0.0
        for c in range(NCAT):
            s += r.brk[p, c]
            brk[p, c] = r.brk[p, c]
        sc[p] = s
        tb[p] = 0.0


def _step(st, cx, i):
    """The whole engine behind one function pointer (``GRCtx.step``, called with the engine context ``GREng``):
    ``i >= 0`` applies candidate ``i`` (returns 0), STEP_ADVANCE advances to the next decision (returns its seat
    or -1), STEP_RESET sets up the table of a game whose stream is seeded (returns 0)."""
    if i >= 0:
        apply_in(st, cx, i)
        return 0
    if i == STEP_ADVANCE:
        return advance_in(st, cx)
    set_table(st, cx)
    return 0


step = njit(cache=True, error_model="numpy", _nrt=False)(_step)


def step_function(eng):
    """``step`` for the engine context ``eng`` as a function pointer (sim.core.forward.step_pointer)."""
    st = GRState(np.zeros(1, dtype=STATE_DTYPE), np.zeros((0, 7), dtype=np.int64), np.zeros(2, dtype=np.int64))
    return forward.step_pointer(step, st, eng, 0, parts=COMPILE_PARTS)


# Functions of ``step``'s tree that take a prefix of its arguments, in two groups of about equal compile time (a cold
# compile's events, 2026-12-07: drawing and placing's evaluation with the game's end and set-up ~11 s, the follower
# actions ~9 s of the tree's ~25 s): on a cold cache the first is compiled by this process, the second by a helper
# process on the other core (sim.core.parcompile), and ``step`` then loads both from the cache.
COMPILE_PARTS = (
    (draw_tile, end_game, set_table),
    (act, list_actions),
)


def make_ctx(tab):
    """The context the shared loop gets: the run's record (:func:`~meeplab.sim.goldrush.state.ctx_record`) and
    the engine's step function for it."""
    return GRCtx(tab, step_function(GREng(tab)))


@njit(cache=True, error_model="numpy", _nrt=False)
def reset(st, cx, seed, g):
    """Game ``g``: seed the stream from (seed, g), clear the table, shuffle tokens and tiles, lay the start tile."""
    rng_init(st.rec[0].rng, seed, g)
    cx.step(st, GREng(cx.tab), STEP_RESET)


@njit(cache=True, error_model="numpy", _nrt=False)
def advance(st, cx):
    """Run forced steps up to the next decision; returns its seat, or -1 when the game is over."""
    return cx.step(st, GREng(cx.tab), STEP_ADVANCE)


@njit(cache=True, error_model="numpy", _nrt=False)
def apply(st, cx, i):
    """Perform candidate ``i`` of the pending decision."""
    cx.step(st, GREng(cx.tab), i)


forward.register(
    GRState, GRCtx, new=new_state, reset=reset, advance=advance, apply=apply, determinise=determinise, result=result,
    redraw=redraw_chance,
)  # fmt: skip


# ---------------------------------------------------------------------------------------------------------------
# hand-built positions (tests)
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def new_tables(ntiles, P, pr):
    """Board and player arrays of one game, shaped like the state record's fields (for ``run_script``)."""
    B = 2 * ntiles + 3
    nd = np.zeros((ntiles * SLOTS, NF), np.int64)
    gi = np.zeros(NG, np.int64)
    gi[G_B] = B
    gi[G_NTILES] = ntiles
    pl = np.zeros((ntiles, 3), np.int64)
    board = np.full(B * B, -1, np.int16)
    fidx = np.full(B * B, -1, np.int16)
    cons = np.zeros(B * B, np.uint8)
    front = np.zeros(2 * ntiles + 2, np.int64)
    mtn_nodes = np.zeros(ntiles * 4 + 1, np.int64)
    pi = np.zeros((P, 4), np.int64)
    cow = -np.ones((P, MAXC), np.int64)
    for p in range(P):
        pi[p, PI_SUPPLY] = int(pr[P_SEAT_COWBOYS + p])
        pi[p, PI_TENT] = -1
    return nd, gi, pl, board, fidx, cons, front, mtn_nodes, pi, cow


@njit(cache=True, error_model="numpy")
def run_script(script, P, seg, nseg, edges, edge_seg, half_seg, through, cityseg, tokvals, pr, bd, log, logging):
    """Build a position through the engine's own functions (tests, hand-built layouts).

    ``script`` rows (op, a, b, c, d, player): op 0 places instance ``a`` at (x=b, y=c) relative to the
    centre turned ``d`` (the first row places the first tile in the centre, unchecked; later rows must fit);
    op 1 is the action of ``player`` after the last placement (a = action type, b = segment on the new tile
    for a cowboy, or (b = segment, c = tile index) for a tent; d = cowboy slot for a removal), followed by
    the turn's scoring; op 2 is the final scoring. Tokens are revealed in ``tokvals`` order.
    Returns the state arrays and the index of the first illegal row (-1 = all legal).
    """
    ntiles = nseg.shape[0]
    nd, gi, pl, board, fidx, cons, front, mtn_nodes, pi, cow = new_tables(ntiles, P, pr)
    nlog = np.zeros(2, np.int64)
    nlog[1] = 1 if logging else 0
    tokown = np.zeros(tokvals.shape[0], np.int64)
    gi[G_SUPPLY] = tokvals.shape[0]
    B = gi[G_B]
    done = np.zeros(3 * SLOTS, np.int64)
    bad = -1
    t = -1
    inst = -1
    for i in range(script.shape[0]):
        op = script[i, 0]
        cur = script[i, 5]
        if op == 0:
            inst = script[i, 1]
            pos = (script[i, 3] + B // 2) * B + script[i, 2] + B // 2
            rot = script[i, 4]
            if gi[G_NPL] > 0 and (fidx[pos] < 0 or not fits(edges[inst, rot], cons[pos])):
                bad = i
                break
            t = place_tile(
                nd,
                gi,
                pl,
                board,
                front,
                fidx,
                cons,
                mtn_nodes,
                pos,
                inst,
                rot,
                seg,
                nseg,
                edges,
                edge_seg,
                half_seg,
                log,
                nlog,
            )
        elif op == 1:
            a = script[i, 1]
            x = -1
            arg = 0
            if a == A_COWBOY:
                x = t * SLOTS + script[i, 2]
                arg = seg[inst, script[i, 2], S_KIND]
                if majority(nd, find(nd, x), P) > 0 or pi[cur, PI_SUPPLY] <= 0:
                    bad = i
                    break
            elif a == A_TENT:
                x = script[i, 3] * SLOTS + script[i, 2]
                if nd[x, F_OCC] >= 0 or nd[find(nd, x), F_OPEN] == 0 or nd[x, F_KIND] != K_MTN:
                    bad = i
                    break
            elif a == A_MINE:
                x = pi[cur, PI_TENT]
                if x < 0 or nd[find(nd, x), F_STACK] <= 0:
                    bad = i
                    break
            elif a == A_REMOVE:
                arg = script[i, 4]
                x = cow[cur, arg]
                if x < 0:
                    bad = i
                    break
            do_action(nd, gi, cur, a, x, arg, tokvals, tokown, pi, cow, log, nlog)
            score_turn(
                nd,
                gi,
                t,
                inst,
                cur,
                P,
                pl,
                seg,
                nseg,
                through,
                cityseg,
                pr,
                tokvals,
                tokown,
                cow,
                pi,
                bd,
                done,
                log,
                nlog,
            )
        else:
            final_scoring(nd, gi, P, pl, seg, nseg, through, pr, cow, pi, bd, log, nlog)
    return nd, gi, pl, board, fidx, cons, front, mtn_nodes, pi, cow, bad
