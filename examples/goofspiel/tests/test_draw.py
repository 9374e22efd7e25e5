"""Goofspiel's drawing: a seat's view shows the other seats' face-down bids as backs and nothing that a re-deal of what
the seat has not seen would change; the everything view shows them face up; the event lines keep a bid face down
for the other seats until the reveal."""

import re
from functools import cache

import numpy as np
from meeplab_goofspiel import GAME, draw
from meeplab_goofspiel.engine import E_BID, E_REVEAL

from meeplab.cli import main
from meeplab.sim.core import face
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.draw import trace_spec
from meeplab.sim.core.forward import C_N, C_SEAT

SECRET = re.compile(r'class="[^"]*\bsecret\b')
BACK = re.compile(r'class="[^"]*\bback\b')
P = 3


@cache
def traced():
    ctx = GAME.prepare(GAME.params.resolve({}))
    lineup = make_lineup("goofspiel", ["greedy", "random"], P, True)
    return ctx, lineup, trace_spec(GAME, ctx, lineup, P, 1, 0)


def test_a_seat_view_shows_nothing_that_seat_cannot_see():
    """Re-deal what seat s has not seen (the engine's determinise): s's drawing and table stay the same, byte for byte;
    other seats' bids are backs there, face up (class secret) only in the everything view."""
    ctx, lineup, tr = traced()
    cx = GAME.engine_context(ctx, lineup)
    st = face.new_state(cx, P, np.zeros((0, draw.LOG_WIDTH), dtype=np.int64))
    full_changed = backs = secrets = 0
    for k, rec in enumerate(tr.states):
        for seat in range(P):
            st.rec[0] = rec
            face.determinise(st, cx, seat, np.array([7 + k, 11 + seat, 13, 17], dtype=np.uint64))
            other = st.rec[0]
            mine = draw.pieces(ctx, rec, seat)
            assert draw.pieces(ctx, other, seat) == mine, (k, seat)
            assert draw.info(ctx, other, seat) == draw.info(ctx, rec, seat), (k, seat)
            assert not any(SECRET.search(x) for x in mine)
            backs += sum(bool(BACK.search(x)) for x in mine)
            full_changed += draw.pieces(ctx, other, None) != draw.pieces(ctx, rec, None)
        secrets += sum(bool(SECRET.search(x)) for x in draw.pieces(ctx, rec, None))
    assert full_changed and backs and secrets


def test_the_seat_that_bid_sees_its_own_bid_and_the_next_seat_a_back():
    ctx, _lineup, tr = traced()
    rec = next(r for r in tr.states if int(r["ctl"][C_SEAT]) == 1)  # seat 1 has bid, seat 2 bids
    bid = int(rec["facedown"][0, 0])
    own = [x for x in draw.pieces(ctx, rec, 0) if 'class="own"' in x]
    assert len(own) == 1 and f">{bid}</text>" in own[0]
    assert sum(bool(BACK.search(x)) for x in draw.pieces(ctx, rec, 1)) == 2  # seat 1's bid and the prize deck
    assert draw.info(ctx, rec, 1)["rows"][2][1:] == ["face down", "-", "-"]
    assert draw.info(ctx, rec, None)["rows"][2][1:] == [str(bid), "-", "-"]


def test_moves_are_bids_on_the_seat_s_own_cards():
    ctx, _lineup, tr = traced()
    for rec in tr.states[:-1]:
        svg = draw.base(ctx, P) + "".join(draw.pieces(ctx, rec, None))
        labels = draw.moves(ctx, rec)
        assert len(labels) == int(rec["ctl"][C_N])
        for (label, target), m in zip(labels, rec["moves"][: len(labels), 0]):
            assert label == f"bid {int(m)}" and f'id="{target}"' in svg
    assert draw.kind_name(0) == "bid" and draw.round_of(ctx, tr.states[-1]) == 8


def test_events_show_another_seat_s_bid_face_down_until_the_reveal():
    ctx, _lineup, tr = traced()
    log = tr.log
    names = ["a", "b", "c"]
    b = next(i for i, row in enumerate(log) if row[0] == E_BID and row[1] == 1)  # seat 2's first bid
    card = int(log[b, 2])
    assert draw.events(ctx, log, b, b + 1, names, 0) == ["P2 bids face down"]
    assert draw.events(ctx, log, b, b + 1, names, None) == [f"P2 bids {card} face down"]
    assert draw.events(ctx, log, b, b + 1, names, 1) == [f"P2 bids {card} face down"]
    end = next(i for i in range(b, len(log)) if log[i, 0] == E_REVEAL) + P + 1  # the reveal and who takes it
    lines = draw.events(ctx, log, b, end, names, 0)
    assert lines[0] == f"P2 bids {card} face down" and f"P2 reveals {card}" in lines  # read after the reveal
    assert len(draw.events(ctx, log, 0, len(log), names, 2)) == len(log)  # no search rows: one line a row


def test_meeplab_view_draws_a_game(tmp_path):
    out = tmp_path / "g.html"
    assert main(["view", "goofspiel", "--players", "3", "--bots", "greedy,random", "--out", str(out)]) == 0
    assert "Goofspiel" in out.read_text(encoding="utf-8")
