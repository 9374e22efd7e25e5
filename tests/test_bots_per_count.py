"""A bot's weights at one player count (``[bots.NAME.players.P]``): played at that count only, recorded in run.json,
checked like every bot config, and written by ``meeplab tune --per-count``."""

import json

import numpy as np
import pytest
from cli_run import run_cli

from meeplab.api import run
from meeplab.sim.core.bots import available, make_lineup

BASE = "[bots.mine]\nbase = 'heuristic'\n[bots.mine.weights]\n'collect.pigs' = 4.0\n"
AT_TWO = "[bots.mine.players.2]\n'collect.pigs' = -3.0\n'farm.points' = 2.5\n"


def weight_row(lu, entry, spec):
    return dict(zip(spec.weight_names, lu.weights[entry, : len(spec.weights)]))


def test_a_count_of_its_own_plays_there_and_nowhere_else(tmp_path):
    cfg = tmp_path / "bots.toml"
    cfg.write_text(BASE + AT_TWO)
    spec = available("schweinebande", [str(cfg)])["mine"]
    heuristic = available("schweinebande")["heuristic"].weights_dict()
    assert spec.own_weights_at(2) and not spec.own_weights_at(3)
    at2 = weight_row(make_lineup("schweinebande", ["mine", "heuristic"], 2, True, [str(cfg)]), 0, spec)
    at3 = weight_row(make_lineup("schweinebande", ["mine", "heuristic"], 3, True, [str(cfg)]), 0, spec)
    assert at2["collect.pigs"] == -3.0 and at2["farm.points"] == 2.5  # the count's own, over the variant's
    assert at3["collect.pigs"] == 4.0 and at3["farm.points"] == heuristic["farm.points"]  # the variant's
    assert {k for k in at2 if at2[k] != heuristic[k]} == {"collect.pigs", "farm.points"}
    # a variant of it inherits its count, its own weights set over both rows
    cfg2 = tmp_path / "more.toml"
    cfg2.write_text("[bots.more]\nbase = 'mine'\n[bots.more.weights]\n'farm.is_stop' = 9.0\n")
    more = available("schweinebande", [str(cfg), str(cfg2)])["more"]
    assert more.weights_dict(2)["collect.pigs"] == -3.0 and more.weights_dict(2)["farm.is_stop"] == 9.0
    assert more.weights_dict(3)["collect.pigs"] == 4.0 and more.weights_dict(3)["farm.is_stop"] == 9.0


def test_games_at_the_count_are_those_of_a_plain_variant_with_its_weights(tmp_path):
    """The same games, row for row, as a variant that has the count's weights at every count."""
    cfg = tmp_path / "bots.toml"
    cfg.write_text(BASE + AT_TWO)
    plain = tmp_path / "plain.toml"
    plain.write_text(
        "[bots.flat]\nbase = 'heuristic'\n[bots.flat.weights]\n'collect.pigs' = -3.0\n'farm.points' = 2.5\n"
    )
    base = tmp_path / "base.toml"
    base.write_text(BASE.replace("mine", "same"))
    cfgs = [str(cfg), str(plain), str(base)]

    def scores(bot, p):
        r = run("schweinebande", bots=[bot, "heuristic"], players=[p], games=300, seed=3, bot_configs=cfgs)
        return r.lazy.sort(["game_index", "seat"]).select("score").collect()["score"].to_numpy()

    assert np.array_equal(scores("mine", 2), scores("flat", 2))
    assert not np.array_equal(scores("mine", 2), scores("same", 2))
    assert np.array_equal(scores("mine", 3), scores("same", 3))


def test_run_json_records_the_counts_weights_and_resume_reads_them(tmp_path, capsys):
    cfg = tmp_path / "bots.toml"
    cfg.write_text(BASE + AT_TWO)
    out = tmp_path / "r"
    args = ["run", "schweinebande", "-p", "2-3", "-b", "mine,heuristic", "-n", "40", "--bot-config", str(cfg), "-q"]
    code, _, err = run_cli([*args, "--out", str(out)], capsys)
    assert code == 0, err
    meta = json.loads((out / "run.json").read_text())
    assert meta["bot_weights"]["mine"]["collect.pigs"] == 4.0
    assert list(meta["bot_weights_by_players"]) == ["mine"]
    assert list(meta["bot_weights_by_players"]["mine"]) == ["2"]
    assert meta["bot_weights_by_players"]["mine"]["2"]["collect.pigs"] == -3.0
    view = ["view", str(out), "-p", "2", "--bot-config", str(cfg), "--out", str(tmp_path / "v.html")]
    code, _, err = run_cli(view, capsys)  # the run's game, replayed with the bot's 2-player weights
    assert code == 0, err
    cfg.write_text(BASE + AT_TWO.replace("-3.0", "-2.0"))  # other weights at 2 players: another run
    code, _, err = run_cli([*view[:-1], str(tmp_path / "w.html")], capsys)
    assert code == 2 and "bot 'mine' has other weights here than in the run" in err
    assert not (tmp_path / "w.html").exists()
    code, _, err = run_cli([*args, "--out", str(out), "--resume"], capsys)
    assert code == 2 and "bot_weights_by_players" in err and err.count("\n") == 1
    plain = tmp_path / "plain"  # a run of bots without counts of their own records none
    code, _, err = run_cli(["run", "schweinebande", "-p", "2", "-n", "20", "-q", "--out", str(plain)], capsys)
    assert code == 0 and "bot_weights_by_players" not in json.loads((plain / "run.json").read_text())


