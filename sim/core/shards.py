"""Shards: the unit of work and of results on disk, the same for a local run and a cluster.

A shard is (player count ``p``, first game index ``start``, count ``n``). Game ``g`` depends only on
``(seed, g)``, so any split of ``0..games-1`` into shards gives the same rows. Each finished shard is
one Parquet part ``OUT/chunks/part-p{p}-{start:012d}.parquet``, written under a temporary name and
renamed (a part on disk is always whole), then recorded by one line in ``OUT/manifest.jsonl``. A
resumed run plays what the manifest does not cover; parts the manifest does not name (a process
killed between rename and record) are deleted first, so no game is ever counted twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

MANIFEST = "manifest.jsonl"
CHUNKS = "chunks"


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


def part_name(p: int, start: int) -> str:
    return f"part-p{p}-{start:012d}.parquet"


def part_key(path: Path) -> tuple[int, int]:
    _, pp, start = path.stem.split("-")  # part-p3-000000000000
    return int(pp[1:]), int(start)


def plan(players: list[int], games: int, size: int, done: dict[int, list[tuple[int, int]]]) -> list[Shard]:
    """Shards of at most ``size`` games covering, per player count, what ``done`` (start, n) lacks."""
    out: list[Shard] = []
    for p in players:
        pos = 0
        for start, n in sorted(done.get(p, [])) + [(games, 0)]:
            while pos < start:
                k = min(size, start - pos)
                out.append((p, pos, k))
                pos += k
            pos = max(pos, start + n)
    return out


def read_manifest(out: Path) -> dict[int, list[tuple[int, int]]]:
    """Shards recorded as done whose part is on disk, by player count; deletes unrecorded parts."""
    done: dict[int, list[tuple[int, int]]] = {}
    names = set()
    path = out / MANIFEST
    if path.exists():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                rec = json.loads(line)
                p, start, n, name = int(rec["p"]), int(rec["start"]), int(rec["n"]), str(rec["file"])
            except (ValueError, KeyError, TypeError):
                continue  # a line torn by a kill
            if (out / CHUNKS / name).is_file() and name not in names:
                names.add(name)
                done.setdefault(p, []).append((start, n))
    if path.exists():  # rewrite it whole: a torn last line must not swallow the next record
        tmp = path.with_suffix(".jsonl.tmp")
        tmp.write_text(
            "".join(
                json.dumps({"p": p, "start": s, "n": n, "file": part_name(p, s)}) + "\n"
                for p, runs in sorted(done.items())
                for s, n in sorted(runs)
            ),
            encoding="utf-8",
        )
        os.replace(tmp, path)
    chunks = out / CHUNKS
    if chunks.is_dir():
        for f in chunks.iterdir():
            if f.name not in names:
                f.unlink()
    return done


def write_part(out: Path, shard: Shard, data: bytes) -> None:
    """Write one shard's Parquet bytes atomically and record it in the manifest."""
    p, start, n = shard
    name = part_name(p, start)
    tmp = out / CHUNKS / (name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, out / CHUNKS / name)
    with open(out / MANIFEST, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"p": p, "start": start, "n": n, "file": name}) + "\n")
        fh.flush()


def table_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def bytes_table(data: bytes) -> pa.Table:
    return pq.read_table(pa.BufferReader(data))


# -- worker side ---------------------------------------------------------------------------------
_PREPARED: dict[str, Any] = {}
_PLAY_LOCK = threading.Lock()  # one shard at a time per process (numba's thread pool is per process)


def _prepared(job: Job, p: int, warm_lock: bool):
    key = hashlib.sha256(pickle.dumps((job, p))).hexdigest()
    if key not in _PREPARED:
        from .bots import make_lineup
        from .registry import get_game

        game = get_game(job.game)
        ctx = game.prepare(dict(job.values))
        lineup = make_lineup(game.id, list(job.bots), p, job.rotate, job.bot_configs)
        # Compile or load the engine once per process, one process of a machine at a time: the first
        # compiles into the shared numba cache, the others then load it.
        with _machine_lock() if warm_lock else contextlib.nullcontext():
            game.play(ctx, lineup, job.seed, 0, 1, p)
        if len(_PREPARED) >= 16:  # a long-lived worker serves many runs (a sweep): keep the latest
            _PREPARED.pop(next(iter(_PREPARED)))
        _PREPARED[key] = (game, ctx, lineup)
    return _PREPARED[key]


def _machine_lock():
    from .numba_cache import cache_lock

    return cache_lock(".compile.lock")


def play_shard(job: Job, shard: Shard, threads: int | None = None, warm_lock: bool = False) -> bytes:
    """Play one shard and return its rows as Parquet bytes (zstd)."""
    from .results import batch_table

    p, start, n = shard
    with _PLAY_LOCK:
        game, ctx, lineup = _prepared(job, p, warm_lock)
        if threads:
            import numba

            numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
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

    def results(self, job: Job, shards: list[Shard]) -> Iterator[tuple[Shard, bytes]]:
        for shard in shards:
            yield shard, play_shard(job, shard, self.threads)

    def close(self) -> None:
        pass
