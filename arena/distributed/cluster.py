"""A Dask distributed cluster as a worker pool: ``arena tournament run NAME --cluster ADDRESS``.

The organiser starts the cluster as Dask documents (``dask scheduler`` on one
machine, ``dask worker ADDRESS --nthreads 1`` on each of the others); every
worker machine needs arena installed and the managed bots' commands available
under the same names. The driver connects a `Client`, registers an
`ArenaWorkerPlugin` — which starts a `WorkerHost` (a match server on the
worker's loopback and its own copies of the bots) when a worker joins, again
when a worker restarts after dying, and stops it when the run unregisters it —
and submits chunks as tasks. A chunk whose worker died is run again by Dask on
another worker; the driver records each game once, whichever copy comes back.
The plugin is named after the run's bots: a driver that was killed leaves its
plugin on the workers, and the next run with those bots replaces it. A cluster
plays one run at a time.

This module imports `distributed`; nothing else in arena does, so only a run on
a cluster pays for it. TLS between driver and workers is Dask's: a ``tls://``
address, with the certificates in Dask's ``distributed.comm.tls`` settings.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from types import TracebackType
from typing import Any

import distributed
from distributed import Client, WorkerPlugin

from arena.distributed.host import WorkerHost, isolation_of
from arena.tournament.chunked import Chunk, ChunkResult, WorkerPlan

_Client: Any = Client  # distributed's client is not typed

PLUGIN_PREFIX = "arena-host-"
"""The name of a run's plugin on the workers begins with this."""


class ArenaWorkerPlugin(WorkerPlugin):
    """Owns one Dask worker's `WorkerHost`: started in `setup` (when the worker joins, or
    joins again after a restart), stopped in `teardown`."""

    def __init__(self, plan: WorkerPlan) -> None:
        self.plan = plan
        self.host: WorkerHost | None = None

    async def setup(self, worker: distributed.Worker) -> None:
        """Start the worker's match server and bots (logs under the worker's folder)."""
        log_dir = Path(worker.local_directory) / "arena-logs"
        host = WorkerHost(self.plan.bots, log_dir, folders=self.plan.folders,
                          isolation=isolation_of(self.plan.isolation))
        await asyncio.to_thread(host.start)
        self.host = host

    async def teardown(self, worker: distributed.Worker) -> None:
        """Stop the worker's bots and match server."""
        host, self.host = self.host, None
        if host is not None:
            await asyncio.to_thread(host.stop)


def play_chunk(chunk: Chunk, plugin: str) -> ChunkResult:
    """A Dask task: play `chunk` on the host of this worker's plugin named `plugin`."""
    worker = distributed.get_worker()
    owner = worker.plugins.get(plugin)
    if not isinstance(owner, ArenaWorkerPlugin) or owner.host is None:
        raise RuntimeError(f"worker {worker.address} has no arena host (plugin {plugin})")
    return owner.host.play(chunk)


def plugin_name(plan: WorkerPlan) -> str:
    """The name of the plugin for runs with `plan`'s bots: the same for the same bots, so a
    run after a killed driver replaces (tears down) the plugin that driver left behind."""
    digest = hashlib.sha256(json.dumps(plan.bots).encode()).hexdigest()[:16]
    return PLUGIN_PREFIX + digest


class DaskWorkers:
    """The workers of the Dask cluster at `address`, as a worker pool for one run (an async
    context manager). `security` is a `distributed.Security` (default: Dask's settings)."""

    def __init__(self, plan: WorkerPlan, address: str, security: Any = None) -> None:
        self.plan = plan
        self.address = address
        self.security = security
        self._client: Any = None
        self._plugin = plugin_name(plan)

    @property
    def size(self) -> int:
        """How many workers the cluster has now (at least 1 while it has none), as the
        client last heard from the scheduler (it asks every couple of seconds)."""
        if self._client is None:
            return 1
        # An asynchronous client's scheduler_info() is its cache, which lists no workers
        # but counts them.
        return max(1, int(self._client.scheduler_info().get("n_workers", 0)))

    async def __aenter__(self) -> DaskWorkers:
        kwargs: dict[str, Any] = {} if self.security is None else {"security": self.security}
        client = await _Client(self.address, asynchronous=True, **kwargs)
        try:
            await client.wait_for_workers(1)
            await client.register_plugin(ArenaWorkerPlugin(self.plan), name=self._plugin)
        except BaseException:
            await client.close()
            raise
        self._client = client
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        try:
            await client.unregister_worker_plugin(self._plugin)
        finally:
            await client.close()

    async def play(self, chunk: Chunk) -> ChunkResult:
        """Play `chunk` as a task on some worker of the cluster."""
        if self._client is None:
            raise RuntimeError("the cluster is not connected")
        future = self._client.submit(play_chunk, chunk, self._plugin, pure=False)
        try:
            result: ChunkResult = await future
        finally:
            future.release()
        return result

