"""Whole Schweinebande games: an independent pure-Python scorer, invariants, reproducibility."""

from functools import cache
from itertools import combinations_with_replacement

import numpy as np
import pytest

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.registry import get_game
from meeplab.sim.schweinebande import CATEGORIES, events
from meeplab.sim.schweinebande.layout import (
    E_COLLECT,
    E_DISCARD,
    E_FINAL,
    E_LEFTOVER,
    E_MIXED,
    E_ORDER,
    E_PAY,
    E_PIGBONUS,
    E_QUARTET,
    E_REVEAL,
    E_ROUND,
    E_SACKUSE,
    E_SELL,
)

GAME = get_game("schweinebande")
PIG, SACK = 4, 6


@cache
def best_final_groups(counts, size, v):
    """Exhaustive search over every way to form end-of-game groups: (points, kinds put on the farm)."""
    if size <= 0 or sum(counts) < size:
        return 0, ()
    best = (0, ())
    for group in combinations_with_replacement(range(6), size):
        need = [group.count(k) for k in range(6)]
        if any(need[k] > counts[k] for k in range(6)):
            continue
        low = min(group, key=lambda k: v[k])
        rest = tuple(counts[k] - need[k] for k in range(6))
        pts, lows = best_final_groups(rest, size, v)
        if pts + v[low] > best[0]:
            best = (pts + v[low], lows + (low,))
    return best


def reference_score(log, n_players, values):
    """Re-derive every player's tiles from the event log and score them in plain Python.

    Written apart from the numba scorer: it recomputes the farm from the group rules and finds the
    end-of-game quartets by trying the best grouping itself. Also checks the accounting invariants."""
    v = list(values["animal_values"])
    q = values["quartet_size"]
    hand = [[0] * 7 for _ in range(n_players)]
    feed = [values["start_feed"]] * n_players
    farm = [[0] * 6 for _ in range(n_players)]
    cats = [dict.fromkeys(CATEGORIES, 0.0) for _ in range(n_players)]
    collected = 0
    leftover = 0
    finals_done = [False] * n_players
    out_tiles = [0] * n_players  # tiles that left a player's hand (groups, sales, sacks, discards)
    in_tiles = [0] * n_players

    def do_finals(s):
        if finals_done[s]:
            return
        finals_done[s] = True
        best, lows = best_final_groups(tuple(hand[s][:6]), values["final_group"], tuple(v))
        for low in lows:
            farm[s][low] += 1
        cats[s]["final_groups"] += best
        out_tiles[s] += sum(hand[s])
        hand[s] = [0] * 7

    for code, seat, a, b, c, d in log.tolist():
        if code == E_COLLECT:
            for k in range(7):
                hand[seat][k] += (d >> (4 * k)) & 15
            collected += c
            in_tiles[seat] += c
        elif code == E_LEFTOVER:
            leftover += a
        elif code == E_QUARTET:
            assert hand[seat][a] >= q
            hand[seat][a] -= q
            out_tiles[seat] += q
            farm[seat][a] += 1
            cats[seat]["quartets"] += v[a]
        elif code == E_MIXED:
            kinds = [k for k in range(6) if a & (1 << k)]
            assert len(kinds) == values["mixed_size"]
            top = max(kinds, key=lambda k: (v[k], k))
            assert top == b
            for k in kinds:
                assert hand[seat][k] >= 1
                hand[seat][k] -= 1
            out_tiles[seat] += len(kinds)
            farm[seat][top] += 1
            cats[seat]["mixed_groups"] += v[top]
        elif code == E_PIGBONUS:
            assert hand[seat][PIG] >= values["pig_bonus_group"]
            hand[seat][PIG] -= values["pig_bonus_group"]
            out_tiles[seat] += values["pig_bonus_group"]
            farm[seat][PIG] += values["pig_bonus_farm"]
            cats[seat]["pig_bonus"] += v[PIG] * values["pig_bonus_farm"]
        elif code == E_SACKUSE:
            assert a == sum(hand[seat][:6])
            hand[seat][SACK] -= 1
            out_tiles[seat] += 1
        elif code == E_SELL:
            assert hand[seat][a] >= 1
            hand[seat][a] -= 1
            out_tiles[seat] += 1
            assert b == v[a]  # unlimited supply by default
            feed[seat] += b
        elif code == E_PAY:
            assert a == sum(hand[seat][:6]) * values["feed_per_animal"]
            feed[seat] -= a
            assert feed[seat] == b and feed[seat] >= 0
        elif code in (E_FINAL, E_DISCARD):
            do_finals(seat)
    score = [sum(farm[s][k] * v[k] for k in range(6)) for s in range(n_players)]
    pigs = [farm[s][PIG] for s in range(n_players)]
    return score, cats, pigs, collected, leftover, in_tiles, out_tiles


