"""ACBAS on the forward model (docs/adding-a-game.md): the search bot, and the fingerprint that proves the engine
plays the same games as before a refactor. Copy and determinise (the identity): tests/test_conformance.py."""

import json
from pathlib import Path

import numba
import numpy as np
import pytest

from meeplab.sim.acbas import GAME, engine, engine_ctx, state
from meeplab.sim.core import forward
from meeplab.sim.core.bots import available, make_lineup
from meeplab.sim.core.forward import C_N
from meeplab.sim.core.game import rank_and_win

ROOT = Path(__file__).resolve().parents[1]
TINY = '[bots.tiny]\nbase = "rollout"\n[bots.tiny.weights]\nplayouts = 1\nmax_candidates = 3\n'


@pytest.fixture(scope="module")
def c():
    return GAME.prepare(GAME.params.defaults())


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("bots") / "tiny.toml"
    path.write_text(TINY)
    return str(path)


def cx_of(c, lu):
    return engine_ctx(c.prm, c.prmf, lu, c.mono)


def fresh(cx):
    return state.new_state(cx, 2, np.zeros((0, 10), dtype=np.int64))


def at_decision(c, g, steps, bots=("heuristic", "random")):
    """Game g (seed 11) played by the given bots for ``steps`` decisions, stopped at the next one."""
    lu = make_lineup("acbas", list(bots), 2, False)
    cx = cx_of(c, lu)
    st = fresh(cx)
    engine.reset(st, cx, 11, g)
    for _ in range(steps):
        seat = engine.advance(st, cx)
        assert seat >= 0
        engine.apply(st, cx, forward.ask(st, lu.fns, lu.weights, seat))
    assert engine.advance(st, cx) >= 0
    return st, cx


POINTS = [(0, 0), (3, 9), (5, 30), (8, 44), (2, 52)]


def test_decisions_have_candidates_and_features(c):
    st, _cx = at_decision(c, 4, 20)
    n = int(st.rec[0]["ctl"][C_N])
    assert n >= 1 and np.isfinite(st.rec[0]["feats"][:n]).all()
    text = state.describe(st)
    assert "C_PHASE" in text and "ps:" in text and "moves:" in text


def test_search_is_reproducible_for_any_thread_count(c, tiny):
    lu = make_lineup("acbas", ["tiny", "heuristic"], 2, True, [tiny])
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = GAME.play(c, lu, 5, 0, 70, 2)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = GAME.play(c, lu, 5, 0, 70, 2)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one.score, two.score) and np.array_equal(one.length, two.length)
    part = GAME.play(c, lu, 5, 0, 40, 2)
    assert np.array_equal(part.score, one.score[:40])


def test_search_bot_beats_greedy(c, tiny):
    lu = make_lineup("acbas", ["tiny", "greedy"], 2, True, [tiny])
    b = GAME.play(c, lu, 3, 0, 64, 2)
    _, win = rank_and_win(b.score, b.tiebreak)
    entry = (np.arange(2)[None, :] + np.arange(64)[:, None]) % 2
    assert win[entry == 0].mean() > 0.6


def test_search_variants_are_toml_only():
    bots = available("acbas")
    assert bots["rollout"].search == "rollout" and bots["rollout"].policy == "heuristic"
    assert bots["rollout-16"].weights_dict()["playouts"] == 16
    assert bots["rollout-greedy"].policy == "greedy"


def test_replay_explains_search_decisions(capsys, tiny):
    from meeplab.cli import main

    args = ["replay", "acbas", "--index", "1", "--bots", "tiny,heuristic", "--bot-config", tiny]
    assert main(args + ["--explain"]) in (0, None)
    text = capsys.readouterr().out
    assert "search: " in text and "#1 " in text and "mean value" in text
    assert main(args) in (0, None)
    plain = capsys.readouterr().out
    assert [ln for ln in text.splitlines() if "search: " not in ln and "mean value" not in ln] == plain.splitlines()


def test_fingerprint_of_every_result_column_is_unchanged():
    """The engine plays exactly the games recorded in tests/data (regenerate only for a deliberate rule or
    bot change: python scripts/fingerprint.py acbas --games 1000 > tests/data/acbas_fingerprint.json)."""
    from meeplab.lab.studies.fingerprint import fingerprint

    want = json.loads((ROOT / "tests" / "data" / "acbas_fingerprint.json").read_text())
    assert fingerprint("acbas", 1000) == want


def test_first_run_prints_one_compile_notice(tmp_path, monkeypatch, capsys):
    """The runner's notice (lab.runs.runner.compile_notice) comes once per game and source version, names the
    game and, once a compile was measured on this machine, its time."""
    from meeplab.lab.runs.runner import compile_notice

    monkeypatch.setenv("MEEPLAB_CACHE_DIR", str(tmp_path))
    with compile_notice(GAME):
        pass
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"compiling the {GAME.title} engine, first run only")
    with compile_notice(GAME):
        pass
    assert capsys.readouterr().err == ""
    marker = next((tmp_path / "first-run").glob("acbas-*.txt"))
    old = marker.with_name("acbas-0000.txt")
    old.write_text("42.0\n")
    marker.unlink()
    with compile_notice(GAME):
        pass
    assert "about 42 s" in capsys.readouterr().err
