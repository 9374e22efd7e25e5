#!/usr/bin/env python
"""Benchmark: games and decisions per second per game, player count and bot (all seats the same bot).

Compile (or cache load) time is measured apart from play time; play time is the median of several
timed runs of the engine's batch kernel (no result writing). Writes a Markdown table to stdout and,
with --docs, between the bench markers of docs/speed.md.

    python scripts/bench.py                       # every game, default cases
    python scripts/bench.py --game schweinebande --games 50000 --repeats 5
    python scripts/bench.py --cluster --games 1000000     # 2 Dask workers vs numba threads (greedy, 3 players)
    python scripts/bench.py --quality                    # playouts/s of meeplab quality's trajectories
    python scripts/bench.py --ismcts --game schweinebande  # ismcts vs rollout: s/game, iterations/s, tree share

A lineup "rollout+heuristic" puts the first bot in one seat and the second in all others. Search bots
play fewer games per run (SEARCH_GAMES) and at most 2 runs. Decisions per second count the decisions with
more than one candidate (for games on the forward model). A same-moment A/B of two source trees is
``scripts/ab.py``; the cold compile time of an engine is ``--cold`` (an empty numba cache; wall and CPU
seconds, helpers apart; ``--procs 1`` compiles in one process, for an A/B of sim.core.parcompile), and a user's
first commands on an empty cache (issue 57's cold start: the first ``run``, then ``quality``, ``ladder`` and
``play``, each on a tiny budget) are ``--cold-commands``.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

import numba

from meeplab.sim.core.bots import available, make_lineup
from meeplab.sim.core.files import atomic_write
from meeplab.sim.core.registry import game_ids, get_game
from meeplab.sim.core.search import E_SEARCH

ROOT = Path(__file__).resolve().parents[1]

# (players, bot) cases per game, and games per timed run (sized for ~1-3 s on 2 cores)
CASES = {
    "schweinebande": (
        [3, 2, 5],
        ["greedy", "random", "heuristic", "tuned", "learned", "rollout+heuristic", "rollout"],
        100_000,
    ),
    "hacienda": ([3], ["greedy", "random", "heuristic", "tuned", "learned", "rollout+heuristic"], 10_000),
    "acbas": ([2], ["greedy", "random", "heuristic", "tuned", "learned", "rollout+heuristic", "rollout"], 40_000),
    "goldrush": ([2, 3, 4], ["greedy", "random", "heuristic", "tuned", "learned", "rollout+heuristic"], 4_000),
    # the example plugin game (examples/nothanks, registered by entry point): the plugin path adds nothing per game
    "nothanks": ([5, 7], ["greedy", "rollout+greedy"], 200_000),
}
SEARCH_GAMES = 128  # games per timed run for lineups with a search bot
MARK_START = "<!-- bench:start -->"
MARK_END = "<!-- bench:end -->"


def lineup_of(game, bot, players):
    """'a' = every seat a; 'a+b' = one seat a, the others b."""
    first, _, rest = bot.partition("+")
    return make_lineup(game.id, [first] + [rest or first] * (players - 1), players, True)


def bench_case(game, players, bot, n_games, repeats, seed=1):
    """(compile/load s, median, min, max games/s, decisions per game or None)."""
    values = game.params.resolve({})
    ctx = game.prepare(values)
    lineup = lineup_of(game, bot, players)
    t0 = time.perf_counter()
    game.play(ctx, lineup, seed, 0, 2, players)
    compile_s = time.perf_counter() - t0
    rates = []
    for r in range(repeats):
        t = time.perf_counter()
        game.play(ctx, lineup, seed, r * n_games, n_games, players)
        rates.append(n_games / (time.perf_counter() - t))
    per_game = None
    if game.decisions is not None:
        k = min(n_games, 16 if lineup.search.any() else 2000)
        per_game = game.decisions(ctx, lineup, seed, 0, k, players) / k
    return compile_s, statistics.median(rates), min(rates), max(rates), per_game


def cold_compile(gid: str, procs: int | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s of this process, CPU s of its compile helpers) for a fresh process to compile the engine of
    ``gid`` with an empty numba cache (greedy bots, one game). ``procs``: processes the compile may use
    (``MEEPLAB_COMPILE_PROCS``, sim.core.parcompile; default: one per core). Wall time is what a user waits; CPU
    time is what to compare on a shared machine (it counts only this compile's work)."""
    import subprocess
    import tempfile

    code = (
        "import resource, time; t = time.perf_counter(); c0 = time.process_time(); "
        "from meeplab.sim.core.registry import get_game; "
        "from meeplab.sim.core.bots import make_lineup; g = get_game(GAME_ID); c = g.prepare(g.params.resolve({})); "
        "g.play(c, make_lineup(g.id, ['greedy'], g.default_players, True), 1, 0, 2, g.default_players); "
        "ch = resource.getrusage(resource.RUSAGE_CHILDREN); "
        "print(time.perf_counter() - t, time.process_time() - c0, ch.ru_utime + ch.ru_stime)"
    ).replace("GAME_ID", repr(gid))
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, MEEPLAB_CACHE_DIR=tmp, NUMBA_CACHE_DIR=tmp)
        if procs:
            env["MEEPLAB_COMPILE_PROCS"] = str(procs)
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=str(ROOT), capture_output=True, text=True, check=True
        )
    wall, cpu, helpers = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu), float(helpers)


