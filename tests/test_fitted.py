"""Bots that follow the rules they play: a tuned or learned bot's file says which rules it was fitted at
(``fitted_at``), and every command that plans runs away from those rules warns that what the bot shows may be its
mis-fit, not the rules' effect."""

import pytest

from meeplab.sim.core.bots import available


@pytest.mark.parametrize("game", ["schweinebande", "hacienda", "acbas", "goldrush"])
def test_the_shipped_tuned_and_learned_bots_were_fitted_at_the_default_rules(game):
    bots = available(game)
    assert bots["tuned"].fitted_at == () and bots["learned"].fitted_at == ()
    assert bots["heuristic"].fitted_at is None and bots["greedy"].fitted_at is None


def test_a_what_if_away_from_a_bots_rules_says_so(tmp_path, capsys):
    from tests.cli_run import run_cli

    base = ["compare", "hacienda", "-p", "3", "-n", "50", "--dry-run", "--out", str(tmp_path / "c")]
    code, _, se = run_cli([*base, "--set", "water_price=6"], capsys)
    assert code == 0, se
    assert "bot 'learned' was fitted at the default rules; these rules change water_price" in se  # the default
    code, _, se = run_cli([*base, "--set", "water_price=6", "--bots", "heuristic"], capsys)
    assert code == 0 and "fitted at" not in se  # hand-written: not fitted to any rules
    code, _, se = run_cli(["run", "hacienda", "-p", "3", "-n", "50", "--dry-run", "--out", str(tmp_path / "r")], capsys)
    assert code == 0 and "fitted at" not in se  # at the rules it was fitted at


def test_tune_and_learn_record_the_rules_they_fitted_at(tmp_path, capsys):
    import tomllib

    from tests.cli_run import run_cli

    out = tmp_path / "l"
    code, _, se = run_cli(["learn", "schweinebande", "--players", "3", "--teacher", "heuristic", "--games", "6",
                           "--threads", "1", "-q", "--set", "pig_bonus_farm=3", "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, se
    entry = tomllib.loads((out / "learned.toml").read_text())["bots"]["learned"]
    assert entry["fitted_at"] == {"pig_bonus_farm": "3"}
    learned = available("schweinebande", (str(out / "learned.toml"),))["learned"]
    assert learned.fitted_at == (("pig_bonus_farm", "3"),)
    code, _, se = run_cli(["run", "schweinebande", "-p", "3", "-n", "30", "-b", "learned", "--bot-config",
                           str(out / "learned.toml"), "--dry-run", "--out", str(tmp_path / "r")], capsys)  # fmt: skip
    assert code == 0 and "bot 'learned' was fitted at pig_bonus_farm=3; these rules change pig_bonus_farm" in se
    import numpy as np

    from meeplab.lab.studies.tune import TuneResult, variant_toml

    res = TuneResult(bot="heuristic", names=("a",), start=np.zeros(1), best=np.ones(1), generations=1,
                     games_played=10, interrupted=False)  # fmt: skip
    text = variant_toml(res, "t", "heuristic", "", ["greedy"], [3], 10, {"start_feed": (1, 0, 0)})
    assert tomllib.loads(text)["bots"]["t"]["fitted_at"] == {"start_feed": "1,0,0"}
