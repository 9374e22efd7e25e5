"""The holes issue 54 lists, probed as an outsider would: through the command line, the play server's HTTP API and
the files people send each other, never through internals. Each probe names the hole it closes; the detailed tests
of each layer live beside it (test_schema, test_saved_fuzz, test_files_safety, test_play_security, test_play_hidden,
test_secret, test_hostile_pages).

Every bad input must give exit code 2 and one line on stderr (no traceback); every bad request a 4xx with
``{"error"}`` and the game unchanged."""

import json
import os
import stat

import pytest
from cli_run import run_cli
from starlette.testclient import TestClient

from meeplab.play import saved
from meeplab.play.server import Session, create_app
from meeplab.play.table import Table, seat_bots
from meeplab.sim.core.registry import get_game

PORT = 47615


def one_line_refusal(code, out, err):
    assert code == 2, (code, out, err)
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("meeplab: error: "), err


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory):
    """A real saved Schweinebande game (a person at P1, two greedy bots), a few decisions in."""
    g = get_game("schweinebande")
    t = Table(g, g.params.resolve({}, g.id), seat_bots(["greedy"], [0], 3), 11, 0)
    for _ in range(3):
        if t.over:
            break
        t.play(0) if t.human_turn() else t.play_bot()
    path = tmp_path_factory.mktemp("saved") / "game.json"
    saved.save(t, path)
    return json.loads(path.read_text())


@pytest.mark.parametrize(
    "change",
    [
        {"players": 99},  # the engine wrote past its arrays (SIGSEGV)
        {"players": 1},  # served as a one-player game
        {"players": 6, "seats": [None] + ["greedy"] * 5},  # a 500
        {"seed": "__5000_DIGITS__"},
        {"seed": 2**64},
        {"index": 2**63},
        {"bot_configs": 5},
        {"bot_configs": "strategies/x.toml"},  # became a tuple of characters
        {"seats": [None, True, "greedy"]},
        {"decisions": [[1, 10**30, "human"]]},
    ],
    ids=lambda c: ",".join(c),
)
def test_a_hostile_saved_game_is_one_line_for_view_and_for_play_resume(saved_game, change, tmp_path, capsys):
    bad = {**saved_game, **change}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad).replace('"__5000_DIGITS__"', "9" * 5000))
    one_line_refusal(*run_cli(["view", str(path), "--out", str(tmp_path / "v.html")], capsys))
    one_line_refusal(*run_cli(["play", "--resume", str(path), "--no-browser"], capsys))
    assert not (tmp_path / "v.html").exists()


