"""Saved games of the play page: a small JSON file per game, continued with ``meeplab play --resume FILE`` and
drawn with ``meeplab view FILE``.

The file holds what makes the game again, not the game's states: the game, the rule parameters (every value, as
a run's ``run.json`` does), the seat of every person and the bot of every other seat, the seed and game index
that deal the table, the bot configuration files, and every decision in order as ``[seat, candidate, who]``
(seats from 1; ``who`` is ``"human"``, ``"bot"`` or ``"forced"`` for a person's lone candidate, played for
them). Loading replays it: the table is dealt again, people's decisions are applied and the bots decide again;
a bot that now decides otherwise (its code, weights or the engine changed) is reported, not followed.

Example::

    {"format": "meeplab-play", "version": 1, "game": "schweinebande", "players": 3,
     "seats": [null, "tuned", "rollout"], "params": {...}, "seed": 7, "index": 0, "bot_configs": [],
     "decisions": [[1, 4, "human"], [2, 0, "bot"], ...], "over": false, "score": null}
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from meeplab.sim.core import schema
from meeplab.sim.core.bots import available
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write
from meeplab.sim.core.registry import get_game

from .table import Table

FORMAT = schema.SAVED_FORMAT
VERSION = schema.SAVED_VERSION


def to_dict(table: Table) -> dict[str, Any]:
    """The saved form of ``table`` (see the module doc)."""
    who = lambda e: "forced" if e["forced"] else ("human" if e["human"] else "bot")  # noqa: E731
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": table.spec.id,
        "players": table.n_players,
        "seats": list(table.seats),
        "params": {k: (list(v) if isinstance(v, tuple) else v) for k, v in table.values.items()},
        "seed": table.seed,
        "index": table.index,
        "bot_configs": [str(p) for p in table.bot_configs],
        "decisions": [[e["seat"] + 1, e["pick"], who(e)] for e in table.history],
        "over": table.over,
        "score": table.final["score"] if table.final is not None else None,
        "saved": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }


def save(table: Table, path: Path) -> Path:
    """Write ``table`` to ``path`` atomically (a reader never sees half a file), private to the user: the file
    ``0600``, a folder made for it ``0700`` (the file holds the seed and index that deal the table)."""
    return atomic_write(Path(path), json.dumps(to_dict(table), indent=1), private=True)


def read(path) -> dict[str, Any]:
    """A saved game's contents, checked whole before anything is replayed (``meeplab.sim.core.schema``): size,
    nesting, types, every number's range, a known game at one of its player counts, its bots and parameters."""
    path = Path(path)
    data = schema.read_json(path, "saved game")
    return check_saved(schema.saved_game(data, str(path)), str(path))


def check_saved(data: dict[str, Any], source: str) -> dict[str, Any]:
    """What a saved game (checked for shape by ``schema.saved_game``) must be for its game: a known game, players in
    its range, one seat each (a person or one of its bots), parameters its ParamSet takes for that many players,
    decisions by seats of the game. Returns ``data``; every problem is one MeeplabError line naming ``source``."""
    try:
        spec = get_game(data["game"])
    except MeeplabError as exc:
        raise MeeplabError(f"{source}: game: {exc}") from None
    p = data["players"]
    if not spec.min_players <= p <= spec.max_players:
        raise MeeplabError(f"{source}: players: {schema.outside_players(spec, p)}")
    if len(data["seats"]) != p:
        raise MeeplabError(f"{source}: seats: {len(data['seats'])} seats listed for {p} players")
    for k, (seat, _, _) in enumerate(data["decisions"]):
        if seat > p:
            raise MeeplabError(f"{source}: decisions[{k}][0]: seat {seat} is outside 1..{p}")
    try:
        bots = available(spec.id, tuple(data["bot_configs"]))
    except MeeplabError as exc:
        raise MeeplabError(f"{source}: bot_configs: {exc}") from None
    for s, name in enumerate(data["seats"]):
        if name is not None and name not in bots:
            raise MeeplabError(
                f"{source}: seats[{s}]: unknown bot {schema.short(name)} for {spec.id}; "
                f"available: {', '.join(sorted(bots))}"
            )
    try:
        values = spec.params.resolve(dict(data["params"]), spec.id)
        spec.params.check_seats(values, p)
    except MeeplabError as exc:
        raise MeeplabError(f"{source}: params: {exc}") from None
    except (TypeError, ValueError, OverflowError, KeyError, IndexError) as exc:
        raise MeeplabError(f"{source}: params: cannot be used ({type(exc).__name__}: {str(exc)[:100]})") from None
    return data


