"""Files meeplab writes: each goes to a fresh temporary file in its own folder and is moved into place (a link
planted at an old fixed temporary name, or at the target, never sends a write outside the folder); any path works
for runs, reports, views, sweeps and comparisons (``[``, ``*``, ``?``, spaces, unicode); a refused command leaves
the folder it refused byte for byte and mtime for mtime as it was, lock file included.

Runs are tiny (Schweinebande, cheap bots, 50 games).
"""

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest

from meeplab.cli import main
from meeplab.lab.runs import rundir, shards
from meeplab.sim.core import files

ARGS = ["schweinebande", "--quiet", "--players", "3", "--bots", "greedy,random", "--seed", "5", "--games", "50"]
ODD = "run [1] *?é"


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under ``folder`` (the folder itself included): kind, bytes (files, links' targets) and mtime."""
    out = {}
    for path in [folder, *sorted(folder.rglob("*"))]:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            body = os.readlink(path)
        elif stat.S_ISREG(st.st_mode):
            body = path.read_bytes()
        else:
            body = None
        out[str(path.relative_to(folder))] = (stat.S_IFMT(st.st_mode), body, st.st_mtime_ns, st.st_mode)
    return out


def outside_files(tmp_path: Path) -> dict[str, Path]:
    """Files outside every folder meeplab writes in, that planted links point at."""
    away = tmp_path / "away"
    away.mkdir()
    made = {}
    for name in ("a", "b", "c", "d", "e", "f", "g"):
        (away / name).write_text(f"outside {name}\n")
        made[name] = away / name
    return made


def untouched(made: dict[str, Path]) -> None:
    for name, path in made.items():
        assert not path.is_symlink() and path.read_text() == f"outside {name}\n", path


# -- the helper -----------------------------------------------------------------------------------------------


def test_atomic_write_replaces_whole_files_with_the_umask_mode(tmp_path):
    target = tmp_path / "new" / "x é [1].json"
    files.atomic_write(target, "é\n")
    assert target.read_bytes() == "é\n".encode()
    assert stat.S_IMODE(target.stat().st_mode) == files.public_mode()
    files.atomic_write(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    with files.atomic_writer(target, "w") as f:
        f.write("text ü")
    assert target.read_text(encoding="utf-8") == "text ü"
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]
    # a long name still gets a temporary file (its name is cut to fit NAME_MAX)
    long = tmp_path / ("n" * 250)
    files.atomic_write(long, "ok")
    assert long.read_text() == "ok"


def test_private_files_and_the_folders_made_for_them(tmp_path):
    target = tmp_path / "saves" / "deep" / "game.json"
    files.atomic_write(target, "{}", private=True)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "saves").stat().st_mode) == 0o700
    mode = stat.S_IMODE(tmp_path.stat().st_mode)
    files.atomic_write(tmp_path / "other.json", "{}", private=True)
    assert stat.S_IMODE(tmp_path.stat().st_mode) == mode  # a folder that was there is left as it is


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "keep.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), files.atomic_writer(target) as f:
        f.write(b"half")
        raise RuntimeError("stop")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
    with pytest.raises(ValueError), files.atomic_writer(target, "a"):
        pass


def test_planted_links_at_old_temp_names_and_at_the_target_are_not_followed(tmp_path):
    made = outside_files(tmp_path)
    folder = tmp_path / "run"
    folder.mkdir()
    for name, to in (("run.json.tmp", "a"), ("run.json", "b"), ("x.json.tmp", "c"), ("x.tmp", "d")):
        (folder / name).symlink_to(made[to])
    files.atomic_write(folder / "run.json", "{}")
    files.atomic_write(folder / "x", "x")
    files.atomic_write(folder / "x.json", "{}")
    untouched(made)
    assert not (folder / "run.json").is_symlink() and (folder / "run.json").read_text() == "{}"
    # a link to a folder at the target: the link is replaced, the folder keeps its files
    (folder / "page.html").symlink_to(made["e"].parent, target_is_directory=True)
    files.atomic_write(folder / "page.html", "<p>")
    assert (folder / "page.html").read_text() == "<p>"
    untouched(made)


def test_devices_are_written_in_place_and_links_to_them_refused(tmp_path):
    files.atomic_write("/dev/null", "nothing")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
    (tmp_path / "out").symlink_to("/dev/null")
    with pytest.raises(OSError, match="not a plain file"):
        files.atomic_write(tmp_path / "out", "x")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
    (tmp_path / "sock_dir").mkdir()
    with pytest.raises(OSError):
        files.atomic_write(tmp_path / "sock_dir", "x")


