"""Fingerprint of every result column of a game's engine, for refactors that must not change play.

For each player count and lineup, :func:`fingerprint` plays ``games`` games (seed 1, bots rotated) and hashes
the engine's raw output: score, tiebreak, breakdown, length and how each game ended. Two versions of an engine
play bit-identical games exactly when their fingerprints are equal. The command line is ``scripts/fingerprint.py``;
the engines' fingerprint tests compare with the hashes stored in ``tests/data``.
"""

from __future__ import annotations

import hashlib

import numpy as np

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.registry import get_game

LINEUPS = (["random"], ["greedy"], ["heuristic"], ["heuristic", "greedy"], ["heuristic", "greedy", "random"])


def batch_hash(batch) -> str:
    """Hash of every result column the engine returns: score, tiebreak, breakdown, length and how each game
    ended (``end``, where the engine reports it)."""
    h = hashlib.sha256()
    for arr in (batch.score, batch.tiebreak, batch.breakdown, batch.length, batch.end):
        if arr is None:
            continue
        a = np.ascontiguousarray(arr)
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:24]


def fingerprint(game_id: str, games: int, players=None, lineups=LINEUPS, seed: int = 1) -> dict[str, str]:
    game = get_game(game_id)
    ctx = game.prepare(game.params.resolve({}))
    counts = players or range(game.min_players, game.max_players + 1)
    out = {}
    for p in counts:
        for names in lineups:
            if len(names) > p:
                continue
            lineup = make_lineup(game.id, list(names), p, True)
            batch = game.play(ctx, lineup, seed, 0, games, p)
            out[f"{p}p {','.join(names)}"] = batch_hash(batch)
    return out
