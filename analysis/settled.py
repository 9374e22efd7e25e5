"""The settled seat findings a game ships as data, and the check every run at the default rules makes against them.

A game's folder may hold ``settled.toml`` (:data:`SETTLED_FILE`): per player count, the seat win rates of the
strongest rung of a skill ladder (``meeplab ladder``; docs/findings.md says how each was made), with their 95 %
intervals, the ladder's verdict and one line of finding. ``scripts/settled.py GAME LADDER_DIR...`` writes it from
ladder directories (:func:`from_ladder`, :func:`write_settled`), the one command that regenerates it.

:func:`disagreements` is what a run's report and ``meeplab run``'s stdout say: a run at the default rules, every seat
the same bot, whose seat win rates lie outside the settled ones (an interval that does not overlap the settled
interval of the same seat) is told "treat this as a bot artefact; the settled finding is ...", unless the file names
that bot as disputing the finding (``[players.N.disputed]``: a bot no weaker than the settling one), when it is told
that which finding holds is open; a run away from the
default rules is told to confirm its seat findings with strong bots, since the settled ones hold at the default
rules only. A file may name a **fast check** (``[fast]``: ``bot`` and one line of ``note``, written by hand): a bot far
cheaper than the searches whose self-play agrees with every finding of the file (docs/findings.md says how that was
measured); both messages then offer it beside the settling bot, so that a designer can check seats at a fast bot's
speed rather than a search's.
"""

from __future__ import annotations

import importlib.resources
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meeplab.sim.core.errors import MeeplabError

from .ladder import LEVEL, MOVING, SETTLED

__all__ = [
    "SETTLED_FILE",
    "Settled",
    "disagreements",
    "disputed_notes",
    "fast_check",
    "from_ladder",
    "load_settled",
    "parse_settled",
    "run_disagreements",
    "settled_path",
    "write_settled",
]

SETTLED_FILE = "settled.toml"
VERDICTS = (SETTLED, LEVEL, MOVING)


@dataclass(frozen=True)
class Settled:
    """The settled seat finding of one player count: the ladder's verdict, the strongest rung (``bot``) and its games,
    each seat's win rate with its 95 % interval (seat 1 = the start player) and the finding in words."""

    players: int
    verdict: str
    bot: str
    games: int
    win: tuple[float, ...]
    lo: tuple[float, ...]
    hi: tuple[float, ...]
    finding: str
    # bots that dispute the finding as (bot, what it finds and why it counts) pairs, written by hand in the file's
    # ``[players.N.disputed]`` table: a bot no weaker than the settling one whose self-play disagrees (docs/findings.md)
    disputed: tuple = ()
    # the file's fast check as (bot, note), or (): a cheaper bot whose self-play agrees with every finding of the file
    fast: tuple = ()

    def fast_text(self, bots: list[str]) -> str:
        """The offer of the fast check, "; a faster check: --bots NAME (note)", or "" (none, or it is the bot run)."""
        if not self.fast or self.fast[0] in bots:
            return ""
        return f"; a faster check: --bots {self.fast[0]} ({self.fast[1]})"

    def seats_text(self) -> str:
        return ", ".join(f"seat {i + 1} {w:.3f} [{a:.3f}, {b:.3f}]" for i, (w, a, b) in enumerate(zip(*self.rates())))

    def rates(self) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
        return self.win, self.lo, self.hi

    def no_seat_effect(self) -> bool:
        """Every seat's interval holds its fair share 1/P: the finding found no seat effect."""
        fair = 1.0 / self.players
        return all(a <= fair <= b for a, b in zip(self.lo, self.hi))

    def margin_text(self) -> str:
        """What a finding without a seat effect can rule out, as an equivalence statement
        (:func:`meeplab.analysis.stats.fair_within`): "fair within ±2.0 points" when every seat's interval lies
        within the margin (:data:`~meeplab.analysis.stats.FAIR_MARGIN`) of its fair share, else "no seat effect
        found; cannot rule out ±M points"; empty for a finding with a seat effect."""
        from .stats import FAIR_MARGIN, fair_within

        if not self.no_seat_effect():
            return ""
        fair = 1.0 / self.players
        ok, m = fair_within([a - fair for a in self.lo], [b - fair for b in self.hi])
        if ok:
            return f"fair within ±{100 * FAIR_MARGIN:.1f} points"
        return f"no seat effect found; cannot rule out ±{100 * m:.1f} points"


