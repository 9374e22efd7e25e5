"""Hacienda bot ordering (3 players, one bot against two copies of the other, seats rotated), invariants."""

import math

import numpy as np

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.game import rank_and_win
from meeplab.sim.hacienda import GAME


def _share(a, b, n, seed, players=3):
    ctx = GAME.prepare(GAME.params.resolve({}))
    lu = make_lineup("hacienda", [a, b, b], players, True)
    r = GAME.play(ctx, lu, seed, 0, n, players)
    _, win = rank_and_win(r.score, r.tiebreak)
    entry = (np.arange(players)[None, :] + np.arange(n)[:, None]) % players
    return win[entry == 0].sum() / n, r


def _wilson_low(p, n, z=3.0):
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    return (c - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / d


def test_greedy_beats_random():
    share, _r = _share("greedy", "random", 300, 21)
    assert _wilson_low(share, 300) > 0.6  # fair share is 1/3


def test_heuristic_beats_greedy():
    share, _r = _share("heuristic", "greedy", 600, 22)
    assert _wilson_low(share, 600) > 0.40  # fair share is 1/3


def test_invariants_all_player_counts():
    ctx = GAME.prepare(GAME.params.resolve({}))
    for p in (2, 3, 4, 5):
        lu = make_lineup("hacienda", ["random", "heuristic"], p, True)
        r = GAME.play(ctx, lu, 3, 0, 60, p)
        assert np.allclose(r.score, r.breakdown.sum(axis=2))
        assert (r.tiebreak >= 0).all()
        assert (r.breakdown >= 0).all()
        # money points in a scoring never exceed what the pesos at the end allow twice over the game
        assert (r.length >= 2 * p).all()
    # same seed, same games
    lu = make_lineup("hacienda", ["greedy", "random", "heuristic"], 3, True)
    a = GAME.play(ctx, lu, 9, 5, 20, 3)
    b = GAME.play(ctx, lu, 9, 5, 20, 3)
    assert np.array_equal(a.score, b.score) and np.array_equal(a.length, b.length)


def test_replay_is_the_batch_game():
    ctx = GAME.prepare(GAME.params.resolve({}))
    lu = make_lineup("hacienda", ["heuristic", "greedy", "random"], 3, True)
    batch = GAME.play(ctx, lu, 4, 7, 1, 3)
    text = GAME.replay(ctx, lu, 4, 7, 3)
    assert "MID-GAME scoring" in text and "FINAL scoring" in text and "buys" in text and "plays" in text
    last = text.strip().splitlines()[-3:]
    totals = [int(line.split()[-2]) for line in last]
    assert totals == batch.score[0].astype(int).tolist()
