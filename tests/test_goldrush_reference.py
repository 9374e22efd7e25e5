"""A pure-Python Gold Rush scorer, written separately from the numba engine (flood fill over the layout, no
union-find), replays the logged decisions of engine games and must agree category by category."""

from __future__ import annotations

import numpy as np
import pytest

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.goldrush import GAME, play_logged
from meeplab.sim.goldrush.const import (
    EV_COWBOY,
    EV_END,
    EV_MINE,
    EV_PASS,
    EV_PLACE,
    EV_REMOVE,
    EV_START,
    EV_TAKE,
    EV_TENT,
)

RAIL, MTN, CITY, PRAIRIE = 0, 1, 2, 3
STEP = [(0, -1), (1, 0), (0, 1), (-1, 0)]


class RefGame:
    def __init__(self, deck, values, n_players, reveals, n_tokens):
        self.deck = deck
        self.v = values
        self.P = n_players
        self.reveals = list(reveals)
        self.at = {}  # (x, y) -> t
        self.tl = []  # t -> dict
        self.occ = {}  # (t, s) -> player (cowboys)
        self.tent = [None] * n_players
        self.stack = {}  # (t, s) -> tokens
        self.supply = n_tokens
        self.done = set()  # frozensets of scored features
        self.city_done = set()
        self.bd = np.zeros((n_players, 5))
        self.tok = [0] * n_players
        self.ncow = [values["cowboys"] + (1 if values["house_fifth_cowboy"] else 0)] * n_players

    # -- layout -----------------------------------------------------------------------------------------
    def add(self, inst, x, y, rot):
        d = self.deck
        tt = d.types[int(d.inst_type[inst])]
        copy = int(d.inst_copy[inst]) - 1
        segs = []
        for s, k in enumerate(tt.kinds):
            if k == PRAIRIE:
                m = tt.half_mask[s]
                m = ((m << (2 * rot)) | (m >> (8 - 2 * rot))) & 0xFF
            else:
                m = tt.edge_mask[s]
                m = ((m << rot) | (m >> (4 - rot))) & 0xF
            nug = tt.nuggets[copy][s - tt.n_rails] if k == MTN else 0
            loco = tt.locos[copy][s] if k == RAIL else 0
            tip = tt.tipis[copy] if s == tt.symbol_region else 0
            hor = tt.horses[copy] if s == tt.symbol_region else 0
            segs.append(
                {"kind": k, "mask": m, "nug": nug, "loco": loco, "tipi": tip, "horse": hor, "city": tt.city_link[s]}
            )
        t = len(self.tl)
        self.tl.append({"inst": inst, "x": x, "y": y, "segs": segs})
        self.at[(x, y)] = t
        for s, sg in enumerate(segs):
            if sg["kind"] == MTN and sg["nug"] > 0:
                k = min(sg["nug"], self.supply)
                self.stack[(t, s)] = self.stack.get((t, s), 0) + k
                self.supply -= k
        return t

    def neighbours(self, t, s):
        """Connected (t, s) across edges, and the number of open edges/halves."""
        tile = self.tl[t]
        sg = tile["segs"][s]
        out = []
        opened = 0
        if sg["kind"] in (RAIL, MTN):
            for d in range(4):
                if not sg["mask"] >> d & 1:
                    continue
                dx, dy = STEP[d]
                nt = self.at.get((tile["x"] + dx, tile["y"] + dy))
                if nt is None:
                    opened += 1
                    continue
                od = (d + 2) % 4
                for s2, g2 in enumerate(self.tl[nt]["segs"]):
                    if g2["kind"] == sg["kind"] and g2["mask"] >> od & 1:
                        out.append((nt, s2))
        elif sg["kind"] == PRAIRIE:
            for h in range(8):
                if not sg["mask"] >> h & 1:
                    continue
                d, j = divmod(h, 2)
                dx, dy = STEP[d]
                nt = self.at.get((tile["x"] + dx, tile["y"] + dy))
                if nt is None:
                    continue
                oh = 2 * ((d + 2) % 4) + 1 - j
                for s2, g2 in enumerate(self.tl[nt]["segs"]):
                    if g2["kind"] == PRAIRIE and g2["mask"] >> oh & 1:
                        out.append((nt, s2))
        return out, opened

    def feature(self, t, s):
        seen = {(t, s)}
        todo = [(t, s)]
        opened = 0
        while todo:
            a = todo.pop()
            nb, o = self.neighbours(*a)
            opened += o
            for b in nb:
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return frozenset(seen), opened

    def majority(self, nodes):
        cnt = [0] * self.P
        for n in nodes:
            if n in self.occ:
                cnt[self.occ[n]] += 1
        m = max(cnt)
        return [p for p in range(self.P) if m > 0 and cnt[p] == m]

    def go_home(self, nodes):
        for n in list(self.occ):
            if n in nodes:
                self.ncow[self.occ[n]] += 1
                del self.occ[n]

    def city_spurs(self, t):
        segs = self.tl[t]["segs"]
        cs = [s for s, g in enumerate(segs) if g["kind"] == CITY]
        if not cs:
            return None, []
        return cs[0], [s for s, g in enumerate(segs) if g["kind"] == RAIL and g["city"] == cs[0]]

    def city_value(self, t):
        _, spurs = self.city_spurs(t)
        feats = [self.feature(t, s) for s in spurs]
        complete = all(o == 0 for _, o in feats)
        distinct = {f for f, o in feats if o == 0}
        return complete, len(distinct) * self.v["city_rail_points"]

    def rail_points(self, nodes, complete):
        tiles = len({t for t, _ in nodes})
        pts = tiles * self.v["rail_tile_points"]
        locos = sum(self.tl[t]["segs"][s]["loco"] for t, s in nodes)
        if complete and (locos == 1 if self.v["loco_exactly_one"] else locos >= 1):
            pts *= self.v["loco_multiplier"]
        return pts

    # -- turn --------------------------------------------------------------------------------------------
    def action(self, kind, p, node, value=None):
        t, s = divmod(int(node), 10) if node is not None and node >= 0 else (None, None)
        if kind == "cowboy":
            f, _ = self.feature(t, s)
            assert not any(n in self.occ for n in f), "cowboy on an occupied feature"
            assert self.ncow[p] > 0
            self.occ[(t, s)] = p
            self.ncow[p] -= 1
        elif kind == "tent":
            self.tent[p] = (t, s)
        elif kind == "mine":
            f, _ = self.feature(*self.tent[p])
            self._take(f, p)
        elif kind == "remove":
            assert self.occ.pop((t, s)) == p
            self.ncow[p] += 1

    def _take(self, nodes, p):
        for n in sorted(nodes):
            if self.stack.get(n, 0) > 0:
                self.stack[n] -= 1
                self.tok[p] += self.reveals.pop(0)
                return
        raise AssertionError("no token to take")

    def score_turn(self, t, cur):
        completed_rails = []
        segs = self.tl[t]["segs"]
        for kind in (RAIL, MTN):
            for s, g in enumerate(segs):
                if g["kind"] != kind:
                    continue
                f, o = self.feature(t, s)
                if o or f in self.done:
                    continue
                self.done.add(f)
                win = self.majority(f)
                if kind == RAIL:
                    completed_rails.append(f)
                    for p in win:
                        self.bd[p, 0] += self.rail_points(f, True)
                else:
                    left = sum(self.stack.get(n, 0) for n in f)
                    if win:
                        q = cur
                        while left:
                            if q in win:
                                self._take(f, q)
                                left -= 1
                            q = (q + 1) % self.P
                        for p in win:
                            self.bd[p, 1] += sum(self.tl[a]["segs"][b]["nug"] for a, b in f) * self.v["nugget_points"]
                    for n in f:
                        self.stack[n] = 0
                    for p in range(self.P):
                        if self.tent[p] in f:
                            self.tent[p] = None
                self.go_home(f)
        cities = {t}
        for f in completed_rails:
            cities |= {a for a, _ in f}
        for c in sorted(cities):
            cs, _spurs = self.city_spurs(c)
            if cs is None or (c, cs) in self.city_done:
                continue
            complete, val = self.city_value(c)
            if complete:
                self.city_done.add((c, cs))
                if (c, cs) in self.occ:
                    self.bd[self.occ[(c, cs)], 2] += val
                self.go_home({(c, cs)})

    def final(self):
        seen = set()
        v = self.v
        for t, tile in enumerate(self.tl):
            for s, g in enumerate(tile["segs"]):
                if (t, s) in seen:
                    continue
                if g["kind"] == CITY:
                    seen.add((t, s))
                    if (t, s) not in self.city_done and (t, s) in self.occ and v["end_cities"]:
                        self.bd[self.occ[(t, s)], 2] += self.city_value(t)[1]
                    continue
                f, o = self.feature(t, s)
                seen |= f
                win = self.majority(f)
                if g["kind"] == RAIL and o and v["end_railroads"]:
                    for p in win:
                        self.bd[p, 0] += self.rail_points(f, False)
                elif g["kind"] == MTN and f not in self.done and v["end_mountains"]:
                    for p in win:
                        self.bd[p, 1] += sum(self.tl[a]["segs"][b]["nug"] for a, b in f) * v["nugget_points"]
                elif g["kind"] == PRAIRIE and v["end_prairies"]:
                    val = sum(
                        self.tl[a]["segs"][b]["tipi"] * v["tipi_points"]
                        + self.tl[a]["segs"][b]["horse"] * v["horse_points"]
                        for a, b in f
                    )
                    for p in win:
                        self.bd[p, 3] += val
        for p in range(self.P):
            self.bd[p, 4] = self.tok[p]
        return self.bd