PLAY_CODE = r"""
import random, sys, tempfile
from pathlib import Path
from starlette.testclient import TestClient
from meeplab.play.server import Session, create_app
from meeplab.play.table import Table, seat_bots
from meeplab.sim.core.registry import get_game
g = get_game(sys.argv[1])
p = g.default_players
tmp = Path(tempfile.mkdtemp())
table = Table(g, g.params.resolve({}, g.id), seat_bots(["tuned"], [0], p), 3, 0, ())
session = Session(table, tmp / "game.json", 0)
client = TestClient(create_app(session, tmp, port=47615), base_url="http://127.0.0.1:47615")
client.headers["Authorization"] = f"Bearer {session.token}"
rng = random.Random(1)
for _ in range(20):  # a few decisions: the person, then the bots
    st = client.get("/api/state").json()
    if st["over"]:
        break
    if st["pass_to"]:
        client.post("/api/seat", json={"seat": st["pass_to"]})
    elif st["bot_turn"]:
        client.post("/api/bot", json={"at": st["decisions"]})
    else:
        client.post("/api/move", json={"move": rng.choice(st["legal"])["id"], "at": st["decisions"]})
"""


def cold_commands(gid: str) -> dict[str, float]:
    """Wall seconds of a user's first commands on an empty cache (issue 57's cold start), one after another in the
    same cache, each on a tiny budget (so that the time is the compile and the load, not the play): ``run`` (the
    default lineup, 200 games), then ``quality`` (20 games, one trajectory, relative skill on 2 games), ``ladder``
    (its default rungs, searches included, 2 games a run) and ``play`` (the play page's API: a few decisions
    against ``tuned``)."""
    import subprocess
    import tempfile

    cli = [sys.executable, "-m", "meeplab.cli"]
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, MEEPLAB_CACHE_DIR=tmp + "/cache", NUMBA_CACHE_DIR=tmp + "/cache")
        steps = {
            "run": cli + ["run", gid, "-n", "200", "-q", "--out", tmp + "/run"],
            "quality": cli + ["quality", gid, "-n", "20", "--trajectory-games", "1", "--points", "2", "--playouts",
                              "4", "--skill-games", "2", "-q", "--out", tmp + "/quality"],
            "ladder": cli + ["ladder", gid, "-n", "2", "--skill-games", "0", "-q", "--out", tmp + "/ladder"],
            "play": [sys.executable, "-c", PLAY_CODE, gid],
        }  # fmt: skip
        for name, cmd in steps.items():
            t = time.perf_counter()
            done = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True)
            out[name] = time.perf_counter() - t
            if done.returncode != 0:
                raise SystemExit(f"bench.py: {name} of {gid} failed:\n{done.stderr.strip()[-1500:]}")
    return out