def _lineup(bots, p):
    return make_lineup("schweinebande", bots, p, True)


@pytest.mark.parametrize("p", [2, 3, 4, 5])
def test_reference_scorer_agrees_category_by_category(p):
    values = GAME.params.resolve({})
    ctx = GAME.prepare(values)
    lineups = [_lineup(["random"], p), _lineup(["greedy"], p), _lineup(["heuristic", "greedy", "random"][:p], p)]
    n_games = 400
    for li, lu in enumerate(lineups):
        for g in range(n_games // len(lineups)):
            log, _turns, score, brk = events(ctx, lu, 11 + li, g, p)
            ref_score, cats, _pigs, collected, leftover, in_t, out_t = reference_score(log, p, values)
            assert list(score) == ref_score
            for s in range(p):
                for j, c in enumerate(CATEGORIES):
                    assert brk[s, j] == cats[s][c], (g, s, c)
            # all 100 tiles accounted for: collected or left on the board, and every collected tile left
            assert collected + leftover == 100
            assert in_t == out_t


def test_batch_matches_replay_and_reference_tiebreak():
    values = GAME.params.resolve({})
    ctx = GAME.prepare(values)
    lu = _lineup(["heuristic", "greedy", "random"], 3)
    batch = GAME.play(ctx, lu, 5, 0, 60, 3)
    for g in range(60):
        log, turns, _score, brk = events(ctx, lu, 5, g, 3)
        ref_score, _cats, pigs, *_ = reference_score(log, 3, values)
        assert batch.score[g].tolist() == ref_score
        assert batch.tiebreak[g].tolist() == pigs
        assert batch.length[g] == turns
        assert np.array_equal(batch.breakdown[g], brk)


def test_order_tiles_and_round_starts():
    """Rounds 2+ start with the holder of order tile 1; every player holds exactly one order tile."""
    values = GAME.params.resolve({})
    ctx = GAME.prepare(values)
    for p in (2, 3, 4, 5):
        lu = _lineup(["random", "greedy"][: min(2, p)], p)
        for g in range(40):
            log, *_ = events(ctx, lu, 3, g, p)
            rounds = []
            for row in log.tolist():
                if row[0] == E_ROUND:
                    rounds.append({"orders": {}, "first": None})
                elif row[0] == E_REVEAL and rounds[-1]["first"] is None:
                    rounds[-1]["first"] = row[1]
                elif row[0] == E_ORDER:
                    rounds[-1]["orders"][row[1]] = row[2]
            assert rounds[0]["first"] == 0
            for r in range(len(rounds)):
                assert sorted(rounds[r]["orders"].values()) == list(range(1, p + 1))
                if r:
                    prev = rounds[r - 1]["orders"]
                    assert rounds[r]["first"] == min(prev, key=prev.get)


def test_reproducible_across_threads_and_prefix():
    import numba

    values = GAME.params.resolve({})
    ctx = GAME.prepare(values)
    lu = _lineup(["heuristic", "random", "greedy", "greedy"], 4)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        a = GAME.play(ctx, lu, 9, 0, 400, 4)
        numba.set_num_threads(max(2, before))
        b = GAME.play(ctx, lu, 9, 0, 400, 4)
        c = GAME.play(ctx, lu, 9, 200, 200, 4)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(a.score, b.score) and np.array_equal(a.breakdown, b.breakdown)
    assert np.array_equal(a.score[200:], c.score)
    assert np.array_equal(a.length, b.length)


def test_bot_strength_ordering():
    """heuristic beats greedy beats random (3 players, rotated seats)."""
    from meeplab.sim.core.game import rank_and_win

    values = GAME.params.resolve({})
    ctx = GAME.prepare(values)
    lu = _lineup(["heuristic", "greedy", "random"], 3)
    n = 3000
    b = GAME.play(ctx, lu, 1, 0, n, 3)
    _, win = rank_and_win(b.score, b.tiebreak)
    entry = (np.arange(3)[None, :] + np.arange(n)[:, None]) % 3
    rates = [win[entry == e].mean() for e in range(3)]
    assert rates[0] > rates[1] + 0.08
    assert rates[1] > rates[2] + 0.2
