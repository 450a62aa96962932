"""Running chunks on a Dask cluster: the same `simulate_chunk` as joblib.

`scheduler` is a running cluster's address (tcp://host:8786); without one a
LocalCluster of `workers` single-threaded processes is started for the run.
At most two chunks per worker are in flight, so memory stays flat however
many games are asked for (`tasks` is consumed lazily: the runner plans
chunks as a generator). Workers must be able to import this package; set
NUMBA_CACHE_DIR to a writable folder on workers whose install is read-only,
so compiled kernels are cached there.
"""
from __future__ import annotations

from typing import Callable, Iterable, Iterator


def run_on_dask(fn: Callable, tasks: Iterable, workers: int, scheduler: str | None) -> Iterator:
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        client = Client(scheduler, timeout="10s")
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        n_slots = max(1, len(client.scheduler_info().get("workers", {})) or workers)
        pending = iter(tasks)
        window = as_completed()
        for task in pending:
            window.add(client.submit(fn, task, pure=False))
            if window.count() >= 2 * n_slots:
                break
        for future in window:
            result = future.result()
            future.release()
            nxt = next(pending, None)
            if nxt is not None:
                window.add(client.submit(fn, nxt, pure=False))
            yield result
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
