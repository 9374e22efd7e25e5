"""Plugin games and bots (entry points ``meeplab.games`` / ``meeplab.bots``), any seat count, lowest-score-wins.

The example plugin ``examples/nothanks`` (No Thanks!, 3-7 players, lowest score wins) is installed into the test
environment (``.ci/run``); these tests drive it through the same commands as a built-in game."""

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cli_run import run_cli as cli

from meeplab.cli import main
from meeplab.sim.core import bots as core_bots
from meeplab.sim.core.bots import lineup_entries, make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.game import rank_and_win
from meeplab.sim.core.registry import game_ids, get_game, origin

pytest.importorskip("meeplab_nothanks", reason="the example plugin is not installed (pip install -e examples/nothanks)")
ROOT = Path(__file__).resolve().parents[1]


def test_plugin_game_is_found_by_entry_point_with_its_origin(capsys):
    assert "nothanks" in game_ids()
    g = get_game("nothanks")
    assert g.lower_wins and (g.min_players, g.max_players) == (3, 7)
    assert origin("nothanks").startswith("plugin meeplab-nothanks")
    assert origin("schweinebande") == "built-in"
    code, out, _ = cli(["games"], capsys)
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("nothanks"))
    assert "lowest score wins" in line and "[plugin meeplab-nothanks" in line
    code, out, _ = cli(["bots", "nothanks"], capsys)
    assert code == 0 and "greedy" in out and "[plugin meeplab-nothanks" in out


def test_a_game_asked_for_again_is_not_looked_up_again(monkeypatch):
    """The play server, a saved game's load and every lineup ask the registry for their game; once a game has loaded
    it is handed out again without another look through sim/ and the plugins' entry points (each look costs about
    half a millisecond), and an unknown id is still one clear line."""
    from meeplab.sim.core import registry

    monkeypatch.setattr(registry, "_GAMES", None)  # as in a process that never listed every game
    first = {g: get_game(g) for g in ("schweinebande", "nothanks")}
    looks = {"builtin_ids": registry.builtin_ids, "_entry_points": registry._entry_points}

    def no_look(*_a, **_k):
        raise AssertionError("the registry looked for games again")

    for name in looks:
        monkeypatch.setattr(registry, name, no_look)
    assert all(get_game(g) is spec for g, spec in first.items())
    for name, fn in looks.items():
        monkeypatch.setattr(registry, name, fn)
    with pytest.raises(MeeplabError, match=r"unknown game 'nosuchgame'; available: .*schweinebande"):
        get_game("nosuchgame")


BROKEN = {
    "broken_games.py": "raise ImportError('this plugin is broken on purpose')\n",
    "notaspec.py": "GAME = 42\n",
    "meeplab_broken-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: meeplab-broken\nVersion: 0.1\n",
    "meeplab_broken-0.1.dist-info/entry_points.txt": (
        "[meeplab.games]\nbroken = broken_games:GAME\nnotaspec = notaspec:GAME\nschweinebande = notaspec:GAME\n"
        "[meeplab.bots]\nschweinebande.bad = broken_games\n"
    ),
}


