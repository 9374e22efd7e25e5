"""Rebuild the two RECONSTRUCTED printed sides ``maps/A.haz`` and ``maps/B.haz``
(run: python -m meeplab.sim.hacienda.make_maps).

No public source describes the printed boards; these follow the rule digest's spec (see README.md):
the generator grid of 13 columns x 37 doubled rows (240 spaces).
A: mirror-symmetric left-right and top-bottom figure-eight ring of 60 terrain spaces (12 of each terrain)
   one hex in from the edge, 10 markets (6 inside the loops, 4 outside), 4 water sources, the rest pampa.
B: no symmetry; terrain in clusters and ribbons (13, 13, 12, 12, 12), 11 markets, 4 water sources.
"""

from __future__ import annotations

import random

from .board import DIRS, MAPS_DIR, write_haz

COLS, ROWS = 13, 37
CELLS = [(c, r) for c in range(COLS) for r in range(ROWS) if (c + r) % 2 == 1]


def _sym(c, r):
    return {(c, r), (COLS - 1 - c, r), (c, ROWS - 1 - r), (COLS - 1 - c, ROWS - 1 - r)}


def side_a() -> dict[tuple[int, int], int]:
    hexes = dict.fromkeys(CELLS, 2)
    # one quarter of the ring, walked from the top axis hex (6,3) to the waist (6,17)
    quarter = [
        (5, 2),
        (4, 3),
        (3, 2),
        (2, 3),
        (1, 2),
        (1, 4),
        (1, 6),
        (1, 8),
        (1, 10),
        (1, 12),
        (2, 13),
        (3, 14),
        (4, 15),
        (5, 16),
    ]
    codes = [3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 3, 4, 5, 6]
    for cr, code in zip(quarter, codes):
        for s in _sym(*cr):
            hexes[s] = code
    for s in _sym(6, 3) | _sym(6, 17):
        hexes[s] = 7
    for cr in [(3, 8), (6, 13), (3, 18), (6, 1)]:
        for s in _sym(*cr):
            hexes[s] = 9
    for s in _sym(0, 9):
        hexes[s] = 10
    return hexes


def _nbs(c, r):
    return [(c + dc, r + dr) for dc, dr in DIRS if (c + dc, r + dr) in _CELLSET]


_CELLSET = set(CELLS)


def side_b(seed: int = 2005) -> dict[tuple[int, int], int]:
    rnd = random.Random(seed)
    hexes = dict.fromkeys(CELLS, 2)
    inner = [cr for cr in CELLS if 1 <= cr[0] <= 11 and 2 <= cr[1] <= 34]
    # each terrain: a few clusters / ribbons with sizes summing to its count
    plan = {3: [6, 4, 3], 4: [7, 6], 5: [5, 4, 3], 6: [8, 4], 7: [3, 3, 3, 3]}
    taken: set[tuple[int, int]] = set()

    def free(cr):
        return cr in _CELLSET and hexes[cr] == 2 and cr not in taken and 1 <= cr[0] <= 11 and 1 <= cr[1] <= 35

    for code, sizes in plan.items():
        for k, size in enumerate(sizes):
            for _ in range(500):
                start = rnd.choice(inner)
                if not free(start) or any(hexes[x] != 2 for x in _nbs(*start)):
                    continue
                shape = [start]
                ribbon = k % 2 == 1
                d = rnd.randrange(6)
                ok = True
                while len(shape) < size and ok:
                    if ribbon:  # a wiggly line
                        d = (d + rnd.choice((-1, 0, 0, 1))) % 6
                        last = shape[-1]
                        nxt = (last[0] + DIRS[d][0], last[1] + DIRS[d][1])
                        cands = [nxt] if free(nxt) and nxt not in shape else []
                    else:  # a blob
                        cands = [x for s in shape for x in _nbs(*s) if free(x) and x not in shape]
                    if not cands:
                        ok = False
                        break
                    shape.append(rnd.choice(cands))
                # keep clusters apart from other clusters of the same terrain
                if ok and not any(hexes.get(x) == code for s in shape for x in _nbs(*s) if x not in shape):
                    for s in shape:
                        hexes[s] = code
                        taken.add(s)
                    break
            else:
                raise RuntimeError("could not place a cluster")
    pampa = [cr for cr in CELLS if hexes[cr] == 2]

    def pampa_nbs(cr):
        return sum(1 for x in _nbs(*cr) if hexes[x] == 2)

    placed = 0
    while placed < 11:
        cr = rnd.choice(pampa)
        if hexes[cr] != 2 or pampa_nbs(cr) < 4:
            continue
        if any(hexes[x] == 9 for x in _nbs(*cr) for x in [x] + _nbs(*x)):
            continue  # markets at least 3 apart
        hexes[cr] = 9
        placed += 1
    placed = 0
    while placed < 4:
        cr = rnd.choice(pampa)
        if hexes[cr] != 2 or pampa_nbs(cr) < 5 or any(hexes[x] in (9, 10) for x in _nbs(*cr)):
            continue
        hexes[cr] = 10
        placed += 1
    return hexes


def main() -> None:
    write_haz(MAPS_DIR / "A.haz", "A-symmetric-reconstructed", side_a(), COLS, ROWS, "meeplab reconstruction")
    write_haz(MAPS_DIR / "B.haz", "B-asymmetric-reconstructed", side_b(), COLS, ROWS, "meeplab reconstruction")


if __name__ == "__main__":
    main()
