"""The play server locked down (issue 54): who may talk to it (Host, Origin, the token as a cookie from a one-time
launch code or as a bearer header, never in a URL), the headers of every response (a strict Content-Security-Policy
with a fresh nonce), bad requests on every route (4xx with ``{"error"}``, nothing changed), ``GET /api/state``
answering while a bot searches, and, in real Chromium, hostile strings from every source a game's page shows (bot
and variant names, a Hacienda map's name and file name, rule parameters) for every game and the example plugin:
nothing injected runs, no request leaves 127.0.0.1, and the page still plays."""

import os
import re
import threading
import time
from pathlib import Path

import play_setups
import pytest
from play_setups import small_params
from starlette.testclient import TestClient

from meeplab.play import server as play_server
from meeplab.play.server import MAX_BODY, MAX_DEPTH, Session, cookie_name, create_app
from meeplab.play.table import Table, seat_bots
from meeplab.sim.core.registry import get_game

# screenshots for a person to look at: MEEPLAB_PLAY_SHOTS=DIR pytest tests/test_play_security.py
SHOTS = Path(os.environ["MEEPLAB_PLAY_SHOTS"]) if os.environ.get("MEEPLAB_PLAY_SHOTS") else None
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
    for site in ("cross-site", "same-site"):  # same-site: another port of 127.0.0.1
        r = c.post("/api/move", json={"move": 0}, headers={"Sec-Fetch-Site": site})
        assert r.status_code == 403
        assert c.get("/api/state", headers={"Sec-Fetch-Site": site}).status_code == 403
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
    assert again.head(f"/launch/{code}").status_code == 405
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
    assert c.options("/api/state").status_code == 405


def test_websockets_are_refused(session, tmp_path):
    from starlette.websockets import WebSocketDisconnect

    c = client(session, tmp_path)
    with pytest.raises(WebSocketDisconnect), c.websocket_connect("/api/state"):
        pass


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


# -- hostile strings in real Chromium ------------------------------------------------------------------------------

# each tries a different way to run script: an element with a handler, a script element, an SVG element with onload,
# a javascript: link; every one sets window.__pwned where it runs
EVIL = '"><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
EVIL_FILE = "<svg onload=window.__pwned=3>"  # a file name (no slash)
EVIL_SVG = "</text><a href=\"javascript:window.__pwned=4\"><text>x</text></a><image href='http://evil.test/x.png'/>"
HOSTILE_GAMES = {  # game -> players (the person at P1, hostile bots on the other seats)
    "acbas": 2,
    "goldrush": 2,
    "hacienda": 2,
    "schweinebande": 2,
    "nothanks": 3,
}
CSP_WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.violatedDirective + " " + e.blockedURI);
});
"""
PLAY_READY = (
    "() => { const p = window.meeplabPlay; return p && p.state && !p.busy && (p.state.over || p.state.pass_to ||"
    " p.state.legal.length > 0); }"
)


def hostile_session(game, folder):
    """A small game of ``game`` whose bots' names, map name, map file name and file parameters are hostile."""
    import shutil

    from play_setups import small_goldrush_deck

    bot = EVIL + EVIL_SVG
    toml = folder / "bots.toml"
    quoted = bot.replace("\\", "\\\\").replace('"', '\\"')
    toml.write_text(f'[bots."{quoted}"]\nbase = "greedy"\ndescription = "{quoted}"\n', encoding="utf-8")
    g = get_game(game)
    over = small_params(game) if game in ("schweinebande", "hacienda", "acbas") else {}
    if game == "hacienda":
        import meeplab.sim.hacienda as hacienda

        src = (Path(hacienda.__file__).parent / "maps" / "A.haz").read_text(encoding="utf-8")
        src = re.sub(r"(?m)^MapName=.*$", lambda m: "MapName=" + EVIL + EVIL_SVG, src)
        path = folder / f"{EVIL_FILE}.haz"
        path.write_text(src, encoding="utf-8")
        over["map"] = str(path)
    if game == "goldrush":
        path = folder / f"{EVIL_FILE}.csv"
        shutil.copy(small_goldrush_deck(), path)
        over["deck"] = str(path)
    players = HOSTILE_GAMES[game]
    seats = seat_bots([bot], [0], players)
    return Session(Table(g, g.params.resolve(over, g.id), seats, 5, 0, (str(toml),)), None, 0), bot


