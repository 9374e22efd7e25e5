"""The viewer's event lines name players as people read them, P1 (the start player) to P{players}: never a player
the table does not have (the Hacienda and ACBAS viewers once added one to numbers the replay had already made
1-based)."""

import re

import pytest

from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.draw import trace_spec
from meeplab.sim.core.registry import get_game


@pytest.mark.parametrize(("game", "players"), [("hacienda", 3), ("acbas", 2), ("schweinebande", 3), ("goldrush", 2)])
def test_event_lines_name_only_the_tables_players(game, players):
    g = get_game(game)
    ctx = g.prepare(g.params.resolve({}, game))
    lineup = make_lineup(game, ["greedy"], players, True)
    tr = trace_spec(g, ctx, lineup, players, 1, 0)
    lines = g.draw.events(ctx, tr.log, 0, len(tr.log), lineup.names)
    named = [int(n) for line in lines for n in re.findall(r"\bP(\d+)\b", line)]
    assert named, lines[:5]
    assert min(named) == 1 and max(named) == players
