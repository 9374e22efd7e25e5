"""Secret decisions (``GameSpec.secret``): a face-down choice reaches no other seat before the game reveals it.

The play table logs another seat's secret decision as "chose face down" (no label, target, count or alternatives)
until ``Secret.reveals`` grows past it; the deciding seat reads its own; a move after which face-down choices were
revealed cannot be taken back. The conformance kit's ``secret`` check passes on Goofspiel (the example plugin with
simultaneous face-down bids) and fails, naming the secret decision kind, on planted defects: a drawing, event lines
or a bot view that show the face-down bid, a face-down bid that the other seats' determinise does not re-deal (the
search would read it), a reveal count that goes down, and No Thanks! with its open take-or-pass decision declared
secret (which needs no Goofspiel)."""

import importlib.util
import json
import types
from dataclasses import replace

import pytest

from meeplab.play.table import Table, seat_bots
from meeplab.sim.core import face
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.forward import C_NP
from meeplab.sim.core.game import Secret
from meeplab.sim.core.registry import get_game
from meeplab.testing import ConformanceError, Kit, check_game
from meeplab.testing.secret import check_secret

needs_goofspiel = pytest.mark.skipif(
    importlib.util.find_spec("meeplab_goofspiel") is None,
    reason="the example plugin goofspiel is not installed (pip install -e examples/goofspiel)",
)
needs_nothanks = pytest.mark.skipif(
    importlib.util.find_spec("meeplab_nothanks") is None,
    reason="the example plugin nothanks is not installed (pip install -e examples/nothanks)",
)


def goofspiel_table(humans, p=3, seed=5):
    g = get_game("goofspiel")
    return Table(g, g.params.resolve({}, g.id), seat_bots(["greedy"], list(humans), p), seed, 0)


def with_draw(g, **over):
    """``g`` with its drawing module's functions replaced by ``over``."""
    dr = g.draw
    fake = types.SimpleNamespace(**{n: getattr(dr, n) for n in dir(dr) if not n.startswith("__")})
    for name, fn in over.items():
        setattr(fake, name, fn)
    return replace(g, draw=fake)


@needs_goofspiel
def test_other_seats_read_a_face_down_bid_only_after_the_reveal():
    t = goofspiel_table(humans=[1])  # P1 (a bot) bids before the person, P3 after
    sec = t.spec.secret
    assert t.human_turn() is False
    bot_entry = t.play_bot()
    assert bot_entry["reveal_at"] == sec.reveals(t.rec, t.cx)
    d = t.log_for(1)[0]
    assert d["face_down"] and d["label"] == "chose face down"
    assert d["target"] is None and d["candidates"] is None and d["alternatives"] is None and d["forced"] is None
    shown = json.dumps([t.view(1), t.log_for(1)])
    assert bot_entry["label"] not in shown.replace('"label": "bid', "")  # nothing but the person's own labels
    assert 'class=\\"secret\\"' not in shown
    assert t.log_for(0)[0]["label"] == bot_entry["label"]  # the deciding seat reads its own choice
    mine = t.play(0)
    assert t.log_for(1)[1]["label"] == mine["label"]  # the person reads its own bid
    assert t.log_for(0)[1]["face_down"]  # and the other seats do not
    r = sec.reveals(t.rec, t.cx)
    while sec.reveals(t.rec, t.cx) == r:
        t.play_bot()
    log = t.log_for(1)
    assert [d["label"] for d in log[:3]] == [e["label"] for e in t.history[:3]]  # revealed: labels as usual
    assert not any(d.get("face_down") for d in log[:3])
    assert all(d.get("face_down") for d, e in zip(log[3:], t.history[3:]) if e["seat"] != 1)


@needs_goofspiel
def test_a_watching_seat_and_a_second_person_see_face_down_bids_as_backs():
    t = goofspiel_table(humans=[0, 1])
    t.play(0)
    d = t.log_for(1)[0]
    assert d["who"] == "P1" and d["face_down"] and d["label"] == "chose face down"
    assert t.log_for(0)[0]["who"] == "you" and t.log_for(0)[0]["label"].startswith("bid")
    board = t.view(1)["board"]["pieces"]
    assert 'class="back"' in board or "back" in board
    w = goofspiel_table(humans=[])
    w.play_bot()
    assert w.log_for(2)[0]["face_down"] and not w.log_for(0)[0].get("face_down")


