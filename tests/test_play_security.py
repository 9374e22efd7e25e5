"""The play server locked down (issue 54): who may talk to it (Host, Origin, the token as a cookie from a one-time
launch code or as a bearer header, never in a URL), the headers of every response (a strict Content-Security-Policy
with a fresh nonce), bad requests on every route (4xx with ``{"error"}``, nothing changed), ``GET /api/state``
answering while a bot searches, and, in real Chromium, hostile strings from every source a game's page shows (bot
and variant names, a Hacienda map's name and file name, rule parameters) for every game and the example plugin:
nothing injected runs, no request leaves 127.0.0.1, and the page still plays."""

import re
import threading
import time

import pytest
from play_setups import small_params
from starlette.testclient import TestClient

from meeplab.play import server as play_server
from meeplab.play.server import MAX_BODY, MAX_DEPTH, Session, cookie_name, create_app
from meeplab.play.table import Table, seat_bots
from meeplab.sim.core.registry import get_game

PORT = 47614
BASE = f"http://127.0.0.1:{PORT}"
ROUTES = [("GET", "/"), ("GET", "/api/state"), ("GET", "/api/log"), ("GET", "/api/saved")]
ROUTES += [("POST", p) for p in ("/api/move", "/api/bot", "/api/undo", "/api/seat", "/api/new", "/api/save")]


def new_session(game="schweinebande", bots=("greedy",), players=2, seed=3, humans=(0,)):
    g = get_game(game)
    values = g.params.resolve(small_params(game) if game in ("schweinebande", "hacienda") else {}, g.id)
    return Session(Table(g, values, seat_bots(list(bots), list(humans), players), seed, 0), None, 0)


def client(session, tmp_path, token=True, base=BASE):
    c = TestClient(create_app(session, tmp_path, port=PORT), base_url=base, follow_redirects=False)
    if token:
        c.headers["Authorization"] = f"Bearer {session.token}"
    return c


def fingerprint(session, tmp_path):
    """What a refused request must leave as it was: the game's record, its history, the seat at the screen, the
    saved files."""
    t = session.table
    return (t.rec.tobytes(), len(t.history), session.viewer, t.index, sorted(p.name for p in tmp_path.iterdir()))


@pytest.fixture(scope="module")
def session():
    return new_session()


def test_every_response_carries_the_security_headers(session, tmp_path):
    c = client(session, tmp_path)
    nonces = set()
    for method, path in [*ROUTES, ("GET", "/nowhere"), ("GET", "/launch/nope")]:
        for cl in (c, client(session, tmp_path, token=False), client(session, tmp_path, base="http://evil.test")):
            r = cl.request(method, path)
            csp = r.headers["content-security-policy"]
            for part in (
                "default-src 'none'",
                "img-src data:",
                "connect-src 'self'",
                "base-uri 'none'",
                "form-action 'none'",
                "frame-ancestors 'none'",
            ):
                assert part in csp, (path, csp)
            nonce = re.search(r"script-src 'nonce-([\w-]+)'", csp).group(1)
            assert f"style-src 'nonce-{nonce}'" in csp and "unsafe" not in csp
            nonces.add(nonce)
            assert r.headers["x-content-type-options"] == "nosniff"
            assert r.headers["referrer-policy"] == "no-referrer"
            assert r.headers["cache-control"] == "no-store"
            if r.status_code >= 400:
                assert r.json()["error"], (method, path, r.status_code)
    assert len(nonces) > 20  # a fresh nonce per response
    page = c.get("/")
    nonce = re.search(r"'nonce-([\w-]+)'", page.headers["content-security-policy"]).group(1)
    assert page.text.count(f'nonce="{nonce}"') == 2  # the page's one <style> and one <script>
    assert len(re.findall(r"<script|<style", page.text)) == 2


@pytest.mark.parametrize(
    "host", ["evil.test", f"evil.test:{PORT}", "127.0.0.1", f"127.0.0.1:{PORT + 1}", f"127.0.0.2:{PORT}", "localhost"]
)
def test_a_foreign_host_is_refused_on_every_route(session, tmp_path, host):
    c = client(session, tmp_path)
    before = fingerprint(session, tmp_path)
    for method, path in [*ROUTES, ("GET", "/launch/x")]:
        r = c.request(method, path, headers={"Host": host})
        assert r.status_code == 421 and "Host" in r.json()["error"], (host, path)
    assert fingerprint(session, tmp_path) == before


