"""Shards on a Dask cluster: ``--workers N`` (a local cluster of N worker processes) or ``--scheduler ADDRESS``.

Dask distributed gives what a home-made process pool would have to re-invent: a scheduler that
balances shards over workers, re-runs the shards of a worker that dies, and workers on other
machines. Each task plays one shard (:func:`sim.core.shards.play_shard`) and returns its rows as
Parquet bytes; only this process writes the run directory (parts, manifest), so workers need no
shared disk and each shard is recorded once, whichever worker finally played it.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator

from .errors import MeeplabError
from .shards import Job, Shard, play_shard


def _task(job: Job, shard: Shard, threads: int | None) -> bytes:
    if threads is None:
        try:
            from distributed import get_worker

            threads = get_worker().state.nthreads
        except Exception:  # pragma: no cover - outside a worker
            threads = None
    return play_shard(job, shard, threads, warm_lock=True)


class DaskExecutor:
    """Submits shards to a Dask cluster and yields them as they finish."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None, threads: int | None = None):
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - a dependency
            raise MeeplabError(
                "--workers/--scheduler need dask[distributed]: pip install 'dask[distributed]'"
            ) from None
        self.threads = threads
        self.cluster = None
        t0 = time.perf_counter()
        if scheduler:
            try:
                self.client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise MeeplabError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
            self.scheduler = scheduler
        else:
            if workers is None or workers <= 0:
                raise MeeplabError(f"--workers must be positive, got {workers}")
            self.cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                scheduler_kwargs={"dashboard": False},
                silence_logs=logging.ERROR,
            )
            self.client = Client(self.cluster)
            self.client.wait_for_workers(workers)
            self.scheduler = "local cluster"
        self.start_s = round(time.perf_counter() - t0, 3)

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info(n_workers=-1).get("workers", {}))

    def results(self, job: Job, shards: list[Shard]) -> Iterator[tuple[Shard, bytes]]:
        from distributed import as_completed

        if not shards:
            return
        if self.workers == 0:
            self.client.wait_for_workers(1, timeout=60)
        tag = uuid.uuid4().hex[:12]
        futures = {
            self.client.submit(
                _task, job, shard, self.threads, pure=False, key=f"meeplab-{tag}-p{shard[0]}-{shard[1]}"
            ): shard
            for shard in shards
        }
        try:
            for fut in as_completed(futures):
                shard = futures[fut]
                try:
                    data = fut.result()
                except Exception as exc:
                    raise MeeplabError(
                        f"shard of {shard[0]} players, games {shard[1]}..{shard[1] + shard[2] - 1} failed: "
                        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                    ) from None
                fut.release()
                yield shard, data
        finally:
            self.client.cancel(list(futures))

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()