@pytest.mark.parametrize(
    "table, says",
    [
        ("[bots.mine.players.0]\n'collect.pigs' = 1.0\n", "must be a player count (a whole number from 1), got '0'"),
        ("[bots.mine.players.two]\n'collect.pigs' = 1.0\n", "must be a player count"),
        ("[bots.mine.players.9]\n'collect.pigs' = 1.0\n", "at 9 players; schweinebande seats at most 5"),
        ("[bots.mine.players.2]\n'collect.pig' = 1.0\n", "unknown weight 'collect.pig' (did you mean 'collect.pigs'?)"),
        ("[bots.mine.players.2]\n'collect.pigs' = nan\n", "bots.mine.players.2.'collect.pigs': must be a finite"),
        ("[bots.mine.players.2]\n'collect.pigs' = 'high'\n", "bots.mine.players.2.'collect.pigs'"),
    ],
)
def test_a_bad_count_table_is_one_line(tmp_path, capsys, table, says):
    cfg = tmp_path / "bots.toml"
    cfg.write_text(BASE + table)
    args = ["run", "schweinebande", "-b", "mine", "-n", "4", "--bot-config", str(cfg), "-q",
            "--out", str(tmp_path / "r")]  # fmt: skip
    code, _, err = run_cli(args, capsys)
    assert not (tmp_path / "r").exists()
    assert code == 2 and says in err and err.count("\n") == 1, err


def test_tune_per_count_writes_the_count_and_tunes_one_count_at_a_time(tmp_path, capsys):
    out = tmp_path / "t.toml"
    args = ["tune", "schweinebande", "--bot", "heuristic", "--vs", "heuristic", "-p", "2", "--budget", "600",
            "--games-per-eval", "20", "--final-games", "20", "--weights", "collect.pigs", "--per-count",
            "-q"]  # fmt: skip
    code, _, err = run_cli([*args, "--out", str(out)], capsys)
    assert code == 0, err
    text = out.read_text()
    assert "[bots.tuned.players.2]" in text and "[bots.tuned.weights]" not in text
    assert "play at 2 players only" in text
    spec = available("schweinebande", [str(out)])["tuned"]
    heuristic = available("schweinebande")["heuristic"]
    assert spec.own_weights_at(2) and spec.weights == heuristic.weights  # heuristic's own at every other count
    assert spec.weights_dict(2)["collect.pigs"] != heuristic.weights_dict()["collect.pigs"]
    # tuning it again at 2 players starts from its 2-player weights; at 2 and 3 at once is refused
    code, _, err = run_cli(["tune", "schweinebande", "--bot", "tuned", "--bot-config", str(out), "-p", "2,3",
                            "--budget", "600", "--out", str(tmp_path / "u.toml")], capsys)  # fmt: skip
    assert code == 2 and "at one player count at a time (--players 2)" in err


def test_bots_weights_prints_a_counts_own_weights(tmp_path, capsys):
    cfg = tmp_path / "bots.toml"
    cfg.write_text(BASE + AT_TWO)
    code, out, err = run_cli(["bots", "schweinebande", "--weights", "--bot-config", str(cfg)], capsys)
    assert code == 0, err
    mine = out.split("\nmine ", 1)[1].split("\npolicy ", 1)[0]
    assert "    collect.pigs = 4\n" in mine
    assert (
        mine.split("  at 2 players ([bots.mine.players.2]):\n", 1)[1] == "    collect.pigs = -3\n    farm.points = 2.5"
    )


def test_a_search_bot_plays_its_counts_own_budget(tmp_path):
    """rollout's and ismcts's budgets at one player count: the search rows the engine gets at that count only."""
    from meeplab.sim.core.forward import S_PERCAND, S_PLAYOUTS

    cfg = tmp_path / "s.toml"
    cfg.write_text(
        "[bots.r]\nbase = 'rollout'\n[bots.r.weights]\ngrow = 0.0\nplayouts = 4\n[bots.r.players.3]\nplayouts = 7\n"
        "[bots.i]\nbase = 'ismcts'\n[bots.i.weights]\ngrow = 0.0\nper_candidate = 2\n[bots.i.players.2]\n"
        "per_candidate = 5\n"
    )
    rows = {p: make_lineup("schweinebande", ["r", "i"], p, True, [str(cfg)]).search for p in (2, 3)}
    assert rows[2][0, S_PLAYOUTS] == 4 and rows[3][0, S_PLAYOUTS] == 7
    assert rows[2][1, S_PERCAND] == 5 and rows[3][1, S_PERCAND] == 2
