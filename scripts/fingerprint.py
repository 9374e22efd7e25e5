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
import json
import sys
from pathlib import Path

from meeplab.lab.studies.fingerprint import fingerprint


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