def test_the_loopback_names_are_let_in(session, tmp_path):
    c = client(session, tmp_path)
    for host in (f"127.0.0.1:{PORT}", f"localhost:{PORT}", f"[::1]:{PORT}", f"LOCALHOST:{PORT}"):
        assert c.get("/api/state", headers={"Host": host}).status_code == 200, host


@pytest.mark.parametrize(
    "origin", ["http://evil.test", f"http://127.0.0.1:{PORT + 1}", "null", f"https://127.0.0.1:{PORT}"]
)
def test_a_foreign_origin_is_refused_on_every_route(session, tmp_path, origin):
    c = client(session, tmp_path)
    before = fingerprint(session, tmp_path)
    for method, path in [*ROUTES, ("GET", "/launch/x")]:
        r = c.request(method, path, headers={"Origin": origin})
        assert r.status_code == 403 and "origin" in r.json()["error"], (origin, path)
    r = c.post("/api/move", json={"move": 0}, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    assert fingerprint(session, tmp_path) == before
    assert c.get("/api/state", headers={"Origin": f"http://localhost:{PORT}"}).status_code == 200


def test_the_token_is_never_taken_from_a_url(session, tmp_path):
    c = client(session, tmp_path, token=False)
    for method, path in ROUTES:
        assert c.request(method, path, params={"token": session.token}).status_code == 401, path
    assert session.token not in c.get("/", headers={"Authorization": f"Bearer {session.token}"}).text


def test_a_launch_code_gives_the_cookie_once(tmp_path):
    s = new_session()
    c = client(s, tmp_path, token=False)
    assert c.get("/api/state").status_code == 401
    code = s.new_launch_code()
    r = c.get(f"/launch/{code}")
    assert r.status_code == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"]
    name = cookie_name(PORT)
    assert cookie.startswith(f"{name}={s.token};")
    flags = {f.strip().lower() for f in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/"} <= flags
    assert not any(f.startswith(("domain", "expires", "max-age")) for f in flags)  # a session cookie, this host only
    # the cookie lets in (the test client keeps it), the page never holds the token
    assert c.get("/api/state").status_code == 200
    assert s.token not in c.get("/").text
    # the code works once
    again = client(s, tmp_path, token=False)
    r = again.get(f"/launch/{code}")
    assert r.status_code == 403 and "used" in r.json()["error"] and "set-cookie" not in r.headers
    assert again.get("/api/state").status_code == 401
    # a wrong cookie is refused
    wrong = client(s, tmp_path, token=False)
    wrong.cookies.set(name, "nope")
    assert wrong.get("/api/state").status_code == 403
    # POST does not launch, and spends nothing
    code = s.new_launch_code()
    assert again.post(f"/launch/{code}").status_code == 405
    assert again.get(f"/launch/{code}").status_code == 303


def test_a_launch_code_expires(tmp_path, monkeypatch):
    s = new_session()
    c = client(s, tmp_path, token=False)
    now = [1000.0]
    monkeypatch.setattr(play_server.time, "monotonic", lambda: now[0])
    code = s.new_launch_code()
    other = s.new_launch_code()
    now[0] += play_server.LAUNCH_TTL_S + 1
    assert c.get(f"/launch/{code}").status_code == 403
    assert c.get("/api/state").status_code == 401
    fresh = s.new_launch_code()
    assert other not in s.launch_codes  # expired codes are dropped
    now[0] += play_server.LAUNCH_TTL_S - 1
    assert c.get(f"/launch/{fresh}").status_code == 303


NESTED = b"[" * 100_000 + b"]" * 100_000
BAD_BODIES = {
    "deep nesting": NESTED,
    "deep object": b'{"move": ' + b'{"a": ' * 40 + b"0" + b"}" * 41,
    "nesting just over the cap": b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    "5,000-digit move": b'{"move": ' + b"9" * 5000 + b"}",
    "5,000-digit at": b'{"move": 0, "at": ' + b"1" * 5000 + b"}",
    "5,000-digit seat": b'{"seat": ' + b"2" * 5000 + b"}",
    "negative long": b'{"move": -' + b"1" * 40 + b"}",
    "too long": b'{"move": 0, "pad": "' + b"x" * (MAX_BODY + 10) + b'"}',
    "not utf-8": b'{"move": "\xff"}',
    "NaN": b'{"move": NaN}',
    "not json": b"{move",
}


def test_bad_bodies_are_refused_on_every_route(tmp_path):
    s = new_session()
    c = client(s, tmp_path)
    while not s.table.human_turn():
        c.post("/api/bot")
    before = fingerprint(s, tmp_path)
    for name, body in BAD_BODIES.items():
        for method, path in ROUTES:
            r = c.request(method, path, content=body, headers={"Content-Type": "application/json"})
            assert 400 <= r.status_code < 500 and r.json()["error"], (name, path, r.status_code)
            assert fingerprint(s, tmp_path) == before, (name, path)
    # bracket characters inside strings are not nesting
    r = c.post("/api/move", json={"move": 0, "note": "[" * 1000, "at": len(s.table.history)})
    assert r.status_code == 200, r.text


BAD_SINCE = ["%C2%B2", "%D9%A3", "%EF%BC%91", "1" * 5000, "1" * 13, "-1", "+1", "%201", "1.0", "", "0x1"]


@pytest.mark.parametrize("since", BAD_SINCE)
def test_since_must_be_a_short_ascii_count(session, tmp_path, since):
    c = client(session, tmp_path)
    r = c.get(f"/api/log?since={since}")
    assert r.status_code == 400 and "since" in r.json()["error"]
    assert len(r.json()["error"]) < 200


def test_since_reads_ascii_digits(session, tmp_path):
    c = client(session, tmp_path)
    for since in ("0", "007", "999999999999"):
        r = c.get(f"/api/log?since={since}")
        assert r.status_code == 200 and "decisions" in r.json()


def test_unknown_routes_and_methods_answer_json(session, tmp_path):
    c = client(session, tmp_path)
    assert c.get("/nowhere").status_code == 404 and c.get("/nowhere").json()["error"]
    assert c.get("/api/move").status_code == 405 and c.get("/api/move").json()["error"]


def test_state_answers_while_a_bot_searches(tmp_path, monkeypatch):
    s = new_session(humans=(1,))  # P1, a bot, decides first
    c = client(s, tmp_path)
    started = threading.Event()
    release = threading.Event()
    real = Table.play_bot

    def slow_bot(table):
        started.set()
        assert release.wait(20)
        return real(table)

    monkeypatch.setattr(Table, "play_bot", slow_bot)
    st0 = c.get("/api/state").json()
    assert st0["bot_turn"] and not st0["thinking"]
    got = {}
    bot = threading.Thread(target=lambda: got.setdefault("bot", c.post("/api/bot", json={"at": st0["decisions"]})))
    bot.start()
    try:
        assert started.wait(20)
        t0 = time.perf_counter()
        r = c.get("/api/state")
        took = time.perf_counter() - t0
        assert r.status_code == 200 and took < 2.0, took
        st = r.json()
        assert st["thinking"] is True and st["decisions"] == st0["decisions"]
        assert {k: v for k, v in st.items() if k != "thinking"} == {k: v for k, v in st0.items() if k != "thinking"}
        assert s.thinking
    finally:
        release.set()
        bot.join(30)
    assert got["bot"].status_code == 200
    after = c.get("/api/state").json()
    assert after["thinking"] is False and after["decisions"] > st0["decisions"]


def test_the_game_lock_is_held_by_game_work(tmp_path, monkeypatch):
    """Two moves sent at once: the game takes one; the other is refused as stale (the lock serialises them)."""
    s = new_session(game="schweinebande", bots=("greedy",), players=2)
    c = client(s, tmp_path)
    while not s.table.human_turn():
        c.post("/api/bot")
    at = len(s.table.history)
    inside = []
    real = Table.play

    def play(table, pick):
        inside.append(s.lock.locked())
        time.sleep(0.2)
        return real(table, pick)

    monkeypatch.setattr(Table, "play", play)
    out = []
    threads = [
        threading.Thread(target=lambda: out.append(c.post("/api/move", json={"move": 0, "at": at}).status_code))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(out) == [200, 409] and inside == [True]
