"""acbas bot strength ordering and game invariants over random games (fixed seeds, Wilson margins)."""

import math

import numpy as np

from meeplab.sim.acbas import GAME, end_states
from meeplab.sim.acbas import engine as E
from meeplab.sim.acbas import farm as F
from meeplab.sim.acbas.params import PARAMS, pack
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.game import rank_and_win

PRM, PRMF = pack(PARAMS.defaults())


def wilson_low(p, n, z=3.0):
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    m = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (c - m) / d


def duel(a, b, n, seed):
    ctx = GAME.prepare(GAME.params.defaults())
    lu = make_lineup("acbas", [a, b], 2, True)
    bt = GAME.play(ctx, lu, seed, 0, n, 2)
    _, w = rank_and_win(bt.score, bt.tiebreak)
    g = np.arange(n)
    a0 = g % 2 == 0  # lineup entry 0 (= a) sits in seat 0 in even games
    return w[a0, 0].mean(), w[~a0, 1].mean()


def test_greedy_beats_random_in_both_seats():
    n = 600
    s0, s1 = duel("greedy", "random", n, 2024)
    for p in (s0, s1):
        assert wilson_low(p, n // 2) > 0.6


def test_heuristic_beats_greedy_in_both_seats():
    n = 600
    s0, s1 = duel("heuristic", "greedy", n, 4048)
    for p in (s0, s1):
        assert wilson_low(p, n // 2) > 0.6


def test_invariants_and_reproducibility():
    lu = make_lineup("acbas", ["random", "heuristic"], 2, True)
    n = 300
    ctx = GAME.prepare(GAME.params.defaults())
    farms, brk = end_states(ctx, lu, 7, 0, n)
    bt = GAME.play(ctx, lu, 7, 0, n, 2)
    assert np.allclose(bt.breakdown, brk)  # the batch and the single-game path agree
    assert np.allclose(bt.score, brk.sum(axis=2))
    assert (bt.length == 8).all()
    for g in range(n):
        troughs = stalls = exps = 0
        specials = {}
        for p in range(2):
            ps = farms[g, p]
            nc = ps[F.P_NCOLS]
            troughs += bin(int(ps[F.P_T])).count("1")
            assert int(ps[F.P_T]) >> (3 * nc) == 0 and int(ps[F.P_E]) >> 45 == 0
            codes = [int(ps[F.P_BLD + s]) for s in range(18)]
            assert all(c == 0 for c in codes[3 * nc :])
            stalls += sum(c in (3, 4) for c in codes)
            exps += nc - 2
            for c in (2, 5, 6, 7):
                specials[c] = specials.get(c, 0) + codes.count(c)
            assert codes.count(1) + codes.count(2) == 1  # the cottage or the house that replaced it
            assert codes[3 * ps[F.P_HOME] + 2] in (1, 2)
            placed = bin(int(ps[F.P_E])).count("1")
            assert placed + ps[F.P_BORD] <= 9 + 8
            assert min(ps[F.P_WOOD], ps[F.P_STONE], ps[F.P_REED], ps[F.P_BORD]) >= 0
        assert troughs <= 10 and stalls <= 4 and exps <= 4
        assert all(v <= 1 for v in specials.values())
    # reproducible: the same seed, the same games
    bt2 = GAME.play(ctx, lu, 7, 0, n, 2)
    assert np.array_equal(bt.score, bt2.score)


def test_replay_is_the_batch_game():
    ctx = GAME.prepare(GAME.params.defaults())
    lu = make_lineup("acbas", ["heuristic", "greedy"], 2, True)
    bt = GAME.play(ctx, lu, 11, 0, 6, 2)
    for g in (0, 5):
        text = GAME.replay(ctx, lu, 11, g, 2)
        assert "=== Round 8" in text and "Final score" in text
        last = [ln for ln in text.splitlines() if ln.startswith("P1:  ") or ln.startswith("P2:  ")]
        totals = [float(ln.split()[-1]) for ln in last]
        assert totals == list(bt.score[g])


def _play(lu, n, seed, reads, values=None):
    import dataclasses

    ctx = GAME.prepare(PARAMS.defaults() if values is None else values)
    lu = dataclasses.replace(lu, reads=np.zeros(5, np.int64) if reads is None else reads)
    bt = GAME.play(ctx, lu, seed, 0, n, 2)
    return np.concatenate([bt.score.ravel(), bt.breakdown.ravel(), bt.length])


def test_skipped_features_play_the_same_games():
    # greedy declares READS "max0", random "none": the engine leaves features out for them, with the same games
    assert make_lineup("acbas", ["greedy", "random"], 2, True).reads[:2].tolist() == [1, 2]
    assert make_lineup("acbas", ["heuristic"], 2, True).reads[:2].tolist() == [0, 0]
    variants = [
        None,
        dict(PARAMS.defaults(), expansion_points=0),
        dict(PARAMS.defaults(), storage_per_good=3.0, expansion_points=9),
    ]
    for names in (["greedy"], ["random"], ["greedy", "random"], ["greedy", "heuristic"]):
        lu = make_lineup("acbas", names, 2, True)
        for values in variants:
            assert np.array_equal(_play(lu, 150, 11, lu.reads, values), _play(lu, 150, 11, None, values)), names


def test_bounds_hold_only_for_monotone_points():
    assert E.bounds_hold(PRM, PRMF)
    prm, prmf = pack(dict(PARAMS.defaults(), bonus_low=5))  # 3 sheep would score 8, 4 sheep 4
    assert not E.bounds_hold(prm, prmf)
    prm, prmf = pack(PARAMS.defaults())
    prmf[0] = -0.5
    assert not E.bounds_hold(prm, prmf)
    # where they do not hold nothing is left out: the same games either way
    lu = make_lineup("acbas", ["greedy"], 2, True)
    v = dict(PARAMS.defaults(), bonus_low=5)
    assert np.array_equal(_play(lu, 100, 5, lu.reads, v), _play(lu, 100, 5, None, v))


def test_reads_is_checked_and_inherited(tmp_path):
    import types

    import pytest

    from meeplab.sim.core import bots as B
    from meeplab.sim.core.errors import MeeplabError

    mod = types.ModuleType("fake")
    mod.choose = B.discover("acbas")["greedy"].choose
    mod.READS = "some"
    with pytest.raises(MeeplabError, match="READS must be one of"):
        B._module_bot("acbas", "fake", mod)
    cfg = tmp_path / "v.toml"
    cfg.write_text('[bots.greedy2]\nbase = "greedy"\n')
    assert B.available("acbas", [str(cfg)])["greedy2"].reads == B.Reads.MAX0
