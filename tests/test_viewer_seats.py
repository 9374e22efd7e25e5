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


def test_gold_rush_words_each_row_once_and_as_the_whole_replay_does():
    """The viewer asks for each step's rows in turn; Gold Rush words each row once (a row's words depend on the rows
    before it only) and gives, for any rows lo..hi, every seat's view and any order of asking, the lines of the
    replay of rows 0..hi less those of rows 0..lo, read as the whole replay's text is read (a name holding a line
    break makes two lines; a line starting "final layout" ends the list)."""
    import itertools

    import numpy as np

    from meeplab.sim.goldrush import draw, play_logged
    from meeplab.sim.goldrush.const import CATEGORIES
    from meeplab.sim.goldrush.replay import format_game

    spec = get_game("goldrush")
    ctx = spec.prepare(spec.params.resolve({}))

    def by_hand(log, lo, hi, names, seat):
        if seat is not None:
            log = log[:hi].copy()
            hide = np.isin(log[:, 0], (draw.EV_MINE, draw.EV_TAKE)) & (log[:, 1] != seat)
            log[hide, 3] = draw.HIDDEN_VALUE

        def lines(upto):
            n = len(names)
            lineup = type("L", (), {"names": list(names), "rotate": False})
            bd = np.zeros((n, len(CATEGORIES)))
            text = format_game(ctx, lineup, log[:upto], np.zeros(n), bd, 0, n, 0, 0).split("\n")[2:]
            cut = next((i for i, ln in enumerate(text) if ln.startswith("final layout")), len(text))
            return [ln.strip() for ln in text[:cut] if ln.strip()]

        return [ln.replace(f"worth {draw.HIDDEN_VALUE}", "worth ?") for ln in lines(hi)[len(lines(lo)) :]]

    worded = []
    real = draw.GameText.feed
    for n_players, names in ((3, ["a", "b\nc", "d"]), (2, ["x", "y\nfinal layout z"])):
        lineup = make_lineup("goldrush", ["greedy", "heuristic", "random"][:n_players], n_players, True)
        log = play_logged(ctx, lineup, 5, 1, n_players)[0]
        marks = [0, 1, *range(9, len(log), 23), len(log)]
        asks = [(lo, hi, s) for s in (None, *range(n_players)) for lo, hi in itertools.pairwise(marks)]
        asks += [(0, len(log), None), (marks[2], marks[4], 1), (marks[1], marks[2], None)]  # again, out of order
        for lo, hi, seat in asks:
            draw.GameText.feed = lambda self, row: worded.append(1) or real(self, row)
            try:
                got = draw.events(ctx, log, lo, hi, names, seat)
            finally:
                draw.GameText.feed = real
            assert got == by_hand(log, lo, hi, names, seat), (n_players, lo, hi, seat)
        if n_players == 3:
            assert len(worded) <= (n_players + 1) * len(log) + len(log)  # each row worded once per view (once more)
            assert any("b" in ln and "c" not in ln for ln in got)  # "b\nc": two lines
