"""The shared batch runner: plays games in chunks through a GameSpec and writes the results.

Game ``g`` of player count ``P`` always plays the same way for a given seed, whatever the thread
count or shard size, so a run of N games is the first N games of a run of 2N, and a variant run with
the same seed is paired game by game with its baseline (common random numbers).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from meeplab.lab.progress import make_bar
from meeplab.lab.runs import rundir
from meeplab.lab.runs import shards as shards_mod
from meeplab.lab.runs.plan import RunPlan, check_out
from meeplab.lab.runs.shards import LocalExecutor
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write, atomic_writer
from meeplab.sim.core.game import GameSpec


class _Interrupted(Exception):
    pass


#: compile/load time spent on a game in this process before a run played it (the plan's calibration compiles the
#: engine first, so the run's own warm-up finds it loaded): the next run of that game that plays counts it
_COMPILED_BEFORE: dict[str, float] = {}


def compiled_before_run(game_id: str, seconds: float) -> None:
    """Record ``seconds`` of compile/load spent on ``game_id`` before its run (the plan's calibration): the next
    run of that game in this process adds them to its ``compile_time_s`` and ``wall_time_s`` and records them
    as ``calibration_compile_s``, so its summary says where the compile went. A newer plan replaces what an
    older one left unclaimed (a command that plays without this runner, such as ``options``)."""
    _COMPILED_BEFORE[game_id] = max(0.0, float(seconds))


def _sigterm(signum, frame):  # pragma: no cover - exercised via subprocess test
    raise _Interrupted()


@contextlib.contextmanager
def _signals_held():
    """Ctrl-C and SIGTERM wait until the block is done (main thread only; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old = {s: signal.signal(s, lambda signum, frame: got.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if got:
        os.kill(os.getpid(), got[0])  # delivered again, now to the handlers the run had


#: run.json keys that must match for --resume to add to a run directory
RESUME_KEYS = ("game", "params", "bots", "bot_weights", "bot_weights_by_players", "seed", "players", "games", "rotate")


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` returns. ``meta``: the run's record (the fields of ``run.json``, ``SCHEMA.md``);
    ``already_complete``: the folder held this very run, complete, so nothing was played; ``table``: the result
    rows of a run without a folder (``plan.out`` None), else None."""

    meta: dict[str, Any]
    already_complete: bool = False
    table: pa.Table | None = None

    @property
    def status(self) -> str:
        """``complete``, ``interrupted`` or ``failed`` (``run.json``'s ``status``)."""
        return str(self.meta.get("status"))


def run(plan: RunPlan) -> RunResult:
    """Play the planned batch (:func:`~meeplab.lab.runs.plan.plan_run` checked it) and write ``results.parquet`` +
    ``run.json``; returns the :class:`RunResult`.

    The games are split into shards (``plan.shard`` games of one player count); ``plan.executor`` plays
    them (default: this process, numba threads) and this process writes each one as it arrives.
    """
    if not isinstance(plan, RunPlan):
        raise TypeError(f"run() takes a RunPlan (meeplab.lab.runs.plan.plan_run), got {type(plan).__name__}")
    ready_bots(plan)
    if plan.out is None:
        return _play(plan, None)
    out = Path(plan.out)
    check_out(plan)  # a refusal before the lock file is made (checked again once locked)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MeeplabError(f"--out {out}: cannot create it ({exc.strerror}); choose a writable place") from None
    with rundir.RunLock(out, announce=False) as lock:
        try:
            return _play(plan, out, lock)
        except OSError as exc:
            raise MeeplabError(os_error_line(out, exc)) from None


def ready_bots(plan: RunPlan) -> None:
    """Before anything is written: every lineup's bots ready, so that a bot that does not compile is one line (exit 2)
    and leaves no output (:func:`run` calls it; so does a command before it writes its own files). A line-up leaves
    the bots numba's cache lacks uncompiled, for a cold engine compile to hand them to a helper
    (``sim.core.bots.Lineup.pending``): where this machine has not compiled the game's engine yet (a run without the
    plan's calibration, ``--quiet``), one warm-up game of the first player count compiles it here first, the bots
    beside it, as the calibration does; its time counts as compile/load before the run."""
    game = plan.game
    pending = any(lineup.pending for lineup in plan.lineups.values())
    if pending and plan.players and not engine_compiled(game):
        p = plan.players[0]
        t = time.perf_counter()
        with compile_notice(game):
            game.play(plan.ctx, plan.lineups[p], plan.seed, 0, 1, p)
        compiled_before_run(game.id, _COMPILED_BEFORE.get(game.id, 0.0) + time.perf_counter() - t)
    for lineup in plan.lineups.values():
        lineup.fns  # noqa: B018 (reading them makes the bots ready)


def os_error_line(out: Path, exc: OSError) -> str:
    """One line for a file-system failure while writing run directory ``out``, saying what to do."""
    import errno

    where = f" ({exc.filename})" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return (
            f"{out}: the disk is full{where}; the finished shards are kept: free some space, then --resume to "
            "finish the run"
        )
    return f"{out}: cannot write{where}: {exc.strerror or exc}; choose a writable --out"


def play_threads(plan: RunPlan) -> int:
    """The threads a run plays on: ``--threads`` up to numba's most, else numba's thread count of this thread."""
    import numba

    return min(plan.threads, numba.config.NUMBA_NUM_THREADS) if plan.threads else numba.get_num_threads()


def _play(plan: RunPlan, out: Path | None, lock: rundir.RunLock | None = None) -> RunResult:
    """:func:`run` once ``out`` is locked by ``lock`` (or None: rows kept in memory); the lock names its holder
    once the run directory is accepted."""
    game, values = plan.game, plan.values
    import numba

    threads = play_threads(plan)
    numba.set_num_threads(threads)
    executor = plan.executor or LocalExecutor()

    meta: dict[str, Any] = {
        "game": game.id,
        "title": game.title,
        "version": _version(),
        "status": "running",
        "label": plan.label,
        "params": _jsonable(values),
        "params_changed": _jsonable(game.params.changed(values)),
        "notes": list(game.notes(values)),
        "bots": list(plan.bots),
        "bot_weights": {b: dict(w) for b, w in plan.bot_weights.items()},
        **({"bot_weights_by_players": dict(plan.bot_weights_by_players)} if plan.bot_weights_by_players else {}),
        "lineups": {},
        "players": list(plan.players),
        "rotate": plan.rotate,
        "seed": plan.seed,
        "games": plan.games,
        "games_completed": {},
        "categories": list(game.categories),
        "length_unit": game.length_unit,
        "chance": game.chance,
        "lower_wins": bool(game.lower_wins),
        "threads": threads,
        "workers": executor.workers,
        "scheduler": executor.scheduler,
        "shard_size": plan.shard,
        "started": _now(),
        "command": plan.command,
    }
    done: dict[int, list[tuple[int, int]]] = {}
    if out is not None:
        previous, recovered = _claim_out(out, plan, meta)
        if lock is not None:
            lock.announce()
        if previous is not None and recovered is None:
            return RunResult(dict(previous), already_complete=True)
        done = recovered or {}
        if previous is not None:
            meta["resumed"] = int(previous.get("resumed", 0)) + 1
            meta["started"] = previous.get("started", meta["started"])
        (out / shards_mod.CHUNKS).mkdir(exist_ok=True)
        rundir.write_meta(out, meta)

    job = plan.job
    todo = shards_mod.plan(plan.players, plan.games, plan.shard, done)  # lazily: memory independent of --games
    n_shards = shards_mod.plan_count(plan.players, plan.games, plan.shard, done)
    completed = {p: sum(n for _, n in done.get(p, [])) for p in plan.players}
    total = plan.games * len(plan.players)
    bar = None
    t0 = time.perf_counter()
    compile_time = 0.0
    early = 0.0  # compile/load spent on this game before this run (the calibration), not timed by t0
    played = 0
    tables: list[pa.Table] = []
    old_handler = None
    if out is not None:
        try:
            old_handler = signal.signal(signal.SIGTERM, _sigterm)
        except ValueError:  # not the main thread
            old_handler = None
    status = "complete"
    stream = None
    try:
        for p in plan.players:
            lineup = plan.lineups[p]
            meta["lineups"][str(p)] = lineup.names
            meta["games_completed"][str(p)] = completed[p]
            if n_shards[p]:
                # Warm-up (compile or load from cache) on one game, timed apart from play; on a local
                # machine the cluster's workers then load what this compiled.
                early += _COMPILED_BEFORE.pop(game.id, 0.0)
                tc = time.perf_counter()
                with compile_notice(game):
                    game.play(plan.ctx, lineup, plan.seed, 0, 1, p)
                compile_time += time.perf_counter() - tc
        # the bar starts with play, so its rate and time left never count the compile
        plan.adopt()  # this process plays the shards with the plan's own context and lineups
        bar = make_bar(total, initial=sum(completed.values()), unit_scale=True) if plan.progress else None
        stream = executor.results(job, todo)
        for shard, data in stream:
            p, _start, n = shard
            with _signals_held():  # a part on disk is recorded and counted, or neither
                if out is not None:
                    shards_mod.write_part(out, shard, data, game.id)
                else:
                    tables.append(shards_mod.bytes_table(data))
                played += n
                completed[p] += n
                meta["games_completed"][str(p)] = completed[p]
            if bar is not None:
                bar.update(n)
    except (KeyboardInterrupt, _Interrupted):
        status = "interrupted"
    except BaseException:
        if out is not None:
            with contextlib.suppress(OSError):  # a full or read-only disk: the error itself says so
                rundir.write_meta(out, dict(meta, status="failed", finished=_now()))
        raise
    finally:
        if stream is not None:
            stream.close()
        if bar is not None:
            bar.close()
        if old_handler is not None:
            signal.signal(signal.SIGTERM, old_handler)
    wall = time.perf_counter() - t0
    play_time = max(wall - compile_time, 1e-9)
    meta.update(
        status=status,
        wall_time_s=round(wall + early, 3),  # compile/load included, also the calibration's
        compile_time_s=round(compile_time + early, 3),
        calibration_compile_s=round(early, 3),  # of compile_time_s: spent in the plan's calibration before play
        games_per_second=round(played / play_time, 1),
        games_played=played,
        shards=sum(n_shards.values()),
        finished=_now(),
    )
    if getattr(executor, "start_s", None) is not None:
        meta["cluster_start_s"] = executor.start_s
    if out is not None:
        if status == "complete":
            meta["results"] = _merge_chunks(out)
            rundir.write_meta(out, meta)
            _drop_chunks(out)
        else:
            rundir.write_meta(out, meta)
            print(
                f"meeplab: interrupted after {sum(completed.values())} of {total} games; the finished shards are "
                f"kept in {out / shards_mod.CHUNKS}, 'meeplab report {out}' reads them and --resume finishes the run",
                file=sys.stderr,
            )
    else:
        tables.sort(key=lambda t: (t["n_players"][0].as_py(), t["game_index"][0].as_py()))
        return RunResult(meta, table=pa.concat_tables(tables) if tables else None)
    return RunResult(meta)


def _claim_out(
    out: Path, plan: RunPlan, meta: dict[str, Any]
) -> tuple[dict[str, Any] | None, dict[int, list[tuple[int, int]]] | None]:
    """Make ``out`` (locked) ready for this run: (run.json of the run being resumed or None, the verified
    shards it holds by player count, or None when it is complete and its results verify).

    Nothing is replaced silently: a directory that holds a run needs ``--resume`` (same game, parameters,
    bots, seed, players and games) or ``--force`` (which deletes only what meeplab wrote there).
    """
    held = check_out(plan)
    if held and plan.force:
        rundir.remove_owned(out)
        held = False
    if not held:
        return None, {}
    try:
        previous = rundir.read_meta(out)
    except MeeplabError as exc:
        raise MeeplabError(f"--resume: {exc}; use --force to replace the run") from None
    for key in RESUME_KEYS:  # a key the run does not record (bot_weights_by_players) must be absent from both
        if previous.get(key) != json.loads(json.dumps(meta.get(key))):
            raise MeeplabError(
                f"--resume: {out} holds a different run ({key} {previous.get(key)!r}, now {meta.get(key)!r}); "
                "give the same arguments, or --force to replace it"
            )
    _check_data_game(out, plan.game.id)
    results = out / rundir.RESULTS
    if previous.get("status") == "complete":
        bad = rundir.verify_results(out, previous) if results.exists() else f"{results}: missing"
        if bad is None:
            _drop_chunks(out)  # left by a kill after the merge
            return previous, None
        print(f"meeplab: {bad}; playing the run again from its seeds", file=sys.stderr)
    # merged results without a complete run.json: the merge was cut short, the parts are still there
    results.unlink(missing_ok=True)
    rundir.remove_temps(out, rundir.RESULTS)
    v = rundir.verify_chunks(out, plan.game.id)
    for problem in v.problems:
        print(f"meeplab: {problem}; playing these games again from their seeds", file=sys.stderr)
    if (out / rundir.MANIFEST).exists():
        rundir.rewrite_manifest(out, v.entries)
    rundir.remove_unrecorded(out, keep={e.file for e in v.entries})
    done: dict[int, list[tuple[int, int]]] = {}
    for e in v.entries:
        done.setdefault(e.p, []).append((e.start, e.n))
    return previous, done


def _check_data_game(out: Path, game: str) -> None:
    """Refuse to add to rows another game's engine wrote (a run.json edited, or copied between directories)."""
    others = {e.game for e in rundir.read_entries(out) if e.game and e.game != game}
    results = out / rundir.RESULTS
    if results.is_file():
        with contextlib.suppress(Exception):  # unreadable: verified (and named) later
            g = rundir.file_game(results)
            if g and g != game:
                others.add(g)
    if others:
        raise MeeplabError(
            f"{out} holds games played by {', '.join(sorted(others))}, not {game} (run.json does not match its "
            "data); choose another --out, or --force to replace the run"
        )


def _drop_chunks(out: Path) -> None:
    """After the merge: the parts and the manifest meeplab wrote (nothing else in chunks/)."""
    rundir.remove_unrecorded(out, keep=set())
    (out / rundir.MANIFEST).unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        (out / rundir.CHUNKS).rmdir()


def _merge_chunks(out: Path) -> dict[str, Any]:
    """Merge the manifest's parts (in game order) into results.parquet; returns its record for run.json."""
    parts = sorted(rundir.read_entries(out), key=lambda e: (e.p, e.start))
    if not parts:
        return {}
    target = out / rundir.RESULTS
    rows = 0
    with atomic_writer(target, "wb") as sink:
        writer = None
        try:
            for e in parts:
                t = shards_mod.read_parquet(out / rundir.CHUNKS / e.file)
                if writer is None:
                    writer = pq.ParquetWriter(sink, t.schema, compression="zstd")
                writer.write_table(t, row_group_size=1 << 20)
                rows += t.num_rows
        finally:
            if writer is not None:
                writer.close()
    return {"file": rundir.RESULTS, "rows": rows, "sha256": rundir.sha256_file(target)}


def _first_run_key(game: GameSpec) -> str:
    """What a game's compiled code depends on: its folder's sources, the shared loop and search, numba."""
    import hashlib

    import numba

    from meeplab.sim.core.numba_cache import game_key, source_key

    h = hashlib.sha256()
    for part in (
        game_key(game.id),
        source_key("meeplab.sim.core.play"),
        source_key("meeplab.sim.core.search"),
        numba.__version__,
    ):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:20]


def engine_compiled(game: GameSpec) -> bool:
    """Whether ``game``'s engine for the current sources is in this cache (a run of it compiled it: the marker
    :func:`compile_notice` leaves), so that playing it now loads rather than compiles."""
    from meeplab.sim.core.numba_cache import cache_base

    return (cache_base() / "first-run" / f"{game.id}-{_first_run_key(game)}.txt").is_file()


@contextlib.contextmanager
def compile_notice(game: GameSpec, stream=None):
    """Around a game's first call in this process: when its code has not been compiled into the numba cache
    yet (no marker for the current sources under the cache base), print one line first ("compiling the X
    engine, first run only, about N s"; N = the last cold compile measured on this machine, else the game's
    ``compile_s``) and record the time it took once done. Knows no game by name."""
    from meeplab.sim.core.numba_cache import cache_base

    folder = cache_base() / "first-run"
    marker = folder / f"{game.id}-{_first_run_key(game)}.txt"
    if marker.is_file():
        yield
        return
    est = None
    old = sorted(folder.glob(f"{game.id}-*.txt"), key=lambda f: f.stat().st_mtime) if folder.is_dir() else []
    for f in reversed(old):
        with contextlib.suppress(ValueError, OSError, IndexError):
            t = float(f.read_text().split()[0])
            if t >= 5.0:  # a compile, not a load from a cache made before the markers
                est = t
                break
    if est is None:
        est = getattr(game, "compile_s", None)  # a game may state its cold compile time (seconds)
    about = f", about {est:.0f} s" if est else ""
    print(f"compiling the {game.title} engine, first run only{about}", file=stream or sys.stderr, flush=True)
    t0 = time.perf_counter()
    yield
    with contextlib.suppress(OSError):
        atomic_write(marker, f"{time.perf_counter() - t0:.1f}\n")


def _jsonable(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items()}


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _version() -> str:
    from meeplab import sim

    return sim.__version__
