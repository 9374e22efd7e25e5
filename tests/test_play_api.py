"""The play page's JSON API (meeplab.play.server) over HTTP (Starlette's TestClient): a whole game of each game with
random legal moves and refused requests in between (the game unchanged after each), the token gate, hidden
information (every JSON message a person receives is checked), undo, hot-seat, saved games and resume."""

import json
import random

import numpy as np
import pytest
from play_setups import small_params
from starlette.testclient import TestClient

from meeplab.play import engine, saved
from meeplab.play.server import Session, create_app
from meeplab.play.table import Table, seat_bots, seat_list
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.forward import C_N
from meeplab.sim.core.registry import get_game

TINY = '[bots.tiny]\nbase = "rollout"\n[bots.tiny.weights]\nplayouts = 2\nmax_candidates = 3\n'

# small, quick games (tests/play_setups.py): (game, players, bots of the other seats)
GAMES = {
    "schweinebande": (3, ["greedy", "tiny"]),
    "hacienda": (2, ["greedy"]),
    "goldrush": (2, ["greedy"]),
    "acbas": (2, ["greedy"]),
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("bots") / "tiny.toml"
    path.write_text(TINY)
    return str(path)


def make_table(game, tiny, humans=(0,), seed=3, trace=False):
    p, bots = GAMES[game]
    g = get_game(game)
    values = g.params.resolve(small_params(game), g.id)
    seats = seat_bots(bots, list(humans), p) if len(bots) == p - len(humans) else seat_bots(bots[:1], list(humans), p)
    return Table(g, values, seats, seed, 0, (tiny,), trace=trace)


PORT = 47613  # the port the test apps believe they serve (the Host check wants it); TestClient opens no socket


def client_of(session, tmp_path, token=True):
    """A test client of ``session``'s app, with the bearer token (``token``) or without."""
    c = TestClient(create_app(session, tmp_path, port=PORT), base_url=f"http://127.0.0.1:{PORT}")
    if token:
        c.headers["Authorization"] = f"Bearer {session.token}"
    return c


def secrets_now(table):
    """The SVG pieces the drawing shows face up only in the everything-view (class="secret")."""
    if table.draw is None:
        return set()
    return {p for p in table.draw.pieces(table.ctx, table.rec, None) if 'class="secret"' in p}


def view_after_redeal(session, seat, k):
    """The person's state JSON on the table re-dealt for them (everything they have not seen shuffled again)."""
    t = session.table
    keep = t.st.rec.copy()
    try:
        r = np.array([1 + k, 2 + 3 * k, 5, 7], dtype=np.uint64)
        engine.determinise(t.st, t.cx, seat, r)
        return session.state()
    finally:
        t.st.rec[:] = keep


def play_through(client, session, rng, messages, check_redeal=True):
    """Play the game to its end through the API: random legal moves for people, bots on request; refused requests
    in between, each leaving the state exactly as it was."""
    for step in range(5000):
        r = client.get("/api/state")
        assert r.status_code == 200, r.text
        st = r.json()
        messages.append(r.text)
        if step % 8 == 0 or st["over"]:  # the log grows with the game: every 8th step keeps the test quick
            messages.append(client.get("/api/log").text)
        for piece in secrets_now(session.table):  # what only the all-seeing view shows face up
            assert json.dumps(piece)[1:-1] not in r.text
        if st["over"]:
            return st
        if st["pass_to"]:
            r = client.post("/api/seat", json={"seat": st["pass_to"]})
            assert r.status_code == 200, r.text
            continue
        if st["bot_turn"]:
            assert st["legal"] == []
            bad = client.post("/api/move", json={"move": 0})
            assert bad.status_code == 409 and "bot" in bad.json()["error"]
            assert client.get("/api/state").json() == st
            r = client.post("/api/bot", json={"at": st["decisions"]})
            assert r.status_code == 200, r.text
            continue
        legal = st["legal"]
        assert legal and [m["id"] for m in legal] == list(range(len(legal)))
        if check_redeal and st["decisions"] % 3 == 0:  # every third decision (a re-deal draws the whole board)
            seat = st["seat"] - 1
            for k in range(2):
                assert view_after_redeal(session, seat, k) == st, "the person's view depends on what they cannot see"
        if rng.random() < 0.15:  # refused requests, each leaving the game as it was
            for body, code in (
                ({"move": len(legal)}, 422),
                ({"move": -1}, 422),
                ({"move": "1"}, 400),
                ({"move": True}, 400),
                ({"mv": 0}, 400),
                ([0], 400),
                ({"move": 0, "at": st["decisions"] - 1}, 409),
            ):
                bad = client.post("/api/move", json=body)
                assert bad.status_code == code, (body, bad.text)
                assert bad.json()["error"]
            bad = client.post("/api/move", content=b"{not json", headers={"Content-Type": "application/json"})
            assert bad.status_code == 400
            assert client.post("/api/bot").status_code == 409
            assert client.get("/api/state").json() == st
        pick = rng.choice(legal)["id"]
        r = client.post("/api/move", json={"move": pick, "at": st["decisions"]})
        assert r.status_code == 200, r.text
        assert r.json()["played"] == legal[pick]["label"]
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_game_through_the_api(game, tiny, tmp_path):
    table = make_table(game, tiny)
    session = Session(table, tmp_path / "g.json", 0)
    client = client_of(session, tmp_path)
    messages = []
    st = play_through(client, session, random.Random(5), messages)
    for m in messages:  # every message the person received
        assert "pub" not in json.loads(m) and '"seed"' not in m and '"rng"' not in m
        assert 'class=\\"secret\\"' not in m
    assert st["over"] and st["legal"] == [] and st["turn"] is None
    res = st["result"]
    assert res["categories"] == list(get_game(game).categories)
    assert len(res["score"]) == table.n_players
    assert np.allclose(np.array(res["breakdown"]).sum(axis=1), res["score"])
    assert sorted(res["rank"])[0] == 1
    # the saved game replays to the same end, and the whole file is handed out now that the game is over
    data = client.get("/api/saved").json()
    assert data["over"] and data["score"] == res["score"]
    again = saved.table_of(data)
    assert again.final == table.final and len(again.history) == len(table.history)
    assert json.loads((tmp_path / "g.json").read_text())["decisions"] == data["decisions"]
    # play again: the next deal, same seats
    r = client.post("/api/new")
    assert r.status_code == 200 and r.json()["index"] == 1
    assert client.get("/api/state").json()["over"] is False


def test_every_route_needs_the_token(tiny, tmp_path):
    session = Session(make_table("schweinebande", tiny), None, 0)
    raw = client_of(session, tmp_path, token=False)
    routes = [("GET", "/"), ("GET", "/api/state"), ("GET", "/api/log"), ("GET", "/api/saved")]
    routes += [("POST", p) for p in ("/api/move", "/api/bot", "/api/undo", "/api/seat", "/api/new", "/api/save")]
    for method, path in routes:
        assert raw.request(method, path).status_code == 401, path
        assert raw.request(method, path, params={"token": session.token}).status_code == 401, path  # not in URLs
        bad = raw.request(method, path, headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 403, path
        assert "token" in raw.request(method, path).json()["error"]
    before = session.table.rec.tobytes()
    assert raw.get("/", headers={"Authorization": f"Bearer {session.token}"}).status_code == 200
    assert raw.get("/api/state", headers={"Authorization": f"Bearer {session.token}"}).status_code == 200
    assert session.table.rec.tobytes() == before
    assert not list(tmp_path.iterdir())  # nothing saved by refused requests


def test_page_is_served_with_the_game(tiny, tmp_path):
    session = Session(make_table("schweinebande", tiny), None, 0)
    page = client_of(session, tmp_path).get("/").text
    assert "<title>Schweinebande" in page and "/api/state" in page and session.token not in page


@pytest.mark.parametrize("game", ["schweinebande", "hacienda", "acbas"])
def test_undo_takes_back_the_persons_last_decision(game, tiny, tmp_path):
    """Undo restores the table as it was before the person's last move (and the bot moves after it), where that
    move revealed nothing; a move that revealed something (a tile turned, a card drawn) cannot be taken back: undo
    answers 409 and changes nothing (``can_undo`` false, ``undo_note`` says why)."""
    session = Session(make_table(game, tiny), tmp_path / "u.json", 0)
    client = client_of(session, tmp_path)
    assert client.post("/api/undo").status_code == 409  # nothing yet
    rng = random.Random(8)
    undone = refused = 0
    for _ in range(60):
        st0 = client.get("/api/state").json()
        if st0["over"]:
            break
        if st0["bot_turn"]:
            client.post("/api/bot")
            continue
        rec0 = session.table.rec.tobytes()
        client.post("/api/move", json={"move": rng.choice(st0["legal"])["id"]})
        while client.get("/api/state").json()["bot_turn"]:
            client.post("/api/bot")
        st = client.get("/api/state").json()
        if st["can_undo"]:
            r = client.post("/api/undo")
            assert r.status_code == 200 and r.json()["seat"] == 1
            assert session.table.rec.tobytes() == rec0
            assert client.get("/api/state").json() == st0
            undone += 1
            client.post("/api/move", json={"move": rng.choice(st0["legal"])["id"]})
        elif not st["over"] and st["undo_note"]:
            rec = session.table.rec.tobytes()
            r = client.post("/api/undo")
            assert r.status_code == 409 and r.json()["error"] == st["undo_note"]
            assert session.table.rec.tobytes() == rec and client.get("/api/state").json() == st
            refused += 1
        if undone and refused:
            break
    assert refused if game == "schweinebande" else undone, (undone, refused)


def test_log_from_a_decision_on(tiny, tmp_path):
    session = Session(make_table("schweinebande", tiny), None, 0)
    client = client_of(session, tmp_path)
    for _ in range(12):
        st = client.get("/api/state").json()
        client.post("/api/bot") if st["bot_turn"] else client.post("/api/move", json={"move": 0})
    whole = client.get("/api/log").json()
    part = client.get("/api/log", params={"since": 5}).json()
    assert whole["total"] == part["total"] == len(whole["decisions"]) > 5
    assert part["decisions"] == whole["decisions"][5:] and part["decisions"][0]["n"] == 6
    for bad in ("-1", "x", "1.5"):
        assert client.get("/api/log", params={"since": bad}).status_code == 400


def test_hot_seat_asks_the_next_person_to_take_the_screen(tiny, tmp_path):
    table = make_table("schweinebande", tiny, humans=(0, 2))
    assert table.seats[0] is None and table.seats[2] is None and table.seats[1] is not None
    session = Session(table, None, 0)
    client = client_of(session, tmp_path)
    rng = random.Random(2)
    handovers = 0
    for _ in range(400):
        st = client.get("/api/state").json()
        if st["over"]:
            break
        if st["pass_to"]:
            handovers += 1
            # nothing private while the screen changes hands: no board, no panel, no moves
            assert st["board"] is None and st["info"] is None and st["legal"] == []
            assert client.post("/api/move", json={"move": 0}).status_code == 409
            other = 1 if st["pass_to"] == 3 else 3
            assert client.post("/api/seat", json={"seat": other}).status_code == 409
            assert client.post("/api/seat", json={"seat": 2}).status_code == 422  # a bot's seat
            assert client.post("/api/seat", json={"seat": st["pass_to"]}).status_code == 200
            assert client.get("/api/state").json()["seat"] == st["pass_to"]
        elif st["bot_turn"]:
            client.post("/api/bot")
        else:
            client.post("/api/move", json={"move": rng.choice(st["legal"])["id"]})
    assert handovers >= 2


def test_bot_alternatives_are_shown_only_where_they_reveal_nothing(tiny, tmp_path):
    """Schweinebande hides tiles from everyone: the bots' alternatives are public. A Hacienda bot's candidates come
    from its hand: withheld until the game is over."""
    s = Session(make_table("schweinebande", tiny), None, 0)
    c = client_of(s, tmp_path)
    play_through(c, s, random.Random(1), [], check_redeal=False)
    log = c.get("/api/log").json()["decisions"]
    searched = [d for d in log if not d["human"] and d["alternatives"]]
    assert searched and any(a["measure"].startswith("mean playout value") for d in searched for a in d["alternatives"])
    assert all(sum(a["chosen"] for a in d["alternatives"]) == 1 for d in searched)
    h = Session(make_table("hacienda", tiny), None, 0)
    c = client_of(h, tmp_path)
    seen_withheld = False
    rng = random.Random(3)
    while True:
        st = c.get("/api/state").json()
        log = c.get("/api/log").json()["decisions"]
        bots = [d for d in log if not d["human"] and (d["candidates"] is None or d["candidates"] > 1)]
        if not st["over"]:
            # shown only where the bot knew nothing the person did not (e.g. no card in hand it was not seen to buy)
            for d in bots:
                assert (d["alternatives"] is None) == h.table.history[d["n"] - 1]["secret"]
                assert ("withheld" in d) == h.table.history[d["n"] - 1]["secret"]
            seen_withheld |= any("withheld" in d for d in bots)
        else:
            assert bots and all(d["alternatives"] for d in bots)
            break
        if st["bot_turn"]:
            c.post("/api/bot")
        else:
            c.post("/api/move", json={"move": rng.choice(st["legal"])["id"]})
    assert seen_withheld


def test_saved_game_resumes_where_it_stopped(tiny, tmp_path):
    path = tmp_path / "r.json"
    session = Session(make_table("acbas", tiny), path, 0)
    client = client_of(session, tmp_path)
    rng = random.Random(4)
    for _ in range(12):
        st = client.get("/api/state").json()
        if st["bot_turn"]:
            client.post("/api/bot")
        else:
            client.post("/api/move", json={"move": rng.choice(st["legal"])["id"]})
    assert client.get("/api/saved").status_code == 409  # not while the game runs
    resumed = saved.load(path)
    assert resumed.rec.tobytes() == session.table.rec.tobytes()
    assert [e["label"] for e in resumed.history] == [e["label"] for e in session.table.history]


def test_damaged_saved_games_are_refused(tiny, tmp_path):
    table = make_table("schweinebande", tiny)
    while not table.human_turn():
        table.play_bot()
    table.play(0)
    good = saved.to_dict(table)
    cases = {
        "not json": "{",
        "other": json.dumps({"format": "x"}),
        "version": json.dumps({**good, "version": 99}),
        "seats": json.dumps({**good, "seats": [None]}),
        "decision": json.dumps({**good, "decisions": [[1, "a", "human"]]}),
        "illegal": json.dumps({**good, "decisions": [[1, 999, "human"]]}),
        "wrong seat": json.dumps({**good, "decisions": [[2, 0, "human"]]}),
    }
    for name, text in cases.items():
        p = tmp_path / f"{name}.json"
        p.write_text(text)
        with pytest.raises(MeeplabError):
            saved.load(p)
    with pytest.raises(MeeplabError, match="no such saved game"):
        saved.load(tmp_path / "missing.json")


def test_seat_and_bot_lists():
    assert seat_list("1,3", 4) == [0, 2]
    for bad in ("0", "5", "x", "1,1", ""):
        with pytest.raises(MeeplabError):
            seat_list(bad, 4)
    assert seat_bots(["a", "b"], [0], 3) == [None, "a", "b"]
    assert seat_bots(["a"], [1], 3) == ["a", None, "a"]
    with pytest.raises(MeeplabError, match="2 bot seat"):
        seat_bots(["a", "b", "c"], [0], 3)


def test_meeplab_view_draws_a_saved_game(tiny, tmp_path):
    """``meeplab view FILE`` replays a saved game (finished or not) through ``saved.trace_saved``: the states before
    every decision, people's moves as saved."""
    from meeplab.cli import main

    table = make_table("schweinebande", tiny)
    rng = random.Random(6)
    for _ in range(30):
        if table.human_turn():
            table.play(rng.randrange(len(table.labels())))
        else:
            table.play_bot()
    path = saved.save(table, tmp_path / "part.json")
    tr = saved.trace_saved(path)
    assert len(tr.trace.picks) == len(table.history) and len(tr.trace.states) == len(table.history) + 1
    assert [int(x) for x in tr.trace.picks] == [e["pick"] for e in table.history]
    assert tr.trace.states[-1].tobytes() == table.rec.tobytes()
    assert tr.seat_names[0].startswith("person") and "unfinished" in tr.subtitle
    out = tmp_path / "part.html"
    assert main(["view", str(path), "--out", str(out)]) == 0
    assert out.is_file() and "Schweinebande" in out.read_text()


def test_an_ismcts_bots_why_shows_its_root_values_and_visits(tmp_path):
    """ismcts keeps no per-candidate sums in the search scratch: the page's "why?" reads the root candidates it logs
    (mean playout value and visits), never a row of zeros."""
    cfg = tmp_path / "tism.toml"
    cfg.write_text('[bots.tism]\nbase = "ismcts"\n[bots.tism.weights]\nper_candidate = 4\n')
    g = get_game("schweinebande")
    values = g.params.resolve(small_params("schweinebande"), g.id)
    table = Table(g, values, seat_bots(["tism"], [], 3), 3, 0, (str(cfg),))
    searched = []
    while not table.over and len(searched) < 6:
        entry = table.play_bot()
        if entry["alternatives"] and any("visits" in a["measure"] for a in entry["alternatives"]):
            searched.append(entry["alternatives"])
    assert searched
    for alts in searched:
        assert sum(a["chosen"] for a in alts) == 1
        assert any(a["value"] for a in alts)  # values as logged, not zeros


def test_no_undo_once_the_game_is_over(tiny):
    """A finished game's result stands: undo is neither offered nor taken, whatever the game hides."""
    table = make_table("acbas", tiny)  # no hidden information: only the end stops an undo here
    rng = random.Random(5)
    while not table.over:
        if table.bot_turn():
            table.play_bot()
        else:
            table.play(rng.randrange(int(table.rec["ctl"][C_N])))
    assert table.snapshots and not table.can_undo()
    with pytest.raises(MeeplabError, match="the game is over"):
        table.undo()
