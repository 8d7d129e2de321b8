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

A cluster plays several runs at once: each run's plugin is named after the run
(its tournament or ladder, and the database it is recorded in), so every run
has hosts of its own on every worker, and its chunks are played on them. The
store's run claim lets one driver play a run at a time; on the cluster, the
scheduler notes which client registered each plugin, and a driver refuses to
replace a plugin of its run whose client is still connected. A driver that was
killed leaves its plugin (and its hosts and bots) on the workers until another
driver registers: the next run of that tournament replaces it, and any run
unregisters the arena plugins whose client has left the scheduler.

This module imports `distributed`; nothing else in arena does, so only a run on
a cluster pays for it. TLS between driver and workers is Dask's: a ``tls://``
address, with the certificates in Dask's ``distributed.comm.tls`` settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import pickle
import re
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import distributed
from distributed import Client, WorkerPlugin

from arena.distributed.host import WorkerHost, isolation_of
from arena.logs import configure_from_env
from arena.tournament.chunked import Chunk, ChunkResult, WorkerPlan

_Client: Any = Client  # distributed's client is not typed
_Security: Any = distributed.Security

PLUGIN_PREFIX = "arena-host-"
"""The name of a run's plugin on the workers begins with this."""

OWNERS = "arena-plugin-owners"
"""The scheduler's metadata under which each arena plugin's client id is kept, by name."""


class ArenaWorkerPlugin(WorkerPlugin):
    """Owns one Dask worker's `WorkerHost`: started in `setup` (when the worker joins, or
    joins again after a restart), stopped in `teardown`."""

    def __init__(self, plan: WorkerPlan) -> None:
        self.plan = plan
        self.host: WorkerHost | None = None

    async def setup(self, worker: distributed.Worker) -> None:
        """Start the worker's match server and bots (logs in a folder of the run's own,
        under the worker's)."""
        configure_from_env()
        log_dir = Path(worker.local_directory) / "arena-logs" / plugin_name(self.plan)
        host = WorkerHost(self.plan.bots, log_dir, folders=self.plan.folders,
                          isolation=isolation_of(self.plan.isolation),
                          read_only=self.plan.read_only)
        await asyncio.to_thread(host.start)
        self.host = host
        logging.getLogger("arena.worker").info(
            "worker %s started for %s", worker.address, self.plan.run,
            extra={"run": self.plan.run, "worker": worker.address,
                   "bots": [name for name, _ in self.plan.bots]})

    async def teardown(self, worker: distributed.Worker) -> None:
        """Stop the worker's bots and match server."""
        host, self.host = self.host, None
        if host is not None:
            await asyncio.to_thread(host.stop)


def play_chunk(chunk: Chunk, plugin: str) -> bytes:
    """A Dask task: play `chunk` on the host of this worker's plugin named `plugin`; its
    `ChunkResult`, pickled here, in the task's thread. Handed bytes, Dask sends them as
    they are; handed the games, its worker's event loop would also walk every event log
    to estimate their size (`dask.sizeof`) on the core the bots play on."""
    worker = distributed.get_worker()
    owner = worker.plugins.get(plugin)
    if not isinstance(owner, ArenaWorkerPlugin) or owner.host is None:
        raise RuntimeError(f"worker {worker.address} has no arena host (plugin {plugin})")
    return pickle.dumps(owner.host.play(chunk), protocol=pickle.HIGHEST_PROTOCOL)


def plugin_name(plan: WorkerPlan) -> str:
    """The name of the plugin of `plan`'s run: the same for every driver of that run (so
    a run after a killed driver replaces the plugin that driver left behind), another
    for any other run — tournament or database — so the two play side by side."""
    digest = hashlib.sha256(json.dumps([plan.run, plan.database]).encode()).hexdigest()[:12]
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "-", plan.run)[:40].strip("-")
    return f"{PLUGIN_PREFIX}{readable}-{digest}" if readable else PLUGIN_PREFIX + digest


class ClusterSettings(RuntimeError):
    """The driver's Dask settings cannot reach the cluster."""