def test_a_deeply_nested_saved_game_is_one_line(saved_game, tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({**saved_game, "params": {}})[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    one_line_refusal(*run_cli(["view", str(path), "--out", str(tmp_path / "v.html")], capsys))


@pytest.mark.parametrize(
    "text",
    ['rotate = "false"', "title = 5", 'alpha = "0.05"'],
)
def test_an_experiment_file_with_a_wrong_type_is_one_line(text, tmp_path, capsys):
    """``rotate = "false"`` became True, ``title = 5`` became "5", ``alpha = "0.05"`` crashed later."""
    f = tmp_path / "e.toml"
    f.write_text(f'game = "schweinebande"\nplayers = 3\ngames = 100\n{text}\n[variants.v]\npig_bonus_farm = 3\n')
    one_line_refusal(*run_cli(["experiment", str(f), "--out", str(tmp_path / "out"), "--dry-run"], capsys))


def test_a_misspelt_bot_config_key_is_one_line(tmp_path, capsys):
    f = tmp_path / "b.toml"
    f.write_text('[bots.fast]\nbase = "heuristic"\n[bots.fast.wieghts]\nvalue = 2.0\n')
    code, out, err = run_cli(["bots", "hacienda", "--bot-config", str(f)], capsys)
    one_line_refusal(code, out, err)
    assert "wieghts" in err


@pytest.mark.parametrize("flag", ["--map", "--params", "--bot-config", "--out"])
def test_a_file_name_the_system_refuses_is_one_line(flag, tmp_path, capsys):
    long = str(tmp_path / ("x" * 300))
    args = ["run", "hacienda", "--games", "10", "--out", str(tmp_path / "r")]
    args = [*args[:-2], flag, long] if flag == "--out" else [*args, flag, long + ".haz"]
    one_line_refusal(*run_cli(args, capsys))


def test_the_autosave_is_private_and_a_planted_temp_link_is_not_followed(tmp_path):
    g = get_game("schweinebande")
    t = Table(g, g.params.resolve({}, g.id), seat_bots(["greedy"], [0], 3), 3, 0)
    folder = tmp_path / "saves"
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    folder.mkdir(mode=0o755)
    target = folder / "game.json"
    os.symlink(outside, folder / "game.json.tmp")  # the old fixed temporary name
    saved.save(t, target)
    assert outside.read_text() == "keep me"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    fresh = tmp_path / "new" / "saves"
    saved.save(t, fresh / "g.json")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700


def client(table, tmp_path):
    s = Session(table, None, 0)
    c = TestClient(create_app(s, tmp_path, port=PORT), base_url=f"http://127.0.0.1:{PORT}")
    c.headers["Authorization"] = f"Bearer {s.token}"
    return s, c


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/move", "[" * 100_000 + "]" * 100_000),
        ("post", "/api/seat", '{"seat": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        ("post", "/api/bot", "[" * 100_000 + "]" * 100_000),
        ("post", "/api/move", '{"move": ' + "7" * 5000 + "}"),
        ("get", "/api/log?since=%C2%B2", None),
        ("get", "/api/log?since=" + "9" * 5000, None),
    ],
)
def test_a_hostile_request_is_a_4xx_and_changes_nothing(method, path, body, tmp_path):
    g = get_game("schweinebande")
    _, c = client(Table(g, g.params.resolve({}, g.id), seat_bots(["greedy"], [0], 3), 3, 0), tmp_path)
    before = c.get("/api/state").json()
    got = c.request(method.upper(), path, content=body, headers={"Content-Type": "application/json"})
    assert 400 <= got.status_code < 500 and "error" in got.json(), (got.status_code, got.text[:200])
    assert c.get("/api/state").json() == before


def test_a_foreign_host_or_origin_cannot_act(tmp_path):
    g = get_game("schweinebande")
    s, c = client(Table(g, g.params.resolve({}, g.id), seat_bots(["greedy"], [0], 3), 3, 0), tmp_path)
    assert c.get("/api/state", headers={"Host": "evil.example"}).status_code in (403, 421)
    got = c.post("/api/move", json={"move": 0}, headers={"Origin": "http://evil.example"})
    assert got.status_code == 403 and len(s.table.history) == 0
    assert "content-security-policy" in {k.lower() for k in c.get("/").headers}


def test_another_seats_hacienda_candidate_count_is_not_in_the_log(tmp_path):
    """The count of 'play <card>' options told which card kinds the hidden hand holds."""
    g = get_game("hacienda")
    t = Table(g, g.params.resolve({}, g.id), seat_bots(["greedy"], [0], 3), 4, 0)
    _, c = client(t, tmp_path)
    for _ in range(60):
        if t.over:
            break
        if t.human_turn():
            assert c.post("/api/move", json={"move": 0, "at": len(t.history)}).status_code == 200
        else:
            assert c.post("/api/bot", json={"at": len(t.history)}).status_code == 200
    log = c.get("/api/log").json()["decisions"]
    bots = [d for d in log if not d["human"]]
    actions = [d for d in bots if d["kind"] == "action"]  # the decision whose candidates name the hand's cards
    assert actions and all(d["candidates"] is None for d in actions)
    assert all(d["alternatives"] is None for d in bots)


def test_undo_after_a_revealed_schweinebande_tile_is_refused(tmp_path):
    """Reveal a face-down tile, undo, and reveal showed the same tile: a free look."""
    g = get_game("schweinebande")
    for index in range(20):
        t = Table(g, g.params.resolve({}, g.id), seat_bots(["greedy"], [0], 2), 21, index)
        if not t.human_turn():
            continue
        _, c = client(t, tmp_path)
        labels = [m["label"] for m in c.get("/api/state").json()["legal"]]
        reveal = next((i for i, lab in enumerate(labels) if "reveal" in lab.lower()), None)
        if reveal is None:
            continue
        assert c.post("/api/move", json={"move": reveal, "at": 0}).status_code == 200
        state = c.get("/api/state").json()
        assert state["can_undo"] is False and state["undo_note"]
        assert c.post("/api/undo").status_code == 409
        return
    pytest.fail("no Schweinebande deal offered the person a reveal")


def test_two_new_play_tables_deal_differently(capsys, tmp_path, monkeypatch):
    """Two games started with default options dealt the same table (seed 1, index 0)."""
    from meeplab.cli import play as play_cli

    seeds = []
    monkeypatch.setattr(play_cli, "serve", lambda app, sock: sock.close())  # the server returns at once
    for k in range(2):
        code, _, err = run_cli(["play", "schweinebande", "--no-browser", "--save-dir", str(tmp_path / str(k))], capsys)
        assert code == 0, err
    for f in sorted(tmp_path.glob("*/*.json")):
        seeds.append(json.loads(f.read_text())["seed"])
    assert len(seeds) == 2 and seeds[0] != seeds[1]


def test_a_run_folder_with_brackets_reads_its_own_results(tmp_path, capsys):
    out = tmp_path / "run[1] *?"
    code, _, err = run_cli(["run", "schweinebande", "--games", "40", "--players", "3", "--out", str(out)], capsys)
    assert code == 0, err
    code, _, err = run_cli(["report", str(out), "--out", str(tmp_path / "r [1].html")], capsys)
    assert code == 0, err


def test_a_refused_second_run_leaves_the_folder_and_its_lock_as_they_were(tmp_path, capsys):
    out = tmp_path / "r"
    assert run_cli(["run", "schweinebande", "--games", "40", "--players", "3", "--out", str(out)], capsys)[0] == 0
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.rglob("*") if p.is_file()}
    one_line_refusal(*run_cli(["run", "schweinebande", "--games", "80", "--players", "3", "--out", str(out)], capsys))
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.rglob("*") if p.is_file()}
    assert after == before
