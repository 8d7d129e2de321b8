"""Playing a tournament's games on worker processes: local ones, or a Dask cluster's.

`worker_pools` is the `arena.tournament.chunked.WorkerPools` the CLI hands the
server it assembles: a `LocalWorkers` pool of processes on this machine, or a
`DaskWorkers` pool over a Dask distributed cluster. Each worker has its own
match server and its own managed bots (`WorkerHost`); the driver alone records.
`distributed` is imported only for a run on a cluster.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable
from pathlib import Path

from arena.tournament.chunked import WORKER_WAIT, PoolEvent, PoolNews, WorkerPlan, WorkerPool

WORKER_LOGS_VARIABLE = "ARENA_WORKER_LOGS"
"""Names the folder, on the driver's machine, that the bot logs of runs on workers go to
(in ``worker-NAME`` folders); the driver's log folder without it."""


def worker_pools(plan: WorkerPlan, workers: int, cluster: str, *,
                 wait: float = WORKER_WAIT, say: Callable[[str], None] | None = None,
                 note: Callable[[PoolEvent], None] | None = None
                 ) -> contextlib.AbstractAsyncContextManager[WorkerPool]:
    """A pool of `workers` local processes, or of the workers of the Dask cluster at
    `cluster` (a scheduler address such as ``tcp://HOST:8786``) when it is given, which
    waits up to `wait` seconds for a first worker; `say` is told, a line at a time,
    what happens to the workers (which is logged too), and `note` counts each
    `PoolEvent`. The bots' logs go to `plan.log_dir`, or to the folder
    `ARENA_WORKER_LOGS` names."""
    named = os.environ.get(WORKER_LOGS_VARIABLE, "").strip()
    if named:
        plan = dataclasses.replace(plan, log_dir=str(Path(named).expanduser().absolute()))
    if cluster:
        from arena.distributed.cluster import DaskWorkers

        return DaskWorkers(plan, cluster, wait=wait, say=PoolNews(plan.run, say, note))
    from arena.distributed.local import LocalWorkers

    return LocalWorkers(plan, workers, say=PoolNews(plan.run, say, note))


__all__ = ["WORKER_LOGS_VARIABLE", "worker_pools"]
