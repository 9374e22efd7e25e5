#!/usr/bin/env python
"""How often a raced rollout search makes the full search's choice (docs/bots-and-search.md, "Racing").

Plays games of GAME with the playout-policy bot ``--policy`` in every seat; at each decision the rollout bot
``--bot`` searches (its decision kinds), the search runs on the same state with its ``race`` set to 0 (the full
search), to each value of ``--race`` (the same re-deals: the same draw of the game's stream), and once more in full
on other re-deals (another draw). Prints, per ``race``, the share of decisions whose choice is the full search's and
its playouts as a share of the full search's, beside the full search's agreement with itself on other re-deals (the
search's own noise).

    python scripts/race_agreement.py schweinebande --players 2 --games 30 --race 1.5,2,2.5
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from meeplab.sim.core import search
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.face import advance, apply, reset
from meeplab.sim.core.forward import C_KIND, C_N, S_RACE, ask, searches
from meeplab.sim.core.play import new_player
from meeplab.sim.core.registry import get_game


def main(argv=None) -> int:
    try:
        return agreement(argv)
    except MeeplabError as exc:  # an unknown game or bot, a bad variant file: one line
        print(f"race_agreement.py: error: {exc}", file=sys.stderr)
        return 2


def agreement(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("game")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--bot", default="rollout", help="the rollout bot whose search is raced (default: rollout)")
    ap.add_argument("--policy", default="heuristic", help="the bot that plays every seat between the searches")
    ap.add_argument("--race", default="1.5,2,2.5", help="race values, comma-separated")
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--bot-config", action="append", default=[], help="TOML file of bot variants (repeatable)")
    args = ap.parse_args(argv)
    try:
        zs = [float(x) for x in args.race.split(",")]
    except ValueError:
        raise MeeplabError(f"--race takes numbers, comma-separated; got {args.race!r}") from None
    g = get_game(args.game)
    ctx = g.prepare(g.params.resolve({}))
    lineup = make_lineup(g.id, [args.bot], args.players, False, args.bot_config)
    players = make_lineup(g.id, [args.policy], args.players, False)
    cx = g.forward_context(ctx, lineup) if g.forward_context is not None else ctx.cx
    full = lineup.search[0].copy()
    full[S_RACE] = 0.0
    st, scratch = new_player(cx, args.players, len(g.categories), np.zeros((0, 8), dtype=np.int64))
    agree = dict.fromkeys(zs, 0)
    plays = dict.fromkeys(zs, 0.0)
    full_plays = 0.0
    self_agree = 0
    n = 0
    for i in range(args.games):
        reset(st, cx, args.seed, i)
        while advance(st, cx) >= 0:
            r = st.rec[0]
            if searches(full, int(r["ctl"][C_N]), int(r["ctl"][C_KIND])):
                rng = r["rng"].copy()
                choice = search.rollout_choose(st, scratch, cx, lineup.fns, lineup.weights, full, 0)
                full_plays += scratch.vis.sum()
                for z in zs:
                    cfg = full.copy()
                    cfg[S_RACE] = z
                    r["rng"][:] = rng
                    agree[z] += search.rollout_choose(st, scratch, cx, lineup.fns, lineup.weights, cfg, 0) == choice
                    plays[z] += scratch.vis.sum()
                r["rng"][:] = rng
                r["rng"][1] ^= np.uint64(0x5DEECE66D)  # another draw: xoshiro's next output reads word 1
                self_agree += search.rollout_choose(st, scratch, cx, lineup.fns, lineup.weights, full, 0) == choice
                r["rng"][:] = rng
                n += 1
            apply(st, cx, int(ask(st, players.fns, players.weights, 0)))
    if not n:
        print(f"no decision of {args.bot} was searched in {args.games} games", file=sys.stderr)
        return 2
    noise = self_agree / n
    print(
        f"{g.id} {args.players}p, {args.bot}: {n} searched decisions; in full on other re-deals it agrees {noise:.3f}"
    )
    for z in zs:
        print(f"  race {z:g}: the full search's choice {agree[z] / n:.3f}, playouts {plays[z] / full_plays:.3f} of its")
    return 0


if __name__ == "__main__":
    sys.exit(main())
