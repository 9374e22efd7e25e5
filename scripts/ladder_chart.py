#!/usr/bin/env python
"""Write a ladder's chart "start player's advantage by skill" (the one in its report) as a PNG file, e.g. for the
README:

    meeplab ladder schweinebande --players 2-5 --bots random,greedy,heuristic,rollout --games 600 --out runs/ladder
    python scripts/ladder_chart.py runs/ladder reports/examples/schweinebande-ladder.png
"""

from __future__ import annotations

import argparse
import base64
import sys
from pathlib import Path

from meeplab.analysis.ladder import load_ladder, rung_rows
from meeplab.reports.ladder import seat_chart as _seat_chart
from meeplab.sim.core.files import atomic_write

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ladder", type=Path, help="a directory written by meeplab ladder")
    ap.add_argument("out", type=Path, help="PNG file to write (refused if it exists, unless --force)")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args(argv)
    if args.out.exists() and not args.force:
        print(f"{args.out} exists (use --force to replace it)", file=sys.stderr)
        return 2
    lad = load_ladder(args.ladder)
    uri = _seat_chart(rung_rows(lad), lad.rungs)
    atomic_write(args.out, base64.b64decode(uri.split(",", 1)[1]))
    for r in rung_rows(lad):
        seat0 = f"{r['seat_rate'][0]:.3f} [{r['seat_lo'][0]:.3f}, {r['seat_hi'][0]:.3f}]"
        print(
            f"{r['n_players']}p {r['rung']:>10}: start player {seat0} over {r['games']} games (fair "
            f"{1 / r['n_players']:.3f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
