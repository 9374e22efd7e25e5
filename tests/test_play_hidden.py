"""What the play table tells a seat depends only on what that seat has seen, for every game (the four, the example
plugin No Thanks! and Goofspiel where installed), over whole games: at every decision, the seat's state message
(``Table.view``), its log (``Table.log_for``) and what it will be shown of the pending decision
(``Table.pending_for``: kind, candidate labels, whether the alternatives are shown) are identical on the table and on
the same table with its state record re-dealt for that seat (``determinise``: everything the seat has not seen dealt
otherwise). Nothing is dropped from the messages: timings are not in them.

And undo: a move that revealed something (a Schweinebande tile turned face up) cannot be taken back; a move that
revealed nothing (ACBAS has no hidden information) can."""

import importlib.util
import os

import numpy as np
import pytest
from play_setups import small_params

from meeplab.play import engine
from meeplab.play.table import Table, seat_bots
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.registry import get_game

# game -> (player counts, the small set-up's parameter overrides or None for the defaults)
GAMES = {
    "acbas": (2, 4),
    "goldrush": (2, 4),
    "hacienda": (2, 5),
    "schweinebande": (3, 5),
    "nothanks": (3, 7),
    "goofspiel": (2, 3),
}
PLUGINS = {"nothanks": "meeplab_nothanks", "goofspiel": "meeplab_goofspiel"}
REDEALS = 2  # re-deals per seat and point (other streams than the table's own)
EVERY = 3  # compare at every third decision


def game_or_skip(game):
    mod = PLUGINS.get(game)
    if mod is not None and importlib.util.find_spec(mod) is None:
        if os.environ.get("CI"):  # .ci/run installs both example plugins: a missing one is a failure there
            pytest.fail(f"CI: the example plugin {game} ({mod}) is not installed")
        pytest.skip(f"the example plugin {game} ({mod}) is not installed (pip install -e examples/{game})")
    return get_game(game)


def values_of(g):
    try:
        over = small_params(g.id)
    except KeyError:
        over = {}
    return g.params.resolve(over, g.id)


def bot_of(g):
    from meeplab.sim.core.bots import available

    known = available(g.id)
    return next(b for b in ("greedy", "random") if b in known and not known[b].search)


def table_of(game, p, humans, seed=11, index=0):
    g = game_or_skip(game)
    return Table(g, values_of(g), seat_bots([bot_of(g)], list(humans), p), seed, index)


def messages(t, seat):
    return t.view(seat), t.log_for(seat), t.pending_for(seat)


def check_redealt(t, seat, k):
    """The messages for ``seat`` on ``t`` and on ``t`` re-dealt for ``seat`` (re-deal ``k``) are the same."""
    want = messages(t, seat)
    keep = t.st.rec.copy()
    try:
        r = np.array([31 + k, 17 + 5 * seat, 3 + k, 9], dtype=np.uint64)
        engine.determinise(t.st, t.cx, seat, r)
        moved = t.st.rec.tobytes() != keep.tobytes()
        got = messages(t, seat)
    finally:
        t.st.rec[:] = keep
    for name, a, b in zip(("view", "log", "pending decision"), want, got):
        assert a == b, f"{t.spec.id}: seat {seat + 1}'s {name} depends on what it has not seen"
    return moved


def play_checked(t, watch):
    """Play ``t`` to its end (people: always the first legal move), comparing the messages of every seat in
    ``watch`` with those of re-dealt tables at every ``EVERY``-th decision."""
    moved = points = 0
    for step in range(20_000):
        if step % EVERY == 0 or t.over:
            for seat in watch:
                for k in range(REDEALS):
                    moved += check_redealt(t, seat, k)
                points += 1
        if t.over:
            return points, moved
        if t.human_turn():
            t.play(0)
        else:
            t.play_bot()
    raise AssertionError("the game did not end")


def cases():
    out = []
    for game, counts in GAMES.items():
        for p in counts:
            out.append(pytest.param(game, p, id=f"{game}-{p}"))
    return out


@pytest.mark.parametrize("game,p", cases())
def test_a_person_learns_nothing_it_has_not_seen(game, p):
    t = table_of(game, p, humans=[0])
    points, moved = play_checked(t, [0])
    assert points > 3
    assert moved or not t.spec.hidden


@pytest.mark.parametrize("game,p", cases())
def test_watching_seats_learn_nothing_they_have_not_seen(game, p):
    """All bots; every seat watched (its log shows the other bots' decisions as that seat may read them)."""
    t = table_of(game, p, humans=[], seed=12)
    points, _ = play_checked(t, list(range(p)))
    assert points > 3


def test_other_seats_hacienda_candidate_counts_are_withheld():
    """The known leak: a Hacienda bot's `play <card>` candidates would tell which card kinds its hidden hand holds;
    while the game runs the person's log gives no count, no `forced` flag and no alternatives for them."""
    t = table_of("hacienda", 2, humans=[0])
    for _ in range(40):
        t.play(0) if t.human_turn() else t.play_bot()
    log = t.log_for(0)
    withheld = [d for d, e in zip(log, t.history) if e["seat"] != 0 and t.withheld(e["n"] - 1, 0)["count"]]
    assert any(e["candidates"] > 1 for d, e in zip(log, t.history) if d in withheld)
    assert withheld and all(d["candidates"] is None and d["forced"] is None for d in withheld)
    assert all(d["alternatives"] is None for d in withheld)
    assert all(d["candidates"] is not None for d, e in zip(log, t.history) if e["seat"] == 0)  # its own


def _to_reveal(t):
    """Play Schweinebande's person seat to a decision where a face-down tile can be turned: the candidate index."""
    for _ in range(500):
        if t.over:
            break
        if t.human_turn():
            for i, (label, _) in enumerate(t.labels()):
                if "reveal" in label.lower() or "turn" in label.lower():
                    return i
            t.play(0)
        else:
            t.play_bot()
    raise AssertionError("no move that turns a face-down tile came up")


def test_undo_past_a_revealed_tile_is_refused():
    t = table_of("schweinebande", 3, humans=[0], seed=3)
    i = _to_reveal(t)
    t.play(i)
    v = t.view(0)
    assert v["can_undo"] is False and "revealed" in v["undo_note"]
    before = t.rec.tobytes()
    with pytest.raises(MeeplabError, match="revealed"):
        t.undo()
    assert t.rec.tobytes() == before  # refused: the game unchanged


def test_a_move_that_reveals_nothing_can_be_undone():
    t = table_of("acbas", 2, humans=[0], seed=3)
    while not t.human_turn():
        t.play_bot()
    rec0 = t.rec.tobytes()
    n0 = len(t.history)
    assert t.view(0)["can_undo"] is False and t.view(0)["undo_note"] is None  # nothing to take back yet
    t.play(0)
    while t.bot_turn():
        t.play_bot()
    v = t.view(0)
    assert v["can_undo"] is True and v["undo_note"] is None
    t.undo()
    assert t.rec.tobytes() == rec0 and len(t.history) == n0
