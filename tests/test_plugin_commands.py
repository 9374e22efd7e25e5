"""The commands not covered by tests/test_plugins.py (sweep, ladder, tune, tournament) on the example plugin game
(No Thanks!, lowest score wins), unchanged: each plays, writes what it writes for a built-in game, and reads the
score direction right (the bot that scores lowest comes out best)."""

import json
import tomllib

import pytest

from meeplab.cli import main

pytest.importorskip("meeplab_nothanks", reason="the example plugin is not installed (pip install -e examples/nothanks)")


def cli_json(args, capsys):
    code = main([*args, "--quiet", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_sweep_on_the_plugin_game(tmp_path, capsys):
    out = tmp_path / "sw"
    table = cli_json(
        ["sweep", "nothanks", "-p", "3", "-b", "greedy,random", "-n", "100", "--param", "chips", "--values", "9;11",
         "-o", str(out)],
        capsys,
    )  # fmt: skip
    assert [r["run"] for r in table["rows"]] == ["chips=9", "chips=11"]
    for row in table["rows"]:
        assert row["win greedy"] > row["win random"]  # greedy's scores are far lower: it wins once lower wins
    assert "gap change" in table["rows"][1]
    assert (out / "report.html").is_file()
    for v in (9, 11):
        meta = json.loads((out / f"chips={v}" / "run.json").read_text())
        assert meta["status"] == "complete" and meta["params"]["chips"] == v and meta["lower_wins"] is True


def test_ladder_on_the_plugin_game(tmp_path, capsys):
    table = cli_json(
        ["ladder", "nothanks", "-p", "3", "-b", "random,greedy", "-n", "60", "-o", str(tmp_path / "l")], capsys
    )
    pair = [r for r in table["rows"] if r["rung"] == "greedy vs random"]
    assert len(pair) == 1 and pair[0]["win share"] > 0.5
    assert (tmp_path / "l" / "report.html").is_file()


def test_tune_on_the_plugin_game_writes_a_variant_that_plays(tmp_path, capsys):
    toml = tmp_path / "t.toml"
    args = ["tune", "nothanks", "--quiet", "--bot", "heuristic", "-p", "3", "--vs", "greedy", "--budget", "400"]
    code = main([*args, "--games-per-eval", "10", "--final-games", "40", "-o", str(toml)])
    assert code == 0, capsys.readouterr().err
    variant = tomllib.loads(toml.read_text())["bots"]["tuned"]
    assert variant["base"] == "heuristic" and variant["weights"]
    capsys.readouterr()
    run = ["run", "nothanks", "-p", "3", "-b", "tuned,greedy", "-n", "30", "--bot-config", str(toml)]
    assert main([*run, "--quiet", "-o", str(tmp_path / "r")]) == 0, capsys.readouterr().err


def test_tournament_on_the_plugin_game_ranks_the_lowest_scorer_first(tmp_path, capsys):
    out = tmp_path / "tn"
    table = cli_json(
        ["tournament", "nothanks", "-p", "3", "-b", "greedy,heuristic,random", "-n", "60", "-o", str(out)], capsys
    )
    order = [r["bot"] for r in table["rows"]]
    assert order[-1] == "random", order  # random takes cards it should not: the highest scores, the last place
    assert (out / "report.html").is_file() and (out / "tournament.json").is_file()
