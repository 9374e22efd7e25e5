"""The results table: one batch of engine output (:class:`~meeplab.sim.core.game.Batch`) as rows (game, seat).

The columns are documented in ``lab/runs/SCHEMA.md``. The runner (one process) and the shards (workers of a
cluster) both write parts of this shape.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from meeplab.lab.runs.rundir import GAME_KEY
from meeplab.sim.core.game import Batch, GameSpec, rank_and_win


def batch_table(game: GameSpec, batch: Batch, start: int, n_players: int, names: list[str], rotate: bool) -> pa.Table:
    """One batch of engine output as rows (game, seat)."""
    n = batch.score.shape[0]
    rank, win = rank_and_win(batch.score, batch.tiebreak, game.lower_wins)
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
        "end": end_column(game, batch, n, n_players),
    }
    brk = batch.breakdown.reshape(n * n_players, -1)
    for j, c in enumerate(game.categories):
        cols[c] = pa.array(brk[:, j].astype(np.float64))
    # the game whose engine wrote the rows travels with them (a run directory's data is checked against it)
    return pa.table(cols).replace_schema_metadata({GAME_KEY: game.id.encode()})


def end_column(game: GameSpec, batch: Batch, n: int, n_players: int) -> pa.DictionaryArray:
    """How each game ended, one value per row: ``game.end_codes[batch.end[g]]`` ("rules" when ``end`` is None)."""
    codes = np.zeros(n, dtype=np.int32) if batch.end is None else batch.end.astype(np.int32)
    if codes.size and (codes.min() < 0 or codes.max() >= len(game.end_codes)):
        raise ValueError(f"{game.id}: Batch.end holds a code outside end_codes {game.end_codes}")
    return pa.DictionaryArray.from_arrays(
        pa.array(np.repeat(codes, n_players)), pa.array(list(game.end_codes), type=pa.string())
    )
