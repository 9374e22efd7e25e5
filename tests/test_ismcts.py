"""The ismcts search bot (sim.core.ismcts): it plays every game, reproducibly for any thread count, blind to what its
seat cannot see, explains its root, sizes its tree from its budget and refuses bad options. Tiny budgets only: its
strength is measured in scripts/bench.py and the bots' docs, never here."""

import os
import re
import shutil
from pathlib import Path

import numba
import numpy as np
import pytest

from meeplab.sim.core import forward, ismcts
from meeplab.sim.core.bots import available, make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.explain import search_lines
from meeplab.sim.core.forward import C_N, C_SEAT, S_ALGO, S_PERCAND, S_PLAYOUTS, S_SWITCH, Algo
from meeplab.sim.core.play import new_player
from meeplab.sim.core.registry import get_game
from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND, EXPLAIN_VISITS

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

[bots.tiny-flat]
base = "tiny"
description = "tiny with the tree capped at the root: a flat UCB1 search"
[bots.tiny-flat.weights]
depth = 1

[bots.tiny-wide]
base = "tiny"
description = "tiny with widening and bias, which act only below the root"
[bots.tiny-wide.weights]
widen = 2
bias = 1.0

[bots.tiny-flat-options]
base = "tiny-wide"
description = "tiny-wide with the tree capped at the root"
[bots.tiny-flat-options.weights]
depth = 1

[bots.tiny-deep]
base = "tiny"
description = "tiny with a depth cap no search reaches"
[bots.tiny-deep.weights]
depth = 100000

[bots.tiny-halving]
base = "tiny"
description = "tiny with sequential halving at the root, 4 iterations per candidate"
[bots.tiny-halving.weights]
root = 1
per_candidate = 4
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
            assert row[S_ALGO] == Algo.ISMCTS
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
        halving = make_lineup(game, ["tiny-halving", "heuristic"], 2, True, [tiny])
        try:  # sequential halving at the root is as reproducible for any thread count
            numba.set_num_threads(1)
            h1 = g.play(ctx, halving, 5, 0, 2, 2)
            numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
            h2 = g.play(ctx, halving, 5, 0, 2, 2)
        finally:
            numba.set_num_threads(before)
        assert np.array_equal(h1.score, h2.score) and np.array_equal(h1.length, h2.length)
        assert not np.array_equal(h1.score, one.score)


def test_depth_cap_ends_the_tree(tiny):
    """``depth = 1`` keeps only the root's candidates: widening and bias, which act only below the root, then change
    nothing, while they do change the uncapped search; a cap no search reaches plays as no cap."""
    g, ctx = ctx_of("schweinebande")

    def play(bot):
        return g.play(ctx, make_lineup("schweinebande", [bot, "heuristic"], 2, True, [tiny]), 5, 0, 2, 2)

    base, flat, flat_opts, deep = play("tiny"), play("tiny-flat"), play("tiny-flat-options"), play("tiny-deep")
    assert np.array_equal(deep.score, base.score) and np.array_equal(deep.length, base.length)
    assert np.array_equal(flat_opts.score, flat.score) and np.array_equal(flat_opts.length, flat.length)
    assert not np.array_equal(flat.score, base.score)
    assert not np.array_equal(play("tiny-wide").score, base.score)


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
    st, scratch = new_player(cx, np_, ncat, np.zeros((0, 1), dtype=np.int64))
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
        picks.append(ismcts.ismcts_step(st, scratch, cx, lu.fns, lu.weights, lu.search, 0, 0))
    assert differ > 0
    assert picks[0] == picks[1] == picks[2]
    assert int(st.rec[0]["ctl"][C_SEAT]) == seat