def bench_cluster(n_games, repeats, workers=2, players=3, shard=50_000, small_shard=5_000):
    """Whole runs (results written and merged) of greedy Schweinebande: numba threads in this process vs
    ``workers`` Dask worker processes of one thread, interleaved so that both see the same machine; and
    the cost of a shard, from the same cluster run with ``small_shard``-game shards."""
    import tempfile

    from meeplab.lab.distributed.cluster import DaskExecutor
    from meeplab.lab.runs.plan import RunConfig, plan_run
    from meeplab.lab.runs.runner import run

    game = get_game("schweinebande")
    tmp = Path(tempfile.mkdtemp(prefix="meeplab-bench-"))
    t = time.perf_counter()
    ex = DaskExecutor(workers=workers)
    start_s = time.perf_counter() - t

    def one(name, executor, size, games):
        cfg = RunConfig(
            game=game,
            games=games,
            players=[players],
            bots=["greedy"],
            out=tmp / name,
            shard=size,
            progress=False,
            force=True,
            executor=executor,
        )
        meta = run(plan_run(cfg)).meta
        return meta["wall_time_s"] - meta["compile_time_s"], meta["shards"]

    try:
        one("warm", ex, 1000, 4 * workers * 1000)  # workers import and load the engine once, untimed
        times = {"threads": [], "workers": [], "small": []}
        for _ in range(repeats):
            times["threads"].append(one("threads", None, shard, n_games)[0])
            times["workers"].append(one("workers", ex, shard, n_games)[0])
            small_t, small_n = one("small", ex, small_shard, n_games)
            times["small"].append(small_t)
    finally:
        ex.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    big_n = -(-n_games // shard)
    per_shard_ms = 1000 * workers * (med["small"] - med["workers"]) / max(1, small_n - big_n)
    text = (
        f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores; {n_games:,} greedy Schweinebande games at "
        f"{players} players per run, results written; median of {repeats} interleaved runs (play time: wall minus "
        "compile/load).\n\n"
        f"| | games/s | |\n|---|---|---|\n"
        f"| numba threads ({numba.get_num_threads()}), one process | {n_games / med['threads']:,.0f} | 1 |\n"
        f"| `--workers {workers}` ({shard:,}-game shards) | {n_games / med['workers']:,.0f} | "
        f"**{med['threads'] / med['workers']:.3f}** |\n"
        f"| `--workers {workers}` ({small_shard:,}-game shards) | {n_games / med['small']:,.0f} | "
        f"{med['threads'] / med['small']:.3f} |\n\n"
        f"Starting the local cluster took {start_s:.1f} s; a shard costs about {per_shard_ms:.0f} ms of a worker "
        f"beyond its games (from the two shard sizes).\n"
    )
    print(text)
    return text


def bench_scale(n_games, repeats, shard=20, players=3, bots=("rollout", "heuristic")):
    """Scale-out as a cluster is started the documented way: ``dask scheduler`` and separate ``dask worker``
    processes (one thread each, here on this machine), a what-if with a search bot (a ``compare`` of Schweinebande's
    ``pig_bonus_farm`` 2 against 3, ``rollout`` in one seat) played through ``--scheduler`` by 1, then 2 workers,
    interleaved; the speed-up, the shards, what a shard sends back and how busy the scheduler was."""
    import socket
    import subprocess
    import tempfile

    from meeplab.lab.distributed.cluster import DaskExecutor
    from meeplab.lab.runs.plan import RunConfig, plan_run
    from meeplab.lab.runs.runner import run

    game = get_game("schweinebande")
    tmp = Path(tempfile.mkdtemp(prefix="meeplab-scale-"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    addr = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).with_name("dask"))
    log = (tmp / "cluster.log").open("w")  # closed in the finally below, after the processes writing to it end
    sched = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                             stdout=log, stderr=log)  # fmt: skip
    workers: list[subprocess.Popen] = []

    def add_worker():
        workers.append(subprocess.Popen([dask, "worker", addr, "--nworkers", "1", "--nthreads", "1",
                                         "--no-dashboard"], stdout=log, stderr=log))  # fmt: skip

    def one(name, ex, value):
        cfg = RunConfig(game=game, games=n_games, players=[players], bots=list(bots), out=tmp / name, shard=shard,
                        progress=False, force=True, executor=ex, overrides={"pig_bonus_farm": value})  # fmt: skip
        meta = run(plan_run(cfg)).meta
        size = sum(f.stat().st_size for f in (tmp / name).rglob("*.parquet"))
        return meta["wall_time_s"] - meta["compile_time_s"], meta["shards"], size

    try:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 60:  # the scheduler takes a few seconds to listen
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        import psutil

        proc = psutil.Process(sched.pid)

        def cpu() -> float:
            c = proc.cpu_times()
            return c.user + c.system

        times: dict[int, list[float]] = {1: [], 2: []}
        add_worker()
        busy_cpu = busy_wall = 0.0
        n_shards = 0
        for k in (1, 2):
            if k == 2:
                add_worker()
            ex = DaskExecutor(scheduler=addr, timeout=120)
            while len(ex.client.scheduler_info()["workers"]) < k:
                time.sleep(0.5)
            one("warm", ex, 2)  # each worker imports and loads the engine once, untimed
            for _ in range(repeats):
                for value in (2, 3):  # the what-if: baseline and variant
                    c0, w0 = cpu(), time.perf_counter()
                    t, shards, size = one(f"w{k}-{value}", ex, value)
                    busy_cpu += cpu() - c0
                    busy_wall += time.perf_counter() - w0
                    n_shards += shards
                    times[k].append(t)
            ex.close()
        c0, w0 = cpu(), time.perf_counter()
        time.sleep(10)  # the scheduler's own cost with 2 idle workers (heartbeats), to take out of the busy cost
        idle_rate = (cpu() - c0) / (time.perf_counter() - w0)
        per_shard_ms = 1000 * max(0.0, busy_cpu - idle_rate * busy_wall) / max(1, n_shards)
    finally:
        for w in workers:
            w.terminate()
        sched.terminate()
        for w in [*workers, sched]:
            w.wait(timeout=30)
        log.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    per_shard_kb = size / shards / 1024
    text = (
        f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores; `dask scheduler` and `dask worker "
        f"--nworkers 1 --nthreads 1` processes; each run {n_games:,} Schweinebande games at {players} players, "
        f"{' + '.join(bots)} (rollout in one seat, rotated), {shard}-game shards ({shards} per run), a what-if of two "
        f"runs (pig_bonus_farm 2 and 3) repeated {repeats} times per cluster size; play time = wall minus "
        "compile/load, median per run.\n\n"
        "| workers | s per run | games/s | speed-up |\n|---|---|---|---|\n"
        f"| 1 | {med[1]:.1f} | {n_games / med[1]:,.1f} | 1 |\n"
        f"| 2 | {med[2]:.1f} | {n_games / med[2]:,.1f} | **{med[1] / med[2]:.2f}** |\n\n"
        f"A shard's results: {per_shard_kb:.1f} kB on disk ({n_games // shards} games). The scheduler used "
        f"{busy_cpu:.2f} s of CPU in {busy_wall:.0f} s of timed runs ({n_shards} shards) and "
        f"{idle_rate * 100:.1f} % of a core while idle with 2 workers: "
        + (f"about {per_shard_ms:.1f} ms" if per_shard_ms >= 1 else "under 1 ms (below what this resolves)")
        + " of scheduler CPU per shard beyond idling.\n"
    )
    print(text)
    return text


