"""Rule tests for acbas: refills, costs, special buildings, plans, bonus table, scoring against the reference."""

import numpy as np
import pytest

from meeplab.sim.acbas import GAME, end_states
from meeplab.sim.acbas import engine as E
from meeplab.sim.acbas import farm as F
from meeplab.sim.acbas.defaults import est_special
from meeplab.sim.acbas.evaluation import eval_known
from meeplab.sim.acbas.params import PARAMS, pack
from meeplab.sim.core.bots import make_lineup
from tests import test_acbas_ref as R
from tests.test_acbas_farm import H, V, conts, make

REGIONS = (F.REG, F.RBND, F.RSIZE, F.REG_END, E.REG_WITH)  # gen_plans' region tables

PRM, PRMF = pack(PARAMS.defaults())


def ctx_for(names):
    return make_lineup("acbas", names, 2, True)


def test_spec():
    assert GAME.id == "acbas" and GAME.min_players == GAME.max_players == GAME.default_players == 2
    assert GAME.categories == [
        "animals",
        "bonus_sheep",
        "bonus_pigs",
        "bonus_cows",
        "bonus_horses",
        "buildings",
        "expansions",
        "storage",
    ]


# the box-side table: (type, count, bonus)
BONUS_ROWS = [
    (0, 3, -3),
    (0, 4, 0),
    (0, 7, 0),
    (0, 8, 1),
    (0, 10, 1),
    (0, 11, 2),
    (0, 12, 2),
    (0, 13, 3),
    (0, 14, 4),
    (0, 0, -3),
    (1, 3, -3),
    (1, 4, 0),
    (1, 6, 0),
    (1, 7, 1),
    (1, 8, 1),
    (1, 9, 2),
    (1, 10, 2),
    (1, 11, 3),
    (1, 13, 5),
    (2, 3, -3),
    (2, 4, 0),
    (2, 5, 0),
    (2, 6, 1),
    (2, 7, 1),
    (2, 8, 2),
    (2, 9, 2),
    (2, 10, 3),
    (2, 12, 5),
    (3, 3, -3),
    (3, 4, 0),
    (3, 5, 1),
    (3, 6, 1),
    (3, 7, 2),
    (3, 8, 2),
    (3, 9, 3),
    (3, 10, 4),
]


@pytest.mark.parametrize("t,n,b", BONUS_ROWS)
def test_bonus_table_band_edges(t, n, b):
    assert F.fval(PRM, t, n) == n + b
    assert R.bonus(t, n) == b


def test_refills_x_y_and_expand_pool():
    gs = np.zeros(E.GS_SIZE, np.int64)
    gs[E.GS_POOL] = 8
    E.refill(gs, PRM)
    acc = lambda slot, g: gs[E.GS_ACC + slot * E.NG + g]  # noqa: E731
    assert acc(E.S_MILL, E.G_REED) == 1 and acc(E.S_MILL, E.G_SHEEP) == 0
    assert acc(E.S_PIGSHEEP, E.G_PIG) == 1 and acc(E.S_COWPIG, E.G_COW) == 1 and acc(E.S_HORSESHEEP, E.G_HORSE) == 1
    assert acc(E.S_WOOD, E.G_WOOD) == 3 and acc(E.S_STONE2, E.G_STONE) == 2 and acc(E.S_SP, E.G_WOOD) == 1
    E.refill(gs, PRM)
    # not empty: the (Y) good is added
    assert acc(E.S_MILL, E.G_REED) == 1 and acc(E.S_MILL, E.G_SHEEP) == 1
    assert acc(E.S_PIGSHEEP, E.G_PIG) == 1 and acc(E.S_PIGSHEEP, E.G_SHEEP) == 1
    assert acc(E.S_COWPIG, E.G_PIG) == 1 and acc(E.S_HORSESHEEP, E.G_SHEEP) == 1
    assert acc(E.S_WOOD, E.G_WOOD) == 6 and acc(E.S_EXPAND, E.G_BORD) == 2 and gs[E.GS_POOL] == 6
    # emptied: X again
    for j in range(E.NG):
        gs[E.GS_ACC + E.S_MILL * E.NG + j] = 0
    E.refill(gs, PRM)
    assert acc(E.S_MILL, E.G_REED) == 1 and acc(E.S_MILL, E.G_SHEEP) == 0
    for _ in range(10):
        E.refill(gs, PRM)
    assert acc(E.S_EXPAND, E.G_BORD) == 8 and gs[E.GS_POOL] == 0  # only the 8 borders beside Expand


