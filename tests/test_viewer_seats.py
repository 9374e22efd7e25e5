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


@pytest.mark.parametrize(
    ("game", "players"),
    [("hacienda", 2), ("hacienda", 4), ("schweinebande", 3), ("schweinebande", 5), ("goldrush", 2), ("goldrush", 4)]
    + [("acbas", 2)],
)
def test_every_candidate_of_a_decision_has_its_own_label(game, players):
    """A person choosing on the play page tells candidates apart by their labels (Hacienda's water tiles were named
    by their anchor alone, so orientations repeated it: they are named by the hexes they cover; Gold Rush's segments
    by their tile alone: they name the sides they touch; ACBAS's enclosures by their border count alone: they name
    the spaces they enclose and the space they stay open towards, or where a lone border goes)."""
    from meeplab.sim.core.forward import C_N

    g = get_game(game)
    ctx = g.prepare(g.params.resolve({}, game))
    seen = 0
    for bots, seed in ((["heuristic"], 1), (["greedy", "random"], 2)):
        lineup = make_lineup(game, bots, players, True)
        for index in range(2):
            tr = trace_spec(g, ctx, lineup, players, seed, index)
            for rec in tr.states[:-1]:
                if int(rec["ctl"][C_N]) > 1:
                    labels = [label for label, _ in g.draw.moves(ctx, rec)]
                    assert len(set(labels)) == len(labels), sorted(x for x in labels if labels.count(x) > 1)
                    seen += 1
    assert seen > 100


@pytest.mark.parametrize(("game", "pattern"), [("hacienda", r"\bhex (\d{4})"), ("acbas", r"\b([A-F][1-3])\b")])
def test_the_places_labels_name_are_written_on_the_board(game, pattern):
    """A person finds the place a label names: Hacienda's hexes carry their numbers ("hex 0203"), ACBAS's farm spaces
    their names ("trough on B2"), as text of class "place"."""
    g = get_game(game)
    ctx = g.prepare(g.params.resolve({}, game))
    players = 2
    tr = trace_spec(g, ctx, make_lineup(game, ["greedy"], players, True), players, 1, 0)
    drawn = re.findall(r'class="place[^"]*">([^<]+)</text>', "".join(g.draw.pieces(ctx, tr.states[0], None)))
    named = {n for rec in tr.states[:-1] for label, _ in g.draw.moves(ctx, rec) for n in re.findall(pattern, label)}
    assert len(named) > 5 and named <= set(drawn), sorted(named - set(drawn))