def load_bench():
    """scripts/bench.py as a module (it is a script, not part of the package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench", Path(__file__).parents[1] / "scripts" / "bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


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
    # the bench counts iterations from these lines (scripts/bench.py --ismcts: iterations per second)
    assert load_bench()._replay_counts(text) == 6 * len(heads)


def test_bench_tree_share_searches_the_same_positions_with_the_same_budget():
    """scripts/bench.py --ismcts measures the tree's share on the positions of rollout's own games: rollout and the
    ismcts that plays rollout's policy at rollout's budget search each of them, so their playout counts are equal."""
    from meeplab.sim.core.registry import get_game

    us_r, us_i, share, nr, ni = load_bench().tree_share(get_game("schweinebande"), 2, "ismcts-heuristic", 1, reps=1)
    assert nr == ni > 0
    assert us_r > 0 and us_i > 0 and share == pytest.approx(1 - us_r / us_i)


def test_sequential_halving_splits_the_budget_evenly_round_by_round():
    """root = 1: ceil(log2 n) rounds, each giving the candidates still in an even share of what is left (2 candidates
    and 2k iterations: k each; 3 and 96: 16 each, then 24 each for the better two)."""
    for nc, iters, want in [(2, 10, [5]), (3, 96, [16, 24]), (4, 32, [4, 8]), (8, 64, [2, 6, 12]), (5, 3, [1, 1, 1])]:
        nr = len(want)
        per, cum = np.zeros(nr, dtype=np.int64), np.zeros(nr, dtype=np.int64)
        spent = ismcts.halving_schedule(iters, nc, per, cum)
        assert list(per) == want and list(cum) == list(np.cumsum(want))
        alive = [nc]
        for _ in range(nr - 1):
            alive.append((alive[-1] + 1) // 2)
        assert spent == sum(a * k for a, k in zip(alive, want, strict=True))
        assert spent <= iters or iters < sum(alive)
    # a round keeps the better half by value sum (equal visits), equal sums the earlier candidate, in candidate order
    ti = np.zeros((6, 5), dtype=np.int64)
    tw = np.array([0.0, 3.0, 5.0, 4.0, 5.0, 1.0])  # candidates 0..4: 3, 5, 4, 5, 1
    alive = np.arange(5, dtype=np.int64)
    rsum, last = np.zeros((5, 3)), np.zeros(5, dtype=np.int64)
    pinned = alive.copy()
    assert ismcts.halve(ti, tw, pinned, 5, rsum.copy(), last.copy(), 0, True) == 3
    assert list(pinned[:3]) == [0, 1, 3]  # root = 2: the policy's pick is kept, then the best two others
    assert ismcts.halve(ti, tw, alive, 5, rsum, last, 0, False) == 3
    assert list(alive[:3]) == [1, 2, 3] and list(rsum[:, 0]) == [3.0, 5.0, 4.0, 5.0, 1.0]
    tw[1 + 1], tw[1 + 3] = 7.0, 7.0
    assert ismcts.halve(ti, tw, alive, 3, rsum, last, 1, True) == 2 and list(alive[:2]) == [1, 3]
    assert list(last) == [0, 1, 1, 1, 0]
    # switch: the policy's pick (candidate 0, out after round 0) stands unless beaten on the worlds both played
    cum = np.array([4, 10, 16], dtype=np.int64)
    assert ismcts.halving_pick(rsum, cum, last, 1, 0.0) == 1
    assert ismcts.halving_pick(rsum, cum, last, 1, 0.25) == 1  # 5/4 vs 3/4: better by 0.5
    assert ismcts.halving_pick(rsum, cum, last, 1, 0.6) == 0


def test_sequential_halving_visits_shown_by_explain(tiny, capsys):
    """With root = 1 and 4 iterations per candidate, a decision between 2 candidates gives each 4 visits; among 3,
    each gets 2 in the first round and the better two 3 more (5, 5, 2)."""
    from meeplab.cli import main

    args = ["replay", "schweinebande", "-p", "2", "-b", "tiny-halving,heuristic", "--bot-config", tiny, "--explain"]
    assert main(args) in (0, None)
    lines = capsys.readouterr().out.splitlines()
    seen = set()
    for i, ln in enumerate(lines):
        if "ismcts:" not in ln:
            continue
        nc = int(ln.split("ismcts: ")[1].split(" candidate")[0])
        visits = sorted(int(x.split(": ")[-1].split(" visits")[0]) for x in lines[i + 1 : i + 1 + nc])
        assert visits == {2: [4, 4], 3: [2, 5, 5]}[nc]
        seen.add(nc)
    assert seen == {2, 3}


def test_search_lines_decode_the_packed_visits():
    rows = [
        (E_SEARCH, 0, 1, 4, 2, -40),
        (E_SEARCH_CAND, 2, 7, 0, 812_500, 0 + EXPLAIN_VISITS * 25),
        (E_SEARCH_CAND, 0, 3, 0, 500_000, 1 + EXPLAIN_VISITS * 9),
    ]
    out = search_lines(rows, lambda kind, m0, m1: f"move {m0}")
    assert out[0].strip() == "ismcts: 4 candidates, 40 iterations, chose #1 move 7"
    assert out[1].strip() == "#1 move 7: 25 visits, mean value 0.812"
    assert out[2].strip() == "#2 move 3: 9 visits, mean value 0.500"
    # rollout's rows read as before
    assert search_lines([(E_SEARCH, 0, 1, 3, 0, 8)], None)[0].strip().startswith("search: 3 candidates x 8 playouts")


def test_switch_keeps_the_policys_pick_unless_clearly_beaten():
    """The decision: the most visited root child; with switch > 0 the policy's pick (root candidate 0) stands unless
    the chosen child's mean value beats it by more than switch."""
    ti = np.zeros((4, 5), dtype=np.int64)
    tw = np.zeros(4)
    ti[1:, ismcts.T_VISITS] = [10, 30, 10]  # candidates 0 (the policy's pick), 1, 2
    tw[1:] = [5.0, 16.5, 9.0]  # means 0.50, 0.55, 0.90
    best = ismcts.most_visited(ti, tw, 3)
    assert best == 1
    assert ismcts.keep_policy_pick(ti, tw, best, 0.0) == 1  # plain ISMCTS
    assert ismcts.keep_policy_pick(ti, tw, best, 0.1) == 0  # 0.55 is not 0.1 better than 0.50
    assert ismcts.keep_policy_pick(ti, tw, best, 0.04) == 1
    ti[1:, ismcts.T_VISITS] = [10, 10, 30]
    tw[1:] = [5.0, 5.5, 27.0]  # means 0.50, 0.55, 0.90
    assert ismcts.most_visited(ti, tw, 3) == 2 and ismcts.keep_policy_pick(ti, tw, 2, 0.1) == 2
    ti[1:, ismcts.T_VISITS] = [10, 10, 10]  # equal visits: the higher value sum
    assert ismcts.most_visited(ti, tw, 3) == 2
    row = make_lineup("goldrush", ["ismcts"], 2, False).search[0]
    assert row[S_SWITCH] == available("goldrush")["ismcts"].weights_dict()["switch"]


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
        ("switch = -0.1", "switch"),
        ("root = 3", "root must be 0 = UCB (UCB1), 1 = HALVING"),
        ("depth = 1.5", "depth must be a whole number"),
        ("depth = -1", "depth must be a whole number"),
    ],
)
def test_bad_options_are_refused(tmp_path, weights, msg):
    path = tmp_path / "bad.toml"
    path.write_text(f'[bots.bad]\nbase = "ismcts"\n[bots.bad.weights]\nper_candidate = 0\n{weights}\n')
    with pytest.raises(MeeplabError, match=re.escape(msg)):
        make_lineup("schweinebande", ["bad"], 2, False, [str(path)])