def test_appends_and_the_lock_refuse_planted_links(tmp_path):
    made = outside_files(tmp_path)
    out = tmp_path / "run"
    out.mkdir()
    (out / rundir.MANIFEST).symlink_to(made["a"])
    with pytest.raises(OSError):
        files.append_line(out / rundir.MANIFEST, "x\n")
    (out / rundir.LOCK).symlink_to(made["b"])
    with pytest.raises(rundir.MeeplabError, match="a link"):
        rundir.RunLock(out).acquire()
    untouched(made)
    files.append_line(out / "log.jsonl", "1\n")
    files.append_line(out / "log.jsonl", "2\n")
    assert (out / "log.jsonl").read_text() == "1\n2\n"


def test_core_writers_with_planted_links(tmp_path):
    """Each public writer of sim/core and analysis, with links at its target and its old fixed temporary names."""
    from meeplab.analysis import quality
    from meeplab.lab.studies import fair, sprt, tune

    made = outside_files(tmp_path)
    out = tmp_path / "out"
    (out / rundir.CHUNKS).mkdir(parents=True)
    part = rundir.part_name(3, 0)
    plants = {
        "sprt.json": "a",
        "sprt.json.tmp": "b",
        "run.json.tmp": "c",
        "fair.json": "d",
        "fair.json.tmp": "e",
        "v.toml.tmp": "f",
        "quality.json.tmp": "g",
        rundir.MANIFEST + ".tmp": "a",
        f"{rundir.CHUNKS}/{part}.tmp": "b",
        f"{rundir.CHUNKS}/{part}": "c",
    }
    for name, to in plants.items():
        (out / name).symlink_to(made[to])
    (out / "run.json").write_text(json.dumps({"game": "schweinebande"}))  # the least run.json read_meta takes
    sprt.store(out, out, {"status": "complete"})
    fair.save(out, {"fair": 1})
    tune.write_variant(out / "v.toml", "[bots.v]\n", force=False)
    quality.write_json(out / "quality.json", {"x": 1.0})
    data = shards.table_bytes(pa.table({"n_players": [3, 3, 3]}))
    shards.write_part(out, (3, 0, 1), data, "schweinebande")
    rundir.rewrite_manifest(out, rundir.read_entries(out))
    untouched(made)
    assert json.loads((out / "run.json").read_text())["sprt"] == {"status": "complete"}
    assert json.loads((out / "sprt.json").read_text()) == {"status": "complete"}
    assert (out / rundir.CHUNKS / part).read_bytes() == data and not (out / rundir.CHUNKS / part).is_symlink()
    assert [e.file for e in rundir.read_entries(out)] == [part]
    # a crash's leftovers: the stray temporary files are found, and removed with what they belong to
    stray = out / ".run.json.abcd_123.tmp"
    stray.write_text("half")
    assert files.stray_temps(out, "run.json") == [stray]
    rundir.remove_owned(out)
    assert not stray.exists() and not (out / "run.json").exists()
    untouched(made)


# -- real runs --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def odd_run(tmp_path_factory):
    """A finished run in a folder whose name holds [ ] * ? a space and é."""
    out = tmp_path_factory.mktemp("odd") / ODD
    assert main(["run", *ARGS, "--out", str(out), "--report", str(out.parent / f"{ODD} run report.html")]) == 0
    assert (out.parent / f"{ODD} run report.html").stat().st_size > 1000
    return out


