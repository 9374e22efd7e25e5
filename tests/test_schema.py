"""The one schema layer for files people write or send (``meeplab.sim.core.schema``): saved games, experiment files,
bot-config files and run.json. Every problem is one MeeplabError line naming the file, the field and what is wrong;
the CLI turns it into one stderr line and exit 2."""

import json
from pathlib import Path

import pytest
from cli_run import run_cli

from meeplab.lab.runs import rundir
from meeplab.lab.studies import experiment as ex
from meeplab.play import saved
from meeplab.play.table import Table
from meeplab.sim.core import schema
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.registry import get_game

ROOT = Path(__file__).resolve().parents[1]


def one_line(exc_info) -> str:
    text = str(exc_info.value)
    assert "\n" not in text, text
    return text


# -- JSON with caps ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message",
    [
        ("[" * 65 + "]" * 65, "nested more than 64"),
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than 64"),
        ("9" * 5000, "5000 digits"),
        ("[1e999]", "too large"),
        ("[NaN]", "NaN is not a number"),
        ("{", "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_json_caps_are_one_line(text, message):
    with pytest.raises(MeeplabError) as e:
        schema.parse_json(text, "x.json")
    assert message in one_line(e) and one_line(e).startswith("x.json: ")


def test_json_brackets_inside_strings_are_no_nesting():
    text = json.dumps({"a": "[" * 500, "b": ['\\"[[[', "{" * 100]})
    assert schema.parse_json(text, "x.json")["a"] == "[" * 500
    assert schema.nesting_depth(json.dumps([[[1]]]), 2) == 3


def test_json_size_cap(tmp_path):
    p = tmp_path / "big.json"
    p.write_text(" " * 100 + "{}")
    with pytest.raises(MeeplabError, match="too large"):
        schema.read_json(p, "saved game", max_bytes=50)
    assert schema.read_json(p, "saved game") == {}


# -- saved games -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def good():
    """A saved Schweinebande game of 3 seats (a person at P1) a few decisions in."""
    g = get_game("schweinebande")
    table = Table(g, g.params.resolve({"rounds": 1}, g.id), [None, "greedy", "random"], 11, 2, ())
    for _ in range(8):
        if table.over:
            break
        table.play(0) if table.human_turn() else table.play_bot()
    return saved.to_dict(table)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"players": 99}, "players: 99 is outside schweinebande's 2..5 players"),
        ({"players": 1}, "players: 1 is outside"),
        ({"players": 6}, "players: 6 is outside"),
        ({"players": True}, "players: must be a whole number, got True"),
        ({"players": "3"}, "players: must be a whole number, got '3'"),
        ({"seed": 2**64}, "seed: 18446744073709551616 is out of range (at most 2**63-1)"),
        ({"seed": -1}, "seed: -1 is out of range (at least 0)"),
        ({"index": 2**63}, "index: 9223372036854775808 is out of range"),
        ({"seed": 1.5}, "seed: must be a whole number"),
        ({"bot_configs": 5}, "bot_configs: must be a list, got 5"),
        ({"bot_configs": "abc"}, "bot_configs: must be a list, got 'abc'"),
        ({"bot_configs": ["nope.toml"]}, "bot config not found"),
        ({"seats": [None, "greedy", "grandmaster"]}, "seats[2]: unknown bot 'grandmaster'"),
        ({"seats": [None, 5, "random"]}, "seats[1]: must be a text, got 5"),
        ({"seats": [None]}, "seats: 1 seats listed for 3 players"),
        ({"params": {"rounds": 99999}}, "params: parameter 'rounds'"),
        ({"params": {"roundz": 1}}, "params: unknown parameter 'roundz'"),
        ({"params": 5}, "params: must be a table"),
        ({"decisions": [[1, "a", "human"]]}, "decisions[0][1]: must be a whole number, got 'a'"),
        ({"decisions": [[7, 0, "human"]]}, "decisions[0][0]: seat 7 is outside 1..3"),
        ({"decisions": [[1, 0, "cheat"]]}, "decisions[0][2]"),
        ({"decisions": [[1, 10**9, "human"]]}, "decisions[0][1]: 1000000000 is out of range"),
        ({"decisions": [[1, 0]]}, "decisions[0]"),
        ({"decisions": [[1, 0, "human"]] * 100_001}, "decisions: must have at most 100000 entries"),
        ({"game": "chess"}, "game: unknown game 'chess'"),
        ({"version": True}, "saved game version True"),
        ({"version": 2}, "saved game version 2"),
        ({"format": "x"}, 'no "format": "meeplab-play"'),
        ({"extra": 1}, "unknown key 'extra'"),
        ({"sede": 1}, "unknown key 'sede' (did you mean 'seed'?)"),
    ],
)
def test_saved_game_problems_are_one_line(good, tmp_path, change, message):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({**good, **change}))
    with pytest.raises(MeeplabError) as e:
        saved.load(p)
    assert message in one_line(e) and one_line(e).startswith(f"{p}: ")


