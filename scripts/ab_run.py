"""Same-moment A/B of whole ``meeplab run`` commands (play, write the parts, merge) for two source trees.

``scripts/ab.py`` times the engine alone; this times what a user waits for, so that a change to the runner, the
run directory or the results files is measured too. Each tree is staged as ``ab.py`` stages it; every measurement
is a fresh ``meeplab run GAME ... --out TMP --quiet`` in a subprocess of that tree, alternating A B, B A, ..., after
one untimed run of each (compile or cache load); the time is run.json's ``wall_time_s - compile_time_s``. Prints
each pair and the ratio of the medians, B over A (below 1: B is faster)::

    git worktree add /tmp/old HEAD~1
    python scripts/ab_run.py /tmp/old . --game schweinebande --players 3 --bots greedy --games 500000 --pairs 6
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import ab  # scripts/ab.py, next to this file (a script's own folder is the first place Python looks)


def one_run(site: tuple[Path, str], out: Path, args) -> float:
    """Play one whole run in ``site``'s tree; its play time in seconds (wall minus compile/load)."""
    path, _layout = site
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "meeplab.cli", "run", args.game, "-p", str(args.players), "-b", args.bots]
    cmd += ["-n", str(args.games), "--chunk", str(args.chunk), "--out", str(out), "--quiet"]
    env = dict(os.environ, PYTHONPATH=str(path))
    done = subprocess.run(cmd, env=env, cwd=str(path), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"ab_run.py: the run failed in {path}:\n{done.stderr.strip()[-2000:]}")
    meta = json.loads((out / "run.json").read_text())
    return meta["wall_time_s"] - meta["compile_time_s"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=Path, help="source tree A (e.g. a worktree of the commit before)")
    ap.add_argument("b", type=Path, help="source tree B")
    ap.add_argument("--game", default="schweinebande")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--bots", default="greedy")
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--chunk", type=int, default=20_000)
    ap.add_argument("--pairs", type=int, default=6)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="meeplab-ab-run-"))
    try:
        sites = {"A": ab.stage(args.a, tmp / "A"), "B": ab.stage(args.b, tmp / "B")}
        for k in "AB":
            one_run(sites[k], tmp / f"out{k}", args)  # compile or load, untimed
        times: dict[str, list[float]] = {"A": [], "B": []}
        for i in range(args.pairs):
            for k in "AB" if i % 2 == 0 else "BA":
                times[k].append(one_run(sites[k], tmp / f"out{k}", args))
            print(f"pair {i + 1}: A {times['A'][-1]:.2f} s, B {times['B'][-1]:.2f} s", flush=True)
        ma, mb = statistics.median(times["A"]), statistics.median(times["B"])
        print(f"median A {ma:.2f} s, B {mb:.2f} s: B/A = {mb / ma:.3f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
