"""Hacienda maps: the reconstructed printed sides (counts, symmetry) and the 83 community .haz maps."""

from pathlib import Path

import numpy as np
from shared_data import COMMUNITY_MAPS as COMMUNITY
from shared_data import needs_shared

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.hacienda import GAME
from meeplab.sim.hacienda.board import (
    MARKET,
    PAMPA,
    SOURCE,
    balls,
    load_board,
    market_distances,
    markets_next,
    read_haz,
    static_masks,
)


def _cells(spec):
    b = load_board(spec)
    return b, {(int(c), int(r)): int(k) for c, r, k in zip(b.cols, b.rows, b.kind)}


def test_side_a_counts_and_mirror_symmetry():
    b, cells = _cells("A")
    assert b.n == 240 and b.W == 4
    assert [int((b.kind == t).sum()) for t in range(5)] == [12] * 5
    assert b.n_markets == 10 and b.n_sources == 4
    assert int((b.kind == PAMPA).sum()) == 240 - 60 - 14
    C = max(c for c, _ in cells)
    R = max(r for _, r in cells)
    for (c, r), k in cells.items():
        assert cells[(C - c, r)] == k, "left-right mirror"
        assert cells[(c, R - r)] == k, "top-bottom mirror"
    # a figure-eight ring: the terrain spaces are connected and cut the rest of the board into three
    # regions (outside, and inside each of the two loops)
    terr = {cr for cr, k in cells.items() if k < 5}
    rest = set(cells) - terr
    assert _components(terr) == 1
    assert _components(rest) == 3


def _components(cells):
    seen, comps = set(), 0
    for start in cells:
        if start in seen:
            continue
        comps += 1
        stack = [start]
        seen.add(start)
        while stack:
            c, r = stack.pop()
            for dc, dr in ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1)):
                x = (c + dc, r + dr)
                if x in cells and x not in seen:
                    seen.add(x)
                    stack.append(x)
    return comps


def test_side_b_counts_and_asymmetry():
    b, cells = _cells("B")
    assert b.n == 240
    counts = [int((b.kind == t).sum()) for t in range(5)]
    assert all(12 <= x <= 13 for x in counts)
    assert b.n_markets == 11 and b.n_sources == 4
    C = max(c for c, _ in cells)
    R = max(r for _, r in cells)
    assert any(cells[(C - c, r)] != k for (c, r), k in cells.items())
    assert any(cells[(c, R - r)] != k for (c, r), k in cells.items())


def test_shipped_maps_are_haz_files():
    for side in "AB":
        control, hexes = read_haz(Path(GAME.prepare(GAME.params.resolve({"map": side})).board.path))
        assert control["Version"] == "GRHIG0101" and len(hexes) == 240


@needs_shared
def test_all_community_maps_load_and_play():
    files = sorted(COMMUNITY.glob("*.haz"))
    assert len(files) == 83
    lu = {p: make_lineup("hacienda", ["random", "greedy"], p, True) for p in (2, 3, 4, 5)}
    for k, f in enumerate(files):
        ctx = GAME.prepare(GAME.params.resolve({"map": str(f)}))
        b = ctx.board
        assert b.n_markets > 0 and b.n >= 150
        p = 2 + k % 4
        r = GAME.play(ctx, lu[p], 11, 0, 3, p)
        assert np.isfinite(r.score).all() and (r.score > 0).any(), f.name
        assert (r.length > 0).all()
        assert np.allclose(r.score, r.breakdown.sum(axis=2)), f.name


def _tables_by_hand(b):
    """The engine's board tables read off the board one space at a time (the definitions, in plain Python): the
    spaces' kinds as bits, markets next to each space, breadth-first steps to each market (at most 99), and the
    spaces within 3 steps of each space."""
    near = [[int(j) for j in b.nb[i] if j >= 0] for i in range(b.n)]
    markets = [i for i in range(b.n) if b.kind[i] == MARKET]
    rows = {t: [i for i in range(b.n) if b.kind[i] == t] for t in range(5)}
    rows[5] = [i for i in range(b.n) if b.kind[i] == PAMPA]
    rows[6] = markets
    rows[7] = [i for i in range(b.n) if any(j in markets for j in near[i])]
    rows[8] = [i for i in range(b.n) if b.kind[i] == SOURCE]
    bits = {r: sum(1 << i for i in spaces) for r, spaces in rows.items()}
    mkcnt = [sum(1 for j in near[i] if j in markets) for i in range(b.n)]
    mdist = [[99] * max(1, len(markets)) for _ in range(b.n)]
    for m, s in enumerate(markets):
        dist, todo = {s: 0}, [s]
        for x in todo:
            for y in near[x]:
                if y not in dist:
                    dist[y] = dist[x] + 1
                    todo.append(y)
        for y, d in dist.items():
            mdist[y][m] = min(d, 99)
    ball = []
    for i in range(b.n):
        seen = {i, *near[i]}
        for _ in range(2):
            seen |= {y for x in seen for y in near[x]}
        ball.append(sum(1 << j for j in seen))
    return bits, mkcnt, mdist, ball


def _words(x, W):
    return [(x >> (64 * w)) & (2**64 - 1) for w in range(W)]


@needs_shared
def test_the_engines_board_tables_are_their_definitions_on_every_map():
    """``Context``'s tables (``board.static_masks``, ``markets_next``, ``market_distances``, ``balls``: whole-board
    array operations) against the same tables worked out space by space, on both printed sides and every community
    map (164 to 623 spaces)."""
    files = ["A", "B", *(str(f) for f in sorted(COMMUNITY.glob("*.haz")))]
    for spec in files:
        b = load_board(spec)
        ctx_mk = markets_next(b)
        bits, mkcnt, mdist, ball = _tables_by_hand(b)
        static = static_masks(b, ctx_mk)
        assert static.dtype == np.uint64 and static.shape == (9, b.W)
        assert [[int(v) for v in static[r]] for r in range(9)] == [_words(bits[r], b.W) for r in range(9)], spec
        assert ctx_mk.dtype == np.int64 and ctx_mk.tolist() == mkcnt, spec
        md = market_distances(b)
        assert md.dtype == np.int64 and md.tolist() == mdist, spec
        got = balls(b, 3)
        assert got.shape == (b.n, b.W) and [[int(v) for v in got[i]] for i in range(b.n)] == [
            _words(x, b.W) for x in ball
        ], spec
