"""``meeplab learn`` on a Dask cluster (``--workers N`` or ``--scheduler ADDRESS``; ``lab.distributed.cluster``).

The teacher's games are split into parts of consecutive games (``lab.distributed.jobs.parts``) and recorded by the
cluster's workers (:func:`lab.studies.learn.record`, the teacher in every seat, every feature column filled); the
parts come back in game order and make exactly the record one process makes, for any number of workers.
"""

from __future__ import annotations

from meeplab.lab.distributed.cluster import worker_threads
from meeplab.lab.distributed.jobs import GameJob, gather, parts, prepared, warm_once
from meeplab.lab.runs.shards import use_threads


def record_task(
    job: GameJob, threads, teacher: str, n_players: int, seed: int, start: int, n: int, keep: int, with_values=False
):
    """Worker side: the teacher's decisions in games ``start .. start+n-1`` (a ``learn.Decisions``; ``with_values``:
    the search's values too)."""
    from meeplab.lab.studies import learn as ln
    from meeplab.sim.core.bots import make_lineup

    game, ctx = prepared(job)
    threads = worker_threads(threads)
    use_threads(threads)
    lineup = ln.reading_all(make_lineup(game.id, [teacher], n_players, True, job.bot_configs))
    shape = ln.features_of(game)
    warm_once(
        ("learn", job, teacher, n_players),
        lambda: ln.record(game, ctx, lineup, n_players, seed, range(1), keep, shape=shape),
    )
    return ln.record(
        game,
        ctx,
        lineup,
        n_players,
        seed,
        range(start, start + n),
        keep,
        threads=threads or 1,
        shape=shape,
        values=with_values,
    )


def record_on(ex, game, values: dict, teacher: str, n_players: int, seed: int, games: int, keep: int, bot_configs=(),
              progress=None, with_values=False):  # fmt: skip
    """:func:`lab.studies.learn.record` of games ``0 .. games-1`` on the cluster of ``ex`` (a ``DaskExecutor``): the
    same decisions; ``progress(k)`` is told of each part's ``k`` games as the parts come back in order;
    ``with_values``: the search's values too."""
    from meeplab.lab.studies import learn as ln

    job = GameJob(game.id, tuple(values.items()), tuple(bot_configs))
    split = parts(games, ex.workers)
    calls = [(record_task, job, ex.threads, teacher, n_players, seed, s, n, keep, with_values) for s, n in split]
    done = (lambda i: progress(split[i][1])) if progress is not None else None
    return ln.Decisions.concat(gather(ex, calls, "learn", done))
