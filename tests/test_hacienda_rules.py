"""Hacienda rules from the rule book's own numbers, on hand-built positions (engine and scorer functions)."""

import numpy as np
import pytest

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.hacienda import GAME, Context
from meeplab.sim.hacienda import engine as E
from meeplab.sim.hacienda.board import write_haz
from meeplab.sim.hacienda.groups import gen_harvest
from meeplab.sim.hacienda.scoring import (
    R_FPAM,
    R_FTERR,
    R_HAC,
    R_MARKET,
    R_OCC,
    R_PAMPA,
    R_SRC,
    R_TERR,
    market_points,
    score_player,
)
from meeplab.sim.hacienda.values import legal_mask
from meeplab.sim.hacienda.water import _wplace


def grid(c, r):
    """Some positions below are written with col+row even: those shift one row down onto the grid
    (a shift keeps every adjacency inside one group of such coordinates)."""
    return (c, r) if (c + r) % 2 == 1 else (c, r + 1)


def make_map(tmp_path, markets=(), sources=(), terrain=None, cols=15, rows=31, name="t"):
    hexes = {}
    for c in range(cols):
        for r in range(rows):
            if (c + r) % 2 == 1:
                hexes[(c, r)] = 2
    for cr in markets:
        hexes[grid(*cr)] = 9
    for cr in sources:
        hexes[grid(*cr)] = 10
    for cr, code in ({(14, 28): 7} | (terrain or {})).items():
        hexes[grid(*cr)] = code
    path = tmp_path / f"{name}.haz"
    write_haz(path, name, hexes, cols, rows, "test")
    return path


class Pos:
    """A hand-built position: the engine's state arrays, initialised like play_game does."""

    def __init__(self, path, n_players=3, **over):
        values = GAME.params.resolve({"map": str(path), **over})
        self.ctx = ctx = Context(values)
        b = ctx.board
        self.b = b
        self.index = {(int(c), int(r)): i for i, (c, r) in enumerate(zip(b.cols, b.rows))}
        n, W = b.n, b.W
        self.MS = E.new_ms(n, W)
        self.MS[R_TERR : R_TERR + 9] = ctx.static
        self.MS[R_FPAM] = self.MS[R_PAMPA]
        self.MS[R_FTERR : R_FTERR + 5] = self.MS[R_TERR : R_TERR + 5]
        self.MS[R_OCC] = self.MS[R_MARKET] | self.MS[R_SRC]
        self.SP = E.new_sp(n)
        E.init_free(self.SP, ctx.kind, ctx.nb)
        self.S = self.SP[E.SR]  # the scalar state row (a view)
        self.LB = self.SP  # the per-label rows live in SP
        self.view = np.full(E.V_HDR + n, -1, dtype=np.int64)
        cells = np.zeros(3, dtype=np.int64)
        for i in range(n):
            if ctx.kind[i] == 7:
                cells[0] = i
                E.place_water(self.MS, self.SP, cells, 1, ctx.nbmask, ctx.kind, self.view)
        self.pi = ctx.pi
        self.money = np.zeros(5, dtype=np.int64)

    def h(self, c, r):
        return self.index[grid(c, r)]

    def land(self, p, *crs):
        return [
            E.place_land(self.MS, self.SP, p, self.h(*cr), self.ctx.kind, self.ctx.nbmask, self.view) for cr in crs
        ][-1]

    def animal(self, p, a, cr):
        return E.place_animal(
            self.MS, self.SP, p, a, self.h(*cr), self.ctx.kind, self.ctx.nb, self.ctx.nbmask, self.ctx.mkcnt, self.view
        )

    def water(self, *crs):
        cells = np.array([self.h(*cr) for cr in crs] + [0] * (3 - len(crs)), dtype=np.int64)
        E.place_water(self.MS, self.SP, cells, len(crs), self.ctx.nbmask, self.ctx.kind, self.view)

    def hacienda(self, cr):
        h = self.h(*cr)
        self.MS[R_HAC, h >> 6] |= np.uint64(1) << np.uint64(h & 63)
        self.LB[E.LB_HAC, self.SP[E.SP_LAB, h]] += 1

    def score(self, p):
        out = np.zeros(5, dtype=np.int64)
        score_player(p, self.MS, self.S[E.S_NPC], self.money[p], self.ctx.nbmask, self.pi, out)
        return dict(zip(("markets", "chains", "haciendas", "water", "money"), out.tolist()))


