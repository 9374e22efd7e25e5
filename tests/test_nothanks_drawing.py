"""No Thanks!'s drawing (examples/nothanks/meeplab_nothanks/draw.py): the card on offer with its chips, the deck and
the cards set aside as backs with their counts, each seat's chips and face-up cards (runs grouped).

What the game declares hidden (``GAME.hidden``: the deck after the card face up, the set-aside cards among it) never
reaches what a seat is shown: its drawing, panel and status, ``meeplab view``'s seat views, and the play page's
``/api/state`` are the same byte for byte on a table whose unseen cards were dealt otherwise. Chips are public as the
engine declares them (not hidden, in every bot's view): every seat is shown every seat's chips. The same game with
no drawing module is refused by ``meeplab view`` in one line."""

import json
import random
import re
from functools import cache

import numpy as np
import pytest

pytest.importorskip("meeplab_nothanks", reason="the example plugin is not installed (pip install -e examples/nothanks)")

from cli_run import run_cli
from meeplab_nothanks import GAME, draw, engine
from viewer_helpers import page_data

from meeplab.cli import main
from meeplab.sim.core import face
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.draw import trace_spec
from meeplab.sim.core.forward import C_N, C_SEAT

SECRET = re.compile(r'class="[^"]*\bsecret\b')
BACK = re.compile(r'class="[^"]*\bback\b')
P = 4


@cache
def traced():
    ctx = GAME.prepare(GAME.params.resolve({}))
    lineup = make_lineup("nothanks", ["greedy", "random"], P, True)
    return ctx, lineup, trace_spec(GAME, ctx, lineup, P, 1, 0)


def shown(ctx, rec, seat):
    """Everything the drawing shows ``seat``."""
    return draw.pieces(ctx, rec, seat), draw.info(ctx, rec, seat), draw.status(ctx, rec), draw.score(ctx, rec)


def test_runs_count_their_lowest_card_as_the_engine_scores():
    assert draw.runs([3, 4, 5, 9, 11, 12]) == [[3, 4, 5], [9], [11, 12]]
    rng = random.Random(5)
    for _ in range(200):
        mask = sum(1 << c for c in rng.sample(range(3, 36), rng.randrange(0, 20)))
        assert draw.card_points(mask) == engine.cards_score(np.int64(mask))
    ctx, _lineup, tr = traced()
    assert draw.score(ctx, tr.states[-1]) == [float(x) for x in tr.score]  # the race ends at the final score


def test_a_seat_view_shows_nothing_that_seat_cannot_see():
    """Deal otherwise what seat s has not seen (the engine's determinise): what s is shown stays the same, byte for
    byte, and holds no secret; the deck is a back; the everything view lays the hidden cards out (and changes)."""
    ctx, lineup, tr = traced()
    cx = GAME.engine_context(ctx, lineup)
    st = face.new_state(cx, P, np.zeros((0, draw.LOG_WIDTH), dtype=np.int64))
    full_changed = checked = 0
    for k, rec in enumerate(tr.states[:-1]):
        for seat in range(P):
            st.rec[0] = rec
            face.determinise(st, cx, seat, np.array([7 + k, 11 + seat, 13, 17], dtype=np.uint64))
            other = st.rec[0]
            mine = shown(ctx, rec, seat)
            assert shown(ctx, other, seat) == mine, (k, seat)
            assert not any(SECRET.search(x) for x in mine[0]), (k, seat)
            if int(rec["ctl"][engine.C_POS]) + 1 < int(rec["ctl"][engine.C_INPLAY]):
                assert sum(bool(BACK.search(x)) for x in mine[0]) == 2  # the deck and the cards set aside
            full_changed += draw.pieces(ctx, other, None) != draw.pieces(ctx, rec, None)
            checked += 1
        everything = "".join(draw.pieces(ctx, rec, None))
        ahead = [int(c) for c in rec["deck"][int(rec["ctl"][engine.C_POS]) + 1 : int(rec["ctl"][engine.C_NCARDS])]]
        secret = next(x for x in draw.pieces(ctx, rec, None) if SECRET.search(x))
        assert [int(v) for v in re.findall(r">(\d+)</text>", secret)] == ahead, k
        assert secret in everything
    assert checked > 100 and full_changed > 50


