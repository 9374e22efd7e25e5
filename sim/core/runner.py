"""The shared batch runner: plays games in chunks through a GameSpec and writes the results.

Game ``g`` of player count ``P`` always plays the same way for a given seed, whatever the thread
count or chunk size, so a run of N games is the first N games of a run of 2N, and a variant run with
the same seed is paired game by game with its baseline (common random numbers).
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .bots import available, make_lineup
from .errors import MeeplabError
from .game import Batch, GameSpec, rank_and_win
from .registry import check_players

DEFAULT_CHUNK = 50_000


@dataclass
class RunConfig:
    game: GameSpec
    games: int
    players: list[int]
    bots: list[str]
    seed: int = 1
    threads: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    out: Path | None = None
    rotate: bool = True
    bot_configs: tuple[str, ...] = ()
    chunk: int = DEFAULT_CHUNK
    progress: bool = True
    label: str = ""
    command: str = ""


def resolve_params(game: GameSpec, overrides: dict[str, Any]) -> dict[str, Any]:
    return game.params.resolve(overrides, game.id)


def check_config(cfg: RunConfig) -> tuple[dict[str, Any], Any]:
    """Validate everything before any game is played; returns (param values, engine context)."""
    if cfg.games <= 0:
        raise MeeplabError(f"--games must be a positive number, got {cfg.games}")
    if not cfg.players:
        raise MeeplabError("--players needs at least one player count")
    for p in cfg.players:
        check_players(cfg.game, p)
    if cfg.threads is not None and cfg.threads <= 0:
        raise MeeplabError(f"--threads must be positive, got {cfg.threads}")
    if cfg.seed < 0 or cfg.seed >= 2**63:
        raise MeeplabError(f"--seed must be in 0..2**63-1, got {cfg.seed}")
    values = resolve_params(cfg.game, cfg.overrides)
    for p in cfg.players:
        make_lineup(cfg.game.id, cfg.bots, p, cfg.rotate, cfg.bot_configs)
    ctx = cfg.game.prepare(values)
    return values, ctx


def batch_table(game: GameSpec, batch: Batch, start: int, n_players: int, names: list[str], rotate: bool) -> pa.Table:
    """One chunk of engine output as rows (game, seat)."""
    n = batch.score.shape[0]
    rank, win = rank_and_win(batch.score, batch.tiebreak)
    gidx = np.arange(start, start + n, dtype=np.int64)
    seats = np.tile(np.arange(n_players, dtype=np.int8), n)
    g_rep = np.repeat(gidx, n_players)
    entry = ((seats.astype(np.int64) + g_rep) % n_players if rotate else seats.astype(np.int64)).astype(np.int8)
    names_arr = pa.array(names, type=pa.string())
    bot = pa.DictionaryArray.from_arrays(pa.array(entry.astype(np.int32)), names_arr)
    cols = {
        "n_players": pa.array(np.full(n * n_players, n_players, dtype=np.int8)),
        "game_index": pa.array(g_rep),
        "seat": pa.array(seats),
        "entry": pa.array(entry),
        "bot": bot,
        "score": pa.array(batch.score.reshape(-1).astype(np.float64)),
        "rank": pa.array(rank.reshape(-1)),
        "win": pa.array(win.reshape(-1)),
        "length": pa.array(np.repeat(batch.length.astype(np.int32), n_players)),
        "tiebreak": pa.array(batch.tiebreak.reshape(-1).astype(np.float64)),
        "end": _end_column(game, batch, n, n_players),
    }
    brk = batch.breakdown.reshape(n * n_players, -1)
    for j, c in enumerate(game.categories):
        cols[c] = pa.array(brk[:, j].astype(np.float64))
    return pa.table(cols)


def _end_column(game: GameSpec, batch: Batch, n: int, n_players: int) -> pa.DictionaryArray:
    """How each game ended, one value per row: ``game.end_codes[batch.end[g]]`` ("rules" when ``end`` is None)."""
    codes = np.zeros(n, dtype=np.int32) if batch.end is None else batch.end.astype(np.int32)
    if codes.size and (codes.min() < 0 or codes.max() >= len(game.end_codes)):
        raise ValueError(f"{game.id}: Batch.end holds a code outside end_codes {game.end_codes}")
    return pa.DictionaryArray.from_arrays(pa.array(np.repeat(codes, n_players)),
                                          pa.array(list(game.end_codes), type=pa.string()))


class _Interrupted(Exception):
    pass


def _sigterm(signum, frame):  # pragma: no cover - exercised via subprocess test
    raise _Interrupted()


def run(cfg: RunConfig) -> dict[str, Any]:
    """Play the batch and write ``results.parquet`` + ``run.json``; returns the run.json dict."""
    values, ctx = check_config(cfg)
    game = cfg.game
    out = Path(cfg.out) if cfg.out is not None else None
    import numba

    if cfg.threads:
        numba.set_num_threads(min(cfg.threads, numba.config.NUMBA_NUM_THREADS))
    threads = numba.get_num_threads()

    bots = available(game.id, cfg.bot_configs)
    meta: dict[str, Any] = {
        "game": game.id,
        "title": game.title,
        "version": _version(),
        "status": "running",
        "label": cfg.label,
        "params": _jsonable(values),
        "params_changed": _jsonable(game.params.changed(values)),
        "notes": list(game.notes(values)),
        "bots": list(cfg.bots),
        "bot_weights": {b: bots[b].weights_dict() for b in dict.fromkeys(cfg.bots)},
        "lineups": {},
        "players": list(cfg.players),
        "rotate": cfg.rotate,
        "seed": cfg.seed,
        "games": cfg.games,
        "games_completed": {},
        "categories": list(game.categories),
        "length_unit": game.length_unit,
        "threads": threads,
        "started": _now(),
        "command": cfg.command,
    }
    chunks_dir = None
    if out is not None:
        if out.exists() and not out.is_dir():
            raise MeeplabError(f"--out {out} exists and is not a directory")
        out.mkdir(parents=True, exist_ok=True)
        chunks_dir = out / "chunks"
        if chunks_dir.exists():
            shutil.rmtree(chunks_dir)
        if (out / "results.parquet").exists():
            (out / "results.parquet").unlink()
        chunks_dir.mkdir()
        _write_json(out / "run.json", meta)

    total = cfg.games * len(cfg.players)
    bar = _progress(total, cfg.progress)
    t0 = time.perf_counter()
    compile_time = 0.0
    played = 0
    tables: list[pa.Table] = []
    old_handler = None
    if out is not None:
        try:
            old_handler = signal.signal(signal.SIGTERM, _sigterm)
        except ValueError:  # not the main thread
            old_handler = None
    status = "complete"
    try:
        for p in cfg.players:
            lineup = make_lineup(game.id, cfg.bots, p, cfg.rotate, cfg.bot_configs)
            meta["lineups"][str(p)] = lineup.names
            meta["games_completed"][str(p)] = 0
            # Warm-up (compile or load from cache) on one game, timed apart from play.
            tc = time.perf_counter()
            game.play(ctx, lineup, cfg.seed, 0, 1, p)
            compile_time += time.perf_counter() - tc
            start = 0
            while start < cfg.games:
                n = min(cfg.chunk, cfg.games - start)
                batch = game.play(ctx, lineup, cfg.seed, start, n, p)
                table = batch_table(game, batch, start, p, lineup.names, cfg.rotate)
                if chunks_dir is not None:
                    pq.write_table(table, chunks_dir / f"part-p{p}-{start:012d}.parquet")
                else:
                    tables.append(table)
                start += n
                played += n
                meta["games_completed"][str(p)] = start
                if bar is not None:
                    bar.update(n)
    except (KeyboardInterrupt, _Interrupted):
        status = "interrupted"
    finally:
        if bar is not None:
            bar.close()
        if old_handler is not None:
            signal.signal(signal.SIGTERM, old_handler)
    wall = time.perf_counter() - t0
    play_time = max(wall - compile_time, 1e-9)
    meta.update(
        status=status,
        wall_time_s=round(wall, 3),
        compile_time_s=round(compile_time, 3),
        games_per_second=round(played / play_time, 1),
        games_played=played,
        finished=_now(),
    )
    if out is not None:
        if status == "complete":
            _merge_chunks(chunks_dir, out / "results.parquet")
        _write_json(out / "run.json", meta)
        if status == "interrupted":
            print(
                f"meeplab: interrupted after {played} of {total} games; the chunks already written are kept "
                f"in {chunks_dir} and 'meeplab report {out}' reads them",
                file=sys.stderr,
            )
    else:
        meta["_table"] = pa.concat_tables(tables) if tables else None
    return meta


def _merge_chunks(chunks_dir: Path, target: Path) -> None:
    parts = sorted(chunks_dir.glob("part-*.parquet"), key=_part_key)
    tmp = target.with_suffix(".parquet.tmp")
    writer = None
    try:
        for part in parts:
            t = pq.read_table(part)
            if writer is None:
                writer = pq.ParquetWriter(tmp, t.schema, compression="zstd")
            writer.write_table(t, row_group_size=1 << 20)
    finally:
        if writer is not None:
            writer.close()
    if writer is None:
        return
    os.replace(tmp, target)
    shutil.rmtree(chunks_dir)


def _part_key(p: Path):
    stem = p.stem  # part-p3-000000000000
    _, pp, start = stem.split("-")
    return (int(pp[1:]), int(start))


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total, unit="game", unit_scale=True, delay=1.0, file=sys.stderr, leave=False)


def _jsonable(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items()}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({k: v for k, v in data.items() if not k.startswith("_")}, indent=2))
    os.replace(tmp, path)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _version() -> str:
    import sim

    return sim.__version__
