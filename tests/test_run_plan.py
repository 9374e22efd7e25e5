"""One validated plan, passed down: a command or API call checks each run once into an immutable RunPlan, and the
estimate, the runner, the sequential test and the executors take it as it is."""

import dataclasses

import pytest

import meeplab
from meeplab.lab.runs import plan as plan_mod
from meeplab.lab.runs import runner
from meeplab.lab.runs.plan import RunConfig, RunPlan, plan_run
from meeplab.sim.core import bots as bots_mod
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.params import ParamSet
from meeplab.sim.core.registry import get_game
from tests.cli_run import run_cli


@pytest.fixture
def counted(monkeypatch):
    """Count every lineup built, every parameter set resolved and every plan made, wherever it happens."""
    calls = {"make_lineup": 0, "resolve": 0, "plan_run": 0}
    make_lineup, resolve, plan_run_ = bots_mod.make_lineup, ParamSet.resolve, plan_mod.plan_run

    def lineup(*a, **k):
        calls["make_lineup"] += 1
        return make_lineup(*a, **k)

    def resolved(self, *a, **k):
        calls["resolve"] += 1
        return resolve(self, *a, **k)

    def planned(*a, **k):
        calls["plan_run"] += 1
        return plan_run_(*a, **k)

    monkeypatch.setattr(bots_mod, "make_lineup", lineup)
    monkeypatch.setattr(plan_mod, "make_lineup", lineup)
    monkeypatch.setattr(ParamSet, "resolve", resolved)
    monkeypatch.setattr(plan_mod, "plan_run", planned)
    return calls


def test_compare_on_the_command_line_checks_each_run_once(tmp_path, capsys, counted):
    """Baseline and variant at two player counts: two plans, four lineups (one per run and player count), and the
    rules resolved once per run (plus once for the --set parser's own check), through estimate and play."""
    code, _, err = run_cli(
        ["compare", "schweinebande", "--games", "20", "--players", "2,3", "--bots", "greedy", "--set",
         "start_feed=1", "--threads", "1", "--out", str(tmp_path / "c")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert counted["plan_run"] == 2
    assert counted["make_lineup"] == 4
    assert counted["resolve"] <= 2 + 2  # the two plans, and what the option parser resolves to check --set


def test_compare_in_python_checks_each_run_once(tmp_path, counted):
    meeplab.compare(
        "schweinebande", {"start_feed": 1}, games=20, players=[2, 3], bots="greedy", threads=1, out=tmp_path / "c"
    )
    assert counted["plan_run"] == 2
    assert counted["make_lineup"] == 4


def test_a_plan_cannot_be_changed_and_the_runner_takes_only_plans(tmp_path):
    plan = plan_run(RunConfig(get_game("schweinebande"), 10, [3], ["greedy"], out=tmp_path / "r"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.games = 20
    with pytest.raises(TypeError):
        plan.values["start_feed"] = 3
    with pytest.raises(TypeError, match="RunPlan"):
        runner.run(RunConfig(get_game("schweinebande"), 10, [3], ["greedy"]))
    assert isinstance(plan.on(shard=5), RunPlan) and plan.on(shard=5).shard == 5 and plan.shard != 5


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"games": 0}, "--games must be a positive number"),
        ({"players": [9]}, "players"),
        ({"seed": -1}, "--seed must be in"),
        ({"shard": 0}, "--shard must be a positive"),
        ({"bots": ["nosuchbot"]}, "nosuchbot"),
        ({"overrides": {"start_feed": "many"}}, "start_feed"),
        ({"resume": True, "force": True}, "not both"),
    ],
)
def test_a_bad_request_is_refused_in_one_line_before_any_game(tmp_path, change, message):
    cfg = RunConfig(get_game("schweinebande"), 10, [3], ["greedy"], out=tmp_path / "r")
    with pytest.raises(MeeplabError, match=message) as got:
        plan_run(dataclasses.replace(cfg, **change))
    assert "\n" not in str(got.value)
    assert not (tmp_path / "r").exists()