def test_saved_game_missing_field_is_named(good, tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({k: v for k, v in good.items() if k != "seed"}))
    with pytest.raises(MeeplabError, match=r"x\.json: missing 'seed'"):
        saved.read(p)


def test_saved_game_round_trip_and_private(good, tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps(good))
    data = saved.read(p)
    assert data["decisions"] == good["decisions"] and data["seed"] == 11 and data["index"] == 2
    table = saved.table_of(data)
    assert table.n_players == 3 and len(table.history) >= len(good["decisions"])
    out = saved.save(table, tmp_path / "private" / "again.json")
    assert (out.stat().st_mode & 0o777) == 0o600 and (out.parent.stat().st_mode & 0o777) == 0o700
    assert saved.read(out)["decisions"] == good["decisions"]


def test_table_of_checks_a_dict_too(good):
    with pytest.raises(MeeplabError, match="players: 99 is outside"):
        saved.table_of({**good, "players": 99}, "given")


def test_view_of_a_bad_saved_game_is_exit_2(good, tmp_path, capsys):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({**good, "players": 99}))
    code, _, err = run_cli(["view", str(p), "--out", str(tmp_path / "x.html")], capsys)
    assert code == 2 and "players: 99 is outside" in err and len(err.strip().splitlines()) == 1, err


# -- experiment files ------------------------------------------------------------------------------------------

EXP = 'game = "schweinebande"\nbots = "greedy"\ngames = 10\n{extra}\n[variants.v]\nrounds = 3\n'


@pytest.mark.parametrize(
    "extra, message",
    [
        ('rotate = "false"', "rotate: must be true or false, got 'false'"),
        ("title = 5", "title: must be a text, got 5"),
        ('seed = "1"', "seed: must be a whole number, got '1'"),
        ("seed = true", "seed: must be a whole number, got True"),
        ("seed = 99999999999999999999", "seed: 99999999999999999999 is out of range"),
        ("bot_configs = 5", "bot_configs: must be a list"),
        ('bot_configs = "a.toml"', "bot_configs: must be a list"),
        ("players = true", "players: must be a count"),
        ("players = [2, 99]", "players: must be a non-empty list of player counts"),
        ("out = 1", "out: must be a text"),
        ("rotat = false", "unknown key 'rotat' (did you mean 'rotate'?)"),
        ('[sprt]\nalpha = "0.05"\ndelta = 0.02', "sprt.alpha: must be a number, got '0.05'"),
        ("[sprt]\nbatch = 1.5\ndelta = 0.02", "sprt.batch: must be a whole number"),
        ("[sprt]\ndelt = 0.02", "unknown key 'delt' (did you mean 'delta'?)"),
    ],
)
def test_experiment_types_are_strict(extra, message, tmp_path, capsys):
    f = tmp_path / "e.toml"
    text = EXP.format(extra=extra) if not extra.startswith("[") else EXP.format(extra="") + extra + "\n"
    f.write_text(text)
    with pytest.raises(MeeplabError) as e:
        ex.load(f)
    assert message in one_line(e) and one_line(e).startswith(f"experiment {f}: ")
    code = run_cli(["experiment", str(f), "--out", str(tmp_path / "o")], capsys)[0]
    assert code == 2


def test_shipped_experiments_load_as_before():
    for f in sorted((ROOT / "scripts" / "experiments").glob("*.toml")):
        e = ex.load(f)
        assert e.game and e.bots and e.games > 0 and e.variants
    e = ex.load(ROOT / "scripts" / "experiments" / "schweinebande-sprt.toml")
    assert e.sprt and all(isinstance(k, str) for k in e.sprt)


def test_experiment_formats_kept(tmp_path):
    f = tmp_path / "e.toml"
    f.write_text(
        'game = "schweinebande"\nplayers = "2-3"\nbots = ["greedy", "random"]\ngames = 5\nrotate = false\n'
        'title = "T"\nout = "o"\n[baseline]\nrounds = 2\n[variants.more]\nrounds = 3\n[sprt]\ndelta = 1\n'
    )
    e = ex.load(f)
    assert e.players == [2, 3] and e.bots == ["greedy", "random"] and e.rotate is False and e.title == "T"
    assert e.out == tmp_path / "o" and e.baseline == {"rounds": 2} and e.variants == {"more": {"rounds": 3}}
    assert e.sprt == {"delta": 1}
    f.write_text('game = "schweinebande"\nplayers = 3\nbots = "greedy"\ngames = 5\n[variants.v]\nrounds = 3\n')
    e = ex.load(f)
    assert e.players == [3] and e.rotate is True and e.seed == 1 and e.sprt is None and e.title == ""