PIG, SHEEP = 2, 3


def test_market_income_book_example_5_then_6(tmp_path):
    # market at (4,10); a 3-tile chain, a first pig next to it, then pigs onto two sides of the market
    pos = Pos(make_map(tmp_path, markets=[(4, 10)]))
    assert pos.land(0, (7, 13), (8, 14), (9, 15)) == 3
    assert pos.animal(0, PIG, (6, 12)) == (1, 0)  # no market: no income
    assert pos.animal(0, PIG, (5, 11)) == (2, 5)  # 3 for the chain + 2 pigs
    assert pos.animal(0, PIG, (4, 12)) == (3, 6)  # another side of the same market: 3 + 3


def test_market_income_book_example_11(tmp_path):
    # 6 pigs and a 5-tile chain connected to the herd: 11 pesos
    pos3 = Pos(make_map(tmp_path, markets=[(2, 4)], name="t3"))
    pos3.land(1, (8, 12), (9, 13), (10, 14), (11, 15), (12, 16))
    for cr in [(7, 11), (6, 10), (5, 9), (4, 8), (3, 7)]:
        assert pos3.animal(1, PIG, cr)[1] == 0
    assert pos3.animal(1, PIG, (2, 6)) == (6, 11)


def test_market_income_counts_each_market_touched(tmp_path):
    pos = Pos(make_map(tmp_path, markets=[(4, 10), (6, 10)]))
    pos.land(0, (5, 13))
    # (5, 11) touches both markets: (herd 1 + chain 1) x 2
    assert pos.animal(0, SHEEP, (5, 11)) == (1, 4)


def test_other_players_land_and_herds_do_not_pay(tmp_path):
    pos = Pos(make_map(tmp_path, markets=[(4, 10)]))
    pos.land(1, (6, 12), (7, 13), (8, 14))
    pos.animal(1, PIG, (4, 14))
    assert pos.animal(0, PIG, (5, 11)) == (1, 1)  # only the placed pig: the chain is another player's


def test_harvest_seven_chain_is_21(tmp_path):
    pos = Pos(make_map(tmp_path))
    pos.land(0, (1, 2), (1, 4), (1, 6), (1, 8), (1, 10), (1, 12), (1, 14))
    pos.land(0, (9, 9))
    pos.S[E.S_CHIPS] = 8
    moves = np.zeros((64, E.MW), dtype=np.int64)
    feats = np.zeros((64, E.NF))
    n = gen_harvest(pos.MS, pos.SP, pos.pi, 0, moves, feats)
    assert n == 2
    assert sorted(feats[:n, 1].tolist()) == [3.0, 21.0]


def test_harvest_takes_chip_from_others_when_all_out(tmp_path):
    pos = Pos(make_map(tmp_path))
    pos.land(0, (1, 2), (1, 4))
    pos.land(1, (9, 9))
    pos.land(2, (11, 11))
    h1, h2 = pos.h(9, 9), pos.h(11, 11)
    for h in (h1, h2):
        pos.MS[E.R_CHIPS, h >> 6] |= np.uint64(1) << np.uint64(h & 63)
        pos.LB[E.LB_CHIP, pos.SP[E.SP_LAB, h]] += 1
    pos.S[E.S_CHIPS] = 0
    moves = np.zeros((64, E.MW), dtype=np.int64)
    feats = np.zeros((64, E.NF))
    n = gen_harvest(pos.MS, pos.SP, pos.pi, 0, moves, feats)
    assert n == 2 and sorted(moves[:n, 1].tolist()) == sorted([h1, h2])
    assert (feats[:n, 1] == 6).all()
    # a chain that already carries a chip cannot be harvested
    n1 = gen_harvest(pos.MS, pos.SP, pos.pi, 1, moves, feats)
    assert n1 == 0


