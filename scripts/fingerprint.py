#!/usr/bin/env python
"""Fingerprint of every result column of a game's engine, for refactors that must not change play.

For each player count and lineup, plays ``--games`` games (seed 1, bots rotated) and hashes the
engine's raw output: score, tiebreak, breakdown, length and, where the engine reports it, how the
game ended. Two versions of an engine play bit-identical games exactly when their fingerprints
are equal.

    python scripts/fingerprint.py schweinebande --games 4000 > before.json
    # ... change the engine ...
    python scripts/fingerprint.py schweinebande --games 4000 --check before.json
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.core.bots import make_lineup  # noqa: E402
from sim.core.registry import get_game  # noqa: E402

LINEUPS = (["random"], ["greedy"], ["heuristic"], ["heuristic", "greedy"], ["heuristic", "greedy", "random"])


def batch_hash(batch) -> str:
    h = hashlib.sha256()
    for arr in (batch.score, batch.tiebreak, batch.breakdown, batch.length):
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("game")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--check", type=Path, help="compare with a saved fingerprint; exit 1 on any difference")
    args = ap.parse_args(argv)
    fp = fingerprint(args.game, args.games)
    if args.check:
        old = json.loads(args.check.read_text())
        bad = [k for k in old if old[k] != fp.get(k)]
        for k in bad:
            print(f"DIFFERENT {k}: {old[k]} -> {fp.get(k)}")
        print(f"{len(old) - len(bad)} of {len(old)} lineups identical ({args.games} games each)")
        return 1 if bad else 0
    print(json.dumps(fp, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
