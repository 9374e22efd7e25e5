"""meeplab's conformance kit (meeplab.testing) over every built-in game and the example plugin, one test per check,
and the kit's own teeth: declarations that lie are caught."""

from dataclasses import replace

import numpy as np
import pytest

from meeplab.sim.core.game import Hidden
from meeplab.sim.core.registry import builtin_ids, game_ids
from meeplab.testing import CHECKS, ConformanceError, Kit, conformance_cases, run_case
from meeplab.testing.checks import check_hidden, check_params

GAMES = [*builtin_ids(), *(["nothanks"] if "nothanks" in game_ids() else [])]


@conformance_cases(GAMES)
def test_conformance(case):
    run_case(case)  # its coverage table is printed at the end of the run (meeplab.pytest_plugin)


def test_the_kit_covers_the_documented_checks():
    assert list(CHECKS) == [
        "spec",
        "players",
        "schema",
        "stepping",
        "copy",
        "hidden",
        "redraw",
        "secret",
        "chance",
        "options",
        "replay",
        "event_log",
        "search",
        "params",
    ]


needs_plugin = pytest.mark.skipif("nothanks" not in game_ids(), reason="the example plugin is not installed")


@needs_plugin
def test_an_undeclared_hidden_field_is_caught():
    from meeplab.sim.core.registry import get_game

    kit = Kit(replace(get_game("nothanks"), hidden=()))
    with pytest.raises(AssertionError, match="determinise changed field 'deck'"):
        check_hidden(kit)


@needs_plugin
def test_a_declaration_wider_than_what_determinise_deals_is_named():
    """Declared unseen beyond the cards determinise re-deals (the deck's unused slots): two states that differ
    there come out of determinise different, which is what a forgotten field looks like."""
    from meeplab_nothanks.engine import C_POS

    from meeplab.sim.core.registry import get_game

    def too_wide(rec, seat, cx):
        return np.arange(int(rec["ctl"][C_POS]) + 1, rec["deck"].size)  # past the cards, into the unused slots

    kit = Kit(replace(get_game("nothanks"), hidden=(Hidden("deck", too_wide),)))
    with pytest.raises(AssertionError, match="the declaration calls unseen places determinise does not deal"):
        check_hidden(kit)


@needs_plugin
def test_a_parameter_that_accepts_nan_is_caught():
    from meeplab.sim.core.params import Param, ParamSet
    from meeplab.sim.core.registry import get_game

    class Loose(Param):  # a validation that forgets its checks
        def parse(self, raw):
            return float(raw)

    loose = ParamSet([Loose("x", 1.0, "float", "a number that should be at least 0", lo=0.0)])
    with pytest.raises(AssertionError, match="accepted"):
        check_params(Kit(replace(get_game("nothanks"), params=loose)))


@needs_plugin
def test_a_failing_case_names_its_game_and_check(monkeypatch):
    from meeplab import testing
    from meeplab.sim.core.registry import get_game

    monkeypatch.setitem(testing.KITS, "nothanks", Kit(replace(get_game("nothanks"), hidden=())))
    with pytest.raises(ConformanceError, match=r"^nothanks hidden: determinise changed field 'deck'"):
        run_case(testing.Case("nothanks", "hidden"))
    with pytest.raises(ConformanceError, match=r"^nothanks hidden: "):
        testing.check_game("nothanks", ["spec", "hidden"])


@needs_plugin
def test_a_declaration_too_loose_is_named_by_its_field():
    """No Thanks!'s chips are public (every payment is seen): declared hidden as well, dealing them otherwise changes
    the view, and the kit names the declaration that alone does it, 'chips', not the deck (a designer's Sushi Go
    got only "the view changed at index 19" and all four declared fields)."""
    from meeplab.sim.core.registry import get_game

    g = get_game("nothanks")

    def other_seats_chips(rec, seat, cx):
        return np.array([i for i in range(rec["chips"].size) if i != seat])

    kit = Kit(replace(g, hidden=(*g.hidden, Hidden("chips", other_seats_chips))))
    # the deck alone changes nothing the seat is shown: only 'chips' is named, as the declaration too loose
    with pytest.raises(AssertionError, match=r"dealing otherwise only GameSpec.hidden's 'chips' changes it: either"):
        check_hidden(kit)
