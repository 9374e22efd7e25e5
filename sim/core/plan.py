"""Time before work: what a command is about to play and how long it should take, from a short calibration.

:func:`calibrate` plays a few games of one run's first configuration per player count (after the compile, which it
times apart) until a short budget is spent, and :func:`estimate` turns the measured games per second into the wall
time of a list of runs. Search bots (rollouts, MCTS) are thousands of times slower than greedy ones; the estimate
says so before the bulk starts instead of after it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from .bots import make_lineup

#: wall time spent measuring each player count (after the compile), and the first batch's size
CALIBRATE_S = 0.6
FIRST_BATCH = 4


@dataclass
class Speed:
    n_players: int
    games_per_s: float
    compile_s: float
    games: int  # played to measure it


@dataclass
class Estimate:
    games: int  # to play in all
    seconds: float  # play, after the compile
    compile_s: float
    speeds: dict[int, Speed] = field(default_factory=dict)


def calibrate(cfg, budget_s: float = CALIBRATE_S) -> dict[int, Speed]:
    """Games per second of ``cfg`` (a :class:`~meeplab.sim.core.runner.RunConfig`) at each of its player counts:
    one game to compile (or load the compiled code), then doubling batches of games from seed ``cfg.seed + 1``
    (never the run's own games) until ``budget_s`` is spent or as many games as the run would play."""
    from .runner import check_config, compile_notice

    _, ctx = check_config(cfg)
    game = cfg.game
    out = {}
    for p in cfg.players:
        lineup = make_lineup(game.id, cfg.bots, p, cfg.rotate, cfg.bot_configs)
        t0 = time.perf_counter()
        with compile_notice(game):
            game.play(ctx, lineup, cfg.seed + 1, 0, 1, p)
        compile_s = time.perf_counter() - t0
        n, played, spent = FIRST_BATCH, 0, 0.0
        while spent < budget_s and played < cfg.games:
            n = min(n, cfg.games - played)
            t0 = time.perf_counter()
            game.play(ctx, lineup, cfg.seed + 1, 1 + played, n, p)
            spent += time.perf_counter() - t0
            played += n
            n *= 2
        out[p] = Speed(p, played / spent if spent > 0 else math.inf, compile_s, played)
    return out


def estimate(cfgs, speeds: dict[int, Speed] | None = None) -> Estimate:
    """The wall time of playing every run in ``cfgs`` at the speeds measured on the first (:func:`calibrate`)."""
    if not cfgs:
        return Estimate(0, 0.0, 0.0)
    speeds = speeds if speeds is not None else calibrate(cfgs[0])
    games, seconds = 0, 0.0
    for cfg in cfgs:
        for p in cfg.players:
            games += cfg.games
            sp = speeds.get(p)
            if sp is None:
                sp = speeds[min(speeds, key=lambda q: abs(q - p))]
            seconds += cfg.games / sp.games_per_s if sp.games_per_s > 0 else math.inf
    return Estimate(games, seconds, max(s.compile_s for s in speeds.values()), speeds)


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
