"""Keep-or-release (decision kind 9): the player chooses which animals stay when not all fit (bots.md)."""

import numpy as np
import pytest

from meeplab.sim.acbas import GAME, animals, engine_ctx, events, state
from meeplab.sim.acbas import engine as E
from meeplab.sim.acbas import farm as F
from meeplab.sim.acbas.params import PARAMS, pack
from meeplab.sim.core import forward
from meeplab.sim.core.bots import make_lineup
from tests.test_acbas_farm import H, V, conts, make, random_ps
from tests.test_acbas_ref import points, reachable_kept

PRM, PRMF = pack(PARAMS.defaults())


def unpack(v):
    return tuple(int((v >> (16 * t)) & 0xFFFF) for t in range(4))


def brute_maximal(caps, have):
    """Every kept vector some assignment of a type (or none) per container gives, reduced to those to which no
    animal of any type can be added (exhaustive)."""
    states = reachable_kept(caps, have)
    return {s for s in states if not any(o != s and all(o[t] >= s[t] for t in range(4)) for o in states)}


def frontier(ps, have):
    wk = E.new_wk()
    kf = np.zeros((2, E.KF_N), np.int64)
    n = E.keep_frontier(ps, PRM, wk, kf, *have)
    return [unpack(v) for v in kf[0, :n]]


def test_frontier_is_every_maximal_set_that_fits_brute_force():
    rng = np.random.default_rng(7)
    seen_many = 0
    for _ in range(300):
        ps, _ = random_ps(rng)
        have = tuple(int(x) for x in rng.integers(0, 9, 4))
        caps = list(conts(ps)[0])
        got = frontier(ps, have)
        assert len(got) == len(set(got))
        assert set(got) == brute_maximal(caps, have)
        seen_many += len(got) > 1
    assert seen_many > 50


@pytest.fixture(scope="module")
def cx():
    c = GAME.prepare(GAME.params.defaults())
    return engine_ctx(c.prm, c.prmf, make_lineup("acbas", ["greedy"], 2, True), c.mono)


def at_turn(cx, farm, have):
    """A fresh game whose seat 0 farm is ``farm`` and holds the animals ``have`` (not housed yet)."""
    st = state.new_state(cx, 2, np.zeros((0, E.LOGW), dtype=np.int64))
    E.reset(st, cx, 1, 0)
    E.advance(st, cx)
    r = st.rec[0]
    r["ctl"][state.C_ME] = 0
    ps = r["ps"][0]
    ps[:] = farm
    ps[F.P_AN : F.P_AN + 4] = have
    return st, r, ps


def test_two_maximal_sets_are_offered_and_the_chosen_one_is_kept(cx):
    # only the cottage (holds 1): a sheep and a pig arrive, either may stay (both score -5: a tie of the rule)
    for pick in range(2):
        st, r, ps = at_turn(cx, make(), (1, 1, 0, 0))
        assert animals.settle(st, cx.tab, 0, state.PH_TURN)
        assert r["ctl"][forward.C_KIND] == E.K_KEEP and r["ctl"][forward.C_SEAT] == 0 and r["ctl"][forward.C_N] == 2
        assert r["ctl"][forward.C_PHASE] == state.PH_KEEP
        rows = [unpack(r["moves"][i, 0]) for i in range(2)]
        assert sorted(rows) == [(0, 1, 0, 0), (1, 0, 0, 0)]
        assert [r["moves"][i, 1] for i in range(2)] == [1, 1]  # one runs away either way
        # the fixed rule's set first (feature 'rule'), equal score change
        assert list(r["feats"][:2, E.F_RULE]) == [1.0, 0.0] and list(r["feats"][:2, E.F_SCORE]) == [0.0, 0.0]
        # the farm holds both until the choice; the seat's view shows them
        assert tuple(ps[F.P_AN : F.P_AN + 4]) == (1, 1, 0, 0)
        assert r["pub"][E.V_ME + F.P_AN] == 1 and r["pub"][E.V_ME + F.P_AN + 1] == 1
        E.apply(st, cx, pick)
        assert tuple(ps[F.P_AN : F.P_AN + 4]) == rows[pick]
        assert r["ctl"][forward.C_PHASE] == state.PH_TURN and r["ctl"][state.C_TURN] == 1


