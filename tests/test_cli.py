"""The meeplab command line: runs, results schema, reproducibility, errors (one line, exit 2)."""

import json
import os
import signal
import subprocess
import sys
import time

import polars as pl
import pytest
from cli_run import run_cli

SB = ["run", "schweinebande", "--quiet"]


def test_run_writes_results_and_run_json(tmp_path, capsys):
    out = tmp_path / "r"
    code, _, err = run_cli(
        SB + ["--games", "300", "--players", "2-3", "--bots", "heuristic,random", "--seed", "4", "--out", str(out)],
        capsys,
    )
    assert code == 0, err
    df = pl.read_parquet(out / "results.parquet")
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "complete" and meta["games_completed"] == {"2": 300, "3": 300}
    assert df.height == 300 * 2 + 300 * 3
    for col in [
        "game_index",
        "n_players",
        "seat",
        "entry",
        "bot",
        "score",
        "rank",
        "win",
        "length",
        *meta["categories"],
    ]:
        assert col in df.columns
    # categories add up to the score; wins add up to one per game; ranks start at 1
    cats = sum(df[c] for c in meta["categories"])
    assert ((cats - df["score"]).abs() < 1e-9).all()
    per_game = df.group_by("n_players", "game_index").agg(pl.col("win").sum(), pl.col("rank").min())
    assert ((per_game["win"] - 1).abs() < 1e-9).all() and (per_game["rank"] == 1).all()
    # rotation: every bot plays every seat equally often (2 players, 300 games)
    seats = df.filter(pl.col("n_players") == 2).group_by("bot", "seat").len()
    assert set(seats["len"].to_list()) == {150}
    assert meta["lineups"]["3"] == ["heuristic", "random", "heuristic"]
    assert not (out / "chunks").exists()