def table_of(data: dict[str, Any], source: str = "saved game", trace: bool = False, upto: int | None = None) -> Table:
    """The table of a saved game (:func:`read`), its decisions replayed (the first ``upto`` of them, or all);
    ``data`` is checked as :func:`read` checks it before any engine runs."""
    data = check_saved(schema.saved_game(data, source), source)
    spec = get_game(data["game"])
    values = spec.params.resolve(dict(data["params"]), spec.id)
    seats = [None if s is None else str(s) for s in data["seats"]]
    try:
        table = Table(spec, values, seats, data["seed"], data["index"], tuple(data["bot_configs"]), trace=trace)
    except OSError as exc:  # a file a parameter names (a map, a deck) that cannot be read
        name = str(exc.filename or "")
        name = name if len(name) <= 80 else name[:77] + "..."
        raise MeeplabError(f"{source}: params: cannot read {name!r} ({exc.strerror or exc})") from None
    decisions = data["decisions"] if upto is None else data["decisions"][:upto]
    for k, (seat, pick, who) in enumerate(decisions):
        if len(table.history) > k:  # a person's lone candidate, already played for them
            e = table.history[k]
            if who != "forced" or e["seat"] != seat - 1 or not e["forced"]:
                raise MeeplabError(f"{source}: decision {k + 1} does not match the game as replayed")
            continue
        if table.over:
            raise MeeplabError(f"{source}: decision {k + 1} comes after the game's end")
        if table.turn != seat - 1:
            raise MeeplabError(f"{source}: decision {k + 1} is P{seat}'s, but the replayed game asks P{table.turn + 1}")
        if who == "bot":
            if seats[seat - 1] is None:
                raise MeeplabError(f"{source}: decision {k + 1} is marked a bot's, but P{seat} is a person")
            got = table.play_bot()["pick"]
            if got != pick:
                raise MeeplabError(
                    f"{source}: at decision {k + 1} bot '{seats[seat - 1]}' (P{seat}) now chooses candidate {got}, "
                    f"not {pick} as saved: the bot or the engine changed since the game was played"
                )
        elif who == "human":
            try:
                table.play(pick)
            except MeeplabError as exc:
                raise MeeplabError(f"{source}: decision {k + 1}: {exc}") from None
        else:
            raise MeeplabError(f"{source}: decision {k + 1} is marked forced, but P{seat} had a choice")
    return table


def load(path) -> Table:
    """The table of the saved game at ``path``, replayed to where it was saved (``meeplab play --resume``)."""
    return table_of(read(path), str(path))


@dataclass
class SavedTrace:
    """A saved game for ``meeplab view``: the game's face and context, the trace of the game as played
    (``meeplab.sim.core.draw.Trace``), who played each seat and a subtitle."""

    spec: Any
    ctx: Any
    trace: Any
    seat_names: list[str]
    subtitle: str


def trace_saved(path) -> SavedTrace:
    """Replay a saved game decision by decision, keeping the record before every decision (``meeplab view
    FILE``): people's moves as saved, the bots deciding again (the same choices, checked)."""
    from meeplab.sim.core.draw import Trace

    data = read(path)
    table = table_of(data, str(path), trace=True)
    t = table.trace
    k = len(t["picks"])
    m = table.search_scratch.acc.shape[0]
    states = np.array(t["states"], dtype=table.st.rec.dtype)
    nlog = int(table.st.nlog[0])
    logat = list(t["logat"])
    if len(logat) == k:  # unfinished: the last state is the table now
        states = np.append(states, np.array([table.rec], dtype=table.st.rec.dtype))
        logat.append(nlog)
    sc = np.zeros(table.n_players)
    tb = np.zeros(table.n_players)
    brk = np.zeros((table.n_players, table.ncat))
    if table.final is not None:
        sc[:] = table.final["score"]
        tb[:] = table.final["tiebreak"]
        brk[:] = table.final["breakdown"]
    trace = Trace(
        states=states,
        picks=np.array(t["picks"], dtype=np.int64),
        logat=np.array([*logat, nlog], dtype=np.int64),
        log=table.log[:nlog].copy(),
        search_sum=np.array(t["sacc"], dtype=np.float64).reshape(k, m),
        search_cand=np.array(t["scand"], dtype=np.int64).reshape(k, m),
        score=sc,
        tiebreak=tb,
        breakdown=brk,
        truncated=False,
    )
    names = [f"person ({s + 1})" if b is None else b for s, b in enumerate(table.seats)]
    people = ", ".join(f"P{s + 1}" for s in table.humans)
    state = "finished" if table.over else f"unfinished after {k} decisions"
    subtitle = (
        f"saved game {Path(path).name}: {table.spec.title}, {table.n_players} players, people at {people}, "
        f"seed {table.seed}, {state}"
    )
    changed = table.spec.params.changed(table.values)
    if changed:
        subtitle += "; " + ", ".join(f"{a}={b}" for a, b in changed.items())
    return SavedTrace(spec=table.spec, ctx=table.ctx, trace=trace, seat_names=names, subtitle=subtitle)
