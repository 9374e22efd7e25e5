"""Legal placements and follower actions on positions built from real games, checked against brute force."""

from __future__ import annotations

import numpy as np
from test_goldrush_reference import MTN, PRAIRIE, STEP, RefGame

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.goldrush import GAME, play_logged
from meeplab.sim.goldrush.const import (
    A_COWBOY,
    A_MINE,
    A_PASS,
    A_TENT,
    EV_COWBOY,
    EV_MINE,
    EV_PASS,
    EV_PLACE,
    EV_REMOVE,
    EV_START,
    EV_TENT,
    G_NPL,
    LOGW,
    NFEAT,
    SLOTS,
)
from meeplab.sim.goldrush.engine import action_features, list_placements, run_script

CTX = GAME.prepare(GAME.params.resolve({}))
D = CTX.deck
B = 2 * D.n + 3
C = B // 2


def _rot_edges(inst, r):
    e = D.types[int(D.inst_type[inst])].edges
    return "".join(e[(d - r) % 4] for d in range(4))


def _form(inst, r):
    """What a turned tile looks like: edges and every segment with its turned mask and printed content."""
    tt = D.types[int(D.inst_type[inst])]
    copy = int(D.inst_copy[inst]) - 1
    segs = []
    for s, k in enumerate(tt.kinds):
        if k == PRAIRIE:
            m = tt.half_mask[s]
            m = ((m << (2 * r)) | (m >> (8 - 2 * r))) & 0xFF
        else:
            m = tt.edge_mask[s]
            m = ((m << r) | (m >> (4 - r))) & 0xF
        content = (
            tt.nuggets[copy][s - tt.n_rails] if k == MTN else 0,
            tt.locos[copy][s] if k == 0 else 0,
            (tt.tipis[copy], tt.horses[copy]) if s == tt.symbol_region else (0, 0),
        )
        segs.append((k, m, content))
    return (_rot_edges(inst, r), tuple(sorted(segs)))


def brute_placements(placed, inst):
    empty = set()
    for x, y in placed:
        for dx, dy in STEP:
            if (x + dx, y + dy) not in placed:
                empty.add((x + dx, y + dy))
    out = set()
    for x, y in empty:
        for r in range(4):
            e = _rot_edges(inst, r)
            ok = True
            for d, (dx, dy) in enumerate(STEP):
                nb = placed.get((x + dx, y + dy))
                if nb is not None and _rot_edges(*nb)[(d + 2) % 4] != e[d]:
                    ok = False
            if ok:
                out.add((x, y, _form(inst, r)))
    return out


def _prefix(log, k):
    """Rows of the log up to (not including) the k-th placement."""
    seen = 0
    for i, r in enumerate(log):
        if r[0] == EV_PLACE:
            if seen == k:
                return log[:i], r
            seen += 1
    return None, None


