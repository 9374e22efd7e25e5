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


@pytest.mark.parametrize(("game", "players"), [("hacienda", 3), ("schweinebande", 3), ("goldrush", 3)])
def test_every_candidate_of_a_decision_has_its_own_label(game, players):
    """A person choosing on the play page tells candidates apart by their labels (Hacienda's water tiles were named
    by their anchor alone, so orientations repeated it: they are named by the hexes they cover; Gold Rush's segments
    by their tile alone: they name the sides they touch)."""
    from meeplab.sim.core.forward import C_N

    g = get_game(game)
    ctx = g.prepare(g.params.resolve({}, game))
    lineup = make_lineup(game, ["heuristic"], players, True)
    seen = 0
    for index in range(3):
        tr = trace_spec(g, ctx, lineup, players, 1, index)
        for rec in tr.states[:-1]:
            if int(rec["ctl"][C_N]) > 1:
                labels = [label for label, _ in g.draw.moves(ctx, rec)]
                assert len(set(labels)) == len(labels), labels
                seen += 1
    assert seen > 100
