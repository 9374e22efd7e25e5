"""No Thanks! rules (the scoring of runs, taking and paying) and meeplab's conformance kit over the game."""

import numpy as np
import pytest
from meeplab_nothanks import GAME, engine

from meeplab.sim.core import face
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.forward import C_N, C_SEAT
from meeplab.testing import conformance_cases, run_case


def test_a_run_counts_only_its_lowest_card():
    mask = sum(1 << c for c in (27, 28, 29, 5, 10, 11))
    assert engine.cards_score(np.int64(mask)) == 27 + 5 + 10


def start(p=3, g=0):
    ctx = GAME.prepare(GAME.params.resolve({}))
    lu = make_lineup("nothanks", ["greedy"], p, False)
    cx = GAME.engine_context(ctx, lu)
    st = face.new_state(cx, p, np.zeros((0, 6), dtype=np.int64))
    face.reset(st, cx, 1, g)
    return st, cx


def test_the_deck_holds_each_card_once_and_nine_stay_out():
    st, _ = start()
    r = st.rec[0]
    assert sorted(r["deck"][:33].tolist()) == list(range(3, 36))
    assert r["ctl"][engine.C_INPLAY] == 24
    assert (r["chips"][:3] == 11).all()


def test_paying_moves_a_chip_onto_the_card_and_play_on_taking_collects_it():
    st, cx = start()
    r = st.rec[0]
    assert face.advance(st, cx) == 0 and r["ctl"][C_N] == 2
    card = int(r["deck"][0])
    face.apply(st, cx, engine.PASS)
    assert r["chips"][0] == 10 and r["ctl"][engine.C_POT] == 1
    assert face.advance(st, cx) == 1  # play passes left
    face.apply(st, cx, engine.TAKE)
    assert r["chips"][1] == 12 and r["held"][1] == 1 << card
    assert face.advance(st, cx) == 1  # the taker turns up the next card and acts again


def test_a_player_without_chips_must_take():
    st, cx = start()
    r = st.rec[0]
    r["chips"][0] = 0
    assert face.advance(st, cx) == 0
    assert r["ctl"][C_N] == 1


def test_the_score_is_runs_minus_chips_and_the_lowest_wins():
    st, cx = start()
    r = st.rec[0]
    r["held"][0] = (1 << 3) | (1 << 4)
    r["held"][1] = 1 << 35
    r["chips"][:3] = (2, 0, 11)
    sc, tb, brk = np.zeros(3), np.zeros(3), np.zeros((3, 2))
    face.result(st, cx, sc, tb, brk)
    assert sc.tolist() == [3 - 2, 35, -11]
    assert brk[:, 0].tolist() == [3, 35, 0] and brk[:, 1].tolist() == [-2, 0, -11]
    assert int(np.argmin(sc)) == 2 and int(r["ctl"][C_SEAT]) == -1


@conformance_cases(["nothanks"])
def test_conformance(case):
    run_case(case)


@pytest.mark.parametrize("p", [3, 7])
def test_greedy_beats_random(p):
    from meeplab.sim.core.game import rank_and_win

    lu = make_lineup("nothanks", ["greedy", "random"], p, True)
    b = GAME.play(GAME.prepare(GAME.params.resolve({})), lu, 1, 0, 400, p)
    _, win = rank_and_win(b.score, b.tiebreak, GAME.lower_wins)
    g = np.arange(400)[:, None]
    greedy = ((np.arange(p)[None, :] + g) % p) % 2 == 0  # entries 0, 2, 4, ... play greedy
    assert win[greedy].sum() / greedy.sum() > win[~greedy].sum() / (~greedy).sum()
