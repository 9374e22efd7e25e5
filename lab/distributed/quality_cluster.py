"""``meeplab quality`` on a Dask cluster (``--workers N`` or ``--scheduler ADDRESS``; ``lab.distributed.cluster``).

Both stages that follow the run itself are split into parts of consecutive games and played by the cluster's
workers: the win-probability trajectories (:func:`lab.studies.quality.trajectory_part`) and each relative-skill player's
games (:func:`lab.studies.quality.skill_wins`). Game ``g`` depends on ``(seed, g)`` alone, its playouts included, so the
parts put back in game order give exactly the numbers one process gives, for any number of workers; only the
timings differ. A worker prepares the game from its id and parameter values (a
:class:`~meeplab.lab.distributed.jobs.GameJob`, small and picklable) once per process and compiles or loads the
engine one process of a machine at a time (``lab.distributed.jobs``).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from meeplab.lab.distributed.cluster import worker_threads
from meeplab.lab.distributed.jobs import GameJob, gather, parts, prepared, warm_once
from meeplab.lab.runs.shards import use_threads
from meeplab.lab.studies.quality import (
    SKILL_ROLES,
    TRAJECTORY_KEYS,
    check_trajectory_budget,
    skill_lineup,
    skill_wins,
    trajectory_part,
    trajectory_timing,
)
from meeplab.sim.core.errors import MeeplabError


def trajectory_task(
    job: GameJob, threads, bots, n_players, seed, games, playouts, points, rotate, km, evaluator, se=(0.0, 0)
):  # fmt: skip
    """Worker side: the trajectories of the game indices ``games`` and the CPU seconds they took."""
    game, ctx = prepared(job)
    use_threads(worker_threads(threads))
    args = (game, ctx, list(bots), n_players, seed)
    warm_once(
        ("traj", job, tuple(bots), n_players, rotate, evaluator),
        lambda: trajectory_part(*args, [0], 2, 2, rotate, job.bot_configs, evaluator=evaluator),
    )
    c0 = time.process_time()
    out = trajectory_part(*args, np.asarray(games), playouts, points, rotate, job.bot_configs, *km, evaluator, *se)
    out["cpu_seconds"] = time.process_time() - c0
    return out


def skill_task(job: GameJob, threads, n_players, seed, start, n, role, name, field):
    """Worker side: one relative-skill player's win share per game on games ``start .. start+n-1``, with the wall
    and CPU seconds they took."""
    game, ctx = prepared(job)
    use_threads(worker_threads(threads))
    warm_once(
        ("skill", job, n_players, role, name, field),
        lambda: skill_wins(game, ctx, n_players, seed, 0, 1, role, name, field, job.bot_configs),
    )
    t0, c0 = time.perf_counter(), time.process_time()
    wins = skill_wins(game, ctx, n_players, seed, start, n, role, name, field, job.bot_configs)
    return wins, time.perf_counter() - t0, time.process_time() - c0


def play_trajectories_on(
    ex, game, values: dict, bots: list[str], n_players: int, seed: int, games: int, playouts: int, points: int,
    rotate: bool = True, bot_configs=(), km_below: float = 0.02, km_cand: int = 6, km_lead: float = 0.1,
    evaluator: str | None = None, se_target: float = 0.0, max_playouts: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """:func:`lab.studies.quality.play_trajectories` on the cluster of ``ex`` (a ``DaskExecutor``): the same arrays;
    ``cpu_seconds`` summed over the workers, ``workers`` the cluster's size."""
    check_trajectory_budget(games, playouts, points)
    job = GameJob(game.id, tuple(values.items()), tuple(bot_configs))
    km = (km_below, km_cand, km_lead)
    t0 = time.perf_counter()
    calls = [
        (trajectory_task, job, ex.threads, tuple(bots), n_players, seed, np.arange(s, s + n), playouts, points,
         rotate, km, evaluator, (se_target, max_playouts))
        for s, n in parts(games, ex.workers)
    ]  # fmt: skip
    got = gather(ex, calls, "quality")
    out: dict[str, Any] = {k: np.concatenate([g[k] for g in got]) for k in TRAJECTORY_KEYS}
    out["exact_redraw"] = got[0]["exact_redraw"]
    out["km_z"] = got[0]["km_z"]
    cpu = sum(g["cpu_seconds"] for g in got)
    out = trajectory_timing(out, time.perf_counter() - t0, cpu, playouts, points, km_cand)
    out["workers"] = ex.workers
    return out


def play_skill_on(
    ex, game, values: dict, n_players: int, seed: int, games: int, beginner: str, skilled: str, field: str,
    bot_configs=(),
) -> dict[str, Any]:  # fmt: skip
    """:func:`lab.studies.quality.play_skill` on the cluster of ``ex``: the three players' games in parts, all at once;
    ``seconds`` and ``cpu_seconds`` of a role are its parts' seconds summed over the workers."""
    if games < 2:
        raise MeeplabError(f"--skill-games must be at least 2, got {games}")
    job = GameJob(game.id, tuple(values.items()), tuple(bot_configs))
    roles = list(zip(SKILL_ROLES, (beginner, skilled, skilled)))
    for role, name in roles:
        skill_lineup(game.id, n_players, role, name, field, bot_configs)  # bad bots fail here, not on a worker
    split = parts(games, ex.workers)
    calls = [
        (skill_task, job, ex.threads, n_players, seed, s, n, role, name, field)
        for role, name in roles
        for s, n in split
    ]
    got = iter(gather(ex, calls, "quality"))
    out: dict[str, Any] = {"wins": {}, "seconds": {}, "cpu_seconds": {}, "bots": {}, "field": field}
    for role, name in roles:
        mine = [next(got) for _ in split]
        out["wins"][role] = np.concatenate([w for w, _, _ in mine])
        out["seconds"][role] = sum(s for _, s, _ in mine)
        out["cpu_seconds"][role] = sum(c for _, _, c in mine)
        out["bots"][role] = name
    return out
