"""Faults and misuse, with real processes: a second writer, kill -9, damaged and missing data, names that try to
leave OUT, foreign files under --force, unwritable places, a full disk, an unreachable scheduler, bad numbers.

Every refusal is one line on stderr and exit code 2; every damaged or missing part is named and, on --resume,
played again from its seeds, so the rows equal an uninterrupted run's. Runs are tiny (Schweinebande, cheap bots).
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from meeplab.analysis.load import load_run
from meeplab.cli import main
from meeplab.lab.runs import rundir, shards

ARGS = ["schweinebande", "--quiet", "--players", "3", "--bots", "greedy,random", "--seed", "5"]
GAMES = ["--games", "2400", "--shard", "100"]


def rows(path: Path) -> pl.DataFrame:
    return pl.read_parquet(path / "results.parquet")


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def wait_for_shards(out: Path, k: int, timeout: float = 600) -> int:
    deadline = time.time() + timeout
    while time.time() < deadline:
        n = len(rundir.read_entries(out))
        if n >= k:
            return n
        time.sleep(0.05)
    raise AssertionError(f"{out}: fewer than {k} shards after {timeout} s")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted run every recovered run must equal, row for row."""
    out = tmp_path_factory.mktemp("ref") / "run"
    assert main(["run", *ARGS, *GAMES, "--out", str(out)]) == 0
    return out


