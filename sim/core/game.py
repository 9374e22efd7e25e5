"""The face every game shows to the shared runner, results and reports.

A game folder ``sim/<id>/`` exposes ``GAME = GameSpec(...)``:

* ``params``: a :class:`~sim.core.params.ParamSet` with the rule book's defaults.
* ``categories``: score-breakdown column names (the engine fills them in this order).
* ``prepare(values) -> ctx``: turn resolved parameter values into whatever the engine needs
  (packed numpy arrays, loaded map/deck files); raises MeeplabError on bad data.
* ``play(ctx, lineup, seed, start, n_games, n_players) -> Batch``: play games
  ``start .. start+n_games-1`` (numba, chunks of games on threads). Game ``g`` draws only from the
  stream seeded with ``(seed, g)`` and seat ``s`` is played by lineup entry
  ``entry_of_seat(s, g, n_players, lineup.rotate)``. Seat 0 is the start player.
* ``replay(ctx, lineup, seed, index, n_players) -> str``: the same game as a readable log.
* ``notes(values) -> list[str]``: provenance notes for reports (e.g. "reconstructed map").
* ``end_codes``: how a game can end; ``Batch.end`` holds an index into it per game ("rules" = the rule
  book's ending; any other value is a safety net the game's README documents).
* ``lower_wins``: the lowest score wins (ranks, win shares, the search's values and the reports read it).
* ``hidden``, ``chance_fields``: the state-record fields that hold what a seat may not have seen, and those
  dealt by chance (as OpenSpiel declares information and chance types); the conformance kit
  (``meeplab.testing``) builds states that differ only there.
* ``secret``: decisions made face down (simultaneous choices, face-down commitments), withheld from the other
  seats until the game reveals them (:class:`Secret`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .bots import declare_game
from .params import ParamSet


@dataclass(frozen=True)
class Hidden:
    """A state-record field that holds information some seat has not seen (``GameSpec.hidden``).

    ``unseen(rec, seat, cx)`` gives the flat indices of the field's elements that ``seat`` has not seen in state
    record ``rec`` (``st.rec[0]``; ``cx`` the engine context; e.g. the cards of a deck still face down); without
    ``unseen`` the whole field is unseen by everybody. ``determinise`` must re-deal exactly the unseen elements, keep
    everything else and depend only on what the seat has seen: the conformance kit checks that by building a second
    state the seat cannot tell apart (the unseen cards dealt otherwise, by the kit itself) and comparing the two
    re-deals. What the kit may deal otherwise is declared with:

    * ``pool``: a name shared by the declarations whose unseen cards are one multiset, exchangeable among their
      places (the other seats' unseen cards and the deck's unseen cards: ``Hidden("hand", ..., pool="land")`` and
      ``Hidden("ldeck", ..., pool="land")``). The kit deals the pool's cards at random among its places: every
      place keeps its number of unseen cards (a hand keeps its size) and every element the seat has seen. A
      declaration without a pool is a pool of its own (its unseen elements permuted among themselves). A card is
      an element's value, the same in every place of the pool (a card type; in a ``counts`` field, the type is the
      index on its last axis).
    * ``counts(rec, seat, cx)``: the field holds cards as counts per type on its last axis (``hand[seat, type]``);
      this gives how many of each count ``seat`` has not seen (an int array of the field's shape: its own row 0,
      another seat's row its count less the cards the seat saw it take). ``unseen`` then names the elements
      those unseen cards may lie in (another seat's row, the pool's types).
    * ``derive(rec, cx)``: the ``unseen`` elements are a function of other hidden fields (a seat's sum of hidden
      tokens): the kit does not deal them but recomputes them in place with ``derive`` after dealing the others,
      and checks that ``determinise`` leaves them as ``derive`` computes them.
    * ``scratch(rec, seat, cx)``: flat indices ``determinise`` may overwrite as its working space (never read in
      play): neither dealt nor required kept.

    ``unseen`` returning ``None`` declares the whole field derived or scratch without saying how: the kit then does
    not deal it and does not check which of its elements ``determinise`` changes, so a re-deal that forgets it is
    caught only through the fields it follows from; prefer ``pool``, ``counts``, ``derive`` and ``scratch``."""

    field: str
    unseen: Callable[[Any, int, Any], np.ndarray | None] | None = None
    pool: str = ""
    counts: Callable[[Any, int, Any], np.ndarray] | None = None
    derive: Callable[[Any, Any], None] | None = None
    scratch: Callable[[Any, int, Any], np.ndarray] | None = None


@dataclass(frozen=True)
class Secret:
    """Decisions made face down (``GameSpec.secret``): each seat chooses in turn, the others must not learn the
    choice until the game reveals it (a sealed bid, a card laid face down, simultaneous orders).

    ``kinds``: the decision kinds (``ctl[C_KIND]``) whose choice is secret. ``reveals(rec, cx) -> int``: how many
    reveals the game has made so far in state record ``rec`` (a counter that never goes down: a round of bids
    turned face up counts one). A secret choice made while ``reveals`` gave ``r`` stays hidden from every other
    seat until ``reveals`` gives more than ``r``; until then logs, labels, event lines, viewer seat views and the
    play page show those seats only that the seat chose, never what, how many candidates it had or what a bot
    weighed. The deciding seat always sees its own choice. The engine keeps the face-down choice in a field
    declared in ``hidden`` (other seats' ``determinise`` re-deals it among what the seat might have chosen), and
    the drawing shows it to other seats as a back; the conformance kit checks both."""

    kinds: tuple[int, ...]
    reveals: Callable[[Any, Any], int]


@dataclass
class Batch:
    """Raw engine output for ``n`` games of ``P`` seats."""

    score: np.ndarray  # float64[n, P]
    tiebreak: np.ndarray  # float64[n, P], higher wins a score tie (equal -> shared win)
    breakdown: np.ndarray  # float64[n, P, C], columns = GameSpec.categories
    length: np.ndarray  # int32/int64[n], game length in GameSpec.length_unit
    # int8[n]: how each game ended, an index into GameSpec.end_codes (0 = "rules", the rule book's ending);
    # None = every game ended by the rules (engines that have no other ending)
    end: np.ndarray | None = None


@dataclass
class GameSpec:
    id: str
    title: str
    min_players: int
    max_players: int
    params: ParamSet
    categories: list[str]
    length_unit: str
    prepare: Callable[[dict[str, Any]], Any]
    play: Callable[..., Batch]
    replay: Callable[..., str]
    notes: Callable[[dict[str, Any]], list[str]] = field(default=lambda values: [])
    rules: str = ""
    default_players: int = 3
    description: str = ""
    # parameters (kind "str") that also get their own CLI option, e.g. ("map",) -> --map NAME|PATH
    flags: tuple[str, ...] = ()
    # decision kinds and feature columns, for `meeplab bots GAME` and bot writers
    bot_doc: str = ""
    # how a game can end (Batch.end indexes this): "rules" first (the rule book's ending), then any safety
    # net the engine has (each documented in the game's README), e.g. ("rules", "cap", "stalled")
    end_codes: tuple[str, ...] = ("rules",)
    # the engine runs on the forward model (docs/adding-a-game.md): search bots can play it and replay(...,
    # explain=True) shows their decisions
    forward_model: bool = False
    # decisions(ctx, lineup, seed, start, n_games, n_players) -> bot decisions with more than one candidate in
    # those games (engines on the forward model; the bench reports decisions per second)
    decisions: Callable[..., int] | None = None
    # restricted play (``meeplab options``): the game's option classes, (name, what it is) in bit order of its
    # ``options.py`` mask (sim/core/restrict.py); empty = the game declares none
    options: tuple[tuple[str, str], ...] = ()
    # False for a game without chance once it starts (no deck, die or hidden tile): its games differ only by the
    # bots' own random choices, and the report counts the distinct games a run holds
    chance: bool = True
    # True: the lowest score wins (No Thanks!, golf). Ranks, win shares, the search bots' values, score shares and
    # the reports' findings read scores this way; Batch.score holds the game's own points (not negated). The
    # tie-break stays "higher wins a score tie".
    lower_wins: bool = False
    # the state-record fields holding what some seat has not seen (OpenSpiel's imperfect information), see Hidden;
    # empty = perfect information (determinise is the identity)
    hidden: tuple[Hidden, ...] = ()
    # decisions made face down, withheld from the other seats until revealed (see Secret); None = none
    secret: Secret | None = None
    # the state-record fields dealt by chance at reset (decks, dice, tile stacks): the same (seed, game) deals
    # the same, another game deals otherwise (the conformance kit checks both); empty with chance=False
    chance_fields: tuple[str, ...] = ()
    # events(ctx, lineup, seed, index, n_players) -> (log rows, length, score, breakdown): one game's event log
    # (sim.core.face.Face.events); None = the game offers none
    events: Callable[..., Any] | None = None
    # the game's drawing module (``sim/<id>/draw.py``; contract in sim/core/draw.py): the board as SVG from a state
    # record, for ``meeplab view`` and the play page; None = the game draws nothing
    draw: Any = None
    # forward_context(ctx, lineup) -> the engine context the forward model (sim.core.forward) runs on for a run of
    # ``lineup`` (what ``play`` hands to the shared loop); None = ``ctx.cx`` (``meeplab quality`` plays from it)
    forward_context: Callable[..., Any] | None = None
    # the feature columns the engine writes in ``feats``, per decision kind: {kind name: (column name, ...)}, kinds in
    # ``ctl[C_KIND]`` order (``Face(features=...)`` hands them over); the policy bot (``meeplab learn``) is named
    # after them; empty = the game declares none
    features: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # the kinds whose ``moves[i, 0]`` is a move code, {kind name: number of codes}: the policy weighs each code's
    # candidates with a block of its own (sim.core.policy); empty = none
    feature_codes: dict[str, int] = field(default_factory=dict)
    # the game's progress as its view shows it, (num, den): x = view[num] / view[den] (den -1: view[num]); None = none
    feature_progress: tuple[int, int] | None = None

    def __post_init__(self):
        declare_game(
            self.id, self.max_players, self.lower_wins, self.features, self.feature_codes, self.feature_progress
        )

    def rank_and_win(self, score: np.ndarray, tiebreak: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`rank_and_win` in this game's score direction."""
        return rank_and_win(score, tiebreak, self.lower_wins)

    def engine_context(self, ctx, lineup):
        """The forward model's context for a run of ``lineup`` (``forward_context``, default ``ctx.cx``)."""
        return self.forward_context(ctx, lineup) if self.forward_context is not None else ctx.cx


def rank_and_win(score: np.ndarray, tiebreak: np.ndarray, lower_wins: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Competition ranks (1 = best) and win shares (1, 0 or 1/k for a k-way tie for first).

    A seat is beaten by every seat with a higher score (a lower one when ``lower_wins``), or an equal score and a
    higher tiebreak.
    """
    if lower_wins:
        score = -score
    s_i = score[:, :, None]
    s_j = score[:, None, :]
    t_i = tiebreak[:, :, None]
    t_j = tiebreak[:, None, :]
    better = (s_j > s_i) | ((s_j == s_i) & (t_j > t_i))
    rank = 1 + better.sum(axis=2)
    first = rank == 1
    k = first.sum(axis=1, keepdims=True)
    win = np.where(first, 1.0 / np.maximum(k, 1), 0.0)
    return rank.astype(np.int8), win
