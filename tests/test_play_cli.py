"""``meeplab play``: the command builds the game and its app, prints a tokenised 127.0.0.1 URL, saves the game, resumes
a saved one, and refuses bad input with one line and exit 2 (the server itself is swapped for a test client)."""

import json
import re

import pytest
from starlette.testclient import TestClient

from meeplab.cli import main
from meeplab.cli import play as play_cli


@pytest.fixture
def served(monkeypatch):
    """Replace the blocking server by a record of what it would serve, and never open a browser."""
    got = {}

    def fake_serve(app, port):
        got["app"], got["port"] = app, port

    monkeypatch.setattr(play_cli, "serve", fake_serve)
    monkeypatch.setattr("webbrowser.open", lambda url: got.setdefault("opened", url))
    return got


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
    m = re.search(r"open (http://127\.0\.0\.1:(\d+)/\?token=([\w-]+))", out)
    assert m and int(m.group(2)) == served["port"] and served["opened"] == m.group(1)
    assert "people at P2; bots P1 greedy, P3 random" in out
    token = m.group(3)
    client = TestClient(served["app"])
    assert client.get("/api/state").status_code == 401
    st = client.get("/api/state", params={"token": token}).json()
    assert st["seat"] == 2 and st["players"] == 3
    files = list(tmp_path.glob("schweinebande-*.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert data["seats"] == ["greedy", None, "random"] and data["seed"] == 4 and data["params"]["rounds"] == 1
    # P1 (a bot) moves first; then resume the file: the same table
    while client.get("/api/state", params={"token": token}).json()["bot_turn"]:
        client.post("/api/bot", params={"token": token})
    before = client.get("/api/state", params={"token": token}).json()
    assert main(["play", "--resume", str(files[0]), "--no-browser", "--port", str(play_cli.free_port())]) == 0
    again = TestClient(served["app"]).get("/api/state", params={"token": _token(served["app"])}).json()
    assert {k: v for k, v in again.items() if k != "saved_to"} == {k: v for k, v in before.items() if k != "saved_to"}


def _token(app):
    return app.token


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
    ],
)
def test_bad_input_is_one_line_and_exit_2(served, tmp_path, capsys, args, message):
    rc = main(["play", *args, "--no-browser", "--save-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "app" not in served