# -- bot-config files -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message",
    [
        ("[bots.fast]\nbase = 'heuristic'\n[bots.fast.wieghts]\nx = 1\n", "unknown key 'wieghts' (did you mean"),
        ("[bots.fast]\nbase = 'heuristic'\ndescripton = 'x'\n", "unknown key 'descripton'"),
        ("[bots.fast]\nbase = 5\n", "bots.fast.base: must be a text, got 5"),
        ("[bots.fast.weights]\nwin = '1'\n", "bots.fast.weights.win: must be a number, got '1'"),
        ("[bots.fast.weights]\nwin = true\n", "bots.fast.weights.win: must be a number, got True"),
        ("[bots.fast.weights]\nwin = nan\n", "bots.fast.weights.win: must be a finite number"),
        ("[bots.fast.weights]\nwarp = 2\n", "unknown weight 'warp'"),
        ("bots = 5\n", "bots: must be a table"),
        ("[bot.fast]\nbase = 'heuristic'\n", "unknown key 'bot' (did you mean 'bots'?)"),
    ],
)
def test_bot_config_problems_are_one_line(text, message, tmp_path, capsys):
    f = tmp_path / "b.toml"
    f.write_text(text)
    code, _, err = run_cli(["bots", "schweinebande", "--bot-config", str(f)], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_shipped_bot_configs_load():
    for f in sorted((ROOT / "strategies").glob("*/*.toml")):
        schema.validate(schema.BotConfigFile, __import__("tomllib").loads(f.read_text()), str(f))


# -- run.json -------------------------------------------------------------------------------------------------


META = {"game": "hacienda", "status": "complete", "players": [3], "seed": 1, "games": 10, "categories": ["a"]}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"players": [6]}, "players[0]: 6 is outside hacienda's 2..5 players"),
        ({"players": [99]}, "players[0]: 99 is out of range (at most 64)"),
        ({"players": "3"}, "players: must be a list"),
        ({"seed": 2**70}, "seed: 1180591620717411303424 is out of range"),
        ({"games": -5}, "games: -5 is out of range"),
        ({"games": 10**30}, "games: 1000000000000000000000000000000 is out of range"),
        ({"rotate": "yes"}, "rotate: must be true or false"),
        ({"categories": [1]}, "categories[0]: must be a text"),
        ({"results": {"rows": "many"}}, "results.rows: must be a whole number"),
        ({"games_completed": {"3": 1.5}}, "games_completed.3: must be a whole number"),
        ({"lineups": {"3": "greedy"}}, "lineups.3: must be a list"),
        ({"game": None}, "game: must be a text"),
    ],
)
def test_run_json_problems_are_one_line_exit_2(change, message, tmp_path, capsys):
    d = tmp_path / "run"
    d.mkdir()
    (d / "run.json").write_text(json.dumps({**META, **change}))
    with pytest.raises(MeeplabError) as e:
        rundir.read_meta(d)
    assert message in one_line(e) and one_line(e).startswith(str(d / "run.json"))
    for args in (["report", str(d), "--out", str(tmp_path / "r.html")], ["check", str(d)]):
        code, _, err = run_cli(args, capsys)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (args, err)
    code, _, err = run_cli(["view", str(d), "--index", "0", "--out", str(tmp_path / "v.html")], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_run_json_missing_game_and_deep_nesting(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    (d / "run.json").write_text(json.dumps({"status": "complete"}))
    with pytest.raises(MeeplabError, match="missing 'game'"):
        rundir.read_meta(d)
    (d / "run.json").write_text('{"game": "x", "notes": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(MeeplabError, match=r"corrupt run\.json .*nested more than 64"):
        rundir.read_meta(d)


def test_run_json_of_other_games_and_older_runs_reads():
    meta = {"game": "toygame", "status": "complete", "label": None, "players": [7], "bot_weights": {}, "x": [1]}
    assert schema.run_meta(meta, "r") == meta


def test_manifest_lines_that_are_no_records_are_skipped(tmp_path):
    good = json.dumps({"p": 3, "start": 0, "n": 5, "file": rundir.part_name(3, 0)})
    bad = ["[" * 100_000 + "]" * 100_000, '{"p": ' + "9" * 5000 + "}", '{"p": NaN}', "{", good]
    (tmp_path / rundir.MANIFEST).write_text("\n".join(bad) + "\n")
    assert [e.file for e in rundir.read_entries(tmp_path)] == [rundir.part_name(3, 0)]