@needs_goofspiel
def test_undo_after_bids_were_revealed_is_refused():
    t = goofspiel_table(humans=[2])
    while not t.human_turn():
        t.play_bot()
    t.play(0)  # the last bid of the round: all bids are turned face up
    v = t.view(2)
    assert v["can_undo"] is False and "revealed" in v["undo_note"]
    with pytest.raises(MeeplabError, match="revealed"):
        t.undo()


@needs_goofspiel
def test_goofspiel_passes_the_kits_secret_check():
    note = check_game("goofspiel", ["secret"])["secret"]
    assert "face-down choices played otherwise" in note


@needs_goofspiel
def test_a_drawing_that_shows_the_face_down_bid_is_caught():
    g = get_game("goofspiel")
    dr = g.draw
    bad = with_draw(g, pieces=lambda ctx, rec, seat=None: dr.pieces(ctx, rec, None))
    with pytest.raises(AssertionError, match=r"choice of secret decision kind 0 \(bid\) shows in P\d.s drawing"):
        check_secret(Kit(bad))
    with pytest.raises(ConformanceError, match=r"goofspiel secret: .*kind 0 \(bid\)"):
        check_game(bad, ["secret"], games=3)  # a fresh kit (not the one cached for the registered game)
    with pytest.raises(ConformanceError):
        check_game(bad, ["secret"])
    assert "face-down choices" in check_game("goofspiel", ["secret"])["secret"]  # the planted kit was not kept


@needs_goofspiel
def test_a_leak_at_one_player_count_only_is_caught_and_named():
    """The secret check branches face-down choices at every player count, early, middle and late in the game: a
    drawing that shows the bids only at 5 players fails, naming the count (it branched at 2 and 3 only before)."""
    g = get_game("goofspiel")
    dr = g.draw

    def pieces(ctx, rec, seat=None):
        return dr.pieces(ctx, rec, None if int(rec["ctl"][C_NP]) == 5 else seat)

    with pytest.raises(AssertionError, match=r"drawing before the reveal \(at 5 players, (early|middle|late) in"):
        check_secret(Kit(with_draw(g, pieces=pieces)))
    note = check_secret(Kit(g))
    assert all(f"\n  {p:>7}  bid" in note for p in range(2, 6)), note  # the coverage table: every player count


@needs_goofspiel
def test_event_lines_and_a_panel_that_show_the_bid_are_caught():
    g = get_game("goofspiel")
    dr = g.draw
    bad = with_draw(g, events=lambda ctx, log, lo, hi, names, seat=None: dr.events(ctx, log, lo, hi, names, None))
    with pytest.raises(AssertionError, match=r"kind 0 \(bid\) shows in P\d's event lines"):
        check_secret(Kit(bad))
    bad = with_draw(g, info=lambda ctx, rec, seat=None: dr.info(ctx, rec, None))
    with pytest.raises(AssertionError, match=r"kind 0 \(bid\) shows in P\d's panel"):
        check_secret(Kit(bad))


def keeping_field(monkeypatch, field):
    """Make ``face.determinise`` (what the kit calls) leave ``field`` as it was: the re-deal of a game that keeps a
    face-down choice where its ``determinise`` does not deal."""
    real = face.determinise

    def determinise(st, cx, seat, r):
        kept = st.rec[0][field].copy()
        real(st, cx, seat, r)
        st.rec[0][field] = kept

    monkeypatch.setattr(face, "determinise", determinise)