def test_border_costs():
    assert E.border_cost(False, 3, 0, PRM) == (3, 0)  # fences: 1 wood each
    assert E.border_cost(True, 2, 0, PRM) == (0, 0)  # walls: first 2 free
    assert E.border_cost(True, 3, 0, PRM) == (0, 2)
    assert E.border_cost(True, 2, 1, PRM) == (0, 2)  # 1 already placed in this action
    assert E.trough_cost(0, PRM) == 0 and E.trough_cost(1, PRM) == 3


def plan_rows(ps, kmax=None, partial=6):
    moves = np.zeros((E.MAXM, E.MW), np.int64)
    wk = E.new_wk()
    k = int(ps[F.P_BORD]) if kmax is None else kmax
    n = E.gen_plans(ps, PRM, moves, E.MAXM, k, F.NSPACE, partial, True, wk, *REGIONS)
    return [tuple(int(x) for x in moves[i]) for i in range(n)]


def plans(ps):
    """(region, open space) -> borders, for the region plans (singles have region 0)."""
    return {(r, x): k for e, k, r, x in plan_rows(ps) if r != 0}


def by_edges(ps, **kw):
    return {e: k for e, k, r, x in plan_rows(ps, **kw)}


def test_plan_four_borders_instead_of_five():
    region = (1 << 1) | (1 << 4)  # A2 + B2, above the cottage (A3)
    ps = make()
    ps[F.P_BORD] = 9
    assert plans(ps)[(region, -1)] == 5
    ps[F.P_BLD + 5] = 3  # stall on B3
    assert plans(ps)[(region, -1)] == 4
    # a partial plan leaving the side towards B3 open costs 4 before the stall exists
    ps2 = make()
    ps2[F.P_BORD] = 9
    assert plans(ps2)[(region, 5)] == 4


def test_plans_split_existing_pasture_and_respect_borders_in_hand():
    cells = [(1, 0), (1, 1), (1, 2)]
    from tests.test_acbas_farm import box

    ps = make(borders=box(cells))
    ps[F.P_BORD] = 1
    p = by_edges(ps)
    assert p[H(1, 1)] == 1  # one border between B1 and B2 splits off B1
    assert all(k <= 1 for k in p.values())


def closed(ps):
    caps, sm, kd, _past = conts(ps)
    return sorted((int(c), int(m)) for c, m, k in zip(caps, sm, kd) if k == 0)


def test_plan_l_pasture_around_the_cottage():
    """The usual L of the 5 home spaces around the cottage: 8 borders, holds 10 (not two rectangles)."""
    ps = make()
    ps[F.P_BORD] = 9
    L = (1 << 0) | (1 << 1) | (1 << 3) | (1 << 4) | (1 << 5)
    p = by_edges(ps)
    need = [e for e, k, r, x in plan_rows(ps) if r == L and x == -1]
    assert len(need) == 1 and p[need[0]] == 8
    ps[F.P_E] = need[0]
    assert closed(ps) == [(10, L)]