BROKEN_BOT = """
from numba import njit


@njit(cache=True, _nrt=False)
def choose(kind, view, moves, n, feats, weights, rng):
    return view.no_such_attribute
"""


@pytest.fixture
def broken_plan(tmp_path, monkeypatch):
    """A run plan whose line-up plays a bot that does not compile, not compiled yet (``Lineup.pending``)."""
    import importlib.util
    import sys

    src = tmp_path / "pc_broken_bot.py"
    src.write_text(BROKEN_BOT)
    spec = importlib.util.spec_from_file_location("pc_broken_bot", src)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "pc_broken_bot", module)
    spec.loader.exec_module(module)
    plan = plan_run(RunConfig(get_game("schweinebande"), 10, [3], ["greedy"], out=tmp_path / "r"))
    lineup = plan.lineups[3]
    lineup.fns = (module.choose,) * len(lineup.names)
    lineup.pending = ((module.choose, "schweinebande.broken"),)
    return plan


BROKEN = r"bot schweinebande\.broken: its choose does not compile"


def test_a_bot_that_does_not_compile_is_one_line_and_leaves_no_run_folder(broken_plan, tmp_path):
    """A line-up leaves the bots numba's cache lacks uncompiled (for a cold engine compile's helper), so a bot that
    does not compile is found when the run first plays: the runner readies every line-up's bots before it writes
    anything (``--quiet`` runs have no calibration before it)."""
    with pytest.raises(MeeplabError, match=BROKEN) as got:
        runner.run(broken_plan)
    assert "\n" not in str(got.value)
    assert not (tmp_path / "r").exists()


def test_a_quiet_command_readies_the_bots_before_it_writes_its_own_files(broken_plan):
    """``echo_plan`` is where every command's runs are priced (the calibration plays them) before the command writes
    anything of its own (a ladder's ladder.json): with ``--quiet`` it prices nothing, so it readies the bots."""
    from meeplab.cli.output import echo_plan

    with pytest.raises(MeeplabError, match=BROKEN):
        echo_plan("a ladder", [broken_plan], False, True)


def test_the_plan_holds_what_the_runner_records(tmp_path):
    plan = plan_run(
        RunConfig(get_game("schweinebande"), 12, [2, 3], ["greedy", "heuristic"], overrides={"start_feed": 1},
                  out=tmp_path / "r", shard=5)
    )  # fmt: skip
    meta = runner.run(plan).meta
    assert meta["params"]["start_feed"] == plan.values["start_feed"] == 1
    assert meta["lineups"] == {str(p): plan.lineups[p].names for p in plan.players}
    assert meta["bot_weights"] == {b: dict(w) for b, w in plan.bot_weights.items()}
    assert meta["shard_size"] == 5 and meta["games_completed"] == {"2": 12, "3": 12}


def test_a_worker_keeps_the_lineups_a_run_adopted(tmp_path, counted):
    """A process keeps its 16 latest prepared lineups; a run adopts one per player count. One adopted again kept its
    old place in that order and was the next dropped, so the 3-player adoption dropped the 2-player one and its
    shards built the lineup again (and played a warm-up game) in the middle of the run."""
    from meeplab.lab.runs import shards

    cfg = RunConfig(get_game("schweinebande"), 20, [2, 3], ["greedy"], seed=918273, threads=1, out=tmp_path / "r")
    plan = plan_run(cfg)  # a seed no other test plays: a job this process has not prepared
    shards.adopt(plan.job, 2, plan.game, plan.ctx, plan.lineups[2])  # an earlier run of the same job, at 2 players
    for i in range(15):
        shards.adopt(("another run", i), 2, None, None, None)
    built = counted["make_lineup"]
    runner.run(plan)
    assert counted["make_lineup"] == built