def settled_path(spec) -> Path | None:
    """Where game ``spec``'s settled findings would be: ``settled.toml`` in the package of its ``prepare`` (the game's
    folder, a plugin's package alike); None when that package cannot be found."""
    module = getattr(getattr(spec, "prepare", None), "__module__", None)
    if not module:
        return None
    try:
        root = importlib.resources.files(module)
    except (ModuleNotFoundError, TypeError):  # a plain module, not a package: its package
        try:
            root = importlib.resources.files(module.rpartition(".")[0])
        except (ModuleNotFoundError, TypeError, ValueError):
            return None
    try:
        return Path(str(root / SETTLED_FILE))
    except TypeError:
        return None


def parse_settled(data: Any, where: str) -> dict[int, Settled]:
    """The findings of a parsed ``settled.toml`` (``where``: its name in messages), or a one-line refusal naming
    what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("players"), dict):
        raise MeeplabError(f"{where}: no [players.N] tables")
    fast = fast_check(data["fast"], f"{where}: [fast]") if "fast" in data else ()
    out: dict[int, Settled] = {}
    for key, row in data["players"].items():
        try:
            p = int(key)
        except ValueError:
            raise MeeplabError(f"{where}: [players.{key}] is not a player count") from None
        if not isinstance(row, dict):
            raise MeeplabError(f"{where}: [players.{key}] is not a table")
        try:
            item = Settled(
                players=p,
                verdict=str(row["verdict"]),
                bot=str(row["bot"]),
                games=int(row["games"]),
                win=tuple(float(x) for x in row["win"]),
                lo=tuple(float(x) for x in row["lo"]),
                hi=tuple(float(x) for x in row["hi"]),
                finding=str(row["finding"]),
                disputed=disputed_notes(row.get("disputed", {}), f"{where}: [players.{key}.disputed]"),
                fast=fast,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MeeplabError(f"{where}: [players.{key}] lacks or mistypes a field ({exc})") from None
        numbers = (*item.win, *item.lo, *item.hi)
        if (
            item.verdict not in VERDICTS
            or item.games < 1
            or not (len(item.win) == len(item.lo) == len(item.hi) == p)
            or not all(math.isfinite(x) and 0.0 <= x <= 1.0 for x in numbers)
            or any(not a <= w <= b for w, a, b in zip(*item.rates()))
        ):
            raise MeeplabError(
                f"{where}: [players.{key}] needs verdict one of {', '.join(VERDICTS)}, games >= 1 and {p} seat rates "
                "in 0..1 inside their intervals"
            )
        out[p] = item
    return out


def disputed_notes(table: Any, where: str) -> tuple:
    """A ``[players.N.disputed]`` table (bot name -> one line of text, at most 600 characters) as (bot, text) pairs,
    or a one-line refusal naming ``where``."""
    if not isinstance(table, dict) or not all(
        isinstance(k, str) and k and isinstance(v, str) and v and len(v) <= 600 for k, v in table.items()
    ):
        raise MeeplabError(f"{where}: must map bot names to one line of text each (at most 600 characters)")
    return tuple((k, " ".join(v.split())) for k, v in table.items())


def fast_check(table: Any, where: str) -> tuple[str, str]:
    """A ``[fast]`` table (``bot``: a bot name, ``note``: one line of text, at most 600 characters) as (bot, note),
    or a one-line refusal naming ``where``."""
    ok = (
        isinstance(table, dict)
        and set(table) == {"bot", "note"}
        and all(isinstance(v, str) and v.strip() for v in table.values())
        and len(table["bot"]) <= 100
        and len(table["note"]) <= 600
    )
    if not ok:
        raise MeeplabError(f"{where}: must hold a bot name (bot) and one line of text (note, at most 600 characters)")
    return table["bot"].strip(), " ".join(table["note"].split())


def load_settled(spec) -> dict[int, Settled]:
    """Game ``spec``'s settled findings by player count ({} for a game that ships none)."""
    import tomllib

    path = settled_path(spec)
    if path is None or not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise MeeplabError(f"{path}: not readable TOML ({exc})") from None
    return parse_settled(data, str(path))


