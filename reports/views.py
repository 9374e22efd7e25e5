"""The contract between the report's data and its templates: one small frozen dataclass per section, block and row
kind of a report.

The section builders (:mod:`reports.runs`, :mod:`reports.compare`, ...) read the numbers of :mod:`meeplab.analysis`,
format them (:mod:`reports.format`) and fill these classes; the templates in ``templates/`` only read their fields
and loop over them. A section names its template (``template``); a block of the comparison names its ``kind``.

Text is plain data, never HTML: a *fragment* is a string, a :class:`Tag`, a sequence of fragments, or None (nothing),
and the templates' ``frag`` macro writes it out with every string escaped. Statistical decisions (what is
significant, what is marked ●) arrive here already made, as fields computed in :mod:`meeplab.analysis`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeAlias, Union

#: rich text: a string, a :class:`Tag`, a sequence of fragments, or None (nothing)
Fragment: TypeAlias = Union[str, int, "Tag", Sequence["Fragment"], None]

# -- the building blocks ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tag:
    """One element of rich text, ``<name class=cls title=title href=href>content</name>`` (``href``: an anchor)."""

    name: str
    content: Fragment = None
    cls: str | None = None
    title: str | None = None
    href: str | None = None


@dataclass(frozen=True)
class Cell:
    """One cell of a table (or of its header): its content, right-aligned when numeric."""

    content: Fragment
    numeric: bool = False


@dataclass(frozen=True)
class Row:
    """One row of a table; ``group``: a separator line above it (a new group starts)."""

    cells: tuple[Cell, ...]
    group: bool = False


@dataclass(frozen=True)
class Table:
    """A table: its header cells and its rows."""

    head: tuple[Cell, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Figure:
    """A chart (a ``data:`` PNG URI) with its alt text and its "how to read" caption."""

    uri: str
    alt: str
    how: Fragment


@dataclass(frozen=True)
class FigureTable:
    """A chart and the table of its numbers; either may be absent."""

    figure: Figure | None = None
    table: Table | None = None


@dataclass(frozen=True)
class Flag:
    """One line of a warning box: its bold head and the rest of the line."""

    head: str
    text: str


@dataclass(frozen=True)
class TocEntry:
    """One link of the table of contents."""

    anchor: str
    text: str


@dataclass(frozen=True)
class Section:
    """Any section of a report page; ``template`` names the template that renders it."""

    template: ClassVar[str]


# -- one run ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StatusWarning:
    """An incomplete run's warning: its head, the games done, the games requested per player count (None: not
    known) and the file they were read from."""

    head: str
    done: str
    requested: str | None
    source: str


@dataclass(frozen=True)
class Fact:
    """One fact of a run's header (key, value); ``wide`` takes a whole row."""

    key: str
    value: Fragment
    wide: bool = False


@dataclass(frozen=True)
class RunHeader:
    """A run's facts, notes, changed and all parameters, and its command."""

    warning: StatusWarning | None
    facts: tuple[Fact, ...]
    notes: tuple[str, ...]
    changed: Table | None
    params: Table | None
    n_params: int
    command: str | None


@dataclass(frozen=True)
class WinRateTable:
    """Win rate per bot: chart, table, and whether a bot fills several seats per game (its rates are per seat)."""

    figure: Figure
    table: Table
    several_seats: bool


@dataclass(frozen=True)
class SeatFairness:
    """Seat fairness: chart, table, the seat model's method and its tests; ``unrotated`` when fixed seats mix the
    seat effect with the bots' strength."""

    unrotated: bool
    figure: Figure
    table: Table
    method: str
    tests: str


@dataclass(frozen=True)
class RunSection(Section):
    """One run's whole section."""

    template: ClassVar[str] = "run.html.j2"
    anchor: str
    label: str
    game: str
    badge: Fragment
    path: str
    n_rows: str
    header: RunHeader
    findings: tuple[Fragment, ...]
    win: WinRateTable
    seat: SeatFairness
    ties: FigureTable
    score: FigureTable
    breakdown: FigureTable | None
    length: FigureTable
    variety: FigureTable | None
    ranks: FigureTable
    # a report of three runs or more (a sweep, a grid, a fair search) folds each run's charts and tables away under
    # its key findings, so that the first screens answer the question
    folded: bool = False