# -- the ladder's budget rungs and the settled verdict (analysis.ladder) --------------------------------------------


def _row(p, rung, rates, half, tie=0.01, length=20.0, category="points"):
    return {
        "n_players": p,
        "rung": rung,
        "games": 1000,
        "seat_rate": list(rates),
        "seat_lo": [r - half for r in rates],
        "seat_hi": [r + half for r in rates],
        "tie": tie,
        "tie_lo": tie - 0.005,
        "tie_hi": tie + 0.005,
        "length": length,
        "length_lo": length - 0.2,
        "length_hi": length + 0.2,
        "category": category,
        "category_share": 0.5,
    }


def test_a_finding_settles_only_when_the_two_strongest_rungs_agree():
    from meeplab.analysis.ladder import settled

    rungs = ["heuristic", "ismcts", "ismcts-x4"]
    rows = [
        _row(2, "heuristic", [0.70, 0.30], 0.03),  # the weakest rung is ignored
        _row(2, "ismcts", [0.55, 0.45], 0.03),
        _row(2, "ismcts-x4", [0.52, 0.48], 0.03, length=21.0, category="pigs"),
        _row(3, "ismcts", [0.40, 0.30, 0.30], 0.02),
        _row(3, "ismcts-x4", [0.33, 0.33, 0.34], 0.02),
    ]
    out = {(f["n_players"], f["finding"]): f for f in settled(rows, rungs)}
    seat1 = out[(2, "seat 1's win rate (fair 50.0%)")]
    assert seat1["status"] == "settled" and seat1["direction"] == ""
    assert seat1["weaker"][0] == "ismcts" and seat1["stronger"][0] == "ismcts-x4"
    assert out[(2, "mean game length")]["status"] == "still moving"
    assert out[(2, "mean game length")]["direction"] == "up"
    assert out[(2, "leading score category")]["direction"] == "changes"
    assert out[(2, "share of games with a shared win")]["status"] == "settled"
    s3 = out[(3, "seat 1's win rate (fair 33.3%)")]
    assert s3["status"] == "still moving" and s3["direction"] == "down"
    assert out[(3, "seat 2's win rate (fair 33.3%)")]["status"] == "settled"
    # a player count with one rung only has no verdict
    assert not settled([_row(4, "ismcts", [0.25] * 4, 0.02)], rungs)


