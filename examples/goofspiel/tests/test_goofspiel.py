"""Goofspiel rules (face-down bids, the reveal, ties), its secret decisions, and meeplab's conformance kit over the
game."""

import numpy as np
import pytest
from meeplab_goofspiel import GAME, engine

from meeplab.sim.core import face
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.forward import C_KIND, C_N, C_SEAT
from meeplab.testing import conformance_cases, run_case


def start(p=3, g=0, **values):
    ctx = GAME.prepare(GAME.params.resolve(values))
    lu = make_lineup("goofspiel", ["greedy"], p, False)
    cx = GAME.engine_context(ctx, lu)
    st = face.new_state(cx, p, np.zeros((0, 6), dtype=np.int64))
    face.reset(st, cx, 1, g)
    return st, cx


def bid(st, cx, card):
    """The seat to act lays ``card`` face down."""
    r = st.rec[0]
    i = [int(m) for m in r["moves"][: r["ctl"][C_N], 0]].index(card)
    face.apply(st, cx, i)


def test_every_seat_holds_every_card_and_the_prizes_are_one_of_each():
    st, _ = start(cards=8)
    r = st.rec[0]
    assert sorted(r["deck"][:8].tolist()) == list(range(1, 9))
    assert (r["hand"][:3] == sum(1 << c for c in range(1, 9))).all()


def test_the_seats_bid_in_seat_order_and_the_unique_highest_takes_the_prize():
    st, cx = start()
    r = st.rec[0]
    prize = int(r["deck"][0])
    for seat, card in enumerate((5, 8, 7)):
        assert face.advance(st, cx) == seat and r["ctl"][C_KIND] == engine.KIND_BID and r["ctl"][C_N] == 8
        bid(st, cx, card)
    assert r["facedown"][1, 0] == 8 and r["hand"][1] >> 8 & 1  # face down, still in the public hand
    assert face.advance(st, cx) == 0  # revealed: the next round
    assert r["won"][:3].tolist() == [0, prize, 0]
    assert r["last"][:3].tolist() == [5, 8, 7]
    assert not r["hand"][1] >> 8 & 1 and r["ctl"][C_N] == 7
    assert not r["facedown"].any()


@pytest.mark.parametrize("ties", ["discard", "carry"])
def test_a_tie_for_the_highest_bid_discards_or_carries_the_prize(ties):
    st, cx = start(ties=ties)
    r = st.rec[0]
    first, second = int(r["deck"][0]), int(r["deck"][1])
    for card in (8, 8, 7):
        face.advance(st, cx)
        bid(st, cx, card)
    face.advance(st, cx)
    assert not r["won"].any()
    assert r["pub"][engine.V_POT] == second + (first if ties == "carry" else 0)
    for card in (1, 2, 3):
        face.advance(st, cx)
        bid(st, cx, card)
    face.advance(st, cx)
    assert r["won"][2] == second + (first if ties == "carry" else 0)


def test_the_most_prize_points_win_and_the_rules_break_no_tie():
    st, cx = start()
    r = st.rec[0]
    r["won"][:3] = (10, 10, 3)
    sc, tb, brk = np.zeros(3), np.zeros(3), np.zeros((3, 1))
    face.result(st, cx, sc, tb, brk)
    assert sc.tolist() == [10, 10, 3] and brk[:, 0].tolist() == [10, 10, 3] and not tb.any()


def test_a_game_plays_every_card_and_deals_out_every_prize():
    st, cx = start(p=4)
    r = st.rec[0]
    rounds = 0
    while face.advance(st, cx) >= 0:
        face.apply(st, cx, 0)
        rounds += 1
    assert rounds == 4 * 8 and r["ctl"][engine.C_ROUND] == 8 and int(r["ctl"][C_SEAT]) == -1
    assert not r["hand"][:4].any()
    assert r["won"][:4].sum() <= 36  # ties discard


def test_determinise_redeals_the_other_seats_face_down_bids_among_their_cards():
    st, cx = start()
    r = st.rec[0]
    face.advance(st, cx)
    bid(st, cx, 8)  # seat 1
    face.advance(st, cx)
    bid(st, cx, 3)  # seat 2
    face.advance(st, cx)  # seat 3 to bid
    seen = set()
    for k in range(40):
        d = face.new_state(cx, 3, np.zeros((0, 6), dtype=np.int64))
        face.copy(d, st)
        rnd = np.array([k + 1, 5, 0, 0], dtype=np.uint64)
        face.determinise(d, cx, 2, rnd)
        d0 = d.rec[0]
        assert sorted(d0["facedown"][0, :8].tolist()) == list(range(1, 9))
        assert sorted(d0["deck"][1:8].tolist()) == sorted(r["deck"][1:8].tolist()) and d0["deck"][0] == r["deck"][0]
        seen.add(int(d0["facedown"][0, 0]))
    assert len(seen) > 4  # seat 1's bid became many of its cards
    face.determinise(st, cx, 0, np.array([3, 5, 0, 0], dtype=np.uint64))  # seat 1 knows its own bid
    assert r["facedown"][0, 0] == 8


def test_the_next_seat_sees_the_same_whatever_the_face_down_bid():
    views = []
    for card in (1, 8):
        st, cx = start()
        face.advance(st, cx)
        bid(st, cx, card)
        assert face.advance(st, cx) == 1
        r = st.rec[0]
        views.append((r["pub"].copy(), r["moves"][: r["ctl"][C_N]].copy(), r["feats"][: r["ctl"][C_N]].copy()))
    assert all(np.array_equal(a, b) for a, b in zip(*views))


def test_the_secret_is_the_bid_and_a_reveal_counts_one():
    assert GAME.secret.kinds == (engine.KIND_BID,)
    st, cx = start(p=2)
    r = st.rec[0]
    assert GAME.secret.reveals(r, cx) == 0
    for card in (4, 5):
        face.advance(st, cx)
        bid(st, cx, card)
    assert GAME.secret.reveals(r, cx) == 0
    face.advance(st, cx)
    assert GAME.secret.reveals(r, cx) == 1


@conformance_cases(["goofspiel"])
def test_conformance(case):
    run_case(case)


@pytest.mark.parametrize("bot", ["greedy", "heuristic"])
@pytest.mark.parametrize("p", [2, 5])
def test_one_greedy_or_heuristic_seat_beats_random_ones(bot, p):
    """One seat of ``bot`` among random seats (two bots alike would tie each other's bids) wins more than its share."""
    from meeplab.sim.core.game import rank_and_win

    lu = make_lineup("goofspiel", [bot] + ["random"] * (p - 1), p, True)
    b = GAME.play(GAME.prepare(GAME.params.resolve({})), lu, 1, 0, 400, p)
    _, win = rank_and_win(b.score, b.tiebreak, GAME.lower_wins)
    g = np.arange(400)[:, None]
    mine = (np.arange(p)[None, :] + g) % p == 0  # entry 0 plays the bot
    assert win[mine].sum() / 400 > 1.3 / p