def _replay_counts(text: str) -> int:
    """Playouts a replay's search decisions spent: ismcts iterations, or rollout's candidates x playouts."""
    total = 0
    for m in re.finditer(r"ismcts: \d+ candidates?, (\d+) iterations?", text):
        total += int(m.group(1))
    for m in re.finditer(r"search: (\d+) candidates? x (\d+) playouts?", text):
        total += int(m.group(1)) * int(m.group(2))
    return total


def same_policy_ismcts(bots) -> str | None:
    """The ismcts bot (the shipped one, else a variant at its budget) that plays its playouts with rollout's
    policy, so that the two differ only in the tree; None if there is none."""
    pol = bots["rollout"].policy
    if bots["ismcts"].policy == pol:
        return "ismcts"
    budget = bots["ismcts"].weights_dict()
    for name, b in bots.items():
        if b.search == "ismcts" and b.policy == pol and b.weights_dict() == budget:
            return name
    return None


def _search_count(table) -> int:
    """Playouts the last searched decision of ``table`` spent (its E_SEARCH event): ismcts iterations, or rollout's
    candidates x playouts; 0 when it did not search."""
    n = 0
    for i in range(int(table.st.nlog[0])):
        row = table.log[i]
        if row[0] == E_SEARCH:
            n = -int(row[5]) if row[5] < 0 else int(row[3]) * int(row[5])
    return n