def test_agreement_is_settlement_only_when_the_strongest_rung_is_stronger():
    """With the ladder's cross-play: where ismcts-x4 beats ismcts measurably, agreement is settlement; where it
    does not (its interval reaches the fair share), the same agreement is only 'agrees, rungs level'; a finding
    that moves is still moving either way. seat_verdicts sums the seats up per player count."""
    from meeplab.analysis.ladder import LEVEL, MOVING, SETTLED, seat_verdicts, settled

    rungs = ["heuristic", "ismcts", "ismcts-x4"]
    rows = [
        _row(2, "ismcts", [0.55, 0.45], 0.03),
        _row(2, "ismcts-x4", [0.52, 0.48], 0.03),
        _row(3, "ismcts", [0.45, 0.27, 0.28], 0.04),
        _row(3, "ismcts-x4", [0.46, 0.25, 0.29], 0.04),
        _row(4, "ismcts", [0.40, 0.20, 0.20, 0.20], 0.02),
        _row(4, "ismcts-x4", [0.30, 0.23, 0.23, 0.24], 0.02),
    ]
    gap = {"weaker": "ismcts", "stronger": "ismcts-x4"}
    gaps = [
        {**gap, "n_players": 2, "rate": 0.60, "lo": 0.56, "hi": 0.64, "fair": 0.5, "stronger_measured": True},
        {**gap, "n_players": 3, "rate": 0.31, "lo": 0.26, "hi": 0.35, "fair": 1 / 3, "stronger_measured": False},
        {**gap, "n_players": 4, "rate": 0.25, "lo": 0.21, "hi": 0.29, "fair": 0.25, "stronger_measured": False},
        {
            "weaker": "heuristic",
            "stronger": "ismcts",
            "n_players": 3,
            "rate": 0.9,
            "lo": 0.8,
            "hi": 0.95,
            "fair": 1 / 3,
            "stronger_measured": True,
        },
    ]
    out = {(f["n_players"], f["finding"]): f for f in settled(rows, rungs, gaps)}
    assert out[(2, "seat 1's win rate (fair 50.0%)")]["status"] == SETTLED
    assert out[(2, "seat 1's win rate (fair 50.0%)")]["skill"]["rate"] == 0.60
    assert out[(3, "seat 1's win rate (fair 33.3%)")]["status"] == LEVEL  # the heuristic pair is not the top pair
    assert out[(3, "leading score category")]["status"] == LEVEL
    assert out[(4, "seat 1's win rate (fair 25.0%)")]["status"] == MOVING
    assert settled(rows, rungs)[0]["status"] == SETTLED  # without cross-play: agreement alone, as before
    verdicts = seat_verdicts(settled(rows, rungs, gaps))
    assert {p: v["status"] for p, v in verdicts.items()} == {2: SETTLED, 3: LEVEL, 4: MOVING}
    assert verdicts[4]["moved"] == ["seat 1 down"] and verdicts[4]["stronger"] == "ismcts-x4"


