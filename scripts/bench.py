#!/usr/bin/env python
"""Benchmark: games per second per game, player count and bot (all seats the same bot).

Compile (or cache load) time is measured apart from play time; play time is the median of several
timed runs of the engine's batch kernel (no result writing). Writes a Markdown table to stdout and,
with --readme, between the bench markers of README.md.

    python scripts/bench.py                       # every game, default cases
    python scripts/bench.py --game schweinebande --games 50000 --repeats 5
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.core.bots import make_lineup  # noqa: E402
from sim.core.registry import game_ids, get_game  # noqa: E402

# (players, bot) cases per game, and games per timed run (sized for ~1-3 s on 2 cores)
CASES = {
    "schweinebande": ([3, 2, 5], ["greedy", "random", "heuristic"], 100_000),
    "hacienda": ([3], ["greedy", "random", "heuristic"], 10_000),
    "acbas": ([2], ["greedy", "random", "heuristic"], 40_000),
    "goldrush": ([2, 4], ["greedy", "random", "heuristic"], 4_000),
}
MARK_START = "<!-- bench:start -->"
MARK_END = "<!-- bench:end -->"


def bench_case(game, players, bot, n_games, repeats, seed=1):
    values = game.params.resolve({})
    ctx = game.prepare(values)
    lineup = make_lineup(game.id, [bot], players, True)
    t0 = time.perf_counter()
    game.play(ctx, lineup, seed, 0, 2, players)
    compile_s = time.perf_counter() - t0
    rates = []
    for r in range(repeats):
        t = time.perf_counter()
        game.play(ctx, lineup, seed, r * n_games, n_games, players)
        rates.append(n_games / (time.perf_counter() - t))
    return compile_s, statistics.median(rates), min(rates), max(rates)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", action="append", help="game id (repeatable; default: all)")
    ap.add_argument("--games", type=int, default=None, help="games per timed run (default: per game)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--readme", action="store_true", help="write the table into README.md")
    args = ap.parse_args(argv)
    if args.threads:
        numba.set_num_threads(args.threads)
    ids = args.game or [g for g in CASES if g in game_ids()]
    rows = []
    for gid in ids:
        game = get_game(gid)
        counts, bots, n_default = CASES.get(gid, ([game.default_players], ["greedy", "random", "heuristic"], 10_000))
        for p in counts:
            for bot in bots:
                n = args.games or n_default
                c, med, lo, hi = bench_case(game, p, bot, n, args.repeats)
                rows.append((gid, p, bot, n, med, lo, hi, c))
                print(f"{gid:<14} {p}p {bot:<10} {med:>10,.0f} games/s  (min {lo:,.0f}, max {hi:,.0f}; "
                      f"compile/load {c:.1f} s)", file=sys.stderr)
    cpu = platform.processor() or platform.machine()
    header = (
        f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores ({cpu}), "
        f"{numba.get_num_threads()} numba threads, numba {numba.__version__}; median of {args.repeats} runs; "
        "all seats played by the named bot; compile/load = first call (numba cache warm after the first run).\n\n"
        "| game | players | bots | games per run | games/s (median) | min | max | compile/load s |\n"
        "|---|---|---|---|---|---|---|---|\n"
    )
    table = header + "".join(
        f"| {g} | {p} | {b} | {n:,} | **{m:,.0f}** | {lo:,.0f} | {hi:,.0f} | {c:.1f} |\n"
        for g, p, b, n, m, lo, hi, c in rows
    )
    print(table)
    if args.readme:
        readme = ROOT / "README.md"
        text = readme.read_text()
        if MARK_START in text and MARK_END in text:
            new = re.sub(
                re.escape(MARK_START) + ".*?" + re.escape(MARK_END),
                lambda m: MARK_START + "\n" + table + MARK_END,
                text,
                flags=re.S,
            )
            readme.write_text(new)
            print("README.md updated", file=sys.stderr)
        else:
            print("README.md has no bench markers; table not written", file=sys.stderr)


if __name__ == "__main__":
    main()