def test_chain_scoring_book_example_26(tmp_path):
    pos = Pos(make_map(tmp_path))
    pos.land(0, (1, 2), (1, 4), (1, 6), (1, 8), (1, 10), (1, 12), (1, 14))  # 7
    pos.land(0, (5, 3), (5, 5), (5, 7))  # 3
    pos.land(0, (9, 3), (9, 5), (9, 7))  # 3
    pos.land(0, (13, 3), (13, 5))  # a pair: 0
    pos.land(0, (5, 21))
    pos.land(0, (9, 21))
    pos.land(0, (13, 21))  # three singles: 0
    assert pos.score(0)["chains"] == 26


def test_hacienda_scoring_book_example_13_and_merge_counts_once(tmp_path):
    pos = Pos(make_map(tmp_path))
    pos.land(0, (1, 2), (1, 4), (1, 6), (1, 8), (1, 10), (1, 12), (1, 14))
    pos.hacienda((1, 8))
    for cr in [(5, 21), (5, 23), (5, 25), (5, 27), (6, 28), (7, 27)]:
        pos.animal(0, SHEEP, cr)
    pos.hacienda((6, 28))
    assert pos.score(0)["haciendas"] == 13
    # two chains with a hacienda each, merged: counted once
    pos.land(1, (9, 3), (9, 5))
    pos.hacienda((9, 3))
    pos.land(1, (9, 9))
    pos.hacienda((9, 9))
    assert pos.score(1)["haciendas"] == 3
    pos.land(1, (9, 7))
    assert pos.score(1)["haciendas"] == 4


def test_money_28_pesos_is_2_points(tmp_path):
    pos = Pos(make_map(tmp_path))
    pos.money[0] = 28
    assert pos.score(0)["money"] == 2


def test_market_table():
    pi = GAME.prepare(GAME.params.resolve({})).pi
    assert [market_points(pi, k) for k in range(0, 12)] == [0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66]
    assert market_points(pi, 12) == 78 and market_points(pi, 20) == 210


def test_market_scoring_counts_different_markets_reached_by_herds(tmp_path):
    pos = Pos(make_map(tmp_path, markets=[(4, 10), (8, 10), (12, 20)]))
    pos.land(0, (5, 13))
    pos.animal(0, PIG, (5, 11))  # reaches (4,10)
    pos.animal(0, PIG, (4, 12))  # same market again
    pos.animal(0, SHEEP, (7, 11))  # reaches (8,10)
    pos.land(0, (12, 18))  # land next to a market does not count
    assert pos.score(0)["markets"] == 3


def test_water_scoring_per_tile(tmp_path):
    pos = Pos(make_map(tmp_path, sources=[(3, 10)]))
    pos.water((5, 10), (5, 12))  # a 2-hex tile
    pos.land(0, (4, 11))  # next to the source and to both hexes of the 2-hex tile: 1 + 1
    pos.animal(0, PIG, (6, 13))  # next to the 2-hex tile only: 1
    pos.land(1, (2, 11))  # the other player's tile next to the source
    assert pos.score(0)["water"] == 3
    assert pos.score(1)["water"] == 1


def test_land_card_played_as_pampa_when_terrain_full(tmp_path):
    pos = Pos(make_map(tmp_path, terrain={(7, 7): 3}))
    out = np.zeros(pos.b.W, dtype=np.uint64)
    assert legal_mask(pos.MS, 0, 0, out) == 0 and int(out.sum()) != 0
    pos.land(1, (7, 7))
    pos.land(0, (1, 2))
    assert legal_mask(pos.MS, 0, 0, out) == 1  # no free mountain: pampa next to own land
    spaces = {i for i in range(pos.b.n) if (int(out[i >> 6]) >> (i & 63)) & 1}
    assert spaces == {pos.h(1, 0), pos.h(2, 1), pos.h(2, 3), pos.h(1, 4), pos.h(0, 3), pos.h(0, 1)}


def test_animal_needs_own_land_or_same_herd(tmp_path):
    pos = Pos(make_map(tmp_path))
    out = np.zeros(pos.b.W, dtype=np.uint64)
    legal_mask(pos.MS, 0, E.T_ANIMAL + PIG, out)
    assert int(out.sum()) == 0
    pos.land(1, (7, 7))
    legal_mask(pos.MS, 0, E.T_ANIMAL + PIG, out)
    assert int(out.sum()) == 0  # another player's land does not help


