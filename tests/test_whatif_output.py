"""Time before work and results on stdout: the plan and a calibrated estimate first (--dry-run: only that, nothing
played or written), the main result as a compact table on stdout at the end (--json: the same as JSON), progress and
notices on stderr."""

from __future__ import annotations

import json

import pytest
from cli_run import run_cli

from meeplab.lab.runs.estimate import duration

SB = ["schweinebande", "--players", "2", "--games", "40"]


def test_dry_run_prints_the_plan_and_an_estimate_only(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEEPLAB_CACHE_DIR", str(tmp_path / "cache"))  # no engine compiled here yet
    out = tmp_path / "r"
    code, so, se = run_cli(["run", *SB, "--out", str(out), "--dry-run"], capsys)
    assert code == 0, se
    assert so.startswith("plan: run: schweinebande, 1 run x 40 games per player count, players 2, bots tuned: 40 games")
    assert "estimate: unknown: the Schweinebande engine has not run here" in so  # a dry run does not compile
    assert not out.exists()  # nothing played, nothing written
    code, _, se = run_cli(["run", *SB, "-q", "--out", str(tmp_path / "first")], capsys)  # compiles (or loads) it
    assert code == 0, se
    code, so, se = run_cli(["run", *SB, "--out", str(out), "--dry-run"], capsys)
    assert code == 0 and "estimate: about " in so and "games/s" in so and "measured here" in so
    assert not out.exists()
    code, so, se = run_cli(
        ["sweep", *SB, "--param", "start_feed", "--values", "0;1", "--out", str(tmp_path / "s")], capsys
    )
    assert code == 0, se
    assert "plan: sweep of start_feed" in se and "estimate:" in se  # a real run: the plan goes to stderr
    assert so.splitlines()[0].startswith("schweinebande: sweep of start_feed")
    assert "seat gap" in so and "start_feed=1" in so


def test_run_and_compare_end_with_a_table_and_json(tmp_path, capsys):
    code, so, se = run_cli(["run", *SB, "-q", "--out", str(tmp_path / "r")], capsys)
    assert code == 0, se
    assert "win tuned" in so and "seat gap" in so and "best/worst seat" in so
    code, so, se = run_cli(
        ["compare", *SB, "-q", "--set", "start_feed=0,3", "--json", "--out", str(tmp_path / "c")], capsys
    )
    assert code == 0, se
    rec = json.loads(so)
    whats = [r["what"] for r in rec["rows"]]
    assert whats == ["mean score tuned", "seat gap"]  # one bot in every seat wins 1/P: its score is what moves
    score = rec["rows"][0]
    assert score["change"] == pytest.approx(score["variant"] - score["baseline"], abs=1e-9)
    gap = rec["rows"][1]
    assert gap["players"] == 2 and set(gap) >= {"baseline", "variant", "change", "95% CI", "Holm p", "significant"}


def test_sweep_of_one_seats_value(tmp_path, capsys):
    """sweep --param NAME:K: seat K's own value of a per-seat parameter, the other seats keep theirs."""
    out = tmp_path / "s"
    args = ["sweep", *SB, "-q", "--param", "start_feed:2", "--values", "0;2", "--set", "start_feed=1", "--json"]
    code, so, se = run_cli([*args, "--out", str(out)], capsys)
    assert code == 0, se
    assert sorted(d.name for d in out.iterdir() if d.is_dir()) == ["start_feed.seat2=0", "start_feed.seat2=2"]
    params = [
        json.loads((out / d / "run.json").read_text())["params"]["start_feed"]
        for d in ("start_feed.seat2=0", "start_feed.seat2=2")
    ]
    assert params == [[1, 0], [1, 2]]
    assert [r["run"] for r in json.loads(so)["rows"]] == ["start_feed:2=0", "start_feed:2=2"]


def test_tournament_table_as_json(tmp_path, capsys):
    code, so, se = run_cli(
        ["tournament", *SB, "-q", "--bots", "greedy,random", "--json", "--out", str(tmp_path / "t")], capsys
    )
    assert code == 0, se
    rows = json.loads(so)["rows"]
    assert [r["bot"] for r in rows] == ["greedy", "random"] and rows[0]["rating"] > 0


def test_duration_text():
    assert [duration(x) for x in (0.2, 44, 200, 7500)] == ["1 s", "44 s", "3 min 20 s", "2 h 05 min"]


def test_the_calibrations_compile_is_the_runs_and_not_play(tmp_path, capsys, monkeypatch):
    """The calibration compiles the engine before the run's own warm-up, which then finds it loaded: the run records
    the calibration's compile/load as its own (and says so), and the estimate counts play only."""
    from meeplab.lab.runs import estimate

    def fake(cfg, budget_s=estimate.CALIBRATE_S):  # 40 games/s after a 7 s compile
        return {p: estimate.Speed(p, 40.0, 7.0, 4) for p in cfg.players}

    monkeypatch.setattr(estimate, "calibrate", fake)
    code, so, se = run_cli(["run", *SB, "--out", str(tmp_path / "dry"), "--dry-run"], capsys)
    assert code == 0, se
    assert "estimate: about 1 s of play (2 players 40.0 games/s on one thread" in so
    assert "compile/load 7.0 s, done)" in so
    code, so, se = run_cli(["run", *SB, "--out", str(tmp_path / "r")], capsys)
    assert code == 0, se
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["calibration_compile_s"] == 7.0  # this run's calibration only: the dry run's left nothing behind
    assert meta["wall_time_s"] >= meta["compile_time_s"] >= 7.0  # both include it
    play = meta["wall_time_s"] - meta["compile_time_s"]  # what play took, as before
    # the same play time, up to the rounding of wall and compile to milliseconds (40 games take a few ms)
    assert abs(40 / meta["games_per_second"] - play) <= 0.0011 + 0.01 * play
    assert f"compile/load {meta['compile_time_s']:.1f} s, 7.0 s of it in the calibration before play" in se
    code, so, se = run_cli(["run", *SB, "-q", "--out", str(tmp_path / "q")], capsys)
    assert code == 0, se
    assert json.loads((tmp_path / "q" / "run.json").read_text())["calibration_compile_s"] == 0.0  # -q: no plan


def test_the_progress_bar_starts_after_the_warm_up(tmp_path, monkeypatch):
    """Its rate and time left count play only: a minutes-long compile never enters them."""
    import contextlib

    from meeplab.lab.runs import runner
    from meeplab.sim.core.registry import get_game

    events = []

    @contextlib.contextmanager
    def notice(game, stream=None):
        events.append("warm-up")
        yield

    def bar(total, initial=0, unit_scale=False):
        events.append("bar")

    monkeypatch.setattr(runner, "compile_notice", notice)
    monkeypatch.setattr(runner, "make_bar", bar)
    from meeplab.lab.runs.plan import RunConfig, plan_run

    plan = plan_run(RunConfig(get_game("schweinebande"), 8, [2, 3], ["greedy"], out=tmp_path / "r"))
    assert runner.run(plan).status == "complete"
    assert events == ["warm-up", "warm-up", "bar"]


def test_every_lineup_is_timed_and_the_slowest_named(tmp_path, capsys, monkeypatch):
    """A ladder mixes a fast bot with a search bot thousands of times slower: each lineup is calibrated once (the
    lineups share the calibration time), the estimate adds up each run at its own lineup's speed, and the plan names
    the slowest lineup, the one that sets the pace."""
    from meeplab.lab.runs import estimate

    seen = []

    def fake(cfg, budget_s=estimate.CALIBRATE_S):  # heuristic 1,000 games/s, anything with rollout one game in 2 s
        seen.append((tuple(cfg.bots), budget_s))
        gps = 0.5 if any("rollout" in b for b in cfg.bots) else 1000.0
        return {p: estimate.Speed(p, gps, 0.0, 1) for p in cfg.players}

    monkeypatch.setattr(estimate, "calibrate", fake)
    args = ["ladder", *SB, "--bots", "heuristic,rollout", "--threads", "1", "--dry-run"]
    code, so, se = run_cli([*args, "--out", str(tmp_path / "l")], capsys)
    assert code == 0, se
    assert [b for b, _ in seen] == [("heuristic",), ("rollout",), ("heuristic", "rollout")]  # each lineup once
    assert all(abs(b - estimate.CALIBRATE_S / 3) < 1e-9 for _, b in seen)
    # 40 games on one thread: rollout's self-play and the pair each 40 / 0.5 = 80 s, heuristic's a few ms
    assert "estimate: about 2 min 40 s of play (slowest: 2 players 2.0 s a game (rollout) on one thread" in so
    assert "bots heuristic | rollout | heuristic,rollout: 120 games" in so
    assert not (tmp_path / "l").exists()


def test_a_short_batch_keeps_every_thread_busy():
    """Blocks of a batch (play_batch): slow search games in a short run still use every thread, long runs get at
    most BLOCKS_PER_THREAD blocks per thread, and the blocks cover every game once."""
    import numba

    from meeplab.sim.core.play import BLOCKS_PER_THREAD, CHUNK, block_size, parallel_width

    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        threads = numba.get_num_threads()
        for n in (1, 2, 3, 40, 63, 64, 100, 600, 2048, 50_000):
            size = block_size(n)
            blocks = -(-n // size)
            assert (blocks - 1) * size < n <= blocks * size  # every game in one block, no empty block
            assert blocks <= max(threads, BLOCKS_PER_THREAD * threads)
            assert parallel_width(n) == min(threads, n)  # one game per thread at least
            if n >= CHUNK * threads:
                assert size >= CHUNK // 2  # few calls of the compiled loop for fast games
    finally:
        numba.set_num_threads(before)


def test_a_bot_in_every_seat_gets_no_degenerate_interval(tmp_path, capsys):
    """One bot in every seat wins 1/P per seat by construction: the table says so instead of '[0.333, 0.333]'."""
    code, so, se = run_cli(["run", *SB, "--bots", "greedy", "-q", "--json", "--out", str(tmp_path / "r")], capsys)
    assert code == 0, se
    (row,) = json.loads(so)["rows"]
    assert row["95% CI greedy"] == "– (every seat)" and row["win greedy"] == pytest.approx(1 / row["players"])
    seats = [row[f"seat {k}"] for k in range(1, row["players"] + 1)]  # what it does say: each seat's win rate
    assert sum(float(x.split()[0]) for x in seats) == pytest.approx(1.0, abs=0.01) and all("[" in x for x in seats)


def test_a_one_bot_compare_reports_no_tautology(tmp_path, capsys):
    """One bot in every seat wins 1/P per seat whatever the rules: the report does not say its win rate did not
    change (the designer study counted four such lines)."""
    code, _, se = run_cli(["compare", *SB, "-q", "--bots", "greedy", "--set", "start_feed=0,1", "--out",
                           str(tmp_path / "c")], capsys)  # fmt: skip
    assert code == 0, se
    assert "no bot's win rate changes significantly" not in (tmp_path / "c" / "report.html").read_text()
