"""Every command on a plugin game (issue 59): a game scaffolded by ``meeplab new`` a moment ago and the example
plugins (No Thanks! and Goofspiel, with its secret bids) each play run, report, compare, sweep, fair, experiment,
tournament, options, tune, ladder with its default rungs, quality, learn (and a run of the bot it learned), view,
play (through the play page's API), replay and check on a tiny budget, exit 0 and write what they write for a
built-in game.

The scaffold is the one tests/test_plugins.py installs (``pip install --target``): its scaffold test runs this
module's scaffold cases in a process that has it on ``PYTHONPATH``; nothing here edits ``sys.path``."""

import json
import os
import random
import tomllib
from pathlib import Path

import pytest

from meeplab.cli import main

pytest.importorskip("meeplab_nothanks", reason="the example plugin is not installed (pip install -e examples/nothanks)")
pytest.importorskip(
    "meeplab_goofspiel", reason="the example plugin is not installed (pip install -e examples/goofspiel)"
)

SCAFFOLD_ENV = "MEEPLAB_TEST_SCAFFOLD"  # names the installed scaffold game (see the scaffold fixture)

# per plugin: the player count, a numeric rule parameter with two values to compare, sweep and search over, and
# rule overrides that keep its games short
PLUGINS = {
    "scaffold": (2, "target", (20, 30), ("target=30",)),
    "nothanks": (3, "chips", (9, 11), ()),
    "goofspiel": (2, "cards", (5, 6), ("cards=6",)),
}
LADDER = ["random", "greedy", "heuristic", "rollout", "ismcts"]  # meeplab ladder's default rungs
COMMANDS = (
    "run", "report", "compare", "sweep", "fair", "experiment", "tournament", "options", "tune", "ladder", "quality",
    "learn", "view", "play", "replay", "check",
)  # fmt: skip


@pytest.fixture(scope="module")
def scaffold():
    """The id of a game ``meeplab new`` wrote a moment ago. It is importable only where it was installed:
    tests/test_plugins.py's scaffold test pip-installs it into a folder and runs this module's scaffold cases in a
    process whose ``PYTHONPATH`` holds that folder, naming the game in :data:`SCAFFOLD_ENV`; elsewhere they are not
    collected."""
    return os.environ[SCAFFOLD_ENV]


