"""A pure-Python Hacienda scorer, written separately from the numba one, must agree category by category
with the engine's mid-game and final scorings on thousands of player states from random games."""

import numpy as np

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.hacienda import GAME, events
from meeplab.sim.hacienda.scoring import NROWS, R_HAC, R_HERD, R_LAND, R_WP

BOOK_MARKETS = [1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66]
STEPS = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))


def ref_market_points(k):
    if k == 0:
        return 0
    return BOOK_MARKETS[k - 1] if k <= len(BOOK_MARKETS) else k * (k + 1) // 2


class RefBoard:
    def __init__(self, board):
        self.cr = [(int(c), int(r)) for c, r in zip(board.cols, board.rows)]
        self.at = {cr: i for i, cr in enumerate(self.cr)}
        self.markets = {i for i in range(board.n) if int(board.kind[i]) == 6}

    def neighbours(self, i):
        c, r = self.cr[i]
        return [self.at[(c + dc, r + dr)] for dc, dr in STEPS if (c + dc, r + dr) in self.at]

    def groups(self, tiles):
        left, out = set(tiles), []
        while left:
            start = left.pop()
            comp, todo = {start}, [start]
            while todo:
                x = todo.pop()
                for y in self.neighbours(x):
                    if y in left:
                        left.discard(y)
                        comp.add(y)
                        todo.append(y)
            out.append(comp)
        return out


def bits(words):
    out = set()
    for w, x in enumerate(words):
        x = int(x)
        while x:
            low = x & -x
            out.add(w * 64 + low.bit_length() - 1)
            x ^= low
    return out


def ref_score(rb, snap, W, p):
    ms = snap[: NROWS * W].reshape(NROWS, W)
    money = int(snap[NROWS * W + p])
    npc = int(snap[NROWS * W + 5])
    land = bits(ms[R_LAND + p])
    herds = [bits(ms[R_HERD + 4 * p + a]) for a in range(4)]
    hac = bits(ms[R_HAC])
    animals = set().union(*herds)
    reached = {m for t in animals for m in rb.neighbours(t) if m in rb.markets}
    markets = ref_market_points(len(reached))
    chains = sum(2 * len(g) for g in rb.groups(land) if len(g) >= 3)
    hacs = sum(len(g) for tiles in [land] + herds for g in rb.groups(tiles) if g & hac)
    own = land | animals
    water = 0
    for k in range(npc):
        piece = bits(ms[R_WP + k])
        near = {y for x in piece for y in rb.neighbours(x)} - piece
        water += len(near & own)
    return [markets, chains, hacs, water, money // 10]


def test_reference_scorer_agrees_with_engine():
    states = 0
    for map_name, games in (("A", 220), ("B", 130)):
        ctx = GAME.prepare(GAME.params.resolve({"map": map_name}))
        rb = RefBoard(ctx.board)
        W = ctx.board.W
        for g in range(games):
            p = 2 + g % 4
            lu = make_lineup("hacienda", ["random", "greedy", "heuristic"][: min(p, 1 + g % 3)], p, True)
            _log, _turns, score, _tiebreak, brk, snap = events(ctx, lu, 5, g, p, snapshots=True)
            assert np.allclose(score, brk.sum(axis=1))
            for ph in range(2):
                for q in range(p):
                    ref = ref_score(rb, snap[ph], W, q)
                    got = brk[q, 5 * ph : 5 * ph + 5].astype(int).tolist()
                    assert got == ref, (map_name, g, ph, q, got, ref)
                    states += 1
    assert states > 2000
