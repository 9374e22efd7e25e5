"""Gold Rush on the forward model (copy and the rest of the contract: tests/test_conformance.py): the state record,
determinise (draw pile, unseen token faces), no bot reading hidden parts, search reproducibility, and the
fingerprint that proves the engine plays the same games as before the port."""

import json
from pathlib import Path

import numpy as np
import pytest

from meeplab.sim.core import forward, search
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.forward import C_N, C_SEAT
from meeplab.sim.core.scratch import RACE_CAND, RACE_K, SearchScratch
from meeplab.sim.goldrush import GAME, engine, state
from meeplab.sim.goldrush.const import G_TOKPTR, PI_TOKN, PI_TOKSUM

ROOT = Path(__file__).resolve().parents[1]
CTX = GAME.prepare(GAME.params.resolve({}))
CX = CTX.cx


def fresh(np_=3):
    return state.new_state(CX, np_, np.zeros((0, 7), dtype=np.int64))


def at_decision(g, steps, np_=3, bots=("heuristic", "greedy", "random"), seed=11):
    """Game g played by the given bots for ``steps`` decisions, stopped at the next one."""
    lu = make_lineup("goldrush", list(bots), np_, False)
    st = fresh(np_)
    engine.reset(st, CX, seed, g)
    for _ in range(steps):
        seat = engine.advance(st, CX)
        assert seat >= 0
        engine.apply(st, CX, forward.ask(st, lu.fns, lu.weights, seat))
    assert engine.advance(st, CX) >= 0
    return st


POINTS = [(0, 0), (3, 7), (5, 30), (8, 61), (2, 95), (4, 120)]


def test_fingerprint_of_every_result_column_is_unchanged():
    """The engine plays exactly the games recorded in tests/data, made from the engine before the forward-model
    port (regenerate only for a deliberate rule or bot change: python scripts/fingerprint.py goldrush --games 1000)."""
    from meeplab.lab.studies.fingerprint import fingerprint

    want = json.loads((ROOT / "tests" / "data" / "goldrush_fingerprint.json").read_text())
    assert fingerprint("goldrush", 1000) == want


def test_state_record_prints_by_name():
    st = at_decision(1, 9)
    text = state.describe(st)
    assert "C_PHASE=" in text and "C_DRAWN=" in text and "pub.V_TILES_LEFT:" in text and "G_TOKPTR=" in text
    assert "\norder: " in text and "\ntokvals: " in text
    assert set(state.STATE_DTYPE.names) >= {"pub", "ctl", "moves", "feats", "rng", "order", "tokvals", "nd"}


TINY = '[bots.tiny]\nbase = "rollout"\n[bots.tiny.weights]\nplayouts = 2\nmax_candidates = 3\n'
HIDDEN = ("order", "tokvals", "pl_int", "pool")  # pl_int: only the other seats' token sums change


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("bots") / "tiny.toml"
    path.write_text(TINY)
    return str(path)


def redealt(st, seat, seed):
    cp = fresh(int(st.rec[0]["ctl"][forward.C_NP]))
    forward.fm_copy(cp, st)
    r = np.zeros(4, dtype=np.uint64)
    r[0] = seed
    engine.determinise(cp, CX, seat, r)
    return cp


def seen_by(st, seat):
    """What ``seat`` knows of the hidden parts: the pile as a multiset, its own tokens (place and face), how many
    tokens each other seat holds, the multiset of every token face."""
    rec = st.rec[0]
    drawn = int(rec["ctl"][state.C_DRAWN])
    ptr = int(rec["gi"][G_TOKPTR])
    own = [(i, int(rec["tokvals"][i])) for i in range(ptr) if rec["tokown"][i] == seat]
    held = [int(rec["pl_int"][p, PI_TOKN]) for p in range(int(rec["ctl"][forward.C_NP]))]
    return (
        sorted(rec["order"][drawn : CX.tab[0]["ntiles"] - 1].tolist()),
        own,
        held,
        sorted(rec["tokvals"][: CX.tab[0]["ntok"]].tolist()),
        int(rec["pl_int"][seat, PI_TOKSUM]),
    )


