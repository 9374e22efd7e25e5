"""What the cluster parts of the studies share (``quality_cluster``, ``learn_cluster``): a small picklable job a worker
prepares its game from, once per process; the engine compiled or loaded once per process, one process of a machine
at a time; games split into parts of consecutive games; and the parts' results gathered back in order.

Game ``g`` of every study depends on ``(seed, g)`` alone, so the parts put back in game order give exactly what one
process gives, for any number of workers.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass
from typing import Any

from meeplab.lab.runs.shards import machine_lock
from meeplab.sim.core.errors import MeeplabError

__all__ = ["GameJob", "gather", "parts", "prepared", "warm_once"]


@dataclass(frozen=True)
class GameJob:
    """What a worker needs to prepare the game (no engine state)."""

    game: str
    values: tuple  # resolved parameter values as (name, value) pairs
    bot_configs: tuple[str, ...]


_PREPARED: dict[str, Any] = {}
_WARM: set = set()


def prepared(job: GameJob):
    """The game and its prepared context of ``job``, made once per worker process (the latest job kept)."""
    key = hashlib.sha256(pickle.dumps(job)).hexdigest()
    if key not in _PREPARED:
        from meeplab.sim.core.registry import get_game

        game = get_game(job.game)
        _PREPARED.clear()  # a worker serves one study at a time: keep the latest
        _PREPARED[key] = (game, game.prepare(dict(job.values)))
    return _PREPARED[key]


def warm_once(key, fn) -> None:
    """Compile or load what ``fn`` plays, once per process, one process of a machine at a time (the first compiles
    into the shared numba cache, the others then load it)."""
    if key in _WARM:
        return
    with machine_lock():
        fn()
    _WARM.add(key)


def parts(games: int, workers: int) -> list[tuple[int, int]]:
    """``0 .. games-1`` as (start, count) parts of consecutive games, about four per worker."""
    size = max(1, -(-games // (4 * max(1, workers))))
    return [(s, min(size, games - s)) for s in range(0, games, size)]


def gather(ex, calls: list[tuple], what: str, done=None) -> list:
    """Submit ``(fn, *args)`` calls to the executor's cluster and return their results in the order given (``what``
    names the study in a failure's one line; ``done(i)`` is called as call ``i``'s result arrives in order)."""
    futures = [ex.client.submit(fn, *args, pure=False) for fn, *args in calls]
    out = []
    try:
        for i, fut in enumerate(futures):
            try:
                out.append(fut.result())
            except MeeplabError:
                raise
            except Exception as exc:
                msg = str(exc).splitlines()[0] if str(exc) else ""
                raise MeeplabError(f"a {what} task failed on the cluster: {type(exc).__name__}: {msg}") from None
            if done is not None:
                done(i)
    finally:
        ex.client.cancel(futures)
    return out