def tree_share(spec, players, twin, n_games, reps=2, seed=1, bot_configs=()):
    """The tree's share of an ismcts search on the same positions: the games ``rollout`` plays (game 0 of
    ``seed`` warms up and is not counted, then games 1..n_games); at each decision with more than one candidate
    ``rollout``, ``twin`` (an ismcts bot with rollout's playout policy and budget) and ``greedy`` each decide
    ``reps`` times from the same record (the search's stream is the game's, so each draws the same worlds).
    ``greedy`` measures the cost of a call from Python (argument checks, ~1 ms), which is taken off both.
    Returns (rollout us/playout, ismcts us/iteration, share = 1 - the first / the second, rollout's playouts,
    ismcts's iterations; the two counts are equal when ``twin`` has rollout's budget). ``bot_configs``: TOML files of
    bot variants, as ``--bot-config`` (a ``twin`` that is a copy of ``rollout`` is the method's A/A check)."""
    from meeplab.play import engine
    from meeplab.play.table import Table
    from meeplab.sim.core.forward import C_N

    values = spec.params.resolve({})
    base = "greedy" if "greedy" in available(spec.id, bot_configs) else "random"
    names = ("rollout", twin, base)
    spent = {b: [0.0, 0] for b in names}
    for g in range(n_games + 1):
        tables = {b: Table(spec, values, [b] * players, seed=seed, index=g, bot_configs=bot_configs) for b in names}
        lead = tables["rollout"]
        while not lead.over:
            if int(lead.rec["ctl"][C_N]) > 1:
                saved = lead.st.rec.copy()
                for _ in range(reps):
                    for b, t in tables.items():
                        t.st.rec[:] = saved
                        t.st.nlog[0] = 0
                        t.st.nlog[1] = 1
                        t0 = time.perf_counter()
                        engine.decide(
                            t.st, t.search_scratch, t.cx, t.lineup.fns, t.lineup.weights, t.lineup.search,
                            t.lineup.rotate, t.index, t.srch,
                        )  # fmt: skip
                        if g > 0:
                            spent[b][0] += time.perf_counter() - t0
                            spent[b][1] += _search_count(t)
                lead.st.rec[:] = saved
            lead.st.nlog[0] = 0
            lead.st.nlog[1] = 0
            lead.play_bot()
    call = spent[base][0]
    (tr, nr), (ti, ni) = spent["rollout"], spent[twin]
    us_r = (tr - call) / max(nr, 1) * 1e6
    us_i = (ti - call) / max(ni, 1) * 1e6
    return us_r, us_i, 1.0 - us_r / us_i, nr, ni


