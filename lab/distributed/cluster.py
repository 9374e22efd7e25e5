"""Shards on a Dask cluster: ``--workers N`` (a local cluster of N worker processes) or ``--scheduler ADDRESS``.

Dask distributed gives what a home-made process pool would have to re-invent: a scheduler that
balances shards over workers, re-runs the shards of a worker that dies, and workers on other
machines. Each task plays one shard (:func:`lab.runs.shards.play_shard`) and returns its rows as
Parquet bytes; only this process writes the run directory (parts, manifest), so workers need no
shared disk and each shard is recorded once, whichever worker finally played it.
"""

from __future__ import annotations

import itertools
import logging
import socket
import time
import uuid
from collections.abc import Iterable, Iterator
from urllib.parse import urlsplit

from meeplab.lab.runs.shards import Job, Shard, play_shard
from meeplab.sim.core.errors import MeeplabError

#: seconds to reach a --scheduler before giving up (``--timeout``)
DEFAULT_TIMEOUT = 10.0


def reach(address: str, timeout: float) -> None:
    """Fail at once, naming ``address``, when nothing listens there (a TCP connect within ``timeout``); other
    schemes (inproc, ucx, a bare name) are left to the client."""
    try:
        parts = urlsplit(address if "://" in address else f"tcp://{address}")
        host, port = parts.hostname, parts.port
    except ValueError:
        raise MeeplabError(f"--scheduler {address}: not an address (e.g. tcp://10.0.0.5:8786)") from None
    if parts.scheme not in ("tcp", "tls") or not host or not port:
        return
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        why = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or type(exc).__name__)
        raise MeeplabError(
            f"--scheduler {address}: cannot connect ({why}, waited at most {timeout:g} s); is the scheduler "
            "running there?"
        ) from None


def answers(address: str, timeout: float) -> None:
    """Fail within ``timeout`` seconds, naming ``address``, unless a Dask scheduler answers there (its identity).
    Something that accepts the connection but never speaks Dask would otherwise hold the client forever."""
    import asyncio

    from distributed.comm import connect

    async def identity():
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    try:
        asyncio.get_running_loop()
        return  # inside an event loop (a notebook's): the client's own timeout has to do
    except RuntimeError:
        pass
    try:
        reply = asyncio.run(asyncio.wait_for(identity(), timeout))
    except Exception as exc:  # TimeoutError, OSError, CommClosedError, a protocol error...
        why = (
            "no answer"
            if isinstance(exc, TimeoutError)
            else f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        )
        raise MeeplabError(
            f"--scheduler {address}: no Dask scheduler answered within {timeout:g} s ({why}); is the scheduler "
            "running there?"
        ) from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise MeeplabError(f"--scheduler {address}: what answers there is not a Dask scheduler")


def worker_threads(threads: int | None) -> int | None:
    """The threads a task plays on: ``threads`` as given, or with None the Dask worker's own thread count (None
    outside a worker)."""
    if threads is not None:
        return threads
    try:
        from distributed import get_worker

        return get_worker().state.nthreads
    except Exception:  # outside a worker
        return None


def _task(job: Job, shard: Shard, threads: int | None) -> bytes:
    return play_shard(job, shard, worker_threads(threads), warm_lock=True)


class DaskExecutor:
    """Submits shards to a Dask cluster and yields them as they finish."""

    def __init__(
        self,
        workers: int | None = None,
        scheduler: str | None = None,
        threads: int | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ):
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - a dependency
            raise MeeplabError(
                "--workers/--scheduler need dask[distributed]: pip install 'dask[distributed]'"
            ) from None
        if not timeout > 0:
            raise MeeplabError(f"--timeout must be a positive number of seconds, got {timeout}")
        self.threads = threads
        self.cluster = None
        t0 = time.perf_counter()
        if scheduler:
            reach(scheduler, timeout)
            answers(scheduler, timeout)
            try:
                self.client = Client(scheduler, timeout=f"{timeout}s")
            except Exception as exc:  # distributed raises OSError, TimeoutError, ValueError, CommClosedError...
                raise MeeplabError(
                    f"--scheduler {scheduler}: cannot connect within {timeout:g} s ({type(exc).__name__}: "
                    f"{str(exc).splitlines()[0] if str(exc) else ''}); is the scheduler running there?"
                ) from None
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

    def results(self, job: Job, shards: Iterable[Shard]) -> Iterator[tuple[Shard, bytes]]:
        """Yield each shard's rows as it finishes; at most a few shards per worker are submitted at a time, so
        memory does not grow with the number of shards."""
        from distributed import as_completed

        shards = iter(shards)
        first = next(shards, None)
        if first is None:
            return
        if self.workers == 0:
            self.client.wait_for_workers(1, timeout=60)
        tag = uuid.uuid4().hex[:12]
        window = max(8, 4 * self.workers)
        futures: dict = {}

        def submit(shard: Shard):
            fut = self.client.submit(
                _task, job, shard, self.threads, pure=False, key=f"meeplab-{tag}-p{shard[0]}-{shard[1]}"
            )
            futures[fut] = shard
            return fut

        pending = as_completed([submit(first)])
        for shard in itertools.islice(shards, window - 1):
            pending.add(submit(shard))
        try:
            for fut in pending:
                shard = futures.pop(fut)
                try:
                    data = fut.result()
                except Exception as exc:
                    raise MeeplabError(
                        f"shard of {shard[0]} players, games {shard[1]}..{shard[1] + shard[2] - 1} failed: "
                        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                    ) from None
                fut.release()
                nxt = next(shards, None)
                if nxt is not None:
                    pending.add(submit(nxt))
                yield shard, data
        finally:
            self.client.cancel(list(futures))

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()
