"""Farm geometry, pasture flood fill and the exact housing solver against the rule book and brute force."""

import numpy as np
import pytest

from meeplab.sim.acbas import farm as F
from meeplab.sim.acbas import housing
from meeplab.sim.acbas.params import PARAMS, pack
from tests.test_acbas_ref import Farm, brute_house, edge_bit

PRM, PRMF = pack(PARAMS.defaults())


def V(b, r):
    return 1 << edge_bit("V", b, r)


def H(c, r):
    return 1 << edge_bit("H", c, r)


def make(ncols=2, home=0, borders=0, troughs=0, buildings=None):
    ps = np.zeros(F.P_SIZE, np.int64)
    F.new_farm(ps, PRM)
    ps[F.P_NCOLS] = ncols
    ps[F.P_HOME] = home
    ps[F.P_BLD : F.P_BLD + 18] = 0
    for (c, r), code in (buildings if buildings is not None else {(home, 2): 1}).items():
        ps[F.P_BLD + 3 * c + r] = code
    ps[F.P_E] = borders
    ps[F.P_T] = troughs
    return ps


def conts(ps):
    caps = np.zeros(F.MAXC, np.int64)
    sm = np.zeros(F.MAXC, np.int64)
    kd = np.zeros(F.MAXC, np.int64)
    K, past = F.containers(ps, PRM, caps, sm, kd)
    return caps[:K], sm[:K], kd[:K], int(past)


def solve(caps, d):
    caps = np.asarray(caps, np.int64)
    assign = np.zeros(F.MAXC, np.int64)
    kept = np.zeros(4, np.int64)
    scratch = np.zeros(housing.SCRATCH, np.int64)
    v = housing.house(
        np.concatenate([caps, np.zeros(F.MAXC - len(caps), np.int64)]),
        len(caps),
        np.asarray(d, np.int64),
        PRM,
        assign,
        kept,
        scratch,
    )
    return v, assign[: len(caps)], kept


def box(cells):
    """Borders all around a set of cells (edges shared by two cells of the set left open)."""
    m = 0
    for c, r in cells:
        for e, nb in (
            (H(c, r), (c, r - 1)),
            (H(c, r + 1), (c, r + 1)),
            (V(c, r), (c - 1, r)),
            (V(c + 1, r), (c + 1, r)),
        ):
            if nb not in cells:
                m |= e
    return m


def test_two_space_pasture_4_8_16():
    cells = [(1, 0), (1, 1)]
    e = box(cells)
    assert sorted(conts(make(borders=e))[0]) == [1, 4]  # cottage 1 + pasture 4
    assert sorted(conts(make(borders=e, troughs=1 << 3))[0]) == [1, 8]
    assert sorted(conts(make(borders=e, troughs=(1 << 3) | (1 << 4)))[0]) == [1, 16]


def test_three_space_pasture_split_by_stall():
    cells = [(1, 0), (1, 1), (1, 2)]
    e = box(cells)
    assert sorted(conts(make(borders=e))[0]) == [1, 6]
    ps = make(borders=e, buildings={(0, 2): 1, (1, 1): 3})
    caps, _, _, _ = conts(ps)
    assert sorted(caps) == [1, 2, 2, 3]
    _v, _assign, kept = solve(caps, [2, 3, 2, 0])
    assert list(kept) == [2, 3, 2, 0]  # 2 + 3 + 2 = 7 animals of three types


def test_building_capacities_with_trough():
    ps = make(buildings={(0, 2): 1, (1, 0): 3}, troughs=(1 << 2) | (1 << 3))
    caps, _, kind, _ = conts(ps)
    assert sorted(caps) == [2, 6]  # cottage with trough 2, stall with trough 6
    ps = make(troughs=1 << 1)  # lone trough on an unfenced space
    caps, _, kind, _ = conts(ps)
    assert sorted(caps) == [1, 1] and 2 in list(kind)


def test_four_borders_instead_of_five_with_a_stall():
    # 2-space pasture in the middle row above the cottage: 5 borders close it (the cottage side is free)
    e4 = H(0, 1) | H(1, 1) | V(0, 1) | V(2, 1)
    assert sorted(conts(make(borders=e4 | H(1, 2)))[0]) == [1, 4]
    assert sorted(conts(make(borders=e4))[0]) == [1]  # open towards (1, 2): no pasture
    ps = make(borders=e4, buildings={(0, 2): 1, (1, 2): 3})
    assert sorted(conts(ps)[0]) == [1, 3, 4]  # the stall's side closes it: 4 borders suffice