# -- several runs -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OverviewSection(Section):
    """ "Runs in this report": one row per run."""

    template: ClassVar[str] = "overview.html.j2"
    table: Table


@dataclass(frozen=True)
class WhatChanged:
    """The rule parameters that differ between the runs (None: none) and the other settings that differ."""

    table: Table | None
    other: str


@dataclass(frozen=True)
class PairedBlock:
    """A run against the baseline on the same games (common random numbers)."""

    kind: ClassVar[str] = "paired"
    base: str
    other: str
    reason: str
    figure: Figure
    table: Table


@dataclass(frozen=True)
class NoCommonGames:
    """A comparison that could be paired but whose runs share no game."""

    kind: ClassVar[str] = "no_common_games"
    base: str
    other: str


@dataclass(frozen=True)
class UnpairedBlock:
    """A run against the baseline as independent samples; ``lineups``: their lineups differ."""

    kind: ClassVar[str] = "unpaired"
    base: str
    other: str
    reason: str
    lineups: bool
    figure: Figure
    table: Table


@dataclass(frozen=True)
class NoCommonBots:
    """An unpaired comparison without a bot at a common player count."""

    kind: ClassVar[str] = "no_common_bots"
    base: str
    other: str


@dataclass(frozen=True)
class CategoryBlock:
    """Mean points per player by scoring category, baseline against another run."""

    kind: ClassVar[str] = "categories"
    base: str
    other: str
    table: Table


CompareBlock: TypeAlias = PairedBlock | NoCommonGames | UnpairedBlock | NoCommonBots | CategoryBlock


@dataclass(frozen=True)
class SeatGapTable:
    """The seat gap of every run and its change against the baseline; ``what`` says what the gap is."""

    table: Table
    what: str


@dataclass(frozen=True)
class ComparisonSection(Section):
    """The comparison against the baseline: what changed, key changes, seat gaps and one block per comparison."""

    template: ClassVar[str] = "compare.html.j2"
    baseline: str
    changed: WhatChanged
    findings: tuple[Fragment, ...]
    holm_note: str
    gaps: SeatGapTable | None
    blocks: tuple[CompareBlock, ...]


@dataclass(frozen=True)
class SweepCount:
    """A one-parameter sweep at one player count: its charts and its table."""

    n_players: int
    figure: Figure | None
    gap_figure: Figure
    table: Table


@dataclass(frozen=True)
class SweepSection(Section):
    """A one-parameter sweep: the parameter, its values and one block per common player count."""

    template: ClassVar[str] = "sweep.html.j2"
    param: str
    value_text: str
    counts: tuple[SweepCount, ...]


@dataclass(frozen=True)
class FairestCell:
    """The fairest cell of a two-parameter sweep: the two values and its seat gap."""

    a: str
    b: str
    gap: str


@dataclass(frozen=True)
class GridCount:
    """A two-parameter sweep at one player count: heat map, fairest cell (None: none) and table."""

    n_players: int
    figure: Figure
    fairest: FairestCell | None
    table: Table


@dataclass(frozen=True)
class GridSection(Section):
    """A two-parameter sweep over ``a`` and ``b``."""

    template: ClassVar[str] = "grid.html.j2"
    a: str
    b: str
    counts: tuple[GridCount, ...]


@dataclass(frozen=True)
class FairSection(Section):
    """``meeplab fair``'s answer: what was searched, the answer's table and the search's notes."""

    template: ClassVar[str] = "fair.html.j2"
    param: str
    how: str
    notes: tuple[str, ...]
    table: Table


@dataclass(frozen=True)
class ConfirmSection(Section):
    """A strong-bot confirmation (``--confirm BOT``): the fast change and the strong bot's verdict side by side."""

    template: ClassVar[str] = "confirm.html.j2"
    bot: str
    summary: str
    table: Table