def test_plan_pastures_larger_than_six_and_any_shape():
    """4 columns without buildings but the cottage: 11 free spaces in one pasture (14 borders), and every
    connected region of free spaces is offered closed once borders allow."""
    ps = make(ncols=4)
    ps[F.P_BORD] = 20
    rows = plan_rows(ps)
    regions = {r for e, k, r, x in rows if x == -1 and r != 0}
    full = ((1 << 12) - 1) & ~(1 << 2)
    assert full in regions
    e = next(e for e, k, r, x in rows if r == full and x == -1)
    ps2 = ps.copy()
    ps2[F.P_E] = e
    assert closed(ps2) == [(22, full)]
    # every polyomino of the 4-column farm avoiding the cottage is a closure plan (or has the same borders
    # as a listed one)
    edges = {e for e, k, r, x in rows}
    n_reg = 0
    for i in range(int(F.REG_END[4])):
        R = int(F.REG[i])
        if R & (1 << 2):
            continue
        need = int(F.RBND[i]) & ~int(F.SPACE_EDGES[2])
        assert need in edges
        n_reg += 1
    assert n_reg > 500


def test_plan_bit_by_bit_over_several_actions():
    """An unfinished enclosure can be left and completed later: every useful border alone is a plan, and
    after 3 of the L's 8 borders the remaining 5 close it as one plan."""
    ps = make()
    ps[F.P_BORD] = 3
    L = (1 << 0) | (1 << 1) | (1 << 3) | (1 << 4) | (1 << 5)
    ps9 = make()
    ps9[F.P_BORD] = 9
    need = next(e for e, k, r, x in plan_rows(ps9) if r == L and x == -1)
    singles = {e for e, k, r, x in plan_rows(ps) if k == 1}
    bits = [1 << b for b in range(64) if need >> b & 1]
    assert all(b in singles for b in bits)
    assert all(k <= 3 for e, k, r, x in plan_rows(ps))
    ps[F.P_E] = bits[0] | bits[1] | bits[2]
    ps[F.P_BORD] = 5
    rest = by_edges(ps)
    assert rest[need & ~ps[F.P_E]] == 5
    # a split of the closed L into 2 + 3 spaces needs exactly the 2 inner borders
    ps[F.P_E] = need
    ps[F.P_BORD] = 2
    assert by_edges(ps)[V(1, 0) | V(1, 1)] == 2


def test_border_spaces_legal_only_when_a_border_can_be_placed():
    gs = np.zeros(E.GS_SIZE, np.int64)
    for j in range(E.NSLOT):
        gs[E.GS_OCC + j] = -1
    wk = E.new_wk()
    moves = np.zeros((E.MAXM, E.MW), np.int64)
    ps = make()
    ps[F.P_BORD] = 3
    ps[F.P_WOOD] = 0
    ps[F.P_STONE] = 0
    assert not E.slot_legal(ps, gs, E.S_FENCES, PRM, 0, wk, moves)  # no wood
    assert E.slot_legal(ps, gs, E.S_WALLS, PRM, 0, wk, moves)  # first 2 walls free
    ps[F.P_WOOD] = 1
    assert E.slot_legal(ps, gs, E.S_FENCES, PRM, 0, wk, moves)
    # every useful position bordered already: nothing can be carried out
    ps[F.P_E] = int(E.useful_edges(ps))
    assert E.useful_edges(ps) == 0
    assert not E.slot_legal(ps, gs, E.S_FENCES, PRM, 0, wk, moves)
    assert not E.slot_legal(ps, gs, E.S_WALLS, PRM, 0, wk, moves)
    # a farm whose free spaces all lie beside buildings still has free sides: legal and carried out
    ps = make(buildings={(0, 2): 1, (0, 1): 3, (1, 2): 3, (0, 0): 3})
    ps[F.P_BORD] = 1
    ps[F.P_WOOD] = 1
    assert E.slot_legal(ps, gs, E.S_FENCES, PRM, 0, wk, moves)
    assert len(plan_rows(ps, kmax=1)) >= 1


def special_state():
    ps = make()
    ps[F.P_WOOD] = 10
    ps[F.P_STONE] = 10
    ps[F.P_REED] = 10
    gs = np.zeros(E.GS_SIZE, np.int64)
    gs[E.GS_STALLS] = 3
    for j in range(4):
        gs[E.GS_SPEC + j] = 1
    return ps, gs


