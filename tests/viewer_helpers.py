"""Helpers for the viewer tests: one small game of each engine traced once per test session, and its page."""

import json
import re
from functools import cache

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.draw import trace_spec
from meeplab.sim.core.registry import get_game

# one small game per engine, cheap bots: (players, bots, seed, index)
GAMES = {
    "schweinebande": (3, ["greedy", "random"], 1, 0),
    "hacienda": (3, ["greedy", "random"], 1, 0),
    "acbas": (2, ["greedy", "random"], 1, 0),
    "goldrush": (3, ["greedy", "random"], 1, 0),
}
# games whose rules hide something from some seat (the seat view must hide it)
HIDDEN = {"schweinebande", "hacienda", "goldrush"}


@cache
def traced(game_id):
    """(spec, ctx, lineup, trace) of the game's small test game."""
    p, bots, seed, index = GAMES[game_id]
    g = get_game(game_id)
    ctx = g.prepare(g.params.resolve({}, g.id))
    lineup = make_lineup(g.id, bots, p, True)
    return g, ctx, lineup, trace_spec(g, ctx, lineup, p, seed, index)


def page_args(game_id, out):
    """``meeplab view`` arguments for the game's small test game."""
    p, bots, seed, index = GAMES[game_id]
    return ["view", game_id, "--players", str(p), "--bots", ",".join(bots), "--seed", str(seed)] + [
        "--index",
        str(index),
        "--out",
        str(out),
    ]


def page_data(path):
    """The data a viewer page embeds (its script#game-data), unpacked (as view_data made it)."""
    text = path.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', text, re.S)
    assert m, "no game data in the page"
    from meeplab.reports.viewer import unpack

    return unpack(json.loads(m.group(1)))