def reference_breakdown(ctx, log, n_players):
    # token faces in the order the engine revealed them (mining and mountain scoring)
    seq = []
    for r in log:
        if r[0] == EV_MINE or r[0] == EV_TAKE:
            seq.append(int(r[3]))
    g = RefGame(ctx.deck, ctx.values, n_players, seq, len(ctx.tokens.values))
    B = 2 * ctx.deck.n + 3
    c = B // 2
    last = None
    for r in log:
        ev = int(r[0])
        if ev == EV_START:
            g.add(int(r[1]), int(r[2]) % B - c, int(r[2]) // B - c, 0)
        elif ev == EV_PLACE:
            last = g.add(int(r[2]), int(r[3]) % B - c, int(r[3]) // B - c, int(r[4]))
            cur = int(r[1])
        elif ev in (EV_COWBOY, EV_TENT, EV_MINE, EV_PASS, EV_REMOVE):
            kind = {EV_COWBOY: "cowboy", EV_TENT: "tent", EV_MINE: "mine", EV_PASS: "pass", EV_REMOVE: "remove"}[ev]
            g.action(kind, int(r[1]), int(r[2]) if ev != EV_PASS else -1)
            g.score_turn(last, cur)
        elif ev == EV_END:
            break
    return g.final()


def _check(values, bots, n_players, n_games, seed):
    ctx = GAME.prepare(GAME.params.resolve(values))
    lineup = make_lineup("goldrush", bots, n_players, True)
    for i in range(n_games):
        log, score, bd, _turns = play_logged(ctx, lineup, seed, i, n_players)
        ref = reference_breakdown(ctx, log, n_players)
        assert np.array_equal(ref, bd), f"game {i}: engine {bd.tolist()} reference {ref.tolist()}"
        assert np.allclose(score, bd.sum(axis=1))


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_reference_agrees_random(n_players):
    _check({}, ["random"], n_players, 600, 11 + n_players)


@pytest.mark.parametrize("n_players", [2, 4])
def test_reference_agrees_greedy(n_players):
    # bots that contest features: mountain ties, shared railroads, cities
    _check({}, ["greedy"], n_players, 400, 5)


def test_reference_agrees_mixed():
    _check({}, ["greedy", "random", "heuristic"], 3, 300, 7)


def test_reference_agrees_variants():
    _check(
        {
            "loco_exactly_one": False,
            "house_remove_cowboy": True,
            "house_fifth_cowboy": True,
            "city_rail_points": 4,
            "tipi_points": 3,
        },
        ["random", "greedy"],
        4,
        300,
        3,
    )