@pytest.mark.parametrize("g,steps", POINTS)
def test_determinise_redeals_only_what_the_seat_has_not_seen(g, steps):
    st = at_decision(g, steps)
    seat = int(st.rec[0]["ctl"][C_SEAT])
    want = seen_by(st, seat)
    orders, faces = set(), set()
    for k in range(8):
        cp = redealt(st, seat, 1000 + k)
        a, b = st.rec[0], cp.rec[0]
        n = int(a["ctl"][forward.C_N])  # fm_copy copies the pending decision's candidate rows only
        for f in state.STATE_DTYPE.names:
            if f in ("moves", "feats"):
                assert np.array_equal(a[f][:n], b[f][:n]), f
            elif f not in HIDDEN:
                assert np.array_equal(a[f], b[f]), f
        assert seen_by(cp, seat) == want
        ptr = int(b["gi"][G_TOKPTR])
        for p in range(3):  # each seat's token sum is the sum of the faces it holds
            assert b["pl_int"][p, PI_TOKSUM] == sum(int(b["tokvals"][i]) for i in range(ptr) if b["tokown"][i] == p)
        orders.add(b["order"].tobytes())
        faces.add(b["tokvals"].tobytes())
    assert len(orders) > 1 and len(faces) > 1


def _decisions(st, other, bots, cfg):
    """Each bot's choice (the search bot's too) on two states with the same random stream."""
    out = []
    np_ = int(st.rec[0]["ctl"][forward.C_NP])
    for name in bots:
        lu = make_lineup("goldrush", [name], np_, False, cfg)
        picks = []
        for s in (st, other):
            cp = fresh(np_)
            forward.fm_copy(cp, s)
            cp.rec[0]["rng"][:] = [1, 2, 3, 4]
            if lu.search[0, forward.S_ALGO]:
                m = cp.rec[0]["moves"].shape[0]
                scratch = SearchScratch(
                    fresh(np_), np.zeros(m), np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(np_),
                    np.zeros(np_), np.zeros((np_, 5)), np.zeros(m), np.zeros((RACE_CAND, RACE_K)),
                )  # fmt: skip
                picks.append(search.rollout_choose(cp, scratch, CX, lu.fns, lu.weights, lu.search[0], 0))
            else:
                picks.append(forward.ask(cp, lu.fns, lu.weights, 0))
        out.append((name, picks[0], picks[1]))
    return out


@pytest.mark.parametrize("g,steps", POINTS)
def test_no_bot_reads_what_its_seat_cannot_see(tiny, g, steps):
    """Two states that differ only in the draw pile's order and the faces of tokens the deciding seat has not
    seen give every bot, the search bot included, the same view, features and choice."""
    st = at_decision(g, steps)
    seat = int(st.rec[0]["ctl"][C_SEAT])
    other = redealt(st, seat, 77)
    a, b = st.rec[0], other.rec[0]
    assert not np.array_equal(a["order"], b["order"])
    n = int(a["ctl"][C_N])
    assert np.array_equal(a["feats"][:n], b["feats"][:n]) and np.array_equal(a["pub"], b["pub"])
    for name, x, y in _decisions(st, other, ["random", "greedy", "heuristic", "tiny"], [tiny]):
        assert x == y, name


def test_search_is_reproducible_for_any_thread_count(tiny):
    import numba

    lu = make_lineup("goldrush", ["tiny", "heuristic"], 2, True, [tiny])
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = GAME.play(CTX, lu, 5, 0, 6, 2)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = GAME.play(CTX, lu, 5, 0, 6, 2)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one.score, two.score) and np.array_equal(one.breakdown, two.breakdown)
    part = GAME.play(CTX, lu, 5, 3, 3, 2)  # games 3..5 alone are the same games
    assert np.array_equal(part.score, one.score[3:])


def test_replay_explains_search_decisions(capsys, tiny):
    from meeplab.cli import main

    args = ["replay", "goldrush", "--index", "2", "--players", "2", "--bots", "tiny,heuristic", "--bot-config", tiny]
    assert main(args + ["--explain"]) in (0, None)
    text = capsys.readouterr().out
    assert "search: " in text and "#1 " in text and "mean value" in text
    assert main(args) in (0, None)
    plain = capsys.readouterr().out
    assert "search: " not in plain
    assert [ln for ln in text.splitlines() if "search: " not in ln and "mean value" not in ln] == plain.splitlines()