def bench_ismcts(ids, n_games=3, threads=1):
    """ismcts against rollout, on one thread, the same moment: seconds per game between the shipped ismcts bots at
    the default budget and iterations per second (their own games, rollout's alternating with them), and the tree's
    share of a search (:func:`tree_share`: on the same positions, against an ismcts that plays its playouts with
    rollout's policy and budget, ``ismcts-heuristic`` where the shipped one plays ``tuned`` playouts and rollout
    does not, so that what differs is the tree)."""
    numba.set_num_threads(threads)
    rows = []
    for gid in ids:
        game = get_game(gid)
        bots = available(gid)
        missing = {"ismcts", "rollout"} - set(bots)
        if missing:  # e.g. a plugin game that ships no search bot
            print(f"{gid:<14} skipped: no {' or '.join(sorted(missing))} bot", file=sys.stderr)
            continue
        twin = same_policy_ismcts(bots)
        ctx = game.prepare(game.params.resolve({}))
        for p in sorted({max(2, game.min_players), game.default_players}):
            spent = {b: [0.0, 0, 0] for b in ("ismcts", "rollout")}  # seconds, playouts, games
            lus = {b: make_lineup(gid, [b], p, True) for b in spent}
            for lu in lus.values():  # compile / load first
                game.replay(ctx, lu, 1, 0, p, explain=True)
                game.replay(ctx, lu, 1, 0, p, explain=False)
            for i in range(n_games):
                for b, lu in lus.items():
                    # timed without --explain (rendering the root's candidates as text is Python work the search
                    # does not do); the playouts are counted from the same game replayed with it
                    t = time.perf_counter()
                    game.replay(ctx, lu, 1, 1 + i, p, explain=False)
                    spent[b][0] += time.perf_counter() - t
                    spent[b][1] += _replay_counts(game.replay(ctx, lu, 1, 1 + i, p, explain=True))
                    spent[b][2] += 1
            (ti, ni, gi) = spent["ismcts"]
            us_r = us_i = share = math.nan
            if twin:
                us_r, us_i, share, n_roll, n_twin = tree_share(game, p, twin, n_games)
                if n_roll != n_twin:
                    print(f"{gid} {p}p: {twin} spent {n_twin} iterations, rollout {n_roll} playouts", file=sys.stderr)
            rows.append((gid, p, ti / gi, ni / ti, us_r, us_i, twin or "-", share))
            print(
                f"{gid:<14} {p}p ismcts self-play {ti / gi:6.2f} s/game, {ni / ti:9,.0f} iterations/s; "
                f"tree share {share:.1%} ({twin} vs rollout on the same positions)",
                file=sys.stderr,
            )
    table = (
        f"ismcts vs rollout on {threads} thread(s), {n_games} games each, the same moment, "
        f"{time.strftime('%Y-%m-%d')}, numba {numba.__version__}\n\n"
        "| game | players | s per ismcts game | iterations/s | rollout us/playout | ismcts us/iteration "
        "| tree share (bot, same policy and positions as rollout) |\n"
        "|---|---|---|---|---|---|---|\n"
    )
    table += "".join(
        f"| {g} | {p} | {s:.2f} | {it:,.0f} | {ur:.1f} | {ui:.1f} | {sh:.1%} ({tw}) |\n"
        for g, p, s, it, ur, ui, tw, sh in rows
    )
    print(table)