def run_special(ps, gs, only):
    for j in range(4):
        if E.SPECIAL_CODES[j] != only:
            gs[E.GS_SPEC + j] = 0
    wk = E.new_wk()
    z = np.zeros(E.P_SIZE, np.int64)
    moves = np.zeros((E.MAXM, E.MW), np.int64)
    feats = np.zeros((E.MAXM, E.NF))
    # the estimate's default choice (defaults.py): the first building row and its default free animal
    est_special(ps, gs, PRM, PRMF, wk, moves, feats, z.copy(), np.zeros(13), np.zeros(13))


def test_shelter_gives_one_animal_of_choice():
    ps, gs = special_state()
    run_special(ps, gs, 6)
    assert F.has_building(ps, 6) and sum(ps[F.P_AN : F.P_AN + 4]) == 1
    assert (ps[F.P_WOOD], ps[F.P_STONE], ps[F.P_REED]) == (8, 9, 10)
    assert gs[E.GS_SPEC + 2] == 0  # only one Shelter


def test_open_stables_returns_the_stall_and_gives_cow_or_horse():
    ps, gs = special_state()
    ps[F.P_BLD + 4] = 3  # a stall on B2
    run_special(ps, gs, 5)
    assert ps[F.P_BLD + 4] == 5 and gs[E.GS_STALLS] == 4
    assert ps[F.P_AN + 0] == 0 and ps[F.P_AN + 1] == 0 and ps[F.P_AN + 2] + ps[F.P_AN + 3] == 1
    assert ps[F.P_WOOD] + ps[F.P_STONE] == 17


def test_half_timbered_house_replaces_the_cottage():
    ps, gs = special_state()
    run_special(ps, gs, 2)
    assert ps[F.P_BLD + 2] == 2 and not F.has_building(ps, 1)
    assert F.building_points(ps, PRM) == 5


def test_expansion_left_shifts_the_farm():
    ps = make(borders=H(0, 0) | V(2, 1), troughs=1 << 4)
    E.add_column(ps, True)
    assert ps[F.P_NCOLS] == 3 and ps[F.P_HOME] == 1 and ps[F.P_BLD + 5] == 1
    assert ps[F.P_E] == (H(1, 0) | V(3, 1)) and ps[F.P_T] == 1 << 7
    E.add_column(ps, False)
    assert ps[F.P_NCOLS] == 4 and ps[F.P_HOME] == 1


def logged(names, g):
    lu = ctx_for(names)
    ctx = GAME.prepare(GAME.params.defaults())
    from meeplab.sim.acbas import events

    return events(ctx, lu, 5, g)


def test_start_player_marker_takes_effect_next_round_and_breeding():
    seen = 0
    for g in range(30):
        log, _score, tb, _brk = logged(["random"], g)
        start = {}
        took = {}
        rnd = -1
        for rec in log:
            if rec[0] == E.E_ROUND:
                rnd = rec[1]
                start[rnd] = rec[2]
            elif rec[0] == E.E_PLACE and rec[2] == E.S_SP:
                took[rnd] = rec[1]
        assert start[0] == 0
        for r in range(1, 8):
            expect = took.get(r - 1, start[r - 1])
            assert start[r] == expect
            seen += r - 1 in took
        assert list(tb) == [0.0, 1.0]
    assert seen > 10


def test_workers_alternate_and_spaces_block():
    log, *_ = logged(["random", "greedy"], 3)
    for rec in log:
        if rec[0] == E.E_ROUND:
            order, used = [], []  # a new round: the order starts again
        elif rec[0] == E.E_PLACE:
            order.append(rec[1])
            assert rec[2] not in used
            used.append(rec[2])
            if len(order) == 6:
                assert order == [order[0], 1 - order[0]] * 3