def from_ladder(lad) -> dict[int, dict[str, Any]]:
    """The settled findings a ladder (``analysis.ladder.load_ladder``) makes, per player count: its strongest rung's
    self-play seat rates and intervals, the seat verdict of its two strongest rungs (``analysis.ladder``) and a
    finding in words (which seat is above or below its fair share, or fair seats)."""
    from .ladder import gap_rows, rung_rows, seat_verdicts, settled

    top = lad.rungs[-1]
    rows = rung_rows(lad)
    verdicts = seat_verdicts(settled(rows, lad.rungs, gap_rows(lad)))
    out: dict[int, dict[str, Any]] = {}
    for row in rows:
        if row["rung"] != top:
            continue
        p = row["n_players"]
        fair = 1.0 / p
        words = [
            f"seat {i + 1} {'above' if lo > fair else 'below'} its fair share ({w:.3f})"
            for i, (w, lo, hi) in enumerate(zip(row["seat_rate"], row["seat_lo"], row["seat_hi"]))
            if lo > fair or hi < fair
        ]
        status = (verdicts.get(p) or {}).get("status", "still moving")
        out[p] = {
            "verdict": status,
            "bot": top,
            "games": int(row["games"]),
            "win": [round(float(x), 4) for x in row["seat_rate"]],
            "lo": [round(float(x), 4) for x in row["seat_lo"]],
            "hi": [round(float(x), 4) for x in row["seat_hi"]],
            "finding": "; ".join(words) if words else "fair seats (no seat's interval excludes its fair share)",
        }
    return out


def write_settled(
    path: str | Path, found: dict[int, dict[str, Any]], header: list[str], fast: dict[str, str] | None = None
) -> None:
    """``settled.toml`` at ``path`` (atomically): comment lines ``header``, then the fast check ``[fast]`` if given,
    then ``[players.N]`` per player count."""
    import tomli_w

    from meeplab.sim.core.files import atomic_write

    data: dict[str, Any] = {"fast": dict(fast)} if fast else {}
    data["players"] = {str(p): found[p] for p in sorted(found)}
    parse_settled(data, str(path))
    body = tomli_w.dumps(data)
    atomic_write(path, "".join(f"# {h}\n" for h in header) + body)


def disagreements(
    settled: dict[int, Settled], players: int, bots: list[str], default_rules: bool, seats: list[tuple[float, float]]
) -> list[str]:
    """What a run says about its seat finding at ``players`` players (``seats``: each seat's 95 % interval, seat 1
    first): away from the default rules, that the settled findings do not cover it; at them, with every seat the same
    bot, the seats whose interval misses the settled one, as a bot artefact. Empty when nothing is to be said (no
    settled finding, a mixed line-up, or agreement)."""
    item = settled.get(players)
    if item is None:
        return []
    if not default_rules:
        return [
            f"{players} players: the rules differ from the defaults, where the settled seat finding holds "
            f"({item.finding}; {item.bot}); confirm this run's seat findings with strong bots (meeplab ladder GAME "
            f"--set ..., or the same run with --bots {item.bot})" + item.fast_text(bots)
        ]
    if len(set(bots)) != 1 or len(seats) != players:
        return []
    off = [
        f"seat {i + 1} [{lo:.3f}, {hi:.3f}]"
        for i, ((lo, hi), a, b) in enumerate(zip(seats, item.lo, item.hi))
        if hi < a or lo > b
    ]
    if not off:
        return []
    dispute = dict(item.disputed).get(bots[0])
    if dispute is not None:  # a bot the file names as no weaker than the settling one: an open question
        return [
            f"{players} players: {', '.join(off)} disagrees with the settled seat finding ({item.verdict}; {item.bot}, "
            f"{item.games:,} games: {item.finding}: {item.seats_text()}), and {bots[0]} disputes it: {dispute}. "
            f"Which holds is open: confirm a seat finding that matters with --bots {item.bot} (docs/findings.md)"
        ]
    return [
        f"{players} players: {', '.join(off)} disagrees with the settled seat finding: treat this as a bot artefact "
        f"of {bots[0]}; the settled finding ({item.verdict}; {item.bot}, {item.games:,} games) is {item.finding}"
        + (f" ({item.margin_text()})" if item.margin_text() else "")
        + f": {item.seats_text()} (docs/findings.md)"
        + item.fast_text(bots)
    ]


def run_disagreements(run, st=None) -> list[str]:
    """:func:`disagreements` for a loaded run (``analysis.load.Run``; ``st`` its ``run_stats``, computed when None),
    every player count it played: at the default rules, with one bot in every seat, the seats whose 95 % interval
    misses the settled one; away from them, the advice to confirm with strong bots. Empty for a game that ships no
    settled findings or one not installed here."""
    from meeplab.sim.core.registry import get_game

    from .stats import run_stats

    try:
        settled = load_settled(get_game(run.game))
    except MeeplabError:
        return []
    if not settled:
        return []
    st = run_stats(run) if st is None else st
    bots = [str(b) for b in run.meta.get("bots") or []]
    out = []
    for p in sorted({int(x) for x in st.by_seat["n_players"].to_list()}):
        seats = st.by_seat.filter(st.by_seat["n_players"] == p).sort("seat")
        ivs = list(zip(seats["lo"].to_list(), seats["hi"].to_list()))
        out += disagreements(settled, p, bots, not run.params_changed, ivs)
    return out
