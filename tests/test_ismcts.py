"""The ismcts search bot (sim.core.ismcts): it plays every game, reproducibly for any thread count, blind to what its
seat cannot see, explains its root, sizes its tree from its budget and refuses bad options. Tiny budgets only: its
strength is measured in scripts/bench.py and the bots' docs, never here."""

import re

import numba
import numpy as np
import pytest

from meeplab.sim.core import forward, ismcts
from meeplab.sim.core.bots import available, make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.forward import ALGO_ISMCTS, C_N, C_SEAT, S_ALGO, S_PERCAND, S_PLAYOUTS
from meeplab.sim.core.play import new_player
from meeplab.sim.core.registry import get_game
from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND, EXPLAIN_VISITS, explain_lines

GAMES = ["schweinebande", "goldrush", "hacienda", "acbas"]
TINY = """[bots.tiny]
base = "ismcts"
description = "ismcts, 6 iterations per decision"
[bots.tiny.weights]
iterations = 6
per_candidate = 0
max_candidates = 3
kinds = 0

[bots.tiny-options]
base = "tiny"
description = "tiny with every option on"
[bots.tiny-options.weights]
epsilon = 0.3
bias = 1.0
cutoff = 5
widen = 2
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("bots") / "tiny.toml"
    path.write_text(TINY)
    return str(path)


def ctx_of(game):
    g = get_game(game)
    return g, g.prepare(g.params.resolve({}))


def test_every_game_ships_an_ismcts_bot_with_the_rollout_budget():
    """Each game's ismcts spends as many playouts per decision as its rollout: per_candidate = rollout's playouts,
    the same candidate cap and growth with the table."""
    for game in GAMES:
        bots = available(game)
        spec, roll = bots["ismcts"], bots["rollout"].weights_dict()
        w = spec.weights_dict()
        assert spec.search == "ismcts" and spec.policy == "tuned"
        assert w["per_candidate"] == roll["playouts"]
        assert w["max_candidates"] == roll["max_candidates"]
        assert w["grow"] == roll["grow"] and w["kinds"] == roll["kinds"]
        for p in (2, 3):
            row = make_lineup(game, ["ismcts"], p, False).search[0]
            assert row[S_ALGO] == ALGO_ISMCTS
            assert row[S_PERCAND] == make_lineup(game, ["rollout"], p, False).search[0][S_PLAYOUTS]


@pytest.mark.parametrize("game", GAMES)
def test_plays_every_game_reproducibly_for_any_thread_count(game, tiny):
    """Games with an ismcts seat are the same on 1 and 2 threads (the search draws from the game's own stream), and
    its options change the games it plays."""
    g, ctx = ctx_of(game)
    lu = make_lineup(game, ["tiny", "heuristic"], 2, True, [tiny])
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = g.play(ctx, lu, 5, 0, 2, 2)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = g.play(ctx, lu, 5, 0, 2, 2)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one.score, two.score) and np.array_equal(one.length, two.length)
    assert np.array_equal(one.tiebreak, two.tiebreak)
    if game == "schweinebande":  # epsilon, bias, cutoff and widening are read (the same compiled search)
        opts = g.play(ctx, make_lineup(game, ["tiny-options", "heuristic"], 2, True, [tiny]), 5, 0, 2, 2)
        assert not np.array_equal(opts.score, one.score)


def _engine(game):
    """The game's own forward-model entry points (reset, advance, apply, determinise)."""
    if game == "schweinebande":
        from meeplab.sim.schweinebande import engine

        return engine.reset, engine.advance, engine.apply, engine.determinise
    if game == "goldrush":
        from meeplab.sim.goldrush import engine

        return engine.reset, engine.advance, engine.apply, engine.determinise
    from meeplab.sim.hacienda import flow

    return flow.reset, flow.advance, flow.apply, flow.determinise


@pytest.mark.parametrize("game,g,steps", [("schweinebande", 3, 17), ("goldrush", 5, 30), ("hacienda", 3, 30)])
def test_blind_to_what_its_seat_cannot_see(game, g, steps, tiny):
    """Two states that differ only in what the deciding seat cannot see (re-dealt by the engine's determinise) give
    the search the same decision, and the re-deal did change the state."""
    spec, ctx = ctx_of(game)
    reset, advance, apply, determinise = _engine(game)
    cx = ctx.cx
    np_ = 3
    plain = make_lineup(game, ["heuristic", "greedy", "random"], np_, False)
    ncat = len(spec.categories)
    st, sim, acc, cand, used, sc, tb, brk = new_player(cx, np_, ncat, np.zeros((0, 1), dtype=np.int64))
    reset(st, cx, 11, g)
    for _ in range(steps):
        seat = advance(st, cx)
        assert seat >= 0
        apply(st, cx, forward.ask(st, plain.fns, plain.weights, seat))
    seat = advance(st, cx)
    assert seat >= 0 and st.rec[0]["ctl"][C_N] > 1
    base = st.rec.copy()
    lu = make_lineup(game, ["tiny"], np_, False, [tiny])
    picks, differ = [], 0
    for k in range(3):
        st.rec[:] = base
        if k > 0:
            r = np.zeros(4, dtype=np.uint64)
            r[0] = 77 + k
            determinise(st, cx, seat, r)
            differ += st.rec.tobytes() != base.tobytes()
        st.rec[0]["rng"][:] = [1, 2, 3, 4]
        picks.append(ismcts.ismcts_step(st, sim, cx, lu.fns, lu.weights, lu.search, 0, acc, cand, used, sc, tb, brk, 0))
    assert differ > 0
    assert picks[0] == picks[1] == picks[2]
    assert int(st.rec[0]["ctl"][C_SEAT]) == seat


def test_explain_shows_the_roots_visits_and_values(tiny, capsys):
    """replay --explain lists, under each search decision, the root's candidates by visits with their mean values."""
    from meeplab.cli import main

    args = ["replay", "schweinebande", "-p", "2", "-b", "tiny,heuristic", "--bot-config", tiny]
    assert main(args + ["--explain"]) in (0, None)
    text = capsys.readouterr().out
    assert main(args) in (0, None)
    plain = capsys.readouterr().out
    assert [ln for ln in text.splitlines() if "ismcts: " not in ln and "mean value" not in ln] == plain.splitlines()
    heads = [ln for ln in text.splitlines() if "ismcts:" in ln]
    rows = [ln for ln in text.splitlines() if " visits, mean value " in ln]
    assert heads and rows
    assert all("6 iterations" in h for h in heads)
    visits = [int(ln.split(": ")[-1].split(" visits")[0]) for ln in rows]
    assert all(0 <= v <= 6 for v in visits) and max(visits) > 1


def test_explain_lines_decode_the_packed_visits():
    rows = [
        (E_SEARCH, 0, 1, 4, 2, -40),
        (E_SEARCH_CAND, 2, 7, 0, 812_500, 0 + EXPLAIN_VISITS * 25),
        (E_SEARCH_CAND, 0, 3, 0, 500_000, 1 + EXPLAIN_VISITS * 9),
    ]
    out = explain_lines(rows, lambda m0, m1: f"move {m0}")
    assert out[0].strip() == "ismcts: 4 candidate(s), 40 iterations, chose candidate 2"
    assert out[1].strip() == "#1 move 7: 25 visits, mean value 0.812"
    assert out[2].strip() == "#2 move 3: 9 visits, mean value 0.500"
    # rollout's rows read as before
    assert explain_lines([(E_SEARCH, 0, 1, 3, 0, 8)], None)[0].strip().startswith("search: 3 candidate(s) x 8")


def test_tree_is_sized_from_the_budget():
    """One node per iteration plus the root and its candidates, 48 bytes each; the budget per decision is the
    iterations, or per_candidate x the candidates searched (scaled with the table by grow)."""
    assert ismcts.tree_nodes(1000, 8) == 1009
    assert ismcts.tree_bytes(1000, 8) == 1009 * ismcts.NODE_BYTES == 48_432
    row = make_lineup("schweinebande", ["ismcts"], 3, False).search[0]
    w = available("schweinebande")["ismcts"].weights_dict()
    assert row[S_PERCAND] == w["per_candidate"] * (1 + w["grow"])


@pytest.mark.parametrize(
    "weights,msg",
    [
        ("c = -1", "c (UCB exploration)"),
        ("epsilon = 1.5", "epsilon"),
        ("cutoff = 2.5", "cutoff"),
        ("iterations = 0", "iterations"),
        ("value = 3", "value"),
        ("widen = -1", "widen"),
    ],
)
def test_bad_options_are_refused(tmp_path, weights, msg):
    path = tmp_path / "bad.toml"
    path.write_text(f'[bots.bad]\nbase = "ismcts"\n[bots.bad.weights]\nper_candidate = 0\n{weights}\n')
    with pytest.raises(MeeplabError, match=re.escape(msg)):
        make_lineup("schweinebande", ["bad"], 2, False, [str(path)])