def test_second_writer_refused_reader_sees_verified_parts_damage_named_and_replayed(reference, tmp_path, capsys):
    out = tmp_path / "w"
    proc = subprocess.Popen(
        [sys.executable, "-m", "meeplab.cli", "run", *ARGS, *GAMES, "--out", str(out)],
        env=dict(os.environ, MEEPLAB_SHARD_PAUSE="0.5"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_shards(out, 2)
        # a second writer (a --resume started while the run goes on) is refused at once, naming the holder
        t0 = time.perf_counter()
        assert main(["run", *ARGS, *GAMES, "--resume", "--out", str(out)]) == 2
        line = one_line(capsys.readouterr().err)
        assert time.perf_counter() - t0 < 10
        assert f"pid {proc.pid} on {socket.gethostname()}" in line and "being written" in line
        # a reader takes only the parts the manifest vouches for: whole shards, consistent
        n = load_run(out).n_rows
        assert n > 0 and n % 300 == 0
        assert main(["check", str(out)]) == 0
        assert "being written by pid" in capsys.readouterr().out
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # no handler runs; the kernel releases the lock
        proc.communicate(timeout=60)
    entries = sorted(rundir.read_entries(out), key=lambda e: e.start)
    assert 2 <= len(entries) < 24
    # damage: one part truncated, one deleted; check names both and changes nothing
    first, second = (out / "chunks" / e.file for e in entries[:2])
    first.write_bytes(first.read_bytes()[:100])
    second.unlink()
    before = sorted(p.name for p in (out / "chunks").iterdir())
    assert main(["check", str(out)]) == 1
    text = capsys.readouterr().out
    assert f"{first}: damaged" in text and f"{second}: missing" in text
    assert sorted(p.name for p in (out / "chunks").iterdir()) == before
    # a report refuses damaged data in one line
    assert main(["report", str(out), "--out", str(tmp_path / "r.html")]) == 2
    assert "damaged" in one_line(capsys.readouterr().err)
    # --resume (the lock is free again) names them, plays them again: the rows equal an uninterrupted run's
    assert main(["run", *ARGS, *GAMES, "--resume", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert first.name in err and second.name in err and "again" in err
    assert rows(out).equals(rows(reference))
    assert main(["check", str(out)]) == 0


@pytest.mark.parametrize("damage", ["truncate", "delete", "flip"])
def test_damaged_results_of_a_complete_run_are_played_again(reference, tmp_path, capsys, damage):
    out = tmp_path / "c"
    shutil.copytree(reference, out)
    res = out / "results.parquet"
    data = res.read_bytes()
    if damage == "truncate":
        res.write_bytes(data[: len(data) // 2])
    elif damage == "delete":
        res.unlink()
    else:  # one bit of a data page: still readable Parquet, only the checksum sees it
        b = bytearray(data)
        b[200] ^= 1
        res.write_bytes(bytes(b))
    assert main(["check", str(out)]) == 1
    assert "results.parquet" in capsys.readouterr().out
    assert main(["report", str(out), "--out", str(tmp_path / "r.html")]) == 2
    assert "results.parquet" in one_line(capsys.readouterr().err)
    assert main(["run", *ARGS, *GAMES, "--resume", "--out", str(out)]) == 0
    assert "playing the run again" in capsys.readouterr().err
    assert rows(out).equals(rows(reference))


def test_data_of_another_game_is_refused(reference, tmp_path, capsys):
    out = tmp_path / "edited"
    shutil.copytree(reference, out)
    meta = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps(dict(meta, game="goldrush")))
    assert main(["check", str(out)]) == 1
    assert "played by schweinebande, not goldrush" in capsys.readouterr().out
    assert main(["report", str(out), "--out", str(tmp_path / "r.html")]) == 2
    assert "played by schweinebande" in one_line(capsys.readouterr().err)
    # two runs of different games are not compared
    other = tmp_path / "other"
    other.mkdir()
    (other / "run.json").write_text(json.dumps({"game": "hacienda"}))
    assert main(["report", str(reference), str(other), "--out", str(tmp_path / "r.html")]) == 2
    assert "different games" in one_line(capsys.readouterr().err)


def test_force_removes_only_what_meeplab_wrote(tmp_path, capsys):
    out = tmp_path / "f"
    assert main(["run", *ARGS, "--games", "300", "--out", str(out)]) == 0
    (out / "notes.txt").write_text("mine")
    (out / "chunks").mkdir()
    (out / "chunks" / "keep.parquet").write_text("mine too")
    assert main(["run", *ARGS, "--games", "200", "--force", "--out", str(out)]) == 0
    assert (out / "notes.txt").read_text() == "mine" and (out / "chunks" / "keep.parquet").read_text() == "mine too"
    assert rows(out).height == 600
    assert main(["check", str(out)]) == 0


def test_tournament_lineup_names_stay_inside_out(tmp_path, capsys):
    cfg = tmp_path / "evil.toml"
    absolute = str(tmp_path / "abs")  # a bot named by an absolute path outside OUT
    cfg.write_text(f'[bots."x/../../../escape"]\nbase = "greedy"\n[bots."{absolute}"]\nbase = "random"\n')
    root = tmp_path / "a" / "b"
    out = root / "t"
    root.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    assert (
        main(
            [
                "tournament",
                "schweinebande",
                "--quiet",
                "--games",
                "40",
                "--players",
                "2",
                "--bots",
                f"greedy,x/../../../escape,{absolute}",
                "--bot-config",
                str(cfg),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    after = sorted(str(p) for p in tmp_path.rglob("*"))
    new = [p for p in after if p not in before]
    assert new and all(p.startswith(str(out)) for p in new)
    assert victim.read_text() == "untouched"
    lineups = json.loads((out / "tournament.json").read_text())["lineups"]
    assert len(lineups) == 3
    for lu in lineups:
        run = Path(lu["run"])
        assert run.parent == out / "p2" and (run / "results.parquet").is_file()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["run", *ARGS, "--out", ""], "--out needs a directory"),
        (["run", *ARGS, "--resume", "--force", "--out", "{tmp}/x"], "not both"),
        (["run", *ARGS, "--shard", "0", "--out", "{tmp}/x"], "--shard must be a positive"),
        (["run", *ARGS, "--games", str(10**15), "--out", "{tmp}/x"], "at most"),
        (["run", *ARGS, "--games", str(10**12), "--out", "{tmp}/x"], "on disk"),
        (["run", *ARGS, "--seed", str(2**64), "--out", "{tmp}/x"], "--seed must be in"),
        (["replay", "schweinebande", "--index", str(2**64)], "--index must be in"),
        (["replay", "schweinebande", "--seed", str(2**64)], "--seed must be in"),
        (["run", *ARGS, "--games", "10", "--out", "/proc/meeplab-faults/x"], "cannot create"),
        (["run", *ARGS, "--games", "10", "--out", "{tmp}/file.txt/x"], "--out"),
        (["tournament", *ARGS, "--resume", "--force", "--out", "{tmp}/t"], "not both"),
    ],
)
def test_misuse_is_one_line_and_exit_2(tmp_path, capsys, argv, says):
    (tmp_path / "file.txt").write_text("a file, not a directory")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    assert says in one_line(capsys.readouterr().err)


def test_unwritable_out_and_full_disk_are_one_line(reference, tmp_path, capsys):
    # a report onto a full disk (/dev/full answers every write with ENOSPC)
    assert main(["report", str(reference), "--out", "/dev/full"]) == 2
    assert "/dev/full" in one_line(capsys.readouterr().err)
    # a run directory whose lock cannot be taken (a read-only place): a directory where the lock file must go
    out = tmp_path / "ro"
    (out / rundir.LOCK).mkdir(parents=True)
    assert main(["run", *ARGS, "--games", "10", "--out", str(out)]) == 2
    assert "cannot write" in one_line(capsys.readouterr().err)


@pytest.fixture
def small_disk(tmp_path):
    """A real file system of 512 KiB (tmpfs), grown to 16 MiB by calling the fixture's value; skipped where this
    process may not mount (not root, no CAP_SYS_ADMIN)."""
    where = tmp_path / "disk"
    where.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(where)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {made.stderr.decode().strip()}")

    def grow():
        subprocess.run(["mount", "-o", "remount,size=16m", str(where)], check=True)

    try:
        yield where, grow
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def test_a_real_full_disk_mid_run_keeps_the_parts_and_resume_finishes_it(small_disk, tmp_path, capsys):
    """The disk fills up while the parts are written (~85 KB each, 512 KiB in all): one line and exit 2, the parts
    already written are kept and verify; once there is space, --resume finishes the run with the rows of an
    uninterrupted run and leaves no temporary file behind."""
    disk, grow = small_disk
    out = disk / "r"
    args = ["run", *ARGS, "--games", "60000", "--shard", "5000"]
    assert main([*args, "--out", str(out)]) == 2
    err = one_line(capsys.readouterr().err)
    assert "disk is full" in err and "--resume" in err
    kept = list((out / shards.CHUNKS).glob("part-*.parquet"))
    assert kept and json.loads((out / "run.json").read_text())["status"] != "complete"
    assert main(["check", str(out)]) == 0  # what is there verifies
    assert f"{len(kept)} verified part(s)" in capsys.readouterr().out
    grow()
    assert main([*args, "--resume", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [".meeplab.lock", "results.parquet", "run.json"]
    assert main([*args, "--out", str(tmp_path / "ref")]) == 0
    key = ["n_players", "game_index", "seat"]
    got = pl.read_parquet(out / "results.parquet").sort(key)
    assert got.equals(pl.read_parquet(tmp_path / "ref" / "results.parquet").sort(key))


def test_unreachable_scheduler_fails_within_timeout(capsys, tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    addr = f"tcp://127.0.0.1:{port}"
    assert main(["run", *ARGS, "--scheduler", addr, "--timeout", "3", "--out", str(tmp_path / "s")]) == 2
    assert time.perf_counter() - t0 < 8
    assert addr in one_line(capsys.readouterr().err)
    # a listener that never answers the Dask handshake: the client's own timeout, still one line
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        addr = f"tcp://127.0.0.1:{srv.getsockname()[1]}"
        t0 = time.perf_counter()
        assert main(["run", *ARGS, "--scheduler", addr, "--timeout", "2", "--out", str(tmp_path / "s2")]) == 2
        assert time.perf_counter() - t0 < 8
        assert addr in one_line(capsys.readouterr().err)


def test_shards_are_planned_lazily():
    plan = shards.plan([3], 10**12, 1, {})
    assert [next(plan) for _ in range(3)] == [(3, 0, 1), (3, 1, 1), (3, 2, 1)]
    assert shards.plan_count([2, 3], 10**12, 50_000, {3: [(0, 50_000)]}) == {2: 20_000_000, 3: 19_999_999}
    done = {3: [(100, 50), (300, 100)]}
    assert list(shards.plan([3], 500, 120, done)) == [(3, 0, 100), (3, 150, 120), (3, 270, 30), (3, 400, 100)]
    assert shards.plan_count([3], 500, 120, done) == {3: 4}


def test_safe_names():
    assert rundir.safe_name("heuristic+greedy") == "heuristic+greedy"
    for evil in ("x/../../../escape", "/etc/passwd", "..", ".hidden", "a\\b", "a" * 300, ""):
        name = rundir.safe_name(evil)
        assert "/" not in name and "\\" not in name and ".." not in name and not name.startswith(".")
        assert 0 < len(name) <= 100
    assert rundir.safe_name("a/b") != rundir.safe_name("a_b")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_nan_and_infinity_refused_with_the_name(tmp_path, capsys, value):
    weights = tmp_path / "w.toml"
    weights.write_text(f'[bots.w]\nbase = "heuristic"\n[bots.w.weights]\n"reveal.gain" = {value}\n')
    out = str(tmp_path / "x")
    assert main(["run", *ARGS, "--bots", "w", "--bot-config", str(weights), "--out", out]) == 2
    assert "'reveal.gain'" in one_line(capsys.readouterr().err)
    assert main(["run", *ARGS, "--set", f"pig_bonus_farm={value}", "--out", out]) == 2
    assert "pig_bonus_farm" in one_line(capsys.readouterr().err)
    argv = ["sweep", *ARGS, "--param", "pig_bonus_farm", "--values", f"1;{value}", "--out", out]
    assert main(argv) == 2
    assert "pig_bonus_farm" in one_line(capsys.readouterr().err)
    import meeplab
    from meeplab.sim.core.errors import MeeplabError

    with pytest.raises(MeeplabError, match="pig_bonus_farm"):
        meeplab.run("schweinebande", games=10, set={"pig_bonus_farm": float(value)}, out=out)
    for name in ("games", "seed"):
        with pytest.raises(MeeplabError, match=f"^{name}="):
            meeplab.run("schweinebande", **{name: float(value)}, out=out)
    assert not Path(out).exists()


FORKS = r"""
import os, sys
import pandas  # noqa: F401  (what every child would import first, loaded once here)
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.registry import get_game
from meeplab.lab.runs.plan import RunConfig, plan_run
from meeplab.lab.runs.runner import run

game = get_game("schweinebande")
# The parent loads the engine's code through the one-thread path (no parallel region: forking after numba's OpenMP
# pool has started is unsafe), so each child starts its own threads, plays, and tears them down.
cfg = RunConfig(game=game, games=1, players=[3], bots=["greedy", "random"])
game.decisions(plan_run(cfg).ctx, make_lineup(game.id, cfg.bots, 3, True, ()), 1, 0, 1, 3)
codes = []
for i in range(int(sys.argv[1])):
    pid = os.fork()
    if pid == 0:  # the child plays in memory, then leaves through the interpreter's normal teardown
        cfg = RunConfig(game=game, games=60, players=[3], bots=["greedy", "random"], shard=20, progress=False)
        meta = run(plan_run(cfg))
        assert meta.table.num_rows == 180
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    codes.append(os.waitstatus_to_exitcode(status))
print(codes)
sys.exit(0 if all(c == 0 for c in codes) else 1)
"""


def test_the_in_memory_path_exits_through_python_every_time():
    """The rows kept in memory (no OUT): 20 processes in a row each end with their own exit code, never an abort
    at teardown ("terminate called without an active exception", exit 134: an Arrow pool thread still alive when
    the interpreter exits; see the next test for its cause). Each child checks its rows before it exits (a wrong
    table exits 1)."""
    proc = subprocess.run([sys.executable, "-c", FORKS, "20"], capture_output=True, text=True, timeout=600)
    codes = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else None
    assert codes == [0] * 20, (codes, proc.stderr[-3000:])
    assert proc.returncode == 0 and "terminate called" not in proc.stderr, proc.stderr[-3000:]


THREADS = r"""
import os, sys
import pyarrow as pa, pyarrow.parquet as pq
from meeplab.lab.runs import shards

def threads():
    return len(os.listdir("/proc/self/task"))

sink = pa.BufferOutputStream()
pq.write_table(pa.table({"a": list(range(1000))}), sink, compression="zstd")
data = sink.getvalue().to_pybytes()
before = threads()
for _ in range(3):
    assert shards.bytes_table(data).num_rows == 1000
print(before, threads())
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc (Linux)")
def test_reading_parts_starts_no_arrow_thread():
    """The cause of the abort above: ``pq.read_table`` goes through Arrow's dataset scanner, which starts an I/O
    pool thread even with ``use_threads=False``; a part is read with ``ParquetFile`` in the calling thread, so
    the in-memory path (and the merge) leave no Arrow thread behind to be torn down at exit."""
    proc = subprocess.run([sys.executable, "-c", THREADS], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, after = map(int, proc.stdout.split())
    assert after == before