def bench_quality(ids, n_games=20, playouts=32, points=12):
    """meeplab quality's cost: playouts per second of the win-probability trajectories (heuristic bots, each game
    at its usual player count, 32 playouts at 12 points per game; kingmaking probes included)."""
    from meeplab.lab.studies.quality import play_trajectories

    print("| game | players | games | playouts | seconds | playouts/s |")
    print("|---|---|---|---|---|---|")
    for gid in ids:
        game = get_game(gid)
        ctx = game.prepare(game.params.resolve({}))
        p = game.default_players
        out = play_trajectories(game, ctx, ["heuristic"], p, 1, n_games, playouts, points)
        rate = out["playouts_per_second"]
        print(f"| {gid} | {p} | {n_games} | {out['playouts']:,} | {out['seconds']:.1f} | {rate:,.0f} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", action="append", help="game id (repeatable; default: all)")
    ap.add_argument("--games", type=int, default=None, help="games per timed run (default: per game)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument(
        "--docs", action="store_true", help="write the table into docs/speed.md (between its bench markers)"
    )
    ap.add_argument("--cold", action="store_true", help="instead: cold compile time of each engine (empty cache)")
    ap.add_argument(
        "--cold-commands",
        action="store_true",
        help="instead: a user's first run, quality, ladder and play of each game on an empty cache (wall s)",
    )
    ap.add_argument(
        "--scale",
        action="store_true",
        help="instead: a search-bot what-if on `dask scheduler` + 1, then 2 `dask worker` processes (speed-up)",
    )
    ap.add_argument(
        "--procs",
        type=int,
        default=None,
        help="with --cold: processes the compile may use (1 = one core; default: one per core)",
    )
    ap.add_argument(
        "--cluster",
        action="store_true",
        help="instead: whole runs on 2 Dask workers vs numba threads (greedy Schweinebande, 3 players)",
    )
    ap.add_argument(
        "--ismcts",
        action="store_true",
        help="instead: ismcts vs rollout on one thread (s per game, iterations/s, the tree's share of a search)",
    )
    ap.add_argument(
        "--quality",
        action="store_true",
        help="instead: playouts per second of meeplab quality's win-probability trajectories",
    )
    args = ap.parse_args(argv)
    if args.threads:
        numba.set_num_threads(args.threads)
    if args.cluster:
        bench_cluster(args.games or 1_000_000, args.repeats)
        return
    if args.scale:
        bench_scale(args.games or 200, args.repeats)
        return
    ids = args.game or [g for g in CASES if g in game_ids()]
    if args.quality:
        bench_quality(ids, args.games or 20)
        return
    if args.ismcts:
        bench_ismcts(ids, args.games or 3, args.threads or 1)
        return
    if args.cold_commands:
        print("| game | first run s | then quality s | ladder s | play s | the three together s |")
        print("|---|---|---|---|---|---|")
        for gid in ids:
            t = cold_commands(gid)
            three = t["quality"] + t["ladder"] + t["play"]
            print(
                f"| {gid} | {t['run']:.1f} | {t['quality']:.1f} | {t['ladder']:.1f} | {t['play']:.1f} | {three:.1f} |"
            )
        return
    if args.cold:
        for gid in ids:
            wall, cpu, helpers = cold_compile(gid, args.procs)
            print(
                f"{gid}: cold compile {wall:.1f} s wall, {cpu:.1f} s CPU"
                + (f" + {helpers:.1f} s CPU in compile helpers" if helpers else "")
            )
        return
    rows = []
    for gid in ids:
        game = get_game(gid)
        counts, bots, n_default = CASES.get(gid, ([game.default_players], ["greedy", "random", "heuristic"], 10_000))
        for p in counts:
            for bot in bots:
                search = any(available(gid)[b].search for b in bot.split("+"))
                n = min(args.games or n_default, SEARCH_GAMES) if search else args.games or n_default
                reps = min(args.repeats, 2) if search else args.repeats
                c, med, lo, hi, per_game = bench_case(game, p, bot, n, reps)
                rows.append((gid, p, bot, n, med, lo, hi, c, per_game))
                dps = f"{med * per_game:,.0f} decisions/s" if per_game else ""
                print(
                    f"{gid:<14} {p}p {bot:<18} {med:>10,.1f} games/s  (min {lo:,.1f}, max {hi:,.1f}; "
                    f"compile/load {c:.1f} s) {dps}",
                    file=sys.stderr,
                )
    cpu = platform.processor() or platform.machine()
    header = (
        f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores ({cpu}), "
        f"{numba.get_num_threads()} numba threads, numba {numba.__version__}; median of {args.repeats} runs; "
        "all seats played by the named bot (a+b: one seat a, the others b; search bots at their default budget, "
        f"{SEARCH_GAMES} games per run, at most 2 runs); decisions/s counts decisions with more than one candidate; "
        "compile/load = first call (numba cache warm after the first run).\n\n"
        "| game | players | bots | games per run | games/s (median) | min | max | decisions/s | compile/load s |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
    )
    table = header + "".join(
        f"| {g} | {p} | {b} | {n:,} | **{m:,.{0 if m >= 100 else 1}f}** | {lo:,.{0 if m >= 100 else 1}f} | "
        f"{hi:,.{0 if m >= 100 else 1}f} | {(f'{m * d:,.0f}' if d else 'n/a')} | {c:.1f} |\n"
        for g, p, b, n, m, lo, hi, c, d in rows
    )
    print(table)
    if args.docs:
        page = ROOT / "docs" / "speed.md"
        text = page.read_text()
        if MARK_START in text and MARK_END in text:
            new = re.sub(
                re.escape(MARK_START) + ".*?" + re.escape(MARK_END),
                lambda m: MARK_START + "\n" + table + MARK_END,
                text,
                flags=re.S,
            )
            atomic_write(page, new)
            print("docs/speed.md updated", file=sys.stderr)
        else:
            print("docs/speed.md has no bench markers; table not written", file=sys.stderr)


if __name__ == "__main__":
    main()
