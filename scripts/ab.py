#!/usr/bin/env python
"""Same-moment A/B speed comparison of two source trees of meeplab (the machine drifts 10-20 % from hour
to hour, so old and new code are timed alternately, in the same minutes, and only their ratio is quoted).

Each tree is first staged as Python imports it: a tree of today's layout is installed into a temporary folder
the way a wheel installs it (``pip install --target``: ``meeplab/`` holding ``sim/``, ``strategies/``, ...), so
that ``meeplab.sim`` is that tree's and not the editable install's; a tree from before the packages moved under
``meeplab`` (``sim`` at the top, ``meeplab._lab`` in its setup.py) is imported from where it is. Each
measurement is a fresh subprocess with ``PYTHONPATH`` set to the staged tree: it loads the engine (compile
or cache, untimed), plays one untimed warm-up batch, then times ``--games`` games. Rounds alternate the
order (A B, then B A, ...) so neither side always runs first. The ratio is B's median time per game over
A's (below 1: B is faster).

    git worktree add /tmp/old HEAD~1
    python scripts/ab.py /tmp/old . --game schweinebande --players 3 --bots greedy --games 100000 --rounds 6

``--bot-config FILE`` (as ``meeplab run``'s) gives both trees the same bot variants, e.g. a ``learned`` played at a
temperature.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WORKER = r"""
import json, sys, time
import numba
game_id, players, bots = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
games, threads, seed = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
if sys.argv[7] == "old":
    from sim.core.bots import make_lineup
    from sim.core.registry import get_game
else:
    from meeplab.sim.core.bots import make_lineup
    from meeplab.sim.core.registry import get_game
if threads:
    numba.set_num_threads(threads)
g = get_game(game_id)
ctx = g.prepare(g.params.resolve({}))
lu = make_lineup(g.id, bots, players, True, *([sys.argv[8:]] if len(sys.argv) > 8 else []))
g.play(ctx, lu, seed, 0, min(games, 256), players)
t = time.perf_counter()
g.play(ctx, lu, seed, 10**6, games, players)
print(json.dumps({"s_per_game": (time.perf_counter() - t) / games}))
"""


def stage(tree: Path, dest: Path) -> tuple[Path, str]:
    """(the folder to put on PYTHONPATH, "old" or "new") for source tree ``tree`` (see the module doc)."""
    tree = tree.resolve()
    if "meeplab._lab" in (tree / "setup.py").read_text():
        return tree, "old"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", str(dest)]
        + [str(tree)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return dest, "new"


def measure(site: tuple[Path, str], args) -> float:
    path, layout = site
    env = dict(os.environ, PYTHONPATH=str(path))
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            WORKER,
            args.game,
            str(args.players),
            args.bots,
            str(args.games),
            str(args.threads or 0),
            str(args.seed),
            layout,
            *args.bot_config,
        ],
        env=env,
        cwd=str(path),
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"ab.py: the worker failed on {path}:\n{out.stderr.strip()}")
    return json.loads(out.stdout.strip().splitlines()[-1])["s_per_game"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", type=Path, help="tree A (e.g. a worktree of the old commit)")
    ap.add_argument("b", type=Path, help="tree B (e.g. .)")
    ap.add_argument("--game", required=True)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--bots", default="greedy")
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--bot-config",
        action="append",
        default=[],
        type=lambda s: str(Path(s).resolve()),
        help="a bot config TOML both trees read (as meeplab run's --bot-config); may be given more than once",
    )
    args = ap.parse_args(argv)
    times = {"A": [], "B": []}
    with tempfile.TemporaryDirectory() as tmp:
        sites = {"A": stage(args.a, Path(tmp) / "a"), "B": stage(args.b, Path(tmp) / "b")}
        for r in range(args.rounds):
            order = ("A", "B") if r % 2 == 0 else ("B", "A")
            for side in order:
                t = measure(sites[side], args)
                times[side].append(t)
                print(f"round {r + 1} {side}: {1 / t:,.0f} games/s", file=sys.stderr)
    ma, mb = statistics.median(times["A"]), statistics.median(times["B"])
    print(
        f"{args.game} {args.players}p {args.bots}: A {1 / ma:,.0f} games/s, B {1 / mb:,.0f} games/s, "
        f"time per game B/A = {mb / ma:.3f} (medians of {args.rounds}, order alternating)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
