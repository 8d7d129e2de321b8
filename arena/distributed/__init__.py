"""Playing a tournament's games on worker processes: local ones, or a Dask cluster's.

`worker_pools` is the `arena.tournament.chunked.WorkerPools` the CLI hands the
server it assembles: a `LocalWorkers` pool of processes on this machine, or a
`DaskWorkers` pool over a Dask distributed cluster. Each worker has its own
match server and its own managed bots (`WorkerHost`); the driver alone records.
`distributed` is imported only for a run on a cluster.
"""

from __future__ import annotations

import contextlib

from arena.tournament.chunked import WorkerPlan, WorkerPool


def worker_pools(plan: WorkerPlan, workers: int, cluster: str
                 ) -> contextlib.AbstractAsyncContextManager[WorkerPool]:
    """A pool of `workers` local processes, or of the workers of the Dask cluster at
    `cluster` (a scheduler address such as ``tcp://HOST:8786``) when it is given."""
    if cluster:
        from arena.distributed.cluster import DaskWorkers

        return DaskWorkers(plan, cluster)
    from arena.distributed.local import LocalWorkers

    return LocalWorkers(plan, workers)


__all__ = ["worker_pools"]