def test_bad_map_file_names_file_and_problem(tmp_path):
    p = tmp_path / "bad.haz"
    p.write_text("[Control]\nColCount=3\n[Hex]\n100=2\n101=2\n")
    with pytest.raises(MeeplabError, match=r"bad\.haz.*101.*not on the grid"):
        GAME.prepare(GAME.params.resolve({"map": str(p)}))
    p.write_text("[Hex]\n100=8\n")
    with pytest.raises(MeeplabError, match=r"bad\.haz.*unknown code 8"):
        GAME.prepare(GAME.params.resolve({"map": str(p)}))
    with pytest.raises(MeeplabError, match=r"nothere\.haz"):
        GAME.prepare(GAME.params.resolve({"map": str(tmp_path / "nothere.haz")}))
    with pytest.raises(MeeplabError, match="neither A, B"):
        GAME.prepare(GAME.params.resolve({"map": "C"}))


def test_notes_flag_reconstructed_maps():
    assert "RECONSTRUCTED" in GAME.notes({"map": "A"})[0]
    assert "RECONSTRUCTED" in GAME.notes({"map": "B"})[0]
    assert "RECONSTRUCTED" not in GAME.notes({"map": "x.haz"})[0]


@pytest.mark.parametrize("mapname", ["A", "B"])
def test_water_counts_from_per_space_counts(mapname):
    # the water listing counts own / other players' tiles next to a placement from per-space counts, corrected
    # for the tiles next to two of its spaces (hex geometry of nb); check it against plain set unions
    from meeplab.sim.hacienda.board import BUILTIN

    pos = Pos(BUILTIN[mapname])
    b, nb, kind = pos.b, pos.ctx.nb, pos.ctx.kind
    rng = np.random.default_rng(5)

    def free(i):
        return (pos.MS[R_FPAM, i >> 6] >> np.uint64(i & 63)) & np.uint64(1)

    for i in rng.permutation(b.n)[: b.n // 2]:
        i = int(i)
        q = int(rng.integers(3))
        if kind[i] < 5 and (pos.MS[R_OCC, i >> 6] >> np.uint64(i & 63)) & np.uint64(1) == 0:
            E.place_land(pos.MS, pos.SP, q, i, kind, pos.ctx.nbmask, pos.view)
        elif kind[i] == 5 and free(i) and rng.random() < 0.5:
            E.place_animal(
                pos.MS, pos.SP, q, int(rng.integers(4)), i, kind, nb, pos.ctx.nbmask, pos.ctx.mkcnt, pos.view
            )
    owner = pos.SP[E.SP_OWNER]
    cells = np.zeros(3, dtype=np.int64)
    checked = 0
    for h in range(b.n):
        if not free(h):
            continue
        for s in range(4):
            for o in range(1 if s == 0 else (2 if s == 2 else 3)):  # the orientations gen_water tries
                k = E.water_cells(h, s, o, nb, cells)
                if k == 0 or not all(free(int(c)) for c in cells[:k]):
                    k = 0
                for p in range(3):
                    got = _wplace(pos.MS, pos.SP, p, nb, h, s, o, pos.SP[E.SP_NC + p, h], pos.SP[E.SP_NCALL, h])
                    assert got[0] == k
                    if k == 0:
                        continue
                    near = {int(j) for c in cells[:k] for j in nb[c] if j >= 0}
                    assert got[3] == sum(owner[j] == p for j in near)
                    assert got[4] == sum(owner[j] >= 0 for j in near)
                    checked += 1
    assert checked > 500
    # the geometry behind it: the common neighbours of h and nb[h, d] are nb[h, d - 1] and nb[h, d + 1]
    for h in range(b.n):
        for d in range(6):
            j = int(nb[h, d])
            if j >= 0:
                common = (set(nb[h].tolist()) & set(nb[j].tolist())) - {-1}
                assert common == {int(nb[h, (d + 5) % 6]), int(nb[h, (d + 1) % 6])} - {-1}
