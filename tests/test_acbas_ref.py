"""Pure-Python reference for Agricola ACBAS farms, housing and scoring (written apart from the numba code).

The farm is read cell by cell: cell (c, r), c = column from the farm's left edge, r = 0 top .. 2 bottom.
A border on the edge between two cells or on the farm's outer edge is looked up by its name
('V', b, r) = vertical line left of column b, ('H', c, r) = horizontal line above row r in column c.
"""

TYPES = ("sheep", "pigs", "cows", "horses")
CAP = {1: 1, 2: 2, 3: 3, 4: 5, 5: 5, 6: 1, 7: 0}
PTS = {1: 0, 2: 5, 3: 1, 4: 4, 5: 2, 6: 0, 7: 0}
BANDS = {0: (4, 8, 11, 13), 1: (4, 7, 9, 11), 2: (4, 6, 8, 10), 3: (4, 5, 7, 9)}


def edge_bit(kind, a, r):
    return 7 * a + r if kind == "V" else 7 * a + 3 + r


def bonus(t, n):
    b0, b1, b2, b3 = BANDS[t]
    if n <= b0 - 1:
        return -3
    if n >= b3:
        return 3 + n - b3
    if n >= b2:
        return 2
    if n >= b1:
        return 1
    return 0


class Farm:
    def __init__(self, ncols, home, borders, troughs, buildings):
        self.ncols = ncols
        self.home = home
        self.borders = borders  # int bit mask over the 45 edges
        self.troughs = troughs  # int bit mask over spaces 3c+r
        self.buildings = dict(buildings)  # (c, r) -> code

    def has(self, kind, a, r):
        return (self.borders >> edge_bit(kind, a, r)) & 1 == 1

    def trough(self, c, r):
        return (self.troughs >> (3 * c + r)) & 1 == 1

    def regions(self):
        """Open (non-building) cells grouped by reachability across unbordered edges; each with a closed flag."""
        seen = set()
        out = []
        for c in range(self.ncols):
            for r in range(3):
                if (c, r) in seen or (c, r) in self.buildings:
                    continue
                comp = []
                stack = [(c, r)]
                seen.add((c, r))
                closed = True
                while stack:
                    x, y = stack.pop()
                    comp.append((x, y))
                    sides = [
                        ((x, y - 1), ("H", x, y)),
                        ((x, y + 1), ("H", x, y + 1)),
                        ((x - 1, y), ("V", x, y)),
                        ((x + 1, y), ("V", x + 1, y)),
                    ]
                    for (nx, ny), e in sides:
                        if self.has(*e):
                            continue
                        inside = 0 <= nx < self.ncols and 0 <= ny < 3
                        if not inside:
                            closed = False  # the farm edge is not a border
                            continue
                        if (nx, ny) in self.buildings:
                            continue  # building sides count as borders
                        if (nx, ny) not in seen:
                            seen.add((nx, ny))
                            stack.append((nx, ny))
                out.append((sorted(comp), closed))
        return out

    def containers(self):
        caps = []
        for comp, closed in self.regions():
            nt = sum(self.trough(x, y) for x, y in comp)
            if closed:
                caps.append(2 * len(comp) * 2**nt)
            else:
                caps.extend([1] * nt)
        for (x, y), code in self.buildings.items():
            cap = CAP[code] * (2 if self.trough(x, y) else 1)
            if cap:
                caps.append(cap)
        return sorted(caps, reverse=True)

    def pasture_cells(self):
        return {cell for comp, closed in self.regions() if closed for cell in comp}

    def full_expansions(self):
        past = self.pasture_cells()
        n = 0
        for c in range(self.ncols):
            if c in (self.home, self.home + 1):
                continue
            if all((c, r) in self.buildings or self.trough(c, r) or (c, r) in past for r in range(3)):
                n += 1
        return n


def points(kept):
    return sum(k + bonus(t, k) for t, k in enumerate(kept))


def reachable_kept(caps, d):
    """Every kept vector (sheep, pigs, cows, horses) some assignment of a type (or none) to each container gives.

    Exhaustive: every container is tried with every option; reachable capped totals are kept as a set
    (two assignments with the same capped totals keep the same animals)."""
    states = {(0, 0, 0, 0)}
    for cap in caps:
        nxt = set()
        for st in states:
            nxt.add(st)
            for t in range(4):
                s2 = list(st)
                s2[t] = min(d[t], s2[t] + cap)
                nxt.add(tuple(s2))
        states = nxt
    return states


def brute_house(caps, d):
    """Best (points, animals, types kept at least twice) over every assignment of a type (or none) to each container."""
    states = reachable_kept(caps, d)
    return max((points(list(st)), sum(st), sum(1 for x in st if x >= 2)) for st in states)


def score(farm, animals, goods):
    """Category scores: animals, bonus per type, buildings, expansions, storage."""
    out = {"animals": sum(animals)}
    for t, name in enumerate(TYPES):
        out[f"bonus_{name}"] = bonus(t, animals[t])
    out["buildings"] = sum(PTS[c] for c in farm.buildings.values())
    out["expansions"] = 4 * farm.full_expansions()
    out["storage"] = 0.5 * sum(goods) if 7 in farm.buildings.values() else 0.0
    return out
