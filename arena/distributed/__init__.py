"""Playing a tournament's games on worker processes: local ones, or a Dask cluster's.

`worker_pools` is the `arena.tournament.chunked.WorkerPools` the CLI hands the
server it assembles: a `LocalWorkers` pool of processes on this machine, or a
`DaskWorkers` pool over a Dask distributed cluster. Each worker has its own
match server and its own managed bots (`WorkerHost`); the driver alone records.
`distributed` is imported only for a run on a cluster.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from arena.tournament.chunked import WORKER_WAIT, WorkerPlan, WorkerPool


def worker_pools(plan: WorkerPlan, workers: int, cluster: str, *,
                 wait: float = WORKER_WAIT, say: Callable[[str], None] | None = None
                 ) -> contextlib.AbstractAsyncContextManager[WorkerPool]:
    """A pool of `workers` local processes, or of the workers of the Dask cluster at
    `cluster` (a scheduler address such as ``tcp://HOST:8786``) when it is given, which
    waits up to `wait` seconds for a first worker; `say` is told, a line at a time,
    what happens to the workers."""
    if cluster:
        from arena.distributed.cluster import DaskWorkers

        return DaskWorkers(plan, cluster, wait=wait, say=say)
    from arena.distributed.local import LocalWorkers

    return LocalWorkers(plan, workers, say=say)


__all__ = ["worker_pools"]