def _script(rows, last=None):
    script = []
    for r in rows:
        ev = int(r[0])
        if ev == EV_START:
            script.append((0, int(r[1]), 0, 0, 0, 0))
        elif ev == EV_PLACE:
            script.append((0, int(r[2]), int(r[3]) % B - C, int(r[3]) // B - C, int(r[4]), int(r[1])))
        elif ev == EV_COWBOY:
            script.append((1, A_COWBOY, int(r[2]) % SLOTS, 0, 0, int(r[1])))
        elif ev == EV_TENT:
            script.append((1, A_TENT, int(r[2]) % SLOTS, int(r[2]) // SLOTS, 0, int(r[1])))
        elif ev == EV_MINE:
            script.append((1, A_MINE, 0, 0, 0, int(r[1])))
        elif ev == EV_PASS:
            script.append((1, A_PASS, 0, 0, 0, int(r[1])))
    if last is not None:
        script.append((0, int(last[2]), int(last[3]) % B - C, int(last[3]) // B - C, int(last[4]), int(last[1])))
    return np.array(script, np.int64)


def _build(script, P):
    bd = np.zeros((P, 5))
    log = np.zeros((1, LOGW), np.int64)
    return run_script(
        script,
        np.int64(P),
        D.seg,
        D.nseg,
        D.edges,
        D.edge_seg,
        D.half_seg,
        CTX.through,
        CTX.cityseg,
        CTX.tokens.values.copy(),
        CTX.pr,
        bd,
        log,
        False,
    )


def test_placement_counts_match_brute_force():
    lineup = make_lineup("goldrush", ["random"], 2, True)
    moves = np.zeros((2000, 3), np.int64)
    checked = 0
    for g in range(6):
        log, *_ = play_logged(CTX, lineup, 21, g, 2)
        for k in (0, 3, 10, 25, 45, 69):
            rows, _ = _prefix(log, k)
            if rows is None:
                continue
            _nd, gi, pl, board, _fidx, cons, front, _mtn, _pi, _cow, bad = _build(_script(rows), 2)
            assert bad == -1
            placed = {}
            for t in range(gi[G_NPL]):
                placed[(int(pl[t, 2] % B) - C, int(pl[t, 2] // B) - C)] = (int(pl[t, 0]), int(pl[t, 1]))
            for inst in range(0, D.n, 3):
                n = list_placements(gi, board, front, cons, np.int64(inst), D.edges, D.rots, D.nrots, moves)
                got = {
                    (int(moves[i, 0] % B) - C, int(moves[i, 0] // B) - C, _form(inst, int(moves[i, 1])))
                    for i in range(n)
                }
                assert n == len(got), "duplicate placements"
                assert got == brute_placements(placed, inst)
                checked += 1
    assert checked > 500


def test_action_counts_match_brute_force():
    P = 3
    lineup = make_lineup("goldrush", ["greedy", "random"], P, True)
    moves = np.zeros((2000, 3), np.int64)
    feats = np.zeros((2000, NFEAT))
    rem = np.ones(4, np.int64) * 10
    checked = 0
    for g in range(8):
        log, *_ = play_logged(CTX, lineup, 4, g, P)
        for k in range(1, 70, 4):
            rows, last = _prefix(log, k)
            if rows is None:
                continue
            nd, gi, pl, _board, _fidx, _cons, _front, mtn, pi, cow, bad = _build(_script(rows, last), P)
            assert bad == -1
            me = int(last[1])
            t = gi[G_NPL] - 1
            n = action_features(
                nd,
                gi,
                pl,
                np.int64(t),
                np.int64(me),
                np.int64(P),
                D.seg,
                D.nseg,
                CTX.through,
                CTX.pr,
                1.5,
                pi,
                cow,
                rem,
                mtn,
                moves,
                feats,
                np.zeros(5, np.int64),
            )
            got = sorted((int(moves[i, 0]), int(moves[i, 1])) for i in range(n))
            # brute force with the reference game (flood fill) replaying the same decisions
            ref = _ref_state(log, rows, last, P)
            assert got == _brute_actions(ref, me, P)
            checked += 1
    assert checked > 100


def _ref_state(log, rows, last, P):
    g = RefGame(D, CTX.values, P, [0] * 200, len(CTX.tokens.values))
    cur = 0
    t = None
    for r in list(rows) + [last]:
        ev = int(r[0])
        if ev == EV_START:
            g.add(int(r[1]), 0, 0, 0)
        elif ev == EV_PLACE:
            t = g.add(int(r[2]), int(r[3]) % B - C, int(r[3]) // B - C, int(r[4]))
            cur = int(r[1])
        elif ev in (EV_COWBOY, EV_TENT, EV_MINE, EV_PASS, EV_REMOVE):
            kind = {EV_COWBOY: "cowboy", EV_TENT: "tent", EV_MINE: "mine", EV_PASS: "pass", EV_REMOVE: "remove"}[ev]
            g.action(kind, int(r[1]), int(r[2]) if ev != EV_PASS else -1)
            g.score_turn(t, cur)
    return g


def _brute_actions(g, me, P):
    out = [(A_PASS, -1)]
    t = len(g.tl) - 1
    if g.ncow[me] > 0:
        for s, sg in enumerate(g.tl[t]["segs"]):
            if sg["kind"] == 2:
                nodes = {(t, s)}
            else:
                nodes, _ = g.feature(t, s)
            if not any(n in g.occ for n in nodes):
                out.append((A_COWBOY, t * SLOTS + s))
    mine_feat = g.feature(*g.tent[me])[0] if g.tent[me] is not None else frozenset()
    tents = {x for x in g.tent if x is not None}
    for tt, tile in enumerate(g.tl):
        for s, sg in enumerate(tile["segs"]):
            if sg["kind"] != MTN or (tt, s) in g.occ or (tt, s) in tents:
                continue
            _f, o = g.feature(tt, s)
            if o == 0:
                continue  # another area of the mountain under my own tent is a legal move
            out.append((A_TENT, tt * SLOTS + s))
    if mine_feat and sum(g.stack.get(n, 0) for n in mine_feat) > 0:
        tt, s = g.tent[me]
        out.append((A_MINE, tt * SLOTS + s))
    return sorted(out)
