"""The box's limits (rule book: 30 animal discs per player, 80 double-sided land tiles in 5 colours), each at its
edge on hand-built positions, and kept over whole games with tight limits."""

import numpy as np
import pytest

from meeplab.sim.core import forward
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.registry import get_game
from meeplab.sim.hacienda import engine as E
from meeplab.sim.hacienda import flow, state
from meeplab.sim.hacienda.setup import land_left, take_land

PIG = E.T_ANIMAL + 2
MOUNTAIN = 0


def _ctx(**over):
    g = get_game("hacienda")
    return g.prepare(g.params.resolve(over))


@pytest.fixture(scope="module")
def c():
    return _ctx()


def _start(c, np_=2):
    """A game just dealt, then: seat 0 holds no card and no peso (each test gives what it needs)."""
    st = flow.new_state(c.cx, np_, np.zeros((0, 6), dtype=np.int64))
    flow.reset(st, c.cx, 1, 0)
    r = st.rec[0]
    r["hand"][0] = 0
    r["known"][0] = 0
    r["money"][0] = 0
    return st


def _pampa_pair(c):
    for h in range(len(c.kind)):
        if c.kind[h] == E.K_PAMPA:
            for j in c.nb[h]:
                if j >= 0 and c.kind[j] == E.K_PAMPA:
                    return int(h), int(j)
    raise AssertionError


def _actions(st, c):
    """(code, card type) of every action candidate of seat 0's first decision."""
    assert flow.advance(st, c.cx) == 0
    r = st.rec[0]
    assert r["ctl"][forward.C_KIND] == E.K_ACTION
    n = r["ctl"][forward.C_N]
    return {(int(m[0]), int(m[1])) for m in r["moves"][:n]}


def _place_first(st, c):
    """Apply the pending play and put the tile on the first candidate space."""
    assert flow.advance(st, c.cx) == 0 and st.rec[0]["ctl"][forward.C_KIND] in (E.K_LAND, E.K_ANIMAL)
    flow.apply(st, c.cx, 0)


def test_the_box_holds_80_land_tiles_8_of_each_colour_pair(c):
    st = _start(c)
    lt = st.rec[0]["ltiles"]
    assert lt.sum() == 80 and (lt[np.triu_indices(5, 1)] == 8).all() and (np.tril(lt) == 0).all()
    # with 2 players each colour has 32 tiles, 8 of them shared with the other player's colour
    pi = c.cx.tab[0]["pi"]
    assert land_left(st.rec[0], pi, 0) == 32 == land_left(st.rec[0], pi, 1)
    assert st.rec[0]["discs"].tolist() == [0] * 5


def test_a_player_takes_an_unshared_tile_first_then_the_fullest_shared_pair(c):
    st = _start(c, 3)
    r = st.rec[0]
    pi = c.cx.tab[0]["pi"]
    take_land(r, pi, 1, 3)
    assert r["ltiles"][1, 3] == 7  # colour 3 is not in a 3-player game: taken before a shared tile
    r["ltiles"][1, 3] = 0
    r["ltiles"][1, 4] = 0
    r["ltiles"][0, 1] = 5
    take_land(r, pi, 1, 3)
    assert r["ltiles"][0, 1] == 5 and r["ltiles"][1, 2] == 7  # the fuller shared pair
    assert land_left(r, pi, 0) == 5 + 8 + 8 + 8 and land_left(r, pi, 1) == 5 + 7


def test_the_last_disc_can_be_placed_and_then_no_animal_card_is_played(c):
    st = _start(c)
    r = st.rec[0]
    a, _b = _pampa_pair(c)
    MS, SP, _ = state.py_tables(st, c.cx)
    E.place_land(MS, SP, 0, a, c.kind, c.nbmask, r["pub"])
    SP[E.LB_CHIP, SP[E.SP_LAB, a]] += 1  # (a chip on it: no harvest action)
    MS[E.R_CHIPS, a >> 6] |= np.uint64(1) << np.uint64(a & 63)
    SP[E.SR, E.S_CHIPS] -= 1
    r["hand"][0, PIG] = 2
    r["discs"][0] = 29
    acts = _actions(st, c)
    assert (E.A_PLAY, PIG) in acts and r["pub"][E.V_DISCS] == 1
    flow.apply(st, c.cx, [tuple(m[:2]) for m in r["moves"][: r["ctl"][forward.C_N]]].index((E.A_PLAY, PIG)))
    _place_first(st, c)
    assert r["discs"][0] == 30 and r["hand"][0, PIG] == 1
    assert flow.advance(st, c.cx) == 0
    n = r["ctl"][forward.C_N]
    assert r["pub"][E.V_DISCS] == 0
    assert n == 1 and r["moves"][0, 0] == E.A_END  # the pig card in hand cannot be played any more


