"""Hacienda turn structure: "the player on turn performs 3 actions" (compulsory_actions, the book's default) and
how often the engine's safety nets (max_rounds cap, dead end) end a game."""

import numpy as np
import pytest

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.hacienda import GAME, events, play_with_endings
from meeplab.sim.hacienda import engine as E


def _turns(log, n_players, values):
    """Per turn from the event log: (seat, actions used, pesos at the end, a blind buy was possible at the end)."""
    land_left = 5 * values["land_per_terrain"] + values["pampa_cards"] - n_players * values["land_hand"]
    land_left -= values["display"]
    anim_left = (
        4 * values["animals_per_kind"]
        - values["animals_removed"][n_players - 2]
        - n_players * values["animal_hand"]
        - values["display"]
    )
    out = []
    for rec in log:
        code, seat, a, b, c, _d = (int(x) for x in rec)
        if code == E.E_BUY and c == 0:  # blind buy
            if a < 6:
                land_left -= 1
            else:
                anim_left -= 1
        elif code == E.E_REFILL and c >= 0:
            if a == 0:
                land_left -= 1
            else:
                anim_left -= 1
        elif code == E.E_END:
            out.append((seat, a, b, land_left > 0 or anim_left > 0))
    return out


def test_compulsory_actions_no_early_end_while_a_blind_buy_is_possible():
    values = GAME.params.resolve({})
    ctx = GAME.prepare(values)
    early = 0
    for p in (2, 3, 4, 5):
        lu = make_lineup("hacienda", ["random", "heuristic"], p, True)
        for g in range(6):
            log = events(ctx, lu, 11, g, p)[0]
            turns = _turns(log, p, values)
            assert turns
            for seat, acts, money, deck in turns:
                assert 0 <= acts <= values["actions"]
                if acts < values["actions"]:
                    early += 1
                    # a blind card for 2 pesos is always a legal action
                    assert money < values["price_blind"] or not deck, (p, g, seat, acts, money)
    assert early > 0  # broke players do end early (the check above is not vacuous)


def test_without_compulsory_actions_players_may_end_early():
    values = GAME.params.resolve({"compulsory_actions": False})
    ctx = GAME.prepare(values)
    lu = make_lineup("hacienda", ["random"], 3, True)
    early_rich = 0
    for g in range(4):
        for _seat, acts, money, deck in _turns(events(ctx, lu, 11, g, 3)[0], 3, values):
            if acts < values["actions"] and money >= values["price_blind"] and deck:
                early_rich += 1
    assert early_rich > 10
    # and the parameter changes the games
    a = GAME.play(ctx, lu, 3, 0, 50, 3)
    b = GAME.play(GAME.prepare(GAME.params.resolve({})), lu, 3, 0, 50, 3)
    assert not np.array_equal(a.length, b.length)


def _endings(bots, p, n, seed, **over):
    ctx = GAME.prepare(GAME.params.resolve(over))
    lu = make_lineup("hacienda", bots, p, True)
    _, ending = play_with_endings(ctx, lu, seed, 0, n, p)
    return (ending == 1).sum(), (ending == 2).sum()


def test_safety_nets_rarely_fire_with_the_book_rules():
    # the max_rounds cap never fires with compulsory actions (measured: 0 in every case below)
    # 3-5 players, mixed tables (random, greedy, heuristic) and the heuristic alone: 0 dead ends measured
    for p in (3, 4, 5):
        cap, dead = _endings(["random", "greedy", "heuristic"], p, 800, 31)
        assert cap == 0 and dead <= 4, (p, cap, dead)
        cap, dead = _endings(["heuristic"], p, 400, 32)
        assert cap == 0 and dead <= 2, (p, cap, dead)
    for bots in (["random", "heuristic"], ["random"]):
        cap, dead = _endings(bots, 2, 800, 33)
        assert cap == 0 and dead <= 4, (bots, cap, dead)
    # tables where greedy meets greedy or 2-player tables with greedy: greedy spends every peso and empties its
    # hand, and real dead ends follow (all broke, nothing playable, every own chain chipped; not stalls).
    # Measured 61/800 (heuristic vs greedy, 2 players) and 58/800 (greedy alone, 3 players)
    cap, dead = _endings(["heuristic", "greedy"], 2, 800, 33)
    assert cap == 0 and dead <= 100, dead
    cap, dead = _endings(["greedy"], 3, 800, 34)
    assert cap == 0 and dead <= 100, dead


def test_without_compulsory_actions_random_bots_stall_into_the_cap():
    # the old behaviour (end the turn at any time) lets random bots stall: the safety nets are what ends those games
    cap, dead = _endings(["random"], 2, 400, 35, compulsory_actions=False, max_rounds=50)
    assert cap + dead > 0
    cap, dead = _endings(["random"], 2, 400, 35, max_rounds=50)
    assert cap == 0


def test_a_full_event_log_is_reported_not_cut_short(monkeypatch):
    """events() keeps its own log (with the scoring snapshots): a game that fills it raises LogOverflow, as the
    shared run_logged does, instead of returning a log with rows missing. The engine planted to report a full log."""
    from meeplab.sim.core.play import LogOverflow
    from meeplab.sim.hacienda import flow

    real = flow.play_logged

    def fills_its_log(*args):
        out = real(*args)
        return (args[-3].shape[0], *out[1:])  # args: loop args, seed, index, log, categories, search

    ctx = GAME.prepare(GAME.params.resolve({}))
    lu = make_lineup("hacienda", ["greedy"], 3, True)
    assert len(events(ctx, lu, 11, 0, 3)[0]) > 0
    monkeypatch.setattr(flow, "play_logged", fills_its_log)
    with pytest.raises(LogOverflow, match="event log is full"):
        events(ctx, lu, 11, 0, 3)