def test_same_numbers_for_any_thread_count_and_chunk_size(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    common = ["--games", "500", "--players", "4", "--bots", "greedy,random", "--seed", "7"]
    assert run_cli(SB + common + ["--threads", "1", "--out", str(a)], capsys)[0] == 0
    assert run_cli(SB + common + ["--threads", "2", "--chunk", "77", "--out", str(b)], capsys)[0] == 0
    da = pl.read_parquet(a / "results.parquet").sort("game_index", "seat")
    db = pl.read_parquet(b / "results.parquet").sort("game_index", "seat")
    assert da.equals(db)


def test_fixed_seats_keep_the_order(tmp_path, capsys):
    out = tmp_path / "f"
    assert (
        run_cli(
            SB
            + [
                "--games",
                "50",
                "--players",
                "3",
                "--bots",
                "heuristic,greedy,random",
                "--fixed-seats",
                "--out",
                str(out),
            ],
            capsys,
        )[0]
        == 0
    )
    df = pl.read_parquet(out / "results.parquet")
    pairs = set(zip(df["seat"].to_list(), df["bot"].to_list()))
    assert pairs == {(0, "heuristic"), (1, "greedy"), (2, "random")}


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "nogame", "--out", "X"], "unknown game 'nogame'"),
        (["run", "schweinebande", "--bots", "greedy,nobot", "--out", "X"], "unknown bot 'nobot'"),
        (["run", "schweinebande", "--set", "nope=1", "--out", "X"], "unknown parameter 'nope'"),
        (["run", "schweinebande", "--set", "rounds=two", "--out", "X"], "expects an integer"),
        (["run", "schweinebande", "--set", "rounds=0", "--out", "X"], "out of range"),
        (["run", "schweinebande", "--set", "animal_values=1,2", "--out", "X"], "exactly 6 values"),
        (["run", "schweinebande", "--set", "board=circle", "--out", "X"], "is not one of"),
        (["run", "schweinebande", "--players", "6", "--out", "X"], "2 to 5 players, not 6"),
        (["run", "schweinebande", "--players", "x", "--out", "X"], "--players expects"),
        (["run", "schweinebande", "--games", "0", "--out", "X"], "positive"),
        (["run", "schweinebande", "--games", "-5", "--out", "X"], "positive"),
        (["run", "schweinebande", "--games", "ten", "--out", "X"], "not a valid integer"),
        (["run", "schweinebande", "--set", "rounds", "--out", "X"], "name=value"),
        (["run", "schweinebande", "--params", "missing.toml", "--out", "X"], "not found"),
        (["params", "chess"], "unknown game"),
        (["replay", "schweinebande", "--players", "1"], "2 to 5 players"),
        (["report", "does-not-exist"], "does-not-exist"),
        (["run", "schweinebande", "--bot-config", "missing.toml", "--out", "X"], "not found"),
    ],
)
def test_user_errors_are_one_line_exit_2(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _out, err = run_cli(args, capsys)
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("meeplab: error:") and message in lines[0], lines[0]
    assert "Traceback" not in err
    assert not (tmp_path / "X").exists()  # nothing written before the input was checked


def test_corrupt_files_are_refused_cleanly(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.toml").write_text("rounds = = 3\n")
    code, _, err = run_cli(["run", "schweinebande", "--params", "bad.toml", "--out", "X"], capsys)
    assert code == 2 and "not valid TOML" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "types.toml").write_text("rounds = 'four'\n")
    code, _, err = run_cli(["run", "schweinebande", "--params", "types.toml", "--out", "X"], capsys)
    assert code == 2 and "expects an integer" in err
    run_dir = tmp_path / "corrupt"
    run_dir.mkdir()
    (run_dir / "run.json").write_text("{not json")
    code, _, err = run_cli(["report", str(run_dir), "--out", "r.html"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    (tmp_path / "bots.toml").write_text("[bots.fast]\nbase = 'heuristic'\n[bots.fast.weights]\nwarp = 2\n")
    code, _, err = run_cli(["bots", "schweinebande", "--bot-config", "bots.toml"], capsys)
    assert code == 2 and "unknown weight 'warp'" in err


def test_params_file_and_bot_variant(tmp_path, capsys):
    (tmp_path / "whatif.toml").write_text("[params]\npig_bonus_farm = 3\nanimal_values = [2, 3, 4, 5, 6, 9]\n")
    (tmp_path / "bots.toml").write_text(
        "[bots.pigman]\nbase = 'heuristic'\ndescription = 'loves pigs'\n[bots.pigman.weights]\n'collect.pigs' = 4.0\n"
    )
    out = tmp_path / "w"
    code, _, err = run_cli(
        SB
        + [
            "--games",
            "200",
            "--players",
            "3",
            "--bots",
            "pigman,heuristic",
            "--params",
            str(tmp_path / "whatif.toml"),
            "--bot-config",
            str(tmp_path / "bots.toml"),
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    meta = json.loads((out / "run.json").read_text())
    assert meta["params_changed"] == {"animal_values": [2, 3, 4, 5, 6, 9], "pig_bonus_farm": 3}
    assert meta["bot_weights"]["pigman"]["collect.pigs"] == 4.0
    assert meta["bot_weights"]["heuristic"]["collect.pigs"] != 4.0


def test_replay_is_the_batch_game(tmp_path, capsys):
    out = tmp_path / "r"
    assert (
        run_cli(
            SB
            + [
                "--games",
                "20",
                "--players",
                "3",
                "--bots",
                "heuristic,greedy,random",
                "--seed",
                "3",
                "--out",
                str(out),
            ],
            capsys,
        )[0]
        == 0
    )
    df = pl.read_parquet(out / "results.parquet").filter(pl.col("game_index") == 13).sort("seat")
    code, text, err = run_cli(
        [
            "replay",
            "schweinebande",
            "--seed",
            "3",
            "--index",
            "13",
            "--players",
            "3",
            "--bots",
            "heuristic,greedy,random",
        ],
        capsys,
    )
    assert code == 0, err
    totals = [
        float(line.split()[-1])
        for line in text.splitlines()
        if line.startswith("  P") and len(line.split()) > 6 and line.split()[-1].replace(".", "").isdigit()
    ]
    assert totals[-3:] == df["score"].to_list()
    assert "== Round 4 ==" in text and "collects" in text


def test_params_and_bots_listing(capsys):
    code, out, _ = run_cli(["params", "schweinebande"], capsys)
    assert code == 0 and "animal_values" in out and "2,3,4,5,6,7" in out
    code, out, _ = run_cli(["bots", "schweinebande"], capsys)
    assert code == 0 and {"random", "greedy", "heuristic"} <= {ln.split()[0] for ln in out.splitlines() if ln}
    code, out, _ = run_cli(["games"], capsys)
    assert code == 0 and "schweinebande" in out


def test_interrupted_run_keeps_its_chunks(tmp_path):
    out = tmp_path / "big"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "meeplab.cli",
            "run",
            "schweinebande",
            "--games",
            "5000000",
            "--chunk",
            "2000",
            "--players",
            "3",
            "--out",
            str(out),
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        # a pytest-xdist worker ignores SIGINT, and an ignored signal stays ignored across exec (the child would
        # play on, as a run started in the background should): the child gets the default disposition back
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        # wait for two parts (a cold numba cache on a busy 2-core machine can take minutes to compile the engine;
        # an interrupt during compilation is not what this test is about)
        deadline = time.time() + 900
        while time.time() < deadline and proc.poll() is None:
            if out.joinpath("chunks").exists() and len(list(out.joinpath("chunks").glob("part-*.parquet"))) >= 2:
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # a failed test must not leave five million games playing on the machine
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "interrupted"
    done = meta["games_completed"]["3"]
    assert done >= 4000
    df = pl.read_parquet(out / "chunks" / "*.parquet")
    assert df.height == done * 3
    assert sorted(set(df["game_index"].to_list())) == list(range(done))


def test_compare_and_sweep_write_paired_reports(tmp_path, capsys):
    out = tmp_path / "cmp"
    code, _, err = run_cli(
        [
            "compare",
            "schweinebande",
            "--quiet",
            "--set",
            "pig_bonus_farm=3",
            "--games",
            "300",
            "--players",
            "3",
            "--bots",
            "heuristic,greedy",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    base = pl.read_parquet(out / "baseline" / "results.parquet").sort("game_index", "seat")
    var = pl.read_parquet(out / "variant" / "results.parquet").sort("game_index", "seat")
    # common random numbers: same deals, so rounds 1-3 (no pig bonus yet) are identical game by game
    assert base["quartets"].equals(var["quartets"])
    assert (var["pig_bonus"] >= base["pig_bonus"]).mean() > 0.95
    html = (out / "report.html").read_text()
    assert "paired" in html and "pig_bonus_farm" in html
    code, _, err = run_cli(
        ["compare", "schweinebande", "--quiet", "--games", "10", "--out", str(tmp_path / "c2")], capsys
    )
    assert code == 2 and "needs a variant" in err
    sw = tmp_path / "sw"
    code, _, err = run_cli(
        [
            "sweep",
            "schweinebande",
            "--quiet",
            "--param",
            "feed_per_animal",
            "--values",
            "0;2",
            "--games",
            "200",
            "--players",
            "2",
            "--out",
            str(sw),
        ],
        capsys,
    )
    assert code == 0, err
    assert (sw / "feed_per_animal=0" / "results.parquet").exists() and (sw / "report.html").exists()
    code, _, err = run_cli(
        ["sweep", "schweinebande", "--quiet", "--param", "nope", "--values", "0;2", "--out", str(sw)], capsys
    )
    assert code == 2 and "unknown parameter" in err