@dataclass(frozen=True)
class SequentialSection(Section):
    """A sequential what-if test (``compare --until-significant``): its settings, verdicts, table and LLR paths."""

    template: ClassVar[str] = "sprt.html.j2"
    label: str
    base: str
    variant: str
    batch: str
    alternative: str
    alpha: float | None
    beta: float | None
    delta: str
    max_games: str
    findings: tuple[Fragment, ...]
    table: Table
    figures: tuple[Figure, ...]


# -- "Is it a good game?" ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QualitySettings:
    """How the win probabilities were estimated: playouts per point, how fresh chance was drawn (``redraw``:
    ``exact``, ``determinise`` with its ``redraw_note``, or empty), who played the playouts (``evaluator``: a bot's
    name, or empty: the run's own bots) and the relative-skill games per player."""

    playouts: int
    redraw: str
    redraw_note: str
    skill_games: int
    evaluator: str = ""


@dataclass(frozen=True)
class QualitySection(Section):
    """ "Is it a good game?": findings, charts, what decides games, decisions, Ludii's metrics beside ours, settings
    and the command."""

    template: ClassVar[str] = "quality.html.j2"
    anchor: str
    findings: tuple[Fragment, ...]
    figures: tuple[Figure, ...]
    decides: Table
    decisions: Table
    settings: QualitySettings
    command: Fragment
    ludii: Table | None = None


# -- the skill ladder -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopRungs:
    """The two strongest rungs of a ladder, on which a finding is judged settled."""

    second: str
    strongest: str


@dataclass(frozen=True)
class LadderCount:
    """The ladder at one player count: rungs, skill gaps, settled findings and how much stronger the top rung is."""

    n_players: int
    table: Table
    gaps: Table | None
    settled: Table | None
    skill: str | None
    relative_skill: Table | None = None  # each rung's relative skill per beginner (skill.json), or None
    skill_verdict: Fragment = None  # its verdict over the two strongest search rungs


@dataclass(frozen=True)
class LadderSection(Section):
    """ "Does it hold for stronger players?": flags, settlement, one block per player count and the charts."""

    template: ClassVar[str] = "ladder.html.j2"
    rungs: tuple[str, ...]
    flags: tuple[Flag, ...]
    top: TopRungs | None
    level: tuple[int, ...]
    moving: tuple[Flag, ...]
    counts: tuple[LadderCount, ...]
    figure: Figure | None
    spread: Figure | None
    skill_field: str | None = None  # the relative skill's opponents (skill.json), or None without it


# -- tournaments, map rankings, restricted play -----------------------------------------------------------------------


@dataclass(frozen=True)
class TournamentSection(Section):
    """A tournament: ratings, seat effects, the match-up matrix and the lineups played."""

    template: ClassVar[str] = "tournament.html.j2"
    n_lineups: int
    n_bots: int
    players: str
    games_each: str
    pairs: str
    games: str
    rating_figure: Figure
    ratings: Table
    seats: Table
    matrix_figure: Figure
    matchups: Table
    lineups: Table


@dataclass(frozen=True)
class RankingCount:
    """Maps or decks ranked at one player count: chart and table."""

    n_players: int
    figure: Figure
    table: Table


@dataclass(frozen=True)
class RankingSection(Section):
    """Maps or decks (``what``) ranked by seat fairness."""

    template: ClassVar[str] = "maps.html.j2"
    what: str
    n_files: int
    title: str
    games: str
    bots: str
    adjust_name: str
    counts: tuple[RankingCount, ...]


@dataclass(frozen=True)
class OptionMode:
    """One mode of restricted play (without the option / only it): its head, table and chart (None: none)."""

    head: str
    table: Table
    figure: Figure | None


@dataclass(frozen=True)
class OptionsSection(Section):
    """ "What is each option worth?": the restricted bot against ``others`` unrestricted ones (``plural``: "s" for
    more than one), the baseline, the candidates and one block per mode."""

    template: ClassVar[str] = "options.html.j2"
    bot: str
    players: int
    others: int
    plural: str
    games: str
    seed: int | str
    base_share: str
    fair: str
    candidates: tuple[Flag, ...]
    modes: tuple[OptionMode, ...]