def test_any_path_works_for_runs_reports_views_sweeps_and_comparisons(odd_run, capsys):
    out = odd_run
    assert main(["check", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [".meeplab.lock", "results.parquet", "run.json"]
    report = out.parent / f"{ODD} report [2].html"
    assert main(["report", str(out), "--out", str(report)]) == 0
    assert "<html" in report.read_text(encoding="utf-8").lower()
    page = out.parent / f"{ODD} view *.html"
    assert main(["view", str(out), "--index", "2", "--out", str(page)]) == 0
    assert page.stat().st_size > 1000
    sweep = out.parent / f"{ODD} sweep"
    assert main(["sweep", *ARGS, "--param", "start_feed", "--values", "0;1", "--out", str(sweep)]) == 0
    assert (sweep / "report.html").is_file()
    cmp = out.parent / f"{ODD} compare"
    assert main(["compare", *ARGS, "--set", "start_feed=1", "--out", str(cmp)]) == 0
    assert (cmp / "report.html").is_file()
    capsys.readouterr()


def refused(argv: list[str], folder: Path, capsys, says: str) -> None:
    capsys.readouterr()
    before = snapshot(folder)
    time.sleep(0.02)  # an mtime written now would differ from the snapshot's
    assert main(argv) == 2
    assert says in one_line(capsys.readouterr().err)
    assert snapshot(folder) == before


def test_a_refused_command_changes_nothing_in_the_folder_lock_included(odd_run, tmp_path, capsys):
    import shutil

    out = tmp_path / ODD
    shutil.copytree(odd_run, out, symlinks=True)
    (out / rundir.LOCK).write_text('{"pid": 1, "host": "elsewhere", "started": "then"}')  # a holder long gone
    refused(["run", *ARGS, "--out", str(out)], out, capsys, "already holds a run")
    refused(["run", *ARGS[:-1], "60", "--resume", "--out", str(out)], out, capsys, "holds a different run")
    refused(["run", *ARGS, "--seed", "6", "--resume", "--out", str(out)], out, capsys, "holds a different run")
    # another game's run into it (argument errors of that game come first: its own bots)
    refused(
        ["run", "goldrush", "--quiet", "--games", "50", "--bots", "random", "--resume", "--out", str(out)],
        out,
        capsys,
        "holds a different run",
    )
    # a live process holds the lock: refused at once, naming it
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from meeplab.lab.runs.rundir import RunLock; RunLock(sys.argv[1]).acquire(); "
            "print('held', flush=True); time.sleep(120)",
            str(out),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        refused(["run", *ARGS, "--resume", "--out", str(out)], out, capsys, f"pid {holder.pid}")
        refused(["run", *ARGS, "--force", "--out", str(out)], out, capsys, "being written by another")
    finally:
        holder.kill()
        holder.wait()
    # a run folder from before the lock file: refused without making one
    old = tmp_path / "older [run]"
    shutil.copytree(odd_run, old)
    (old / rundir.LOCK).unlink()
    refused(["run", *ARGS, "--out", str(old)], old, capsys, "already holds a run")
    # refused once locked: the lock file this command made is removed again
    before = {k: v[:2] for k, v in snapshot(old).items() if k != "."}
    assert main(["run", *ARGS, "--seed", "9", "--resume", "--out", str(old)]) == 2
    assert "holds a different run" in one_line(capsys.readouterr().err)
    assert {k: v[:2] for k, v in snapshot(old).items() if k != "."} == before
    # an accepted command names its holder in the lock
    assert main(["run", *ARGS, "--resume", "--out", str(out)]) == 0
    assert json.loads((out / rundir.LOCK).read_text())["pid"] == os.getpid()


def test_links_planted_in_a_run_folder_never_send_a_write_outside(tmp_path, capsys):
    made = outside_files(tmp_path)
    out = tmp_path / ODD
    (out / rundir.CHUNKS).mkdir(parents=True)
    part = rundir.part_name(3, 0)
    plants = {
        "run.json.tmp": "a",
        "results.parquet.tmp": "b",
        "manifest.jsonl.tmp": "c",
        "report.html": "f",
        "report.html.tmp": "g",
    }
    for name, to in plants.items():
        (out / name).symlink_to(made[to])
    assert main(["run", *ARGS, "--out", str(out)]) == 0
    assert main(["report", str(out), "--out", str(out / "report.html")]) == 0
    assert main(["view", str(out), "--out", str(out / "report.html")]) == 0
    untouched(made)
    for name in ("run.json", "results.parquet", "report.html"):
        assert (out / name).is_file() and not (out / name).is_symlink()
    assert main(["check", str(out)]) == 0
    # the same run with --force: the links at the targets are removed, not what they point to
    (out / "run.json").unlink()
    (out / "run.json").symlink_to(made["a"])
    (out / rundir.CHUNKS).mkdir()
    (out / rundir.CHUNKS / part).symlink_to(made["e"])
    (out / rundir.CHUNKS / (part + ".tmp")).symlink_to(made["d"])
    assert main(["run", *ARGS, "--force", "--out", str(out)]) == 0
    untouched(made)
    # a chunks folder that is a link is refused before anything is written
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / rundir.CHUNKS).symlink_to(made["a"].parent, target_is_directory=True)
    refused(["run", *ARGS, "--out", str(linked)], linked, capsys, "is a link")
    untouched(made)
