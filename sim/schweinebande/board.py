"""Board geometry: spaces, and for each space and direction the ordered line of spaces beyond it.

The rule book's board is a rhombus of 25 hexes (axial q, r in 0..4) with 6 line directions. Variants:
a 19-hex hexagon (radius 2) and a 5x5 square grid with 4 orthogonal directions. A space set fits one
64-bit mask (bit i = space i).
"""

import itertools
from functools import cache

import numpy as np

HEX_DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))  # E, NE, NW, W, SW, SE in axial (q, r)
HEX_DIR_NAMES = ("E", "NE", "NW", "W", "SW", "SE")
SQ_DIRS = ((1, 0), (0, -1), (-1, 0), (0, 1))
SQ_DIR_NAMES = ("E", "N", "W", "S")


def _coords(shape):
    if shape == "rhombus":
        return [(q, r) for r in range(5) for q in range(5)], HEX_DIRS, HEX_DIR_NAMES
    if shape == "hexagon":
        cells = [(q, r) for r in range(-2, 3) for q in range(-2, 3) if abs(q + r) <= 2]
        return cells, HEX_DIRS, HEX_DIR_NAMES
    if shape == "square":
        return [(x, y) for y in range(5) for x in range(5)], SQ_DIRS, SQ_DIR_NAMES
    raise ValueError(shape)


def board_spaces(shape: str) -> int:
    return len(_coords(shape)[0])


@cache
def build(shape: str):
    """(rays int64[NS, ND, L], coords list, dir names): rays[s, d] lists the spaces beyond s, -1 padded."""
    cells, dirs, names = _coords(shape)
    index = {c: i for i, c in enumerate(cells)}
    ns, nd = len(cells), len(dirs)
    rays = -np.ones((ns, nd, 8), dtype=np.int64)
    for i, (q, r) in enumerate(cells):
        for d, (dq, dr) in enumerate(dirs):
            k, cq, cr = 0, q + dq, r + dr
            while (cq, cr) in index:
                rays[i, d, k] = index[(cq, cr)]
                k += 1
                cq, cr = cq + dq, cr + dr
            # the engine's bit-mask lines (lines.ray_masks) rely on every ray running through
            # strictly increasing or strictly decreasing space indices
            line = [i] + [x for x in rays[i, d] if x >= 0]
            steps = {(b > a) for a, b in itertools.pairwise(line)}
            assert len(steps) <= 1, f"ray {i}/{d} of the {shape} board is not monotonic"
    rays.setflags(write=False)
    return rays, cells, names