def test_disc_limit_off(c):
    c0 = _ctx(animal_discs=0)
    st = _start(c0)
    r = st.rec[0]
    a, _b = _pampa_pair(c0)
    MS, SP, _ = state.py_tables(st, c0.cx)
    E.place_land(MS, SP, 0, a, c0.kind, c0.nbmask, r["pub"])
    r["hand"][0, PIG] = 1
    r["discs"][0] = 500
    assert (E.A_PLAY, PIG) in _actions(st, c0) and r["pub"][E.V_DISCS] == -1


def test_the_last_land_tile_of_a_colour_and_the_shared_pair(c):
    st = _start(c)
    r = st.rec[0]
    r["ltiles"][0, 2:] = 0
    r["ltiles"][0, 1] = 1  # seat 0's last tile is shared with seat 1's colour
    r["hand"][0, MOUNTAIN] = 1
    r["hand"][0, E.T_PAMPA] = 1
    r["money"][0] = 3  # buys stay legal
    acts = _actions(st, c)
    assert (E.A_PLAY, MOUNTAIN) in acts and r["pub"][E.V_LAND_TILES] == 1
    before1 = land_left(r, c.cx.tab[0]["pi"], 1)
    flow.apply(st, c.cx, [tuple(m[:2]) for m in r["moves"][: r["ctl"][forward.C_N]]].index((E.A_PLAY, MOUNTAIN)))
    _place_first(st, c)
    assert r["ltiles"][0, 1] == 0 and land_left(r, c.cx.tab[0]["pi"], 1) == before1 - 1
    assert flow.advance(st, c.cx) == 0
    n = r["ctl"][forward.C_N]
    rows = r["moves"][:n]
    assert r["pub"][E.V_LAND_TILES] == 0
    # the pampa card now has a space next to an own tile, but no tile is left: not playable; buying still is
    assert not any(m[0] == E.A_PLAY for m in rows)
    assert any(m[0] == E.A_BUY_LAND_BLIND for m in rows)
    land_buys = [i for i in range(n) if rows[i, 0] in (E.A_BUY_LAND_UP, E.A_BUY_LAND_BLIND)]
    assert land_buys and all(r["feats"][i, 0] < 0 for i in land_buys)  # a land card is worth only its price


def test_land_limit_off(c):
    c0 = _ctx(land_tiles=0)
    st = _start(c0)
    r = st.rec[0]
    r["ltiles"][:] = 0
    r["hand"][0, MOUNTAIN] = 1
    assert (E.A_PLAY, MOUNTAIN) in _actions(st, c0) and r["pub"][E.V_LAND_TILES] == -1


@pytest.mark.parametrize("np_", [2, 4])
def test_tight_limits_hold_over_whole_games(np_):
    """5 discs a player and 20 land tiles in the box (2 per colour pair): no player ever has more on the board,
    the counters match the board, and the games end."""
    c = _ctx(animal_discs=5, land_tiles=20)
    lu = make_lineup("hacienda", ["greedy", "random"], np_, True)
    st = flow.new_state(c.cx, np_, np.zeros((0, 6), dtype=np.int64))
    pi = c.cx.tab[0]["pi"]
    n = int(c.cx.tab[0]["n"])
    hit_d = hit_l = 0
    for g in range(6):
        flow.reset(st, c.cx, 5, g)
        r = st.rec[0]
        while (seat := flow.advance(st, c.cx)) >= 0:
            flow.apply(st, c.cx, forward.ask(st, lu.fns, lu.weights, seat))
        sp = r["pub"][E.V_SPACE : E.V_SPACE + n]
        own = sp[sp >= 0]
        what, owner = own % 8, (own // 8) % 8
        for q in range(np_):
            animals = int(((what >= 1) & (what <= 4) & (owner == q)).sum())
            land = int(((what == 0) & (owner == q)).sum())
            assert animals == r["discs"][q] <= 5
            assert land <= 8  # 2 tiles in each of the 4 pairs with colour q
            hit_d += animals == 5
            hit_l += land_left(r, pi, q) == 0
        assert r["ltiles"].sum() + int((what == 0).sum()) == 20
    assert hit_d > 0 and hit_l > 0  # the limits were reached