def test_farm_edge_is_not_a_border():
    # whole home board with only the inner lines: nothing is closed
    inner = H(0, 1) | H(0, 2) | H(1, 1) | H(1, 2) | V(1, 0) | V(1, 1) | V(1, 2)
    assert sorted(conts(make(borders=inner))[0]) == [1]
    full = inner | H(0, 0) | H(1, 0) | H(0, 3) | H(1, 3) | V(0, 0) | V(0, 1) | V(0, 2) | V(2, 0) | V(2, 1) | V(2, 2)
    assert sorted(conts(make(borders=full))[0]) == [1, 2, 2, 2, 2, 2]


def random_ps(rng):
    ncols = int(rng.integers(2, 7))
    home = int(rng.integers(0, ncols - 1))
    blds = {(home, 2): int(rng.choice([1, 2]))}
    for _ in range(int(rng.integers(0, 5))):
        c, r = int(rng.integers(0, ncols)), int(rng.integers(0, 3))
        if (c, r) not in blds:
            blds[(c, r)] = int(rng.choice([3, 4, 5, 6, 7]))
    edges = 0
    for c in range(ncols + 1):
        for r in range(4):
            if c < ncols and rng.random() < 0.55:
                edges |= H(c, r)
            if r < 3 and rng.random() < 0.55:
                edges |= V(c, r)
    tr = 0
    for s in range(3 * ncols):
        if rng.random() < 0.2:
            tr |= 1 << s
    return make(ncols, home, edges, tr, blds), Farm(ncols, home, edges, tr, blds)


def test_containers_match_reference_on_random_farms():
    rng = np.random.default_rng(7)
    for _ in range(600):
        ps, ref = random_ps(rng)
        caps, _, _, past = conts(ps)
        assert sorted(caps, reverse=True) == ref.containers()
        cells = {(s // 3, s % 3) for s in range(18) if (past >> s) & 1}
        assert cells == ref.pasture_cells()
        assert F.full_expansions(ps, np.uint64(past)) == ref.full_expansions()


def test_housing_solver_matches_brute_force():
    rng = np.random.default_rng(11)
    n = 0
    while n < 400:
        _ps, ref = random_ps(rng)
        caps = ref.containers()
        if not 1 <= len(caps) <= 12:
            continue
        n += 1
        d = [int(x) for x in rng.integers(0, 12, size=4)]
        v, assign, kept = solve(caps, d)
        pts, ani, pairs = brute_house(caps, d)
        assert v == pts * 8192 + ani * 8 + pairs
        # the assignment really houses the kept animals
        tot = [0, 0, 0, 0]
        for cap, a in zip(caps, assign):
            if a >= 0:
                tot[a] += cap
        assert all(kept[t] <= min(tot[t], d[t]) for t in range(4))
        from tests.test_acbas_ref import points

        assert (points(list(kept)), int(sum(kept)), sum(1 for x in kept if x >= 2)) == (pts, ani, pairs)


@pytest.mark.parametrize(
    "caps,d",
    [
        ([10, 6, 4, 3, 2, 2, 1, 1, 1, 1], [9, 8, 7, 6]),
        ([16, 8, 5, 5, 3, 2, 1], [13, 11, 10, 9]),
        ([3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1], [6, 5, 4, 9]),
        ([1] * 9 + [4], [3, 4, 2, 1]),
    ],
)
def test_housing_solver_bigger_cases(caps, d):
    v, _, _kept = solve(caps, d)
    pts, ani, pairs = brute_house(caps, d)
    assert v == pts * 8192 + ani * 8 + pairs


def test_housing_prefers_breeding_pairs_on_equal_points_and_animals():
    """Three 1-capacity containers, 2 sheep + 1 pig + 1 cow: {sheep, pig, cow} and {2 sheep, pig} and {2 sheep,
    cow} all score the same points (every type below 4: -3 each) with 3 animals; the kept set holds a pair."""
    _v, _assign, kept = solve([1, 1, 1], [2, 1, 1, 0])
    assert sum(kept) == 3 and kept[0] == 2
    _v, _assign, kept = solve([1, 1, 1], [1, 1, 0, 2])
    assert sum(kept) == 3 and kept[3] == 2
    # a 2-container and two 1-containers, 1 sheep, 1 pig, 2 cows, 2 horses: 4 animals in many ways; the kept
    # set has two pairs (2 cows in the 2, a horse in each 1)
    _v, _assign, kept = solve([2, 1, 1], [1, 1, 2, 2])
    assert sum(kept) == 4 and sum(1 for x in kept if x >= 2) == 2