def test_reference_scorer_agrees_on_random_end_states():
    lu = ctx_for(["random", "greedy"])
    n = 1500
    farms, brk = end_states(GAME.prepare(PARAMS.defaults()), lu, 99, 0, n)
    cats = GAME.categories
    for g in range(n):
        for p in range(2):
            ps = farms[g, p]
            nc = int(ps[F.P_NCOLS])
            blds = {(s // 3, s % 3): int(ps[F.P_BLD + s]) for s in range(3 * nc) if ps[F.P_BLD + s]}
            farm = R.Farm(nc, int(ps[F.P_HOME]), int(ps[F.P_E]), int(ps[F.P_T]), blds)
            animals = [int(x) for x in ps[F.P_AN : F.P_AN + 4]]
            goods = [int(ps[F.P_WOOD]), int(ps[F.P_STONE]), int(ps[F.P_REED])]
            ref = R.score(farm, animals, goods)
            for j, c in enumerate(cats):
                assert brk[g, p, j] == pytest.approx(ref[c]), (g, p, c)
            # the kept animals really fit the farm
            if len(farm.containers()) <= 14:
                _pts, ani, _ = R.brute_house(farm.containers(), animals)
                assert ani == sum(animals)


def test_every_building_action_is_carried_out():
    """A space may only be taken when its action can be carried out: each building placement is followed by
    at least one border / trough / stall / stables / special building of that player."""
    follow = {
        E.S_FENCES: E.E_BORDERS,
        E.S_WALLS: E.E_BORDERS,
        E.S_TROUGHS: E.E_TROUGH,
        E.S_STALL: E.E_STALL,
        E.S_STABLES: E.E_STABLES,
        E.S_SPEC1: E.E_SPECIAL,
        E.S_SPEC2: E.E_SPECIAL,
    }
    seen = 0
    for g in range(40):
        log, *_ = logged(["random", "heuristic"], g)
        for i, rec in enumerate(log):
            if rec[0] == E.E_PLACE and rec[2] in follow:
                assert log[i + 1][0] == follow[rec[2]] and log[i + 1][1] == rec[1]
                seen += 1
    assert seen > 100


def test_random_bot_builds_non_rectangular_and_large_pastures():
    """Random play reaches pastures the old rectangle-only plans could not: non-rectangular or > 6 spaces."""
    lu = ctx_for(["random"])
    n = 300
    farms, _brk = end_states(GAME.prepare(PARAMS.defaults()), lu, 7, 0, n)
    odd = 0
    for g in range(n):
        for p in range(2):
            _caps, sm, kd, _past = conts(farms[g, p])
            for m, k in zip(sm, kd):
                if k != 0:
                    continue
                m = int(m)
                cols = [c for c in range(6) if m >> (3 * c) & 7]
                rows = [r for r in range(3) if any(m >> (3 * c + r) & 1 for c in range(6))]
                if bin(m).count("1") != len(cols) * len(rows) or bin(m).count("1") > 6:
                    odd += 1
    assert odd >= 5


def end_farms(over, seed, n):
    """(prm, prmf, final farms [game, player]) of n random-vs-heuristic games under the parameter overrides."""
    prm, prmf = pack(dict(PARAMS.defaults(), **over))
    lu = make_lineup("acbas", ["random", "heuristic"], 2, True)
    farms, _ = end_states(GAME.prepare(dict(PARAMS.defaults(), **over)), lu, seed, 0, n)
    return prm, prmf, farms


@pytest.mark.parametrize(
    "over",
    [
        {},
        {"lone_trough": 3, "pasture_per_space": 1, "storage_per_good": 1.5},
        {"lone_trough": 0, "trough_mult": 3, "expansion_points": 7},
    ],
)
def test_plans_that_keep_every_animal_score_without_housing(over):
    # Fences / Walls and their estimate skip the housing for a plan that changes no closed pasture and keeps every
    # animal (keeps_all): eval_known from the farm's parts must give exactly what evaluate() gives. Farms from random
    # games.
    prm, prmf, farms = end_farms(over, 3, 30)
    n = len(farms)
    wk = E.new_wk()
    assert not E.keeps_all(prm, wk, np.uint64(0), np.uint64(0))  # off until the chunk says bounds_hold
    wk[E.S_ROW, E.MONO_COL] = 1
    moves = np.zeros((E.MAXM, E.MW), np.int64)
    res0, res1, res2 = np.zeros(13), np.zeros(13), np.zeros(13)
    checked = skipped = 0
    for g in range(n):
        for p in range(2):
            ps = farms[g, p].copy()
            ps[F.P_BORD], ps[F.P_WOOD] = 6, ps[F.P_WOOD] + 6
            E.evaluate(ps, prm, prmf, wk, res0)
            ncols = int(ps[F.P_NCOLS])
            B = np.uint64(F.building_mask(ps))
            T = np.uint64(ps[F.P_T])
            O = np.uint64((1 << 3 * ncols) - 1) & ~B
            past0 = np.uint64(F.pastures_mask(ps))
            pe0 = 0
            for s in range(18):
                if int(past0) >> s & 1:
                    pe0 |= int(F.SPACE_EDGES[s])
            capo0, _ = E.open_value(ps, prm, O, B, T, np.uint64(ps[F.P_E]))
            storage = bool(F.has_building(ps, 7))
            for i in range(E.gen_plans(ps, prm, moves, E.MAXM, 6, F.NSPACE, 3, True, wk, *REGIONS)):
                tps = ps.copy()
                tps[F.P_E] |= moves[i, 0]
                tps[F.P_WOOD] -= moves[i, 1]
                past1 = np.uint64(F.pastures_mask(tps))
                if int(moves[i, 0]) & pe0 or not E.keeps_all(prm, wk, T, past1 & ~past0):
                    skipped += 1
                    continue
                capo1, nexp1 = E.open_value(tps, prm, O, B, T, np.uint64(tps[F.P_E]))
                eval_known(
                    tps, prm, prmf, res1, res0[1] - capo0 + capo1, 0, res0[10], nexp1 * prm[E.I_EXP_POINTS], storage
                )
                E.evaluate(tps, prm, prmf, wk, res2)
                assert np.array_equal(res1, res2), (g, p, i)
                assert (tps[F.P_AN : F.P_AN + 4] == ps[F.P_AN : F.P_AN + 4]).all()  # every animal stays
                checked += 1
    assert checked > 300 and skipped > 30


@pytest.mark.parametrize(
    "over",
    [
        {},
        {"lone_trough": 0, "trough_mult": 3, "storage_per_good": 1.5},
        {"pasture_per_space": 1, "building_capacity": [0, 2, 3, 5, 0, 1, 0]},
    ],
)
def test_a_trough_keeps_every_animal_and_scores_without_housing(over):
    # Troughs and their estimate take the farm's new capacity and expansions from trough_gain, without housing
    prm, prmf, farms = end_farms(over, 5, 30)
    n = len(farms)
    wk = E.new_wk()
    res0, res1, res2 = np.zeros(13), np.zeros(13), np.zeros(13)
    kinds = set()
    for g in range(n):
        for p in range(2):
            ps = farms[g, p].copy()
            E.evaluate(ps, prm, prmf, wk, res0)
            past = np.uint64(F.pastures_mask(ps))
            storage = bool(F.has_building(ps, 7))
            for s in range(3 * int(ps[F.P_NCOLS])):
                if int(ps[F.P_T]) >> s & 1:
                    continue
                kinds.add("building" if ps[F.P_BLD + s] else ("pasture" if int(past) >> s & 1 else "open"))
                tps = ps.copy()
                tps[F.P_T] |= 1 << s
                tps[F.P_WOOD] += 2
                dc, dx = E.trough_gain(ps, prm, past, s)
                eval_known(tps, prm, prmf, res1, res0[1] + dc, 0, res0[10], res0[11] + dx, storage)
                E.evaluate(tps, prm, prmf, wk, res2)
                assert np.array_equal(res1, res2), (g, p, s)
                assert (tps[F.P_AN : F.P_AN + 4] == ps[F.P_AN : F.P_AN + 4]).all()
    assert kinds == {"building", "pasture", "open"}


def special_decision(ps, gs, flag, lu):
    """The Special building decision on farm ps (seat 0) and board gs through the forward model, the quick
    scoring on (flag 1) or off: (its features, the farm and board after the bot's choice and free animal)."""
    from meeplab.sim.acbas import engine_ctx, state
    from meeplab.sim.core import forward

    c = GAME.prepare(PARAMS.defaults())
    cx = engine_ctx(c.prm, c.prmf, lu, c.mono)
    st = state.new_state(cx, 2, np.zeros((0, E.LOGW), np.int64))
    r = st.rec[0]
    r["ps"][0] = ps
    r["gs"][:] = gs
    r["rng"][:] = 1
    st.scr[0]["wk"][E.S_ROW, E.MONO_COL] = flag
    r["ctl"][state.C_ME] = 0
    r["ctl"][forward.C_PHASE] = state.PH_SPECIAL
    assert E.advance(st, cx) == 0
    feats = r["feats"][: r["ctl"][forward.C_N]].copy()
    E.apply(st, cx, forward.ask(st, lu.fns, lu.weights, 0))
    if r["ctl"][forward.C_PHASE] == state.PH_ANIMAL:
        assert E.advance(st, cx) == 0
        E.apply(st, cx, forward.ask(st, lu.fns, lu.weights, 0))
    return feats, r["ps"][0].copy(), r["gs"].copy()


def test_special_buildings_scored_without_housing_give_the_same_features():
    # the real Special building scores a Storage Building / Shelter that keeps every animal without housing (the
    # Shelter's free animal included): the features and the choice match the housed evaluation (flag off)
    _, _, farms = end_farms({}, 9, 25)
    n = len(farms)
    greedy = ctx_for(["greedy"])
    rows = 0
    for g in range(n):
        for p in range(2):
            out = []
            for flag in (0, 1):
                ps = farms[g, p].copy()
                ps[F.P_WOOD : F.P_REED + 1] = 9
                gs = np.zeros(E.GS_SIZE, np.int64)
                gs[E.GS_STALLS] = 3
                gs[E.GS_SPEC : E.GS_SPEC + 4] = 1
                feats, ps, gs = special_decision(ps, gs, flag, greedy)
                out.append((feats, ps, gs))
            assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1]), (g, p)
            assert np.array_equal(out[0][2], out[1][2])
            rows += int(np.count_nonzero(out[0][0].any(axis=1)))
    assert rows > 500


def test_a_border_beside_a_building_is_a_legal_candidate_ranked_last():
    """The book allows any border anywhere ("Add any number of borders from your supply to your farm"): a border on
    a side of the cottage is offered, after every plan that changes the farm, and placing it changes no pasture."""
    ps = make()
    ps[F.P_BORD] = 9
    rows = plan_rows(ps)
    cottage = 3 * 0 + 2  # A3
    beside = int(F.SPACE_EDGES[cottage])
    idx = [i for i, (e, k, r, x) in enumerate(rows) if k == 1 and e & beside == e]
    assert idx, "no single border beside the cottage"
    assert min(idx) > max(i for i, (e, k, r, x) in enumerate(rows) if e & beside != e)
    e = rows[idx[0]][0]
    after = ps.copy()
    after[F.P_E] |= e
    assert F.pastures_mask(after) == F.pastures_mask(ps)
    # the action is still offered only for a position that helps: with every useful side bordered, none
    ps[F.P_E] = int(E.useful_edges(ps))
    assert not E.can_border(ps, PRM, False, 0)