def test_sets_with_different_points_are_offered_with_their_score_change(cx):
    # cottage + a 2-space pasture (holds 4): 4 sheep and 2 pigs on hand; maximal: 4 sheep + 1 pig (the rule's:
    # -4 points) and 1 sheep + 2 pigs (-9); both are offered, scored against the rule's
    e = H(1, 0) | H(1, 2) | V(1, 0) | V(1, 1) | V(2, 0) | V(2, 1)
    farm = make(borders=e)
    assert sorted(conts(farm)[0]) == [1, 4]
    st, r, ps = at_turn(cx, farm, (4, 2, 0, 0))
    assert animals.settle(st, cx.tab, 0, state.PH_TURN)
    n = r["ctl"][forward.C_N]
    rows = [unpack(r["moves"][i, 0]) for i in range(n)]
    assert set(rows) == brute_maximal([1, 4], (4, 2, 0, 0)) == {(4, 1, 0, 0), (1, 2, 0, 0)}
    rule = rows[0]
    assert rule == (4, 1, 0, 0) and r["feats"][0, E.F_RULE] == 1.0
    for i, row in enumerate(rows):
        assert r["feats"][i, E.F_SCORE] == pytest.approx(points(list(row)) - points(list(rule)))
        assert r["moves"][i, 1] == 6 - sum(row)
    E.apply(st, cx, rows.index((1, 2, 0, 0)))
    assert tuple(ps[F.P_AN : F.P_AN + 4]) == (1, 2, 0, 0)


def test_one_maximal_set_is_not_asked(cx):
    # the cottage and 2 sheep: only 1 sheep fits, there is nothing to choose
    st, _r, ps = at_turn(cx, make(), (2, 0, 0, 0))
    assert not animals.settle(st, cx.tab, 0, state.PH_TURN)
    assert tuple(ps[F.P_AN : F.P_AN + 4]) == (1, 0, 0, 0)
    # everything fits: nothing to choose either
    st, _r, ps = at_turn(cx, make(), (0, 0, 1, 0))
    assert not animals.settle(st, cx.tab, 0, state.PH_TURN)
    assert tuple(ps[F.P_AN : F.P_AN + 4]) == (0, 0, 1, 0)
    # two types, but one container each: both fit, no choice
    farm = make(buildings={(0, 2): 1, (1, 2): 3})
    st, _r, ps = at_turn(cx, farm, (1, 3, 0, 0))
    assert not animals.settle(st, cx.tab, 0, state.PH_TURN)
    assert tuple(ps[F.P_AN : F.P_AN + 4]) == (1, 3, 0, 0)


def test_games_ask_keep_decisions_and_keep_the_chosen_set():
    """Every keep decision follows animals that arrived (an animal space or breeding, logged with run-away -1;
    the Shelter's / Open Stables' free animal) or a change of the same seat's farm (new borders, a trough, a stall
    or stables, a building, an expansion: containers can split), and every arrival logged as pending is settled."""
    c = GAME.prepare(GAME.params.defaults())
    farm_change = (E.E_ANIMAL, E.E_BORDERS, E.E_TROUGH, E.E_STALL, E.E_STABLES, E.E_SPECIAL, E.E_EXPAND)
    asked = 0
    for g in range(12):
        log, _score, _tb, _brk = events(c, make_lineup("acbas", ["random"], 2, True), 3, g)
        pending = None
        last = None
        for rec in log:
            if rec[0] in (E.E_HOUSE, E.E_BREED) and rec[6] == -1:
                assert pending is None
                pending = rec[1]
            elif rec[0] == E.E_KEEP:
                if pending is None:
                    assert last is not None and last[0] in farm_change and last[1] == rec[1]
                else:
                    assert pending == rec[1]
                assert rec[7] >= 2 and rec[6] >= 1  # chosen among >= 2 sets; something ran away
                pending = None
                asked += 1
            if rec[0] != E.E_FARM:
                last = rec
        assert pending is None
    assert asked > 5