@needs_goofspiel
def test_a_face_down_bid_that_determinise_does_not_redeal_is_caught(monkeypatch):
    """The designer's Sushi Go: the face-down pick in a field not declared hidden, which determinise does not re-deal.
    Every view is the same, but the search bots (which read the re-dealt state) would see the earlier seats' picks:
    the kit re-deals both branches for every other seat and compares them."""
    g = get_game("goofspiel")
    note = check_secret(Kit(g))
    assert "re-deals compared" in note and " 0 re-deals" not in note  # the real game re-deals the bids
    undeclared = replace(g, hidden=tuple(h for h in g.hidden if h.field != "facedown"))
    assert undeclared.hidden and len(undeclared.hidden) < len(g.hidden)
    keeping_field(monkeypatch, "facedown")
    with pytest.raises(
        AssertionError,
        match=r"determinise for P\d keeps P\d's face-down choice of secret decision kind 0 \(bid\) in field "
        r"'facedown' \(first at index \(\d+, \d+\)\) \(at \d players, (early|middle|late) in the game\): the search "
        r"would read it before the reveal; keep the choice in a field declared in GameSpec.hidden that determinise "
        r"re-deals",
    ):
        check_secret(Kit(undeclared))
    with pytest.raises(AssertionError, match=r"'facedown' is declared in GameSpec.hidden, but determinise for P\d"):
        check_secret(Kit(g))  # declared, yet not re-dealt


@needs_goofspiel
def test_a_reveal_count_that_goes_down_is_caught():
    g = get_game("goofspiel")
    bad = replace(g, secret=Secret(g.secret.kinds, lambda rec, cx: -g.secret.reveals(rec, cx)))
    with pytest.raises(AssertionError, match="reveals went down"):
        check_secret(Kit(bad))


@needs_nothanks
def test_an_open_decision_declared_secret_is_caught():
    """No Thanks!'s take-or-pass is played face up: declared secret, another seat sees it (the kit looks at the
    drawing first, where the game has one, then the bot view)."""
    g = get_game("nothanks")
    fake = replace(g, secret=Secret((0,), lambda rec, cx: 0))
    with pytest.raises(
        AssertionError,
        match=r"face-down choice of secret decision kind 0 (\(take or pass\) )?shows in P\d's (drawing|bot view)",
    ):
        check_secret(Kit(fake))
    assert check_secret(Kit(g)).startswith("skipped")


def test_a_game_without_secret_decisions_is_skipped():
    assert check_secret(Kit.of("acbas")).startswith("skipped")


@needs_goofspiel
def test_the_viewer_shows_another_seats_face_down_bid_only_in_the_deciders_view(browser, tmp_path):
    """``meeplab view`` of a Goofspiel game: at a bid, another seat's view names neither the bid nor the candidates
    and outlines nothing on the board; the bidder's view and the everything view show the bid."""
    from viewer_helpers import page_data

    from meeplab.cli import main

    path = tmp_path / "g.html"
    assert (
        main(["view", "goofspiel", "--players", "3", "--bots", "greedy,random", "--seed", "2", "--out", str(path)]) == 0
    )
    data = page_data(path)
    k = next(i for i, s in enumerate(data["steps"]) if s.get("secret") and s["seat"] == 0)
    bid = data["steps"][k]["alts"][data["steps"][k]["pick"]][0]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.evaluate(f"window.meeplabViewer.setView(2); window.meeplabViewer.show({k})")  # P2 watches P1 bid
    assert "chose face down" in page.inner_text("#alts") and bid not in page.inner_text("#alts")
    assert "candidates" not in page.inner_text("#decision") and page.locator("#marks .mark-chosen").count() == 0
    page.evaluate(f"window.meeplabViewer.setView(1); window.meeplabViewer.show({k})")  # P1's own view
    assert bid in page.inner_text("#alts") and "face down" not in page.inner_text("#alts")
    page.evaluate(f"window.meeplabViewer.setView(0); window.meeplabViewer.show({k})")
    assert bid in page.inner_text("#alts")
    assert not errors, errors
    page.close()


@needs_goofspiel
def test_the_play_servers_reply_to_a_bot_move_does_not_name_a_face_down_bid(tmp_path):
    """``POST /api/bot`` answers with the move played as the seat at the screen may read it."""
    from starlette.testclient import TestClient

    from meeplab.play.server import Session, create_app

    t = goofspiel_table(humans=[1])  # P1, a bot, bids first
    s = Session(t, None, 0)
    port = 47614
    c = TestClient(create_app(s, tmp_path, port=port), base_url=f"http://127.0.0.1:{port}")
    c.headers["Authorization"] = f"Bearer {s.token}"
    got = c.post("/api/bot", json={"at": 0})
    assert got.status_code == 200, got.text
    assert got.json()["played"] == "chose face down"
    assert t.history[0]["label"].startswith("bid ")