def _check_tls_settings(address: str) -> None:
    """Refuse a ``tls://`` cluster when Dask's settings give the driver no certificate."""
    security = _Security()
    if not (security.tls_client_cert and security.tls_ca_file):
        raise ClusterSettings(
            f"{address} is a TLS address, and Dask's settings give this driver no "
            "certificate: set distributed.comm.tls.ca-file, client.cert and client.key "
            "(e.g. DASK_DISTRIBUTED__COMM__TLS__CA_FILE, "
            "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT and "
            "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY)")


class RunOnCluster(RuntimeError):
    """Another driver, still connected to the scheduler, plays this run on the cluster."""


def _claim_on_scheduler(name: str, client: str) -> Callable[..., tuple[str, list[str]]]:
    """A function for the scheduler (`Client.run_on_scheduler`) that notes `client` as the
    owner of plugin `name` unless a connected client owns it already, and names the arena
    plugins whose owners have left: ``(the owner it found connected or "", stale names)``.
    The scheduler runs it at once, so two drivers cannot both take one name. It is made
    here, not defined at module level, so that it travels by value: the scheduler's
    machine need not have arena installed."""
    prefix, key = PLUGIN_PREFIX, OWNERS

    def claim(dask_scheduler: Any) -> tuple[str, list[str]]:
        owners: dict[str, str] = dask_scheduler.get_metadata([key], default={})
        connected = set(dask_scheduler.clients)
        holder = owners.get(name, "")
        if holder and holder != client and holder in connected:
            return holder, []
        stale = [plugin for plugin in dask_scheduler.worker_plugins
                 if plugin.startswith(prefix) and plugin != name
                 and owners.get(plugin) not in connected]
        kept = {plugin: owner for plugin, owner in owners.items()
                if owner in connected and plugin not in stale}
        kept[name] = client
        dask_scheduler.set_metadata([key], kept)
        return "", stale

    return claim


def _release_on_scheduler(name: str, client: str) -> Callable[..., None]:
    """A function for the scheduler that forgets `client` as the owner of plugin `name`."""
    key = OWNERS

    def release(dask_scheduler: Any) -> None:
        owners: dict[str, str] = dask_scheduler.get_metadata([key], default={})
        if owners.get(name) == client:
            dask_scheduler.set_metadata([key], {p: o for p, o in owners.items() if p != name})

    return release


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
        if self.security is None and self.address.startswith("tls://"):
            _check_tls_settings(self.address)
        kwargs: dict[str, Any] = {} if self.security is None else {"security": self.security}
        client = await _Client(self.address, asynchronous=True, **kwargs)
        try:
            await client.wait_for_workers(1)
            await self._take_plugin_name(client)
            await client.register_plugin(ArenaWorkerPlugin(self.plan), name=self._plugin)
        except BaseException:
            await client.close()
            raise
        self._client = client
        return self

    async def _take_plugin_name(self, client: Any) -> None:
        """Become the owner of this run's plugin name on the scheduler (refused while a
        connected driver owns it), and unregister the arena plugins of drivers gone."""
        holder, stale = await client.run_on_scheduler(
            _claim_on_scheduler(self._plugin, client.id))
        if holder:
            raise RunOnCluster(
                f"another driver (Dask client {holder}) is playing {self.plan.run or 'this run'}"
                f" on the cluster {self.address}")
        for name in stale:
            with contextlib.suppress(ValueError):  # another driver unregistered it first
                await client.unregister_worker_plugin(name)

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        try:
            await client.unregister_worker_plugin(self._plugin)
            await client.run_on_scheduler(_release_on_scheduler(self._plugin, client.id))
        finally:
            await client.close()

    async def play(self, chunk: Chunk) -> ChunkResult:
        """Play `chunk` as a task on some worker of the cluster."""
        if self._client is None:
            raise RuntimeError("the cluster is not connected")
        future = self._client.submit(play_chunk, chunk, self._plugin, pure=False)
        try:
            played: bytes = await future
        finally:
            future.release()
        # Off the event loop, as a local pool's results are: on a driver beside its
        # scheduler, the loop serves the scheduler too.
        result: ChunkResult = await asyncio.to_thread(pickle.loads, played)
        return result

