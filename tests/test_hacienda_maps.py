"""Hacienda maps: the reconstructed printed sides (counts, symmetry) and the 83 community .haz maps."""

from pathlib import Path

import numpy as np
from shared_data import COMMUNITY_MAPS as COMMUNITY
from shared_data import needs_shared

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.hacienda import GAME
from meeplab.sim.hacienda.board import PAMPA, load_board, read_haz


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
