"""A harvest that takes another player's chip, played through the forward model (not only offered): the chip
moves, the victim's chain is free again and the victim is offered it as a harvest target on its turn."""

import numpy as np

from meeplab.sim.core import forward
from meeplab.sim.core.registry import get_game
from meeplab.sim.hacienda import engine as E
from meeplab.sim.hacienda import flow, state
from meeplab.sim.hacienda.scoring import R_CHIPS


def _chain(c, n, avoid=()):
    """n pampa spaces forming a path, none in or next to ``avoid``."""
    kind, nb = c.kind, c.nb
    bad = set(avoid) | {int(j) for a in avoid for j in nb[a] if j >= 0}
    for h in range(len(kind)):
        path = [h]
        while len(path) < n:
            nxt = [
                int(j)
                for j in nb[path[-1]]
                if j >= 0
                and kind[j] == E.K_PAMPA
                and j not in path
                and j not in bad
                and all(int(k) not in path[:-1] for k in nb[j] if k >= 0)
            ]
            if not nxt:
                break
            path.append(nxt[0])
        if len(path) == n and kind[h] == E.K_PAMPA and h not in bad:
            return path
    raise AssertionError("no free path")


def _has_chip(MS, h):
    return bool((int(MS[R_CHIPS, h >> 6]) >> (h & 63)) & 1)


def _rows(st):
    r = st.rec[0]
    return r["moves"][: r["ctl"][forward.C_N]]


def test_a_chip_taken_from_another_chain_frees_it_for_its_owner():
    g = get_game("hacienda")
    c = g.prepare(g.params.resolve({}))
    st = flow.new_state(c.cx, 2, np.zeros((4000, 6), dtype=np.int64))
    st.nlog[1] = 1
    flow.reset(st, c.cx, 1, 0)
    r = st.rec[0]
    r["hand"][:] = 0
    r["known"][:] = 0
    r["money"][:2] = 0  # nothing to buy, nothing to play: harvests only
    MS, SP, _ = state.py_tables(st, c.cx)
    mine = _chain(c, 2)
    theirs = _chain(c, 3, avoid=mine)
    for h in mine:
        E.place_land(MS, SP, 0, h, c.kind, c.nbmask, r["pub"])
    for h in theirs:
        E.place_land(MS, SP, 1, h, c.kind, c.nbmask, r["pub"])
    # the supply is empty (as when all chips are out); the only chip on the board is on seat 1's chain
    v = theirs[1]
    MS[R_CHIPS, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    SP[E.LB_CHIP, SP[E.SP_LAB, v]] += 1
    r["pub"][E.V_SPACE + v] += 64
    SP[E.SR, E.S_CHIPS] = 0
    # seat 0: the harvest is its only action; it takes seat 1's chip
    assert flow.advance(st, c.cx) == 0
    assert [int(m[0]) for m in _rows(st)] == [E.A_HARVEST]
    flow.apply(st, c.cx, 0)
    assert flow.advance(st, c.cx) == 0 and r["ctl"][forward.C_KIND] == E.K_HARVEST
    rows = _rows(st)
    assert len(rows) == 1 and rows[0, 1] == v and rows[0, 2] == 2
    flow.apply(st, c.cx, 0)
    assert r["money"][0] == 6  # 3 pesos x 2 tiles
    assert not _has_chip(MS, v) and SP[E.LB_CHIP, SP[E.SP_LAB, v]] == 0 and r["pub"][E.V_SPACE + v] & 64 == 0
    chip0 = [h for h in mine if _has_chip(MS, h)]
    assert len(chip0) == 1 and SP[E.LB_CHIP, SP[E.SP_LAB, mine[0]]] == 1 and SP[E.SR, E.S_CHIPS] == 0
    log = st.log[: st.nlog[0]]
    hv = log[log[:, 0] == E.E_HARVEST]
    assert hv.shape[0] == 1 and hv[0, 5] == 2 * 100000 + v + 1  # victim seat 1 (+1), its space (+1)
    # seat 0 spends its other actions (one harvest a turn: none offered again); then seat 1's turn
    while (seat := flow.advance(st, c.cx)) == 0:
        if r["ctl"][forward.C_KIND] == E.K_ACTION:
            assert E.A_HARVEST not in [int(m[0]) for m in _rows(st)]
        flow.apply(st, c.cx, 0)
    assert seat == 1 and [h for h in mine if _has_chip(MS, h)] == chip0
    # the victim's chain is free again: seat 1 may harvest it, taking seat 0's chip (the supply is empty)
    assert [int(m[0]) for m in _rows(st)] == [E.A_HARVEST]
    flow.apply(st, c.cx, 0)
    assert flow.advance(st, c.cx) == 1 and r["ctl"][forward.C_KIND] == E.K_HARVEST
    rows = _rows(st)
    assert len(rows) == 1 and rows[0, 0] in theirs and rows[0, 1] == chip0[0] and rows[0, 2] == 3
    flow.apply(st, c.cx, 0)
    assert r["money"][1] == 9 and not _has_chip(MS, chip0[0])
    assert SP[E.LB_CHIP, SP[E.SP_LAB, theirs[0]]] == 1 and SP[E.LB_CHIP, SP[E.SP_LAB, mine[0]]] == 0
