"""Shards on Dask, worker loss, resume after kill -9, and no run directory silently replaced."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest

from meeplab.analysis.load import load_run
from meeplab.cli import main

ARGS = ["schweinebande", "--quiet", "--players", "3", "--bots", "greedy,random", "--seed", "5"]


def rows(path: Path) -> pl.DataFrame:
    return pl.read_parquet(path / "results.parquet")


def wait_for_shards(out: Path, k: int, timeout: float = 900) -> int:  # a cold compile on a busy machine
    """Block until the run's manifest records at least k shards; returns how many it records."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        m = out / "manifest.jsonl"
        n = len(m.read_text().splitlines()) if m.exists() else 0
        if n >= k:
            return n
        time.sleep(0.05)
    raise AssertionError(f"{out}: fewer than {k} shards after {timeout} s")


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes whose shards last >= 0.15 s each (so that a run can be cut mid-way)."""
    from distributed import Client, LocalCluster

    os.environ["MEEPLAB_SHARD_PAUSE"] = "0.15"  # inherited by the worker processes only
    try:
        lc = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            scheduler_kwargs={"dashboard": False},
        )
    finally:
        del os.environ["MEEPLAB_SHARD_PAUSE"]
    client = Client(lc)
    yield lc, client
    client.close()
    lc.close()


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The reference: 6,000 games played in this process with numba threads, default shards."""
    out = tmp_path_factory.mktemp("local") / "run"
    assert main(["run", *ARGS, "--games", "6000", "--out", str(out)]) == 0
    return rows(out)


def test_cluster_run_is_row_for_row_the_local_run_even_when_a_worker_dies(cluster, local, tmp_path):
    lc, client = cluster
    out = tmp_path / "c"
    before = set(client.run(os.getpid).values())
    codes = []
    th = threading.Thread(
        target=lambda: codes.append(
            main(
                [
                    "run",
                    *ARGS,
                    "--games",
                    "6000",
                    "--shard",
                    "250",
                    "--scheduler",
                    lc.scheduler_address,
                    "--out",
                    str(out),
                ]
            )
        )
    )
    th.start()
    seen = wait_for_shards(out, 4)
    victim = sorted(before)[0]
    os.kill(victim, signal.SIGKILL)  # its running shard is lost mid-way; the nanny starts a new worker
    th.join(timeout=300)
    assert codes == [0]
    assert seen < 24  # the kill came before the end
    after = set(client.run(os.getpid).values())
    assert victim not in after
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "complete" and meta["shards"] == 24 and meta["shard_size"] == 250
    assert meta["scheduler"] == lc.scheduler_address and meta["games_completed"] == {"3": 6000}
    df = rows(out)
    assert df.height == 6000 * 3  # no shard counted twice
    assert df.equals(local)
    assert not (out / "chunks").exists() and not (out / "manifest.jsonl").exists()
    assert load_run(out).n_rows == 6000 * 3  # reports read it like any run


def test_resume_after_kill_9(local, tmp_path, capsys):
    out = tmp_path / "k"
    env = dict(os.environ, MEEPLAB_SHARD_PAUSE="0.1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "meeplab.cli", "run", *ARGS, "--games", "6000", "--shard", "300", "--out", str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        seen = wait_for_shards(out, 3)
    finally:
        proc.kill()  # SIGKILL: no handler runs
        proc.communicate(timeout=60)
    assert seen < 20
    assert json.loads((out / "run.json").read_text())["status"] == "running"
    # nothing is replaced silently, and a resume must be the same run
    assert main(["run", *ARGS, "--games", "6000", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "already holds a run" in err and "--resume" in err and len(err.strip().splitlines()) == 1
    assert main(["run", *ARGS, "--games", "6000", "--seed", "6", "--resume", "--out", str(out)]) == 2
    assert "holds a different run (seed 5, now 6)" in capsys.readouterr().err
    # a torn manifest line and a stray part (killed between rename and record) do not count
    with open(out / "manifest.jsonl", "a") as fh:
        fh.write('{"p": 3, "start": 5700, "n"')
    (out / "chunks" / "part-p3-000000005700.parquet").write_bytes(b"half")
    # resume on a cluster of our own with other shard sizes: only the missing games are played
    assert (
        main(["run", *ARGS, "--games", "6000", "--shard", "700", "--resume", "--workers", "1", "--out", str(out)]) == 0
    )
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "complete" and meta["resumed"] == 1 and meta["games_played"] <= 6000 - 300 * seen
    assert meta["workers"] == 1 and meta["scheduler"] == "local cluster" and meta["shard_size"] == 700
    assert rows(out).equals(local)
    assert main(["run", *ARGS, "--games", "6000", "--resume", "--out", str(out)]) == 0
    assert "already complete" in capsys.readouterr().err
    assert main(["run", *ARGS, "--games", "600", "--force", "--out", str(out)]) == 0
    assert rows(out).equals(local.filter(pl.col("game_index") < 600))


def test_compare_and_sweep_take_the_cluster_options(cluster, tmp_path, capsys):
    cmp = tmp_path / "cmp"
    common = ["--quiet", "--games", "300", "--players", "3", "--bots", "greedy"]
    assert (
        main(
            [
                "compare",
                "schweinebande",
                *common,
                "--set",
                "pig_bonus_farm=3",
                "--scheduler",
                cluster[0].scheduler_address,
                "--out",
                str(cmp),
            ]
        )
        == 0
    )
    assert (cmp / "report.html").exists()
    assert main(["run", "schweinebande", *common, "--set", "pig_bonus_farm=3", "--out", str(tmp_path / "v")]) == 0
    assert rows(cmp / "variant").equals(rows(tmp_path / "v"))
    meta = json.loads((cmp / "variant" / "run.json").read_text())
    assert meta["workers"] == 2 and meta["shard_size"] == 38  # every worker gets several shards
    for cmd in ("run", "compare", "sweep"):
        assert main([cmd, "--help"]) == 0
        text = capsys.readouterr().out
        assert all(o in text for o in ("--workers", "--scheduler", "--resume", "--force"))
