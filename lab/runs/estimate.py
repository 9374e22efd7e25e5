"""Time before work: what a command is about to play and how long it should take, from a short calibration.

:func:`calibrate` plays a few games of a run per player count (after the compile, which it times apart) until a
short budget is spent, and :func:`estimate` calibrates each lineup of a list of runs once and turns the measured
games per second into their wall time. Search bots (rollouts, MCTS) are thousands of times slower than greedy
ones; the estimate says so before the bulk starts instead of after it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

#: wall time spent measuring each lineup and player count (after the compile)
CALIBRATE_S = 0.6


@dataclass
class Speed:
    n_players: int
    games_per_s: float  # on one thread (a run's wall speed is this times the threads its batches keep busy)
    compile_s: float
    games: int  # played to measure it


@dataclass
class Estimate:
    games: int  # to play in all
    seconds: float  # play, after the compile
    compile_s: float
    speeds: dict[int, Speed] = field(default_factory=dict)  # the first lineup's, per player count
    lineups: dict[str, dict[int, Speed]] = field(default_factory=dict)  # every lineup's, by its name
    cold: str = ""  # a dry run: the game whose engine is not compiled yet (priced from remembered speeds, if any)


def lineup_name(plan) -> str:
    """The bots of a run as the plan names them (``heuristic,ismcts``; `` (fixed seats)`` when not rotated)."""
    return ",".join(plan.bots) + ("" if plan.rotate else " (fixed seats)")


def _lineup_key(plan) -> tuple:
    return (tuple(plan.bots), plan.rotate, tuple(plan.bot_configs))


def _speeds_file(game_id: str):
    from meeplab.sim.core.numba_cache import cache_base

    return cache_base() / "speeds" / f"{game_id}.json"


def _speed_key(plan) -> str:
    return repr(_lineup_key(plan))


def remember(plan, speeds: dict[int, Speed]) -> None:
    """Keep a lineup's measured speeds beside the compiled code (the cache folder), for a dry run that finds the
    engine not compiled: it prices the plan from them instead of compiling."""
    import contextlib
    import json

    from meeplab.sim.core.files import atomic_write

    path = _speeds_file(plan.game.id)
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        if not isinstance(data, dict):
            data = {}
        data[_speed_key(plan)] = {str(p): s.games_per_s for p, s in speeds.items() if math.isfinite(s.games_per_s)}
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(data, indent=1))


def remembered(plan) -> dict[int, Speed]:
    """The speeds :func:`remember` kept for ``plan``'s lineup on this machine ({} when none, or unreadable)."""
    import json

    try:
        row = json.loads(_speeds_file(plan.game.id).read_text(encoding="utf-8")).get(_speed_key(plan), {})
        return {int(p): Speed(int(p), float(v), math.nan, 0) for p, v in row.items() if float(v) > 0}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def calibrate(plan, budget_s: float = CALIBRATE_S) -> dict[int, Speed]:
    """Games per second on one thread of ``plan`` (a :class:`~meeplab.lab.runs.plan.RunPlan`) at each of its
    player counts: one game to compile (or load the compiled code), then doubling batches of games from seed
    ``plan.seed + 1`` (never the run's own games) until ``budget_s`` is spent or as many games as the run would play.
    A batch's time counts once per thread it keeps busy (:func:`~meeplab.sim.core.play.parallel_width`), so one slow
    search game and a thousand fast ones measure the same thing. The compile is the first game less what a game
    takes."""
    from meeplab.lab.runs.runner import compile_notice
    from meeplab.sim.core.play import parallel_width

    ctx = plan.ctx
    game = plan.game
    out = {}
    for p in plan.players:
        lineup = plan.lineups[p]
        t0 = time.perf_counter()
        with compile_notice(game):
            game.play(ctx, lineup, plan.seed + 1, 0, 1, p)
        first = time.perf_counter() - t0
        n, played, spent = 1, 0, 0.0
        while spent < budget_s and played < plan.games:
            n = min(n, plan.games - played)
            t0 = time.perf_counter()
            game.play(ctx, lineup, plan.seed + 1, 1 + played, n, p)
            spent += (time.perf_counter() - t0) * parallel_width(n)
            played += n
            n *= 2
        rate = played / spent if spent > 0 else math.inf
        out[p] = Speed(p, rate, max(0.0, first - 1.0 / rate), played)
    remember(plan, out)
    return out


def estimate(plans, compile: bool = True) -> Estimate:
    """The wall time of playing every run in ``plans`` (:class:`~meeplab.lab.runs.plan.RunPlan`) on this process's
    threads: each lineup (bots, seating and bot files) is calibrated once (:func:`calibrate`, on its first run; the
    lineups share :data:`CALIBRATE_S`, each plays at least one game after its compile), and a run of ``games`` takes
    ``games / (speed x the threads its batches keep busy)`` per player count.

    ``compile=False`` (a dry run): a game whose engine is not compiled in this cache is not compiled for the
    estimate; its lineups are priced from the speeds this machine measured before (:func:`remembered`), or left
    unknown (``Estimate.cold`` names the game, ``seconds`` is NaN where a speed is missing)."""
    from meeplab.lab.runs.runner import engine_compiled, play_threads
    from meeplab.sim.core.play import parallel_width

    if not plans:
        return Estimate(0, 0.0, 0.0)
    measured: dict[tuple, dict[int, Speed]] = {}
    names: dict[str, dict[int, Speed]] = {}
    budget = CALIBRATE_S / len({_lineup_key(plan) for plan in plans})  # many lineups share the time of one
    games, seconds, cold = 0, 0.0, ""
    for plan in plans:
        key = _lineup_key(plan)
        if key not in measured:
            if compile or engine_compiled(plan.game):
                measured[key] = names[lineup_name(plan)] = calibrate(plan, budget)
            else:
                cold = plan.game.title
                measured[key] = names[lineup_name(plan)] = remembered(plan) or {
                    p: Speed(p, math.nan, math.nan, 0) for p in plan.players
                }
        speeds = measured[key]
        for p in plan.players:
            games += plan.games
            sp = speeds.get(p) or speeds[min(speeds, key=lambda q: abs(q - p))]
            width = parallel_width(min(plan.games, plan.shard), play_threads(plan))
            rate = sp.games_per_s
            seconds += plan.games / (rate * width) if rate > 0 else (math.nan if math.isnan(rate) else math.inf)
    compile_s = sum(s.compile_s for speeds in measured.values() for s in speeds.values() if math.isfinite(s.compile_s))
    return Estimate(games, seconds, compile_s, next(iter(measured.values())), names, cold)


def rate(games_per_s: float) -> str:
    """A speed as people read it: ``13,768 games/s``, ``2.4 games/s``, ``12 s a game``."""
    if not math.isfinite(games_per_s) or games_per_s <= 0:
        return "unknown speed"
    if games_per_s >= 100:
        return f"{games_per_s:,.0f} games/s"
    if games_per_s >= 1:
        return f"{games_per_s:.1f} games/s"
    s = 1 / games_per_s
    return f"{s:.1f} s a game" if s < 10 else f"{s:,.0f} s a game"


def duration(seconds: float) -> str:
    """``45 s``, ``3 min 20 s``, ``2 h 05 min``."""
    if not math.isfinite(seconds):
        return "unknown"
    s = round(seconds)
    if s < 60:
        return f"{max(1, s)} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"
