"""--retune: each rule set's fitted bots tuned again at its rules before the what-if plays them
(lab/studies/retune.py, meeplab/cli/retuning.py)."""

from __future__ import annotations

import json
import tomllib

from meeplab.lab.runs.plan import RunConfig, plan_run
from meeplab.lab.studies.retune import not_retuned, retunable, retune_plan
from meeplab.sim.core.registry import get_game
from tests.cli_run import run_cli


def _plan(tmp_path, bots, overrides=None, game="schweinebande"):
    return plan_run(RunConfig(game=get_game(game), games=100, players=[3], bots=bots, overrides=overrides or {},
                              out=tmp_path / "run", progress=False))  # fmt: skip


def test_which_bots_are_retuned(tmp_path):
    plan = _plan(tmp_path, ["tuned", "learned", "greedy"])
    assert retunable(plan) == ["tuned"]  # greedy was never fitted; learned has hundreds of weights
    assert [line.split("'")[1] for line in not_retuned(plan)] == ["learned"]


def test_a_retuned_bot_is_fitted_at_the_rules_it_plays(tmp_path):
    plan = _plan(tmp_path, ["tuned", "greedy"], {"pig_bonus_farm": 4})
    assert plan.misfits()  # the shipped tuned was fitted at the defaults
    new, recs = retune_plan(plan, 4000, tmp_path / "rt")
    assert [r["bot"] for r in recs] == ["tuned"] and not recs[0]["reused"] and recs[0]["field"] == ["greedy"]
    doc = tomllib.loads((tmp_path / "rt" / "tuned.toml").read_text())
    assert doc["bots"]["tuned"]["fitted_at"] == {"pig_bonus_farm": "4"}
    assert new.misfits() == [] and new.bot_configs[-1] == str(tmp_path / "rt" / "tuned.toml")
    assert new.bot_weights["tuned"] == doc["bots"]["tuned"]["weights"]
    again, recs2 = retune_plan(plan, 4000, tmp_path / "rt")
    assert recs2[0]["reused"] and recs2[0]["key"] == recs[0]["key"] and again.bot_weights == new.bot_weights
    _, recs3 = retune_plan(plan, 4500, tmp_path / "rt")  # another budget: tuned again
    assert not recs3[0]["reused"]


def test_compare_retunes_both_rule_sets(tmp_path, capsys):
    out = tmp_path / "c"
    code, _, se = run_cli(["compare", "schweinebande", "-p", "3", "-n", "300", "-b", "tuned,greedy", "--set",
                           "pig_bonus_farm=4", "--retune", "4000", "-q", "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, se
    for side in ("baseline", "variant"):  # each side plays the bot retuned at its own rules
        meta = json.loads((out / side / "run.json").read_text())
        doc = tomllib.loads((out / "retuned" / side / "tuned.toml").read_text())
        assert meta["bot_weights"]["tuned"] == doc["bots"]["tuned"]["weights"]
    assert "fitted at the default rules" not in se  # --retune answers the mis-fit warning
    code, _, se = run_cli(["compare", "schweinebande", "--set", "pig_bonus_farm=4", "--retune", "0", "--out",
                           str(tmp_path / "x")], capsys)  # fmt: skip
    assert code == 2 and "--retune needs a positive number" in se
    code, _, se = run_cli(["compare", "schweinebande", "--set", "pig_bonus_farm=4", "--retune", "500", "--out",
                           str(tmp_path / "x")], capsys)  # fmt: skip
    assert code == 2 and "--retune 500 is too small for tuned: at least" in se and not (tmp_path / "x").exists()


def test_fair_every_seat_retunes_each_value_played(tmp_path, capsys):
    out = tmp_path / "f"
    code, _, se = run_cli(["fair", "schweinebande", "--param", "start_feed", "--seats", "all", "--keep", "1",
                           "--range", "0:3", "-p", "3", "-b", "tuned", "-n", "200", "--steps", "1", "--retune",
                           "4000", "-q", "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, se
    runs = json.loads((out / "fair.json").read_text())["results"][0]["runs"]
    for run in runs:
        name = run.rsplit("/", 1)[-1]
        doc = tomllib.loads((out / "retuned" / name / "tuned.toml").read_text())
        assert (
            json.loads((out / name / "run.json").read_text())["bot_weights"]["tuned"] == doc["bots"]["tuned"]["weights"]
        )