def test_chips_are_public_as_the_engine_declares_them():
    """The drawing shows every seat's chips to every seat because the game declares them public: ``chips`` is no
    hidden field, and every bot's view holds every seat's chips. (Declaring them hidden would make this fail: then
    the drawing would have to show another seat's stack as a back.)"""
    assert [h.field for h in GAME.hidden] == ["deck"]
    ctx, _lineup, tr = traced()
    rec = tr.states[len(tr.states) // 2]
    chips = [int(rec["chips"][p]) for p in range(P)]
    assert [int(rec["pub"][engine.V_CHIPS + p]) for p in range(P)] == chips  # the bots' view
    for seat in range(P):
        assert draw.info(ctx, rec, seat)["rows"][0] == ["chips", *chips]
        text = "".join(draw.pieces(ctx, rec, seat))
        assert all(f"{c} chip{'' if c == 1 else 's'}</text>" in text for c in chips)


def test_the_board_holds_the_offer_each_seat_s_runs_and_the_candidates_places():
    ctx, _lineup, tr = traced()
    base = draw.base(ctx, P)
    offers = 0
    for rec in tr.states[:-1]:
        ctl = rec["ctl"]
        svg = base + "".join(draw.pieces(ctx, rec, 0))
        card, pot = int(rec["deck"][int(ctl[engine.C_POS])]), int(ctl[engine.C_POT])
        assert f'class="title">{card}</text>' in svg and f"{pot} chip{'' if pot == 1 else 's'}</text>" in svg
        labels = draw.moves(ctx, rec)
        assert len(labels) == int(ctl[C_N])
        seat = int(ctl[C_SEAT])
        assert labels[0] == (f"take {card}" + (f" and {pot} chip{'' if pot == 1 else 's'}" if pot else ""), "offer")
        if len(labels) == 2:
            assert labels[1] == ("no thanks: pay a chip", f"chips-{seat}")
        assert all(f'id="{t}"' in svg for _, t in labels)
        offers += pot > 0
    assert offers and draw.kind_name(0) == "take or pass"
    end = tr.states[-1]
    assert draw.status(ctx, end).startswith("Game over") and draw.moves(ctx, end) == []
    # a seat's cards: one card drawn per card held, each run's lowest (the one that counts) bold, the others not
    held = [int(end["held"][p]) for p in range(P)]
    for p, mask in enumerate(held):
        row = f'y="{draw._panel_y(p) + 14}"'  # the cards' row of seat p's panel
        piece = next((x for x in draw.pieces(ctx, end, None) if x.startswith("<g><g>") and row in x), "")
        got = [(w, int(v)) for w, v in re.findall(r'font-weight="(bold|normal)">(\d+)</text>', piece)]
        want = [("bold" if i == 0 else "normal", v) for r in draw.runs(draw.values(mask)) for i, v in enumerate(r)]
        assert got == want, p


def test_events_read_the_same_for_every_seat():
    ctx, _lineup, tr = traced()
    names = ["a", "b", "c", "d"]
    lines = draw.events(ctx, tr.log, 0, len(tr.log), names, None)
    assert all(draw.events(ctx, tr.log, 0, len(tr.log), names, s) == lines for s in range(P))
    takes = sum(1 for x in lines if " takes " in x)
    assert takes == int(tr.states[-1]["ctl"][engine.C_INPLAY])  # every card in play is taken once
    assert any("no thanks on" in x for x in lines) and lines[0].endswith("turned up")


def test_meeplab_view_draws_no_thanks_and_its_seat_views_hide_the_deck(tmp_path, capsys):
    out = tmp_path / "v.html"
    assert main(["view", "nothanks", "--players", str(P), "--bots", "greedy,random", "--out", str(out)]) == 0
    data = page_data(out)
    assert "No Thanks!: take the card or pay a chip" in data["base"] and data["size"][0] == draw.W
    pool = data["pool"]
    everything = 0
    for step in data["steps"][:-1]:
        views = step["p"]  # the pieces of the everything view, then of seats 1..P (None: the same as everything's)
        everything += any(SECRET.search(pool[i]) for i in views[0])
        for v in views[1:]:
            assert not any(SECRET.search(pool[i]) for i in (views[0] if v is None else v))
    assert everything == len(data["steps"]) - 1


def test_a_game_without_a_drawing_is_refused_by_view_in_one_line(tmp_path, capsys, monkeypatch):
    """The same game with no drawing module (``GameSpec.draw`` None): view says so in one line, exit 2."""
    from dataclasses import replace

    from meeplab.sim.core import registry

    plain = registry.get_game
    monkeypatch.setattr(registry, "get_game", lambda g: replace(GAME, draw=None) if g == "nothanks" else plain(g))
    code, _, err = run_cli(["view", "nothanks", "--players", "3", "--out", str(tmp_path / "v.html")], capsys)
    assert code == 2 and "nothanks has no drawing" in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "v.html").exists()


def test_the_play_page_sends_a_seat_nothing_it_has_not_seen():
    """A whole game on the play page's API, a person at seat 1: at every decision the JSON of ``/api/state`` (board,
    panel, status, scores, log, candidates) is the same byte for byte after the cards seat 1 has not seen are dealt
    otherwise; it holds the board with every seat's chips and no secret."""
    from starlette.testclient import TestClient

    from meeplab.play import engine as play_engine
    from meeplab.play.server import Session, create_app
    from meeplab.play.table import Table, seat_bots

    table = Table(GAME, GAME.params.resolve({}, GAME.id), seat_bots(["greedy"], [0], 3), 4, 0, ())
    session = Session(table, None, 0)
    client = TestClient(create_app(session, None, port=47615), base_url="http://127.0.0.1:47615")
    client.headers["Authorization"] = f"Bearer {session.token}"
    rng = random.Random(2)
    moved = compared = 0
    for _ in range(2000):
        body = client.get("/api/state").text
        st = json.loads(body)
        assert st["board"] and "No Thanks!" in st["board"]["base"] and not SECRET.search(st["board"]["pieces"])
        assert st["info"]["rows"][0] == ["chips", *(int(table.rec["chips"][p]) for p in range(3))]
        keep = table.st.rec.copy()
        try:
            play_engine.determinise(table.st, table.cx, 0, np.array([3 + compared, 5, 7, 9], dtype=np.uint64))
            moved += table.st.rec.tobytes() != keep.tobytes()
            assert client.get("/api/state").text == body, f"decision {st['decisions']}"
        finally:
            table.st.rec[:] = keep
        compared += 1
        if st["over"]:
            break
        if st["bot_turn"]:
            r = client.post("/api/bot", json={"at": st["decisions"]})
        else:
            r = client.post("/api/move", json={"move": rng.choice(st["legal"])["id"], "at": st["decisions"]})
        assert r.status_code == 200, r.text
    assert st["over"] and compared > 20 and moved > 10
