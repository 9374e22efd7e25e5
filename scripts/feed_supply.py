#!/usr/bin/env python
"""How often would a supply of 25 feed markers (the box) have run out? Schweinebande's rule book does not
say the supply is limited, so the engine's default is unlimited (``feed_supply = 0``). This replays games
with the unlimited supply and follows the markers the players hold (sales add, feeding pays back): a game
"runs out" when at some moment the players together hold more than ``--supply`` markers.

    python scripts/feed_supply.py --games 2000 --players 2-5 --bots heuristic greedy random rollout
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.registry import get_game
from meeplab.sim.schweinebande import events
from meeplab.sim.schweinebande.layout import E_PAY, E_SELL

ROOT = Path(__file__).resolve().parents[1]


def peak_markers(log: np.ndarray, start_total: int) -> int:
    """Most markers the players held at once in one game's event log."""
    held = peak = start_total
    for code, _seat, a, b, _c, _d in log:
        if code == E_SELL:
            held += b
        elif code == E_PAY:
            held -= a
        peak = max(peak, held)
    return peak


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", default="2-5")
    ap.add_argument("--bots", nargs="+", default=["random", "greedy", "heuristic"])
    ap.add_argument("--supply", type=int, default=25)
    args = ap.parse_args(argv)
    lo, _, hi = args.players.partition("-")
    counts = range(int(lo), int(hi or lo) + 1)
    game = get_game("schweinebande")
    values = game.params.resolve({})
    ctx = game.prepare(values)
    print(f"| bot (all seats) | players | games | peak markers held (mean / max) | games over {args.supply} |")
    print("|---|---|---|---|---|")
    for bot in args.bots:
        for p in counts:
            lineup = make_lineup(game.id, [bot], p, True)
            peaks = np.array(
                [peak_markers(events(ctx, lineup, 1, i, p)[0], p * values["start_feed"]) for i in range(args.games)]
            )
            over = (peaks > args.supply).mean()
            print(f"| {bot} | {p} | {args.games:,} | {peaks.mean():.1f} / {peaks.max()} | {over:.1%} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