def test_a_broken_plugin_is_one_line_and_breaks_nothing_else(tmp_path):
    for name, text in BROKEN.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    exe = [sys.executable, "-m", "meeplab.cli"]
    games = subprocess.run([*exe, "games"], capture_output=True, text=True, env=env, timeout=120)
    assert games.returncode == 0, games.stderr
    assert "Traceback" not in games.stderr + games.stdout
    broken = [x for x in games.stdout.splitlines() if x.startswith("broken plugin:")]
    assert len(broken) == 3, games.stdout  # the import error, the wrong type, the taken id
    assert any("plugin meeplab-broken 0.1" in x and "ImportError" in x for x in broken)
    assert any("not a GameSpec" in x for x in broken) and any("built-in game's id" in x for x in broken)
    assert all(any(x.startswith(g) for x in games.stdout.splitlines()) for g in ("schweinebande", "nothanks"))
    bots = subprocess.run([*exe, "bots", "schweinebande"], capture_output=True, text=True, env=env, timeout=120)
    assert bots.returncode == 0 and "heuristic" in bots.stdout and "schweinebande.bad" in bots.stdout
    run = subprocess.run([*exe, "params", "broken"], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "ImportError" in run.stderr


def test_ranks_and_wins_read_the_score_direction():
    score = np.array([[3.0, 1.0, 1.0, 7.0]])
    tb = np.zeros_like(score)
    rank, win = rank_and_win(score, tb)
    assert rank.tolist() == [[2, 3, 3, 1]] and win.tolist() == [[0, 0, 0, 1]]
    rank, win = rank_and_win(score, tb, lower_wins=True)
    assert rank.tolist() == [[3, 1, 1, 4]] and win.tolist() == [[0, 0.5, 0.5, 0]]


def test_lineups_are_sized_per_game_not_capped():
    assert lineup_entries("schweinebande", 2) == lineup_entries("schweinebande", 5) == 5  # the built-ins keep 5
    assert lineup_entries("nothanks", 3) == lineup_entries("nothanks", 7) == 7  # one compiled engine for 3-7
    lu = make_lineup("nothanks", ["greedy", "random"], 4, True)
    assert len(lu.fns) == 7 and lu.weights.shape[0] == 7 and lu.search.shape[0] == 7


@pytest.fixture
def ten_seats():
    """No Thanks! declared for up to 10 seats (its state holds 10): a game with more seats than any built-in."""
    g = get_game("nothanks")
    yield replace(g, max_players=10)
    core_bots.declare_game(g.id, g.max_players, g.lower_wins)


def test_a_game_declaring_ten_seats_plays_at_ten(ten_seats):
    g = ten_seats
    lu = make_lineup(g.id, ["greedy", "random"], 10, True)
    assert len(lu.fns) == 10
    b = g.play(g.prepare(g.params.resolve({})), lu, 3, 0, 20, 10)
    assert b.score.shape == (20, 10)
    assert np.allclose(b.breakdown.sum(axis=2), b.score)
    _, win = rank_and_win(b.score, b.tiebreak, True)
    assert np.allclose(win.sum(axis=1), 1.0)


@pytest.fixture(scope="module")
def plugin_compare(tmp_path_factory):
    """One paired compare of No Thanks! with fewer chips (chips=7), read by the tests below."""
    cmp = tmp_path_factory.mktemp("plugin") / "cmp"
    args = ["compare", "nothanks", "--quiet", "--set", "chips=7", "--games", "200", "--players", "3"]
    assert main([*args, "--bots", "greedy,random", "--out", str(cmp)]) == 0
    return cmp


def test_every_command_works_on_the_plugin_game(tmp_path, capsys, plugin_compare):
    out = tmp_path / "nt"
    code, _, err = cli(
        [
            "run",
            "nothanks",
            "--quiet",
            "--games",
            "300",
            "--players",
            "3,7",
            "--bots",
            "greedy,random",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    meta = json.loads((out / "run.json").read_text())
    assert meta["lower_wins"] is True
    df = pl.read_parquet(out / "results.parquet")
    winners = df.filter(pl.col("rank") == 1).group_by("n_players", "game_index").agg(pl.col("score").max())
    lowest = df.group_by("n_players", "game_index").agg(pl.col("score").min().alias("low"))
    assert (
        (winners.join(lowest, on=["n_players", "game_index"]).select(pl.col("score") == pl.col("low")))
        .to_series()
        .all()
    )
    rates = df.group_by("bot").agg(pl.col("win").mean()).sort("win", descending=True)
    assert rates["bot"][0] == "greedy"  # greedy scores far lower than random: it must win more once lower wins
    code, _, err = cli(["report", str(out), "--out", str(tmp_path / "r.html")], capsys)
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert "Lowest score wins" in html
    code, text, err = cli(["replay", "nothanks", "--players", "3", "--bots", "rollout,greedy", "--explain"], capsys)
    assert code == 0, err
    assert "search:" in text and "takes" in text
    opt = tmp_path / "opt"
    code, text, err = cli(["options", "nothanks", "--games", "200", "--players", "3", "--out", str(opt)], capsys)
    assert code == 0, err
    assert {r["option"] for r in json.loads((opt / "options.json").read_text())["rows"]} == {"take", "pass"}
    learned = tmp_path / "learned"  # a learned bot from the features the plugin declares, no code of its own
    code, text, err = cli(
        ["learn", "nothanks", "--players", "3", "--teacher", "rollout", "--games", "6", "--threads", "1", "-q",
         "--out", str(learned)],
        capsys,
    )  # fmt: skip
    assert code == 0 and "against its teacher rollout" in text, err
    code, _, err = cli(
        ["run", "nothanks", "-q", "--games", "50", "--players", "3", "--bots", "learned,greedy", "--bot-config",
         str(learned / "learned.toml"), "--out", str(tmp_path / "nt-learned")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    cmp = plugin_compare  # the paired compare (fixture), on the plugin game like a built-in one
    assert any(cmp.rglob("results.parquet"))
    # the core's code compiled for the plugin's state (loop, search, restricted play) is indexed apart from the
    # built-in games': uninstalling the plugin leaves their cached code loadable
    from meeplab.sim.core.numba_cache import cache_dir

    core = [m for m in list(sys.modules) if m.startswith("meeplab.sim.core.")]
    mixed = [
        p
        for m in core
        for p in cache_dir(m).glob("*/*.nbi")
        if "meeplab_nothanks" not in p.name and b"meeplab_nothanks" in p.read_bytes()
    ]
    assert not mixed, mixed[:3]


def test_meeplab_new_writes_a_plugin_that_installs_plays_and_passes_its_tests(tmp_path, capsys):
    pkg, target = tmp_path / "pkg", tmp_path / "site"
    code, out, err = cli(["new", "pigdice", "--out", str(pkg)], capsys)
    assert code == 0 and "pip install" in out, err
    assert (pkg / "pyproject.toml").is_file() and (pkg / "tests" / "test_pigdice.py").is_file()
    code, _, err = cli(["new", "nothanks", "--out", str(tmp_path / "again")], capsys)
    assert code == 2 and "already registered" in err
    variant = '[bots.greedy2]\nbase = "greedy"\ndescription = "a variant shipped as TOML"\n'
    (pkg / "meeplab_pigdice" / "bots" / "greedy2.toml").write_text(variant)
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", str(target)]
    done = subprocess.run([*pip, str(pkg)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (target / "meeplab_pigdice" / "bots" / "greedy2.toml").is_file()  # package data: in the built wheel
    env = {**os.environ, "PYTHONPATH": str(target)}
    run = subprocess.run(
        [sys.executable, "-m", "meeplab.cli", "run", "pigdice", "--quiet", "--games", "200", "--players", "2-3",
         "--bots", "greedy,policy", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "run" / "run.json").read_text())["games_completed"] == {"2": 200, "3": 200}
    view = subprocess.run(  # the scaffold draws its board: meeplab view (and the play page) work on day one
        [sys.executable, "-m", "meeplab.cli", "view", "pigdice", "--players", "3", "--out", str(tmp_path / "v.html")],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert view.returncode == 0, view.stderr
    page = (tmp_path / "v.html").read_text()
    assert "roll the die" in page and "banked" in page and "Pigdice: roll or hold" in page
    # the scaffold declares its feature columns, so the kernel's policy bot (meeplab learn's base) plays it
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        capture_output=True, text=True, env=env, cwd=pkg, timeout=600,
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-3000:]
    assert " passed" in tests.stdout and "failed" not in tests.stdout
    # the kit's coverage tables are printed at the end of the plugin's own test run (meeplab's pytest plugin)
    assert "conformance kit coverage" in tests.stdout and "pigdice-hidden: " in tests.stdout, tests.stdout[-2000:]
    # every command on the installed scaffold (tests/test_every_command.py's scaffold cases, in a process that has it)
    every = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_every_command.py", "-k",
         "scaffold"],
        capture_output=True, text=True, env={**env, "MEEPLAB_TEST_SCAFFOLD": "pigdice"}, cwd=ROOT, timeout=900,
    )  # fmt: skip
    assert every.returncode == 0, every.stdout[-3000:]
    assert "16 passed" in every.stdout and "skipped" not in every.stdout, every.stdout[-1000:]


def test_compare_report_reads_the_score_direction(plugin_compare):
    """No Thanks! with fewer chips: every player ends with more points, which is worse in a game whose lowest score
    wins. The compare report keeps the difference's sign (variant - baseline, here positive) and says that below 0 is
    better, in the key changes, the column heads and the chart's caption."""
    import re
    from html import unescape

    from meeplab.analysis.compare import paired_compare
    from meeplab.analysis.load import load_run
    from meeplab.reports.format import snum

    cmp = plugin_compare
    base, var = load_run(cmp / "baseline"), load_run(cmp / "variant")
    assert base.lower_wins and var.lower_wins
    rows = {r["bot"]: r for r in paired_compare(base, var).iter_rows(named=True)}

    def mean_score(run, bot):
        return run.lf.filter(pl.col("bot") == bot).select(pl.col("score").mean()).collect().item()

    d = mean_score(var, "random") - mean_score(base, "random")
    assert rows["random"]["d_score"] == pytest.approx(d) and d > 0  # fewer chips to pay with: more points
    html = (cmp / "report.html").read_text()
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))
    assert "Lowest score wins: a bot gains when its mean score falls, so a Δ score below 0 is better" in text
    assert "Δ score (lower is better)" in text and "mean score (lower is better)" in text
    assert "a score change left of 0 is a gain for the bot" in text
    assert snum(rows["random"]["d_score"]) in text  # the sign as measured: variant - baseline
    assert "(lowest score wins: points count against a player)" in text