@pytest.fixture(scope="module")
def hostile_pages(browser, tmp_path_factory):
    """game -> what the page of a hostile game showed and did over a few moves (each game played once)."""
    import random
    from urllib.parse import urlsplit

    seen = {}

    def observe(game):
        if game in seen:
            return seen[game]
        folder = tmp_path_factory.mktemp(f"hostile-{game}")
        session, bot = hostile_session(game, folder)
        got = {"requests": [], "dialogs": [], "errors": [], "bot": bot, "clicks": 0}
        to_end = game == "schweinebande"  # one game played to its end screen, saved to a folder of a hostile name
        with play_setups.Server(session, folder / EVIL_FILE) as srv:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(60000)
            page.add_init_script(CSP_WATCH)
            page.on("request", lambda r: got["requests"].append(r.url))
            page.on("dialog", lambda d: (got["dialogs"].append(d.message), d.dismiss()))
            page.on("pageerror", lambda e: got["errors"].append(str(e)))
            page.goto(srv.launch_url())
            rng = random.Random(1)
            for _ in range(300 if to_end else 6):
                page.wait_for_function(PLAY_READY, timeout=90000)
                if page.evaluate("window.meeplabPlay.state.over"):
                    break
                before = len(session.table.history)
                renders = page.evaluate("window.meeplabPlay.renders")
                buttons = page.locator("#legal button.move")
                buttons.nth(rng.randrange(buttons.count())).click()
                page.wait_for_function(f"() => window.meeplabPlay.renders > {renders}")
                got["clicks"] += len(session.table.history) > before
            page.wait_for_function(PLAY_READY, timeout=90000)
            if to_end:
                assert page.evaluate("window.meeplabPlay.state.over")
                page.click("#save")
                page.wait_for_selector("#saved-note code")
                got["final"] = page.locator("#final").inner_text()
                got["saved_note"] = page.locator("#saved-note code").inner_text()
            got["pwned"] = page.evaluate("window.__pwned")
            got["csp"] = page.evaluate("window.__csp")
            got["seats"] = page.locator("#seats").inner_text()
            got["log"] = page.locator("#log").inner_text()
            got["board_svg"] = page.locator("#board svg").count()
            got["board_text"] = page.locator("#board").text_content()
            got["port"] = srv.port
            if SHOTS and game == "hacienda":
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / "hostile-hacienda.png"))
            # the control: markup inserted as HTML after all (as the page never does) runs nothing either, by the CSP
            page.evaluate("(html) => document.body.insertAdjacentHTML('beforeend', html)", EVIL + EVIL_SVG)
            page.wait_for_function("() => window.__csp.length > 0", timeout=5000)
            got["control_pwned"] = page.evaluate("window.__pwned")
            got["control_csp"] = page.evaluate("window.__csp")
            got["hosts"] = {(urlsplit(u).hostname, urlsplit(u).port) for u in got["requests"]}
            page.close()
        seen[game] = got
        return got

    return observe


@pytest.mark.parametrize("game", list(HOSTILE_GAMES))
def test_hostile_strings_run_nothing_and_reach_nothing(hostile_pages, game):
    got = hostile_pages(game)
    assert got["pwned"] is None, f"injected script ran on the {game} page"
    assert not got["dialogs"] and not got["errors"], (got["dialogs"], got["errors"])
    assert got["hosts"] == {("127.0.0.1", got["port"])}, got["requests"]  # nothing left 127.0.0.1
    assert got["clicks"] >= 3, "the page did not play"
    assert got["control_pwned"] is None and any("script-src" in v for v in got["control_csp"]), got["control_csp"]
    # the bot's name shown as text, whole (and the saved game's folder, on the end screen)
    assert EVIL in got["seats"] and EVIL in got["log"]
    if "final" in got:
        assert EVIL in got["final"] and EVIL_FILE in got["saved_note"]


@pytest.mark.parametrize("game", list(HOSTILE_GAMES))
def test_hostile_strings_are_escaped_at_source(hostile_pages, game):
    """Separately from the CSP (which would block an injected handler anyway): the drawing modules escape what they
    draw, so the board is well-formed SVG, shows the hostile map name as text, and nothing even tried to run (no CSP
    violation reported)."""
    got = hostile_pages(game)
    assert got["csp"] == [], got["csp"]
    if get_game(game).draw is not None:
        assert got["board_svg"] == 1, f"the {game} board is not well-formed SVG (an unescaped name?)"
    if game == "hacienda":  # the drawing may shorten a long name: its start shown as text
        assert EVIL[:12] in got["board_text"], "the map's name is not shown as text on the board"