def game_of(plugin, request) -> str:
    return request.getfixturevalue("scaffold") if plugin == "scaffold" else plugin


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One small run per plugin game, made by the first test that needs it (report and check read it)."""
    made: dict[str, Path] = {}

    def get(game: str, p: int, sets) -> Path:
        if game not in made:
            out = tmp_path_factory.mktemp("runs") / game
            args = ["run", game, "-q", "-p", str(p), "-b", "greedy,random", "-n", "30", "-o", str(out)]
            assert main([*args, *(x for s in sets for x in ("--set", s))]) == 0
            made[game] = out
        return made[game]

    return get


def play_through_api(game: str, p: int, tmp: Path) -> dict:
    """A whole game on the play page's API (meeplab play without a browser): seat 1 a person playing random legal
    moves, the other seats ``meeplab play``'s default bot (tuned); returns the final state."""
    from starlette.testclient import TestClient

    from meeplab.play.server import Session, create_app
    from meeplab.play.table import Table, seat_bots
    from meeplab.sim.core.registry import get_game

    g = get_game(game)
    table = Table(g, g.params.resolve({}, g.id), seat_bots(["tuned"], [0], p), 3, 0, ())
    session = Session(table, tmp / "game.json", 0)
    client = TestClient(create_app(session, tmp, port=47614), base_url="http://127.0.0.1:47614")
    client.headers["Authorization"] = f"Bearer {session.token}"
    assert client.get("/").status_code == 200
    rng = random.Random(1)
    for _ in range(5000):
        st = client.get("/api/state").json()
        if st["over"]:
            return st
        if st["pass_to"]:
            r = client.post("/api/seat", json={"seat": st["pass_to"]})
        elif st["bot_turn"]:
            r = client.post("/api/bot", json={"at": st["decisions"]})
        else:
            legal = st["legal"]
            r = client.post("/api/move", json={"move": rng.choice(legal)["id"], "at": st["decisions"]})
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("command", COMMANDS)
# the scaffold's cases are collected only where it is installed (tests/test_plugins.py's subprocess), not skipped
@pytest.mark.parametrize("plugin", [k for k in PLUGINS if k != "scaffold" or os.environ.get(SCAFFOLD_ENV)])
def test_every_command_on_a_plugin(plugin, command, request, runs, tmp_path, capsys):
    game = game_of(plugin, request)
    p, param, (v1, v2), sets = PLUGINS[plugin]
    rules = [x for s in sets if not s.startswith(f"{param}=") for x in ("--set", s)]
    out = tmp_path / command
    small = ["-p", str(p), "-b", "greedy,random"]
    if command == "run":
        args, wrote = ["run", game, *small, "-n", "30", *rules, "-o", str(out)], ["run.json", "results.parquet"]
    elif command == "report":
        args, wrote = ["report", str(runs(game, p, sets)), "--out", str(out / "r.html")], ["r.html"]
    elif command == "check":
        args, wrote = ["check", str(runs(game, p, sets))], []
    elif command == "compare":
        args = ["compare", game, *small, "-n", "30", *rules, "--set", f"{param}={v1}", "-o", str(out)]
        wrote = ["report.html", "variant/results.parquet"]
    elif command == "sweep":
        args = ["sweep", game, *small, "-n", "20", *rules, "--param", param, "--values", f"{v1};{v2}", "-o", str(out)]
        wrote = ["report.html", f"{param}={v1}/run.json"]
    elif command == "fair":
        args = ["fair", game, *small, "-n", "20", *rules, "--param", param, "--range", f"{v1}:{v2}", "--steps", "1"]
        args, wrote = [*args, "-o", str(out)], ["fair.json", "report.html"]
    elif command == "experiment":
        toml = tmp_path / "e.toml"
        toml.write_text(
            f'game = "{game}"\nplayers = {p}\nbots = "greedy,random"\ngames = 20\n'
            + (("[baseline]\n" + "".join(f"{s.replace('=', ' = ')}\n" for s in sets)) if sets else "")
            + f"[variants.v]\n{param} = {v1}\n"
        )
        args, wrote = ["experiment", str(toml), "-o", str(out)], ["report.html", "v"]
    elif command == "tournament":
        args = ["tournament", game, "-p", str(p), "-b", "greedy,heuristic,random", "-n", "10", *rules, "-o", str(out)]
        wrote = ["tournament.json", "report.html"]
    elif command == "options":  # its default bot: heuristic
        args, wrote = ["options", game, "-p", str(p), "-n", "10", *rules, "-o", str(out)], ["options.json"]
    elif command == "tune":
        args = ["tune", game, "--bot", "heuristic", "-p", str(p), "--vs", "greedy", "--budget", "60", *rules]
        args, wrote = [*args, "--games-per-eval", "4", "--final-games", "10", "-o", str(out / "t.toml")], ["t.toml"]
    elif command == "ladder":  # its default rungs: random, greedy, heuristic, rollout, ismcts
        args, wrote = ["ladder", game, "-p", str(p), "-n", "4", *rules, "-o", str(out)], ["ladder.json", "report.html"]
    elif command == "quality":
        args = ["quality", game, *small, "-n", "20", *rules, "--trajectory-games", "1", "--playouts", "4"]
        args = [*args, "--points", "3", "--skill-games", "2", "-o", str(out)]
        wrote = ["quality.json"]
    elif command == "learn":  # a few games of a cheap teacher; the learned bot then plays a run (below)
        args = ["learn", game, "-p", str(p), "--teacher", "heuristic", "-n", "4", "-t", "1", *rules, "-o", str(out)]
        wrote = ["learned.toml"]
    elif command == "view":
        args, wrote = ["view", game, "-p", str(p), *rules, "--out", str(out / "v.html")], ["v.html"]
    elif command == "replay":
        args, wrote = ["replay", game, "-p", str(p), "-b", "rollout,greedy", *rules, "--explain"], []
    else:
        assert command == "play"
        out.mkdir()
        st = play_through_api(game, p, out)
        assert st["result"]["rank"] and (out / "game.json").is_file()
        return
    code = main([*args, "-q"] if command not in ("report", "check", "view", "replay") else args)
    stdout, err = capsys.readouterr()
    assert code == 0, err
    for name in wrote:
        assert (out / name).exists(), f"{command} did not write {name}: {sorted(x.name for x in out.iterdir())}"
    if command == "replay":
        assert "search:" in stdout and "seat" in stdout.lower()
    if command == "tune":
        assert tomllib.loads((out / "t.toml").read_text())["bots"]["tuned"]["base"] == "heuristic"
    if command == "ladder":
        assert json.loads((out / "ladder.json").read_text())["rungs"] == LADDER
    if command == "learn":  # the learned bot (base "policy" over the game's declared features) plays
        assert tomllib.loads((out / "learned.toml").read_text())["bots"]["learned"]["base"] == "policy"
        played = out / "run"
        toml = str(out / "learned.toml")
        code = main(["run", game, "-q", "-p", str(p), "-b", "learned,greedy", "-n", "20", *rules, "--bot-config", toml,
                     "-o", str(played)])  # fmt: skip
        assert code == 0, capsys.readouterr().err
        meta = json.loads((played / "run.json").read_text())
        assert meta["bots"] == ["learned", "greedy"] and meta["games_completed"] == {str(p): 20}
