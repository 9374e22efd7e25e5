"""Shards: the unit of work and of results on disk, the same for a local run and a cluster.

A shard is (player count ``p``, first game index ``start``, count ``n``). Game ``g`` depends only on
``(seed, g)``, so any split of ``0..games-1`` into shards gives the same rows. Each finished shard is
one Parquet part ``OUT/chunks/part-p{p}-{start:012d}.parquet``, written under a temporary name and
renamed (a part on disk is always whole), then recorded by one line in ``OUT/manifest.jsonl`` with its
rows and SHA-256 (:mod:`meeplab.lab.runs.rundir`). A resumed run plays what the verified manifest does
not cover; parts it does not name, or whose bytes do not match it, are deleted first, so no game is ever
counted twice or read damaged. :func:`plan` yields the shards lazily: memory does not grow with --games.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from meeplab.lab.runs.rundir import CHUNKS, MANIFEST, append_entry, entry_for, part_name
from meeplab.sim.core.files import atomic_write

__all__ = [
    "CHUNKS",
    "MANIFEST",
    "Job",
    "LocalExecutor",
    "Shard",
    "adopt",
    "bytes_table",
    "part_key",
    "part_name",
    "plan",
    "plan_count",
    "play_shard",
    "read_parquet",
    "table_bytes",
    "write_part",
]


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to play shards of one run (small, picklable, no engine state)."""

    game: str
    values: tuple  # resolved parameter values as (name, value) pairs
    bots: tuple[str, ...]
    rotate: bool
    bot_configs: tuple[str, ...]
    seed: int


Shard = tuple[int, int, int]  # (players, start, n)


def part_key(path: Path) -> tuple[int, int]:
    _, pp, start = path.stem.split("-")  # part-p3-000000000000
    return int(pp[1:]), int(start)


def _gaps(games: int, done_p: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The (first, end) stretches of ``0..games-1`` that the (start, n) runs of ``done_p`` do not cover."""
    pos = 0
    for start, n in sorted(done_p) + [(games, 0)]:
        if pos < start:
            yield pos, start
        pos = max(pos, start + n)


def plan(players: list[int], games: int, size: int, done: dict[int, list[tuple[int, int]]]) -> Iterator[Shard]:
    """Shards of at most ``size`` games covering, per player count, what ``done`` (start, n) lacks; lazily."""
    for p in players:
        for pos, end in _gaps(games, done.get(p, [])):
            while pos < end:
                k = min(size, end - pos)
                yield (p, pos, k)
                pos += k


def plan_count(players: list[int], games: int, size: int, done: dict[int, list[tuple[int, int]]]) -> dict[int, int]:
    """How many shards :func:`plan` yields for each player count (computed, not enumerated)."""
    return {p: sum(-(-(end - pos) // size) for pos, end in _gaps(games, done.get(p, []))) for p in players}


def write_part(out: Path, shard: Shard, data: bytes, game: str | None = None) -> None:
    """Write one shard's Parquet bytes atomically and record it, with its rows and checksum, in the manifest."""
    p, start, n = shard
    entry = entry_for(p, start, n, data, game)
    atomic_write(out / CHUNKS / entry.file, data)
    append_entry(out, entry)


def table_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def read_parquet(source) -> pa.Table:
    """A Parquet file (a path or Arrow buffer reader) read in this thread, starting no thread of Arrow's: not
    ``pq.read_table``, which goes through Arrow's dataset scanner and starts an I/O pool thread even with
    ``use_threads=False``. A pool thread still alive when the interpreter exits right after the last read (the
    in-memory path) aborted the process ("terminate called without an active exception", exit 134; apache/arrow
    issues 34314, 39862)."""
    with pq.ParquetFile(source) as f:
        return f.read(use_threads=False)


def bytes_table(data: bytes) -> pa.Table:
    """A shard's rows from its Parquet bytes (:func:`read_parquet`)."""
    return read_parquet(pa.BufferReader(data))


# -- worker side ---------------------------------------------------------------------------------
_PREPARED: dict[str, Any] = {}  # (job, players) key -> (game, context, lineup), the most recently used last
_KEEP_PREPARED = 16  # a long-lived worker serves many runs (a sweep): it keeps the latest
_PLAY_LOCK = threading.Lock()  # one shard at a time per process (numba's thread pool is per process)


def _remember(key: str, prepared: tuple) -> None:
    """Keep ``prepared`` under ``key`` as the most recently used entry, dropping the least recently used beyond
    :data:`_KEEP_PREPARED` (never the entry just kept: a run adopts one per player count, one after another)."""
    _PREPARED.pop(key, None)
    while len(_PREPARED) >= _KEEP_PREPARED:
        _PREPARED.pop(next(iter(_PREPARED)))
    _PREPARED[key] = prepared


def _prepared(job: Job, p: int, warm_lock: bool):
    key = hashlib.sha256(pickle.dumps((job, p))).hexdigest()
    if key in _PREPARED:
        _remember(key, _PREPARED[key])
    else:
        from meeplab.sim.core.bots import make_lineup
        from meeplab.sim.core.registry import get_game

        game = get_game(job.game)
        ctx = game.prepare(dict(job.values))
        lineup = make_lineup(game.id, list(job.bots), p, job.rotate, job.bot_configs)
        # Compile or load the engine once per process, one process of a machine at a time: the first
        # compiles into the shared numba cache, the others then load it.
        with machine_lock() if warm_lock else contextlib.nullcontext():
            game.play(ctx, lineup, job.seed, 0, 1, p)
        _remember(key, (game, ctx, lineup))
    return _PREPARED[key]


def adopt(job: Job, p: int, game: Any, ctx: Any, lineup: Any) -> None:
    """Let this process play ``job``'s shards at ``p`` players with a game, engine context and lineup already
    prepared (a :class:`~meeplab.lab.runs.plan.RunPlan`'s, warmed up by the runner) instead of preparing them
    again from the job."""
    _remember(hashlib.sha256(pickle.dumps((job, p))).hexdigest(), (game, ctx, lineup))


def machine_lock():
    """The lock that lets one process of a machine at a time compile (or load) an engine into the shared numba
    cache: the first compiles, the others then load what it wrote."""
    from meeplab.sim.core.numba_cache import cache_lock

    return cache_lock(".compile.lock")


def use_threads(threads: int | None) -> None:
    """Play on ``threads`` numba threads (at most the process's; None or 0: leave numba as it is)."""
    if threads:
        import numba

        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))


def play_shard(job: Job, shard: Shard, threads: int | None = None, warm_lock: bool = False) -> bytes:
    """Play one shard and return its rows as Parquet bytes (zstd)."""
    from meeplab.lab.runs.results import batch_table

    p, start, n = shard
    with _PLAY_LOCK:
        game, ctx, lineup = _prepared(job, p, warm_lock)
        use_threads(threads)
        batch = game.play(ctx, lineup, job.seed, start, n, p)
    data = table_bytes(batch_table(game, batch, start, p, lineup.names, job.rotate))
    pause = float(os.environ.get("MEEPLAB_SHARD_PAUSE", "0") or 0)  # tests: make shards last
    if pause > 0:
        time.sleep(pause)
    return data


class LocalExecutor:
    """Plays shards one after the other in this process (numba threads over the games of a shard)."""

    workers = None
    scheduler = "local threads"

    def __init__(self, threads: int | None = None):
        self.threads = threads

    def results(self, job: Job, shards: Iterable[Shard]) -> Iterator[tuple[Shard, bytes]]:
        for shard in shards:
            yield shard, play_shard(job, shard, self.threads)

    def close(self) -> None:
        pass