def test_budget_rungs_multiply_the_top_bots_budget():
    from meeplab.analysis.ladder import budget_variants, parse_budgets

    bots = available("schweinebande")
    assert parse_budgets("16,1,4,4") == [1.0, 4.0, 16.0]
    for bad in ("0,4", "x", "", "-1"):
        with pytest.raises(MeeplabError):
            parse_budgets(bad)
    names, toml = budget_variants(bots["ismcts"], [1.0, 4.0, 16.0])
    assert names == ["ismcts", "ismcts-x4", "ismcts-x16"]
    per = bots["ismcts"].weights_dict()["per_candidate"]
    names_r, toml_r = budget_variants(bots["rollout"], [2.0])
    assert names_r == ["rollout-x2"] and "playouts = 16.0" in toml_r
    with pytest.raises(MeeplabError, match="search bot"):
        budget_variants(bots["heuristic"], [1.0, 4.0])
    import tomllib

    table = tomllib.loads(toml)["bots"]
    assert table["ismcts-x16"]["base"] == "ismcts"
    assert table["ismcts-x16"]["weights"] == {"per_candidate": per * 16}
    assert table["ismcts-x4"]["weights"] == {"per_candidate": per * 4}


def test_ladder_with_budget_rungs_reports_what_has_settled(tmp_path, tiny, capsys, browser):
    """ladder --budgets plays the top rung at each budget (variants in OUT/budgets.toml) and its report says, per
    finding, whether the two strongest rungs agree (checked in headless Chromium)."""
    import json

    from meeplab.cli import main

    out = tmp_path / "lad"
    args = ["ladder", "schweinebande", "-p", "2", "-b", "random,tiny", "--budgets", "1,2", "-n", "4", "-q"]
    assert main([*args, "--bot-config", tiny, "--out", str(out)]) in (0, None)
    table = capsys.readouterr().out
    assert re.search(r"2  seats: tiny -> tiny-x2 +(settled|still moving|agrees, rungs level)", table), table
    meta = json.loads((out / "ladder.json").read_text())
    assert meta["rungs"] == ["random", "tiny", "tiny-x2"]
    assert "iterations = 12.0" in (out / "budgets.toml").read_text()
    html = (out / "report.html").read_text()
    assert "Has it settled?" in html and "tiny-x2" in html
    assert "settled" in html or "still moving" in html or "agrees, rungs level" in html
    assert "tiny-x2 against tiny:" in html  # how much stronger the strongest rung played
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((out / "report.html").as_uri())
    page.wait_for_load_state("load")
    assert not errors, errors
    section = page.locator("#ladder")
    text = section.inner_text()
    assert "Has it settled?" in text and "with tiny-x2" in text and "verdict" in text
    ends = ("settled", "rungs level", "(up)", "(down)", "(changes)")
    verdicts = [ln for ln in text.splitlines() if ln.rstrip().endswith(ends)]
    assert len(verdicts) >= 4  # two seats, shared wins, length (and the category)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280 + 1
    shot = tmp_path / "ladder.png"
    section.screenshot(path=str(shot))
    keep = os.environ.get("MEEPLAB_SCREENSHOTS")  # a folder to keep the screenshot in, for a person to look at
    if keep:
        shutil.copy(shot, Path(keep) / "ladder-settled.png")
    page.close()


