"""``meeplab play``: the command builds the game and its app, prints a one-time launch link to 127.0.0.1 (never the
token), saves the game, resumes a saved one, deals a random table unless --seed is given, writes the token file, and
refuses bad input with one line and exit 2 (the server itself is swapped for a test client); and the real command as
a subprocess: the link printed is served at once."""

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from starlette.testclient import TestClient

from meeplab.cli import main
from meeplab.cli import play as play_cli


@pytest.fixture
def served(monkeypatch):
    """Replace the blocking server by a record of what it would serve, and never open a browser."""
    got = {}

    def fake_serve(app, sock):
        got["app"], got["port"] = app, sock.getsockname()[1]
        got.setdefault("apps", []).append(app)

    monkeypatch.setattr(play_cli, "serve", fake_serve)
    monkeypatch.setattr("webbrowser.open", lambda url: got.setdefault("opened", url) is not None)
    return got


def client_of(app, token=True):
    """A test client of a served app (its Host as the browser would send it), with the bearer token."""
    c = TestClient(app, base_url=f"http://127.0.0.1:{app.port}", follow_redirects=False)
    if token:
        c.headers["Authorization"] = f"Bearer {app.token}"
    return c


def test_play_prints_the_url_and_serves_the_game(served, tmp_path, capsys):
    rc = main(
        [
            "play",
            "schweinebande",
            "--players",
            "3",
            "--human",
            "2",
            "--bots",
            "greedy,random",
            "--set",
            "rounds=1",
            "--seed",
            "4",
            "--save-dir",
            str(tmp_path),
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    launch = served["opened"]  # the browser is started with a one-time launch link, not the token
    m = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/launch/([\w-]+)", launch)
    assert m and int(m.group(1)) == served["port"] and f"opened http://127.0.0.1:{served['port']}/" in out
    app = served["app"]
    assert app.token not in out and app.token not in launch and m.group(2) != app.token
    assert "people at P2; bots P1 greedy, P3 random" in out
    browser = client_of(app, token=False)
    assert browser.get("/api/state").status_code == 401
    assert browser.get(f"/launch/{m.group(2)}").status_code == 303  # the cookie
    st = browser.get("/api/state").json()
    assert st["seat"] == 2 and st["players"] == 3
    assert client_of(app, token=False).get(f"/launch/{m.group(2)}").status_code == 403  # once
    client = client_of(app)
    files = list(tmp_path.glob("schweinebande-*.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert data["seats"] == ["greedy", None, "random"] and data["seed"] == 4 and data["params"]["rounds"] == 1
    # P1 (a bot) moves first; then resume the file: the same table
    while client.get("/api/state").json()["bot_turn"]:
        client.post("/api/bot")
    before = client.get("/api/state").json()
    port = play_cli.free_port()
    assert main(["play", "--resume", str(files[0]), "--no-browser", "--port", str(port)]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"open http://127\.0\.0\.1:{port}/launch/[\w-]+\n", out)
    again = client_of(served["app"]).get("/api/state").json()
    assert {k: v for k, v in again.items() if k != "saved_to"} == {k: v for k, v in before.items() if k != "saved_to"}


def test_default_deal_is_random_and_recorded(served, tmp_path):
    """Two games started with default options deal different tables; the saved game records the seed; --seed
    gives the same table again."""
    seeds = []
    for k in range(2):
        folder = tmp_path / f"g{k}"
        assert main(["play", "schweinebande", "--bots", "greedy", "--no-browser", "--save-dir", str(folder)]) == 0
        seeds.append(json.loads(next(folder.glob("*.json")).read_text())["seed"])
    first, second = served["apps"]
    assert seeds[0] != seeds[1] and all(0 <= s < 2**63 for s in seeds)
    assert first.session.table.rec.tobytes() != second.session.table.rec.tobytes()
    assert (
        main(
            [
                "play",
                "schweinebande",
                "--bots",
                "greedy",
                "--seed",
                str(seeds[0]),
                "--no-browser",
                "--save-dir",
                str(tmp_path / "again"),
            ]
        )
        == 0
    )
    assert served["apps"][-1].session.table.rec.tobytes() == first.session.table.rec.tobytes()


def play_with_token_file(path, saves) -> int:
    """``meeplab play schweinebande --no-browser --token-file PATH`` (saves in ``saves``): its exit code."""
    return main(
        [
            "play",
            "schweinebande",
            "--bots",
            "greedy",
            "--no-browser",
            "--token-file",
            str(path),
            "--save-dir",
            str(saves),
        ]
    )


def test_token_file_is_private_and_removed_after(served, tmp_path, capsys):
    path = tmp_path / "token"
    rc = play_with_token_file(path, tmp_path / "saves")
    assert rc == 0
    out = capsys.readouterr().out
    app = served["app"]
    assert app.token not in out and f"token in {path}" in out
    assert not path.exists()  # removed once the server stopped (here: at once, the server is swapped out)


def test_token_file_while_serving(monkeypatch, tmp_path):
    path = tmp_path / "token"
    seen = {}

    def fake_serve(app, sock):
        seen["mode"] = os.stat(path).st_mode & 0o777
        seen["text"] = path.read_text()
        seen["app"] = app

    monkeypatch.setattr(play_cli, "serve", fake_serve)
    rc = play_with_token_file(path, tmp_path / "saves")
    assert rc == 0 and seen["mode"] == 0o600 and seen["text"].strip() == seen["app"].token
    assert (
        client_of(seen["app"], token=False)
        .get("/api/state", headers={"Authorization": f"Bearer {seen['text'].strip()}"})
        .status_code
        == 200
    )


def test_the_url_is_printed_once_the_server_listens(tmp_path):
    """The real command: the launch link is served the moment it is printed (no "connection refused")."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [
        sys.executable,
        "-m",
        "meeplab.cli",
        "play",
        "schweinebande",
        "--bots",
        "greedy",
        "--no-browser",
        "--delay",
        "0",
        "--save-dir",
        str(tmp_path),
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env
    )
    try:
        url = None
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            m = re.match(r"open (http://127\.0\.0\.1:\d+/launch/[\w-]+)$", line.strip())
            if m:
                url = m.group(1)
                break
        assert url, proc.stderr.read() if proc.poll() is not None else "no launch link printed"

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *a, **k):
                return None

        try:  # at once: the socket listens before the link is printed
            urllib.request.build_opener(NoRedirect).open(url, timeout=30)
            raise AssertionError("the launch link did not redirect")
        except urllib.error.HTTPError as exc:
            assert exc.code == 303 and "HttpOnly" in exc.headers["Set-Cookie"]
        assert "token" not in url
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.mark.parametrize(
    "args, message",
    [
        (["schweinebande", "--human", "4"], "seat 4 does not exist"),
        (["schweinebande", "--human", "1", "--bots", "greedy,greedy,greedy"], "bot seat"),
        (["schweinebande", "--bots", "nosuchbot"], "unknown bot"),
        (["schweinebande", "--players", "9"], "players"),
        (["schweinebande", "--set", "rounds=99"], "rounds"),
        (["nosuchgame"], "unknown game"),
        ([], "name the GAME"),
        (["--resume", "missing.json"], "no such saved game"),
        (["schweinebande", "--port", "70000"], "--port"),
        (["schweinebande", "--delay", "-1"], "--delay"),
        (["schweinebande", "--seed", "-1"], "--seed"),
        (["schweinebande", "--seed", str(2**63)], "--seed"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(served, tmp_path, capsys, args, message):
    rc = main(["play", *args, "--no-browser", "--save-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "app" not in served
