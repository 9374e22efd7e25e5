"""The conformance kit: one call that checks any registered game against meeplab's game contract.

    from meeplab.testing import check_game
    check_game("nothanks")            # raises ConformanceError listing every check that failed

and, in a test module, one test per check::

    from meeplab.testing import conformance_cases, run_case

    @conformance_cases(["nothanks"])
    def test_conformance(case):
        run_case(case)

What is checked (``meeplab.testing.checks``; docs/adding-a-game.md#the-conformance-kit):

- ``spec``: player counts, categories, end codes, option classes, declared hidden and chance fields exist;
- ``players``: every player count from min to max plays; output shapes; finite scores; the breakdown adds up;
- ``schema``: the result rows' columns; one win per game; the winner has the best score (``lower_wins`` read);
- ``stepping``: the batch and the forward model stepped from Python play identical games, also with the candidate
  rows past each pending decision's overwritten (every decision writes whole rows for its candidates, none reads the
  rows past ``ctl[C_N]``: the searches' state copies leave those out);
- ``copy``: a copy is exact and independent;
- ``hidden`` (``meeplab.testing.hidden``): at states sampled over every player count, decision kind and phase of the
  game (``Kit.breadth`` states per cell from ``Kit.sample_games`` games; a table of them is returned), a second
  state built by the KIT, by dealing otherwise what the seat has
  not seen in the fields ``GameSpec.hidden`` declares (each pool's cards exchanged among its places: the other
  seats' unseen cards and the deck's, every hand keeping its size; derived fields recomputed), looks the same to the
  seat's bots (the decision posted again on both, where ``advance`` posts a pending decision again), and
  ``determinise`` turns both into the same state (a hidden field it forgets is caught), keeping everything else and
  re-dealing the same cards;
- ``redraw`` (``meeplab.testing.redraw``): at states sampled as the hidden check's, the optional ``redraw`` (fresh
  future chance from the true state, for ``meeplab quality``) keeps everything any seat holds or has seen and re-deals
  only what no seat has seen (read from the same declarations), from its stream alone; a game without one is reported
  as such;
- ``secret`` (``meeplab.testing.secret``): a game that declares secret decisions (``GameSpec.secret``) shows nothing
  of a face-down choice to the other seats until its reveal: the game played on from secret decisions sampled over
  every player count, secret kind and phase (``2 * Kit.breadth`` per cell) with another candidate shows every other
  seat the same drawing, panel, status, scores, event lines and bot view until ``Secret.reveals`` grows past its value
  at the decision, and ``determinise`` for every other seat gives both the same state (the choice re-dealt, not kept
  where the search would read it); ``reveals`` never goes down;
- ``chance``: the same (seed, game) deals the same, other games deal otherwise in ``GameSpec.chance_fields``;
- ``options``: option classes mask only legal candidates, restricted play runs for every class;
- ``replay``: the replay runs and replays the batch's game;
- ``event_log``: a log too small for a game is reported, not cut short;
- ``search``: a search bot plays the same games on 1 and 2 threads, and ``--explain`` runs;
- ``params``: parameter validation refuses NaN, infinities and out-of-range values.

The checks are cheap (3 games per player count, 2-playout searches), so a game's whole kit runs in seconds once
its engine is compiled.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.game import GameSpec

from .checks import CHECKS, Kit

__all__ = ["CHECKS", "ConformanceError", "Kit", "check_game", "conformance_cases", "run_case"]


class ConformanceError(AssertionError):
    """A game failed one or more conformance checks (the message lists each, one line)."""


KITS: dict[str, Kit] = {}  # the kit of each game checked in this process (one preparation, one compile)


def kit_for(game: str | GameSpec, **kw) -> Kit:
    """The kit of one game, shared by all its checks in this process (one preparation, one compile). Only the
    registered game with the default settings is shared: a kit of other settings (``kw``) or of another spec under
    the same id (a test's planted defect) is the caller's alone, so it never stands in for the real game."""
    gid = game.id if isinstance(game, GameSpec) else game
    if kw or (isinstance(game, GameSpec) and not _is_registered(game)):
        return Kit.of(game, **kw)
    if gid not in KITS:
        KITS[gid] = Kit.of(game)
    return KITS[gid]


def _is_registered(spec: GameSpec) -> bool:
    from meeplab.sim.core.registry import get_game

    try:
        return get_game(spec.id) is spec
    except MeeplabError:
        return False


def check_game(game: str | GameSpec, checks: Iterable[str] | None = None, **kw) -> dict[str, str]:
    """Run the conformance checks (all, or those named) on ``game``: returns {check: what it looked at}; raises
    :class:`ConformanceError` naming every check that failed and why."""
    kit = kit_for(game, **kw)
    names = list(checks or CHECKS)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown}; known: {', '.join(CHECKS)}")
    done, failed = {}, []
    for name in names:
        try:
            done[name] = CHECKS[name](kit)
        except (AssertionError, Exception) as e:  # every failure is reported, the other checks still run
            failed.append(
                f"{kit.game.id} {name}: {type(e).__name__ + ': ' if not isinstance(e, AssertionError) else ''}{e}"
            )
    if failed:
        raise ConformanceError("\n".join(failed))
    return done


@dataclass(frozen=True)
class Case:
    """One (game, check) pair of :func:`conformance_cases`."""

    game: str
    check: str

    def __str__(self) -> str:
        return f"{self.game}-{self.check}"


def conformance_cases(games: Iterable[str] | None = None, checks: Iterable[str] | None = None):
    """A ``pytest.mark.parametrize("case", ...)`` over every (game, check): ``games`` default to every registered
    game, ``checks`` to all of :data:`CHECKS`."""
    import pytest

    if games is None:
        from meeplab.sim.core.registry import game_ids

        games = game_ids()
    cases = [Case(g, c) for g in games for c in (checks or CHECKS)]
    return pytest.mark.parametrize("case", cases, ids=[str(c) for c in cases])


def run_case(case: Case) -> str:
    """Run one check of one game (the body of a parametrised conformance test); its coverage table, where the check
    has one, is printed at the end of the pytest run (:mod:`meeplab.pytest_plugin`)."""
    kit = kit_for(case.game)
    try:
        note = CHECKS[case.check](kit)
    except AssertionError as e:
        raise ConformanceError(f"{case.game} {case.check}: {e}") from None
    if isinstance(note, str) and "\n  players" in note:  # a coverage table: printed at the end of a pytest run
        from meeplab.pytest_plugin import record

        record(f"{case}: {note}")
    return note