def test_tune_searches_the_options_of_ismcts_within_their_ranges(tiny):
    """`tune --bot ismcts` searches its options (c, bias, epsilon, widen, switch, margin), never its budget, each
    kept in its valid range (a vector out of range would be refused by the bot), and the options reach the search:
    the same games with epsilon 1 (random playouts) end differently."""
    from meeplab.lab.studies.tune import Evaluator, tune, variant_toml

    g, ctx = ctx_of("schweinebande")
    spec = available("schweinebande", [tiny])["tiny"]
    w = np.array(spec.weights)
    noisy = w.copy()
    noisy[spec.weight_names.index("epsilon")] = 1.0
    ev = Evaluator(g, ctx, "tiny", ["heuristic"], [2], 5, [tiny])
    lead_w, lead_noisy = [], []
    ev.wins(w, 0, 6, lead_w)
    ev.wins(noisy, 0, 6, lead_noisy)
    assert lead_w != lead_noisy
    res = tune(g, ctx, "tiny", ["heuristic"], [2], 44, seed=4, bot_configs=[tiny], games_per_eval=2, popsize=4,
               sigma=8.0, final_games=2)  # fmt: skip
    assert res.generations == 4 and set(res.tuned) == {"c", "bias", "epsilon", "widen", "switch", "margin"}
    best = dict(zip(res.names, res.best))
    start = dict(zip(res.names, res.start))
    assert {n for n in best if best[n] != start[n]} <= set(res.tuned)  # iterations, per_candidate, root kept
    assert 0.0 <= best["epsilon"] <= 1.0 and best["c"] >= 0 and best["bias"] >= 0 and 0 <= best["switch"] <= 1
    text = variant_toml(res, "tiny-tuned", "tiny", "", ["heuristic"], [2], 44)
    assert "Weights searched: c, bias, epsilon, widen, switch, margin" in text
    with pytest.raises(MeeplabError, match="tune may search"):
        tune(g, ctx, "tiny", ["heuristic"], [2], 44, bot_configs=[tiny], only=["iterations", "per_candidate"])


def test_tune_hands_the_search_options_ranges_to_cma_es(tiny, monkeypatch):
    """The options' ranges go to CMA-ES as its ``bounds`` (it samples inside them) instead of samples clipped
    afterwards; an option without an upper end has none (None)."""
    import cma

    from meeplab.lab.studies.tune import tune

    seen = {}
    real = cma.CMAEvolutionStrategy

    def spy(x0, sigma, opts):
        seen.update(opts)
        return real(x0, sigma, opts)

    monkeypatch.setattr(cma, "CMAEvolutionStrategy", spy)
    g, ctx = ctx_of("schweinebande")
    tune(g, ctx, "tiny", ["heuristic"], [2], 44, seed=4, bot_configs=[tiny], games_per_eval=2, popsize=4,
         sigma=8.0, final_games=2, only=["epsilon", "c"])  # fmt: skip
    lower, upper = seen["bounds"]
    assert len(lower) == len(upper) == 2 and all(x is not None and x <= 0 for x in lower)
    assert sorted(u is None for u in upper) == [False, True]  # epsilon's 1.0 bounds it; c has no upper end
