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

Nothing is silent: the driver says (through the pool's `say`) when it waits for a
first worker, and gives up after its `wait`; where the cluster's dashboard is, or
how to get one; when a worker leaves or joins, when a chunk is played again because
its worker left, and when the connection to the scheduler is lost and comes back.
The bots' logs come back with every chunk and at the end (`arena.distributed.logs`)
into the driver's log folder. Every task's key names the run and the games it plays.

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
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar

import distributed
from distributed import Client, WorkerPlugin

from arena.distributed.host import BOT_WAIT, WorkerHost, isolation_of
from arena.distributed.logs import LogShipper, LogText, keep_logs, worker_folder
from arena.logs import configure_from_env
from arena.tournament.chunked import (
    WORKER_WAIT,
    Chunk,
    ChunkResult,
    PoolEvent,
    PoolNews,
    WorkerPlan,
    WorkersFailed,
    said_if_slow,
)

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
        log_dir = _worker_log_dir(worker, plugin_name(self.plan))
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
    `ChunkResult` with the worker's log folder name and what its bots logged meanwhile
    (`collect_logs`), pickled here, in the task's thread. Handed bytes, Dask sends them
    as they are; handed the games, its worker's event loop would also walk every event
    log to estimate their size (`dask.sizeof`) on the core the bots play on."""
    worker = distributed.get_worker()
    owner = worker.plugins.get(plugin)
    if not isinstance(owner, ArenaWorkerPlugin) or owner.host is None:
        raise RuntimeError(f"worker {worker.address} has no arena host (plugin {plugin})")
    result = owner.host.play(chunk)
    return pickle.dumps((result, *collect_logs(plugin, worker)),
                        protocol=pickle.HIGHEST_PROTOCOL)


_shippers: dict[str, LogShipper] = {}
"""The log readers of this worker process, by folder: one per run, whichever plugin
instance of the run reads."""


def _worker_log_dir(worker: Any, plugin: str) -> Path:
    """Where the bots of run `plugin` write their logs on `worker`."""
    return Path(worker.local_directory) / "arena-logs" / plugin


def collect_logs(plugin: str, dask_worker: Any = None) -> tuple[str, tuple[LogText, ...]]:
    """On a worker (a task, or `Client.run`): the name of its folder in the driver's log
    folder, and what the bots of run `plugin` logged there since it last said."""
    worker = dask_worker if dask_worker is not None else distributed.get_worker()
    folder = _worker_log_dir(worker, plugin)
    shipper = _shippers.setdefault(str(folder), LogShipper(folder))
    return worker_folder(worker.name), shipper.new_text()


def chunk_key(run: str, chunk: Chunk) -> str:
    """The Dask key of the task playing `chunk` of `run`: the run and the games by name
    (what the dashboard shows), unique by a random suffix."""
    readable = re.sub(r"[^A-Za-z0-9_.]+", "_", run)[:40] or "run"
    indexes = [game.game_index for game in chunk.games]
    games = f"{min(indexes)}-{max(indexes)}" if indexes else "none"
    return f"arena-{readable}-games-{games}-{uuid.uuid4().hex[:12]}"


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


WATCH_EVERY = 1.0
"""Seconds between two looks at the cluster's workers and at the chunks they play."""

RECONNECT_WAIT = 120.0
"""Seconds a run waits for a scheduler it lost to be back (Dask's client tries for
``distributed.comm.timeouts.connect`` at a time; this bounds the whole wait)."""

WAITING_EVERY = 30.0
"""Seconds between two lines saying the run still waits for a first worker."""


def _cluster_state(keys: list[str]) -> Callable[..., tuple[dict[str, str], dict[str, int]]]:
    """A function for the scheduler: its running workers (address: name) and, for each of
    `keys`, how many of the workers that played it died (Dask then plays it again). Made
    here to travel by value (see `_claim_on_scheduler`)."""
    def look(dask_scheduler: Any) -> tuple[dict[str, str], dict[str, int]]:
        workers = {address: str(state.name) for address, state in dask_scheduler.workers.items()
                   if getattr(state.status, "name", "running") == "running"}
        lost = {}
        for key in keys:
            task = dask_scheduler.tasks.get(key)
            if task is not None:
                lost[key] = int(getattr(task, "suspicious", 0))
        return workers, lost

    return look


def _dashboard_on_scheduler() -> Callable[..., dict[str, Any]]:
    """A function for the scheduler: where its HTTP server listens, whether it serves the
    dashboard, whether bokeh is there, and the port its command line asked for (None
    when the scheduler was not started by ``dask scheduler``)."""
    def look(dask_scheduler: Any) -> dict[str, Any]:
        import importlib.util
        import sys

        server = getattr(dask_scheduler, "http_server", None)
        application = getattr(dask_scheduler, "http_application", None)
        dashboard = any(type(app).__name__ == "DaskBokehTornado"
                        for app in getattr(application, "applications", ()))
        asked: str | None = None
        argv = list(sys.argv)
        for index, word in enumerate(argv):
            if word == "--dashboard-address" and index + 1 < len(argv):
                asked = argv[index + 1]
            elif word.startswith("--dashboard-address="):
                asked = word.split("=", 1)[1]
        by_dask = "scheduler" in argv[1:2] or any(w.endswith("dask-scheduler") for w in argv[:1])
        if asked is None and by_dask:
            asked = ":8787"  # dask scheduler's default
        return {"host": getattr(server, "address", None), "port": getattr(server, "port", None),
                "dashboard": dashboard, "bokeh": importlib.util.find_spec("bokeh") is not None,
                "asked": asked}

    return look


def dashboard_line(seen: dict[str, Any]) -> str:
    """What the driver says of the cluster's dashboard, from `_dashboard_on_scheduler`."""
    if not seen.get("dashboard"):
        if not seen.get("bokeh"):
            return ("the cluster has no dashboard: bokeh is not installed beside its scheduler "
                    "(`pip install 'arena[cluster]'` there, then restart it with "
                    "--dashboard-address 127.0.0.1:8787)")
        return ("the cluster's dashboard is off: restart its scheduler with "
                "--dashboard-address 127.0.0.1:8787 (without --no-dashboard) to watch the run")
    host, port = seen.get("host") or "127.0.0.1", seen.get("port")
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    line = f"the cluster's dashboard: http://{shown}:{port}/status"
    asked = str(seen.get("asked") or "")
    asked_port = asked.rsplit(":", 1)[-1]
    if asked_port.isdigit() and int(asked_port) not in (0, port):
        line += (f" (port {asked_port} was taken, so the scheduler moved it to {port}: free "
                 f"{asked_port} or give the scheduler another --dashboard-address)")
    if host in ("0.0.0.0", "::", ""):
        line += (" — it listens on every interface: --dashboard-address 127.0.0.1:8787 keeps "
                 "it on loopback")
    return line


class _SchedulerLog(logging.Handler):
    """Turns what Dask logs in the driver as a warning or worse into lines said by the
    run, and keeps the rest off the terminal (a progress bar is drawn there): Dask's own
    handlers on its loggers are taken off while a run is on (the comm that closes under
    a lost scheduler would otherwise print its traceback there). The connection to the
    scheduler, lost and back, is said by the pool itself."""

    LOGGERS = ("distributed", "distributed.client")
    """The loggers Dask gives a handler of its own (the others propagate to the first)."""

    _active: ClassVar[list[_SchedulerLog]] = []
    _taken_off: ClassVar[dict[str, tuple[list[logging.Handler], bool]]] = {}

    def __init__(self, say: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.say = say

    def __enter__(self) -> _SchedulerLog:
        if not self._active:
            for name in self.LOGGERS:
                logger = logging.getLogger(name)
                self._taken_off[name] = (list(logger.handlers), logger.propagate)
                for handler in list(logger.handlers):
                    logger.removeHandler(handler)
                logger.propagate = name != self.LOGGERS[0]  # up to this handler, no further
        self._active.append(self)
        logging.getLogger(self.LOGGERS[0]).addHandler(self)
        return self

    def __exit__(self, *_: object) -> None:
        if self not in self._active:
            return
        self._active.remove(self)
        logging.getLogger(self.LOGGERS[0]).removeHandler(self)
        if not self._active:
            for name, (handlers, propagate) in self._taken_off.items():
                logger = logging.getLogger(name)
                for handler in handlers:
                    logger.addHandler(handler)
                logger.propagate = propagate
            self._taken_off.clear()

    def emit(self, record: logging.LogRecord) -> None:
        """Say the record's first line."""
        with contextlib.suppress(Exception):
            self.say(f"dask: {record.getMessage().splitlines()[0]}")


class DaskWorkers:
    """The workers of the Dask cluster at `address`, as a worker pool for one run (an async
    context manager). `security` is a `distributed.Security` (default: Dask's settings).
    It waits up to `wait` seconds for a first worker, and tells `say` what happens on
    the cluster (see the module)."""

    def __init__(self, plan: WorkerPlan, address: str, security: Any = None, *,
                 wait: float = WORKER_WAIT,
                 say: PoolNews | Callable[[str], None] | None = None) -> None:
        self.plan = plan
        self.address = address
        self.security = security
        self.wait = wait
        self.say = say if isinstance(say, PoolNews) else PoolNews(plan.run, say)
        self._client: Any = None
        self._plugin = plugin_name(plan)
        self._playing: dict[str, Chunk] = {}
        self._retries_said: dict[str, int] = {}
        """For each chunk out, how many of its workers' deaths were said."""
        """The chunks out, by task key."""
        self._watcher: asyncio.Task[None] | None = None
        self._log = _SchedulerLog(self.say)
        self.reconnect = RECONNECT_WAIT
        """Seconds a run waits for a lost scheduler to be back before it gives up."""
        self._lost_at: float | None = None
        """When the connection to the scheduler was lost (None: it is not)."""
        self._recovering = asyncio.Lock()
        self._generation = 0
        """How many times the run has come back after a lost connection."""

    @property
    def log_dir(self) -> Path:
        """The driver's folder the bots' logs are brought back to."""
        return Path(self.plan.log_dir)

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
        try:
            client = await _Client(self.address, asynchronous=True, **kwargs)
        except (OSError, TimeoutError) as exc:
            raise WorkersFailed(f"cannot reach the Dask scheduler at {self.address}: "
                                f"{_first_line(exc)}") from None
        self._log.__enter__()
        try:
            with contextlib.suppress(Exception):  # a courtesy: the run goes on without it
                self.say(dashboard_line(await client.run_on_scheduler(_dashboard_on_scheduler())))
            await self._wait_for_a_worker(client)
            await self._take_plugin_name(client)
            try:
                await said_if_slow(
                    client.register_plugin(ArenaWorkerPlugin(self.plan), name=self._plugin),
                    f"starting the run's match server and bots on every worker (a bot has up "
                    f"to {BOT_WAIT:g} s to connect)", self.say)
            except Exception as exc:
                await self._bring_logs(client)
                raise WorkersFailed(
                    f"the workers could not start the run's bots: {_first_line(exc)} "
                    f"(bot logs in {self.log_dir}/worker-*)") from None
        except BaseException:
            self._log.__exit__()
            await client.close()
            raise
        self._client = client
        self._watcher = asyncio.ensure_future(self._watch(client))
        return self

    async def _wait_for_a_worker(self, client: Any) -> None:
        """Return once the cluster has a worker; say so at once if it has none, again every
        `WAITING_EVERY` seconds, and give up after `wait` seconds."""
        started = time.monotonic()
        said = -WAITING_EVERY
        while True:
            workers, _ = await client.run_on_scheduler(_cluster_state([]))
            if workers:
                if said >= 0:
                    self.say(f"a worker joined the cluster at {self.address}; playing")
                return
            waited = time.monotonic() - started
            if waited >= self.wait:
                raise WorkersFailed(
                    f"no worker joined the cluster at {self.address} in {self.wait:g} s: "
                    f"start one (`dask worker {self.address} --nthreads 1`), or give "
                    "--wait more seconds")
            if waited - said >= WAITING_EVERY:
                said = waited
                self.say(f"waiting for a worker to join the cluster at {self.address} "
                         f"({waited:.0f} s of up to {self.wait:g} s; --wait sets how long)")
            await asyncio.sleep(min(0.2, max(0.0, self.wait - waited)))

    async def _watch(self, client: Any) -> None:
        """Say when a worker leaves or joins, when a chunk is played again because its
        worker left, and when the connection to the scheduler is lost and back."""
        known: dict[str, str] = {}
        first = True
        while True:
            if not self._connected(client):
                await asyncio.sleep(WATCH_EVERY / 4)
                first = True  # a new scheduler: its workers are not news
                continue
            try:
                workers, deaths = await client.run_on_scheduler(
                    _cluster_state(list(self._playing)))
            except Exception:  # the next look will tell
                await asyncio.sleep(WATCH_EVERY)
                continue
            if not first:
                self._say_changes(known, workers)
            first = False
            known = workers
            self._say_retries(deaths)
            await asyncio.sleep(WATCH_EVERY)

    def _say_retries(self, deaths: dict[str, int]) -> None:
        """Say, once per death, each chunk out that Dask plays again because a worker
        playing it died (`deaths`: the scheduler's count for each chunk's task)."""
        for key, count in sorted(deaths.items()):
            chunk = self._playing.get(key)
            if chunk is not None and count > self._retries_said.get(key, 0):
                self._retries_said[key] = count
                self.say(f"{_games_text(chunk)} are played again: the worker playing them "
                         f"died ({count} time(s))", PoolEvent.CHUNK_REPLAYED)

    def _connected(self, client: Any) -> bool:
        """Whether `client` is connected to the scheduler; say when the connection is lost
        and when it is back (once each, whoever notices first)."""
        if client.status == "running":
            if self._lost_at is not None:
                self._lost_at = None
                self.say(f"reconnected to the scheduler at {self.address}",
                         PoolEvent.SCHEDULER_BACK)
            return True
        if self._lost_at is None:
            self._lost_at = time.monotonic()
            self.say(f"lost the connection to the scheduler at {self.address}; reconnecting",
                     PoolEvent.SCHEDULER_LOST)
        return False

    async def _recover(self, client: Any, generation: int) -> None:
        """After the connection to the scheduler was lost while a chunk played: wait for it
        to come back (up to `reconnect` seconds), then for a worker, and register the run's
        plugin again on what may be a new scheduler (once for every chunk that was out);
        `WorkersFailed` if the scheduler does not come back."""
        async with self._recovering:
            if generation != self._generation:
                return  # another chunk's wait brought the run back
            while not self._connected(client):
                lost_at = self._lost_at if self._lost_at is not None else time.monotonic()
                if client.status in ("closing", "closed") or \
                        time.monotonic() - lost_at > self.reconnect:
                    raise WorkersFailed(
                        f"lost the connection to the scheduler at {self.address}, and it did "
                        "not come back in time (Dask's distributed.comm.timeouts.connect, "
                        f"at most {self.reconnect:g} s)")
                await asyncio.sleep(0.1)
            await self._wait_for_a_worker(client)
            await self._take_plugin_name(client)
            try:
                await client.register_plugin(ArenaWorkerPlugin(self.plan), name=self._plugin)
            except Exception as exc:
                raise WorkersFailed(
                    f"the workers could not start the run's bots again after the reconnect: "
                    f"{_first_line(exc)} (bot logs in {self.log_dir}/worker-*)") from None
            self._generation += 1

    def _say_changes(self, known: dict[str, str], workers: dict[str, str]) -> None:
        for address in sorted(set(known) - set(workers)):
            self.say(f"worker {_worker_text(known[address], address)} left the cluster; "
                     f"{len(workers)} worker(s) left", PoolEvent.WORKER_LEFT)
        if not known:
            return  # the first worker: said by the wait for it
        for address in sorted(set(workers) - set(known)):
            self.say(f"worker {_worker_text(workers[address], address)} joined the cluster; "
                     f"{len(workers)} worker(s) now", PoolEvent.WORKER_JOINED)

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

    async def _bring_logs(self, client: Any) -> None:
        """Bring what every worker's bots logged and the driver has not seen yet to the
        driver's log folder (a worker that cannot answer is skipped)."""
        try:
            async with asyncio.timeout(30):
                answers = await client.run(collect_logs, self._plugin, on_error="return")
        except Exception:
            return
        for answer in answers.values():
            if isinstance(answer, tuple) and len(answer) == 2:
                await asyncio.to_thread(keep_logs, self.log_dir, *answer)

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
        try:
            if client.status == "running":
                await self._bring_logs(client)
                await client.unregister_worker_plugin(self._plugin)
                await client.run_on_scheduler(_release_on_scheduler(self._plugin, client.id))
        finally:
            try:
                await client.close()
            finally:
                self._log.__exit__()

    async def play(self, chunk: Chunk) -> ChunkResult:
        """Play `chunk` as a task on some worker of the cluster; `WorkersFailed`, saying
        why, when it cannot be played."""
        client = self._client
        if client is None:
            raise RuntimeError("the cluster is not connected")
        while True:
            generation = self._generation
            played = await self._play_once(client, chunk)
            if played is not None:
                break
            await self._recover(client, generation)
            self.say(f"{_games_text(chunk)} are played again after the reconnect",
                     PoolEvent.CHUNK_REPLAYED)
        # Off the event loop, as a local pool's results are: on a driver beside its
        # scheduler, the loop serves the scheduler too.
        result, folder, logs = await asyncio.to_thread(pickle.loads, played)
        if logs:
            await asyncio.to_thread(keep_logs, self.log_dir, folder, logs)
        assert isinstance(result, ChunkResult)
        return result

    async def _play_once(self, client: Any, chunk: Chunk) -> bytes | None:
        """Play `chunk` as one task: what it sent back, or None when the connection to
        the scheduler was lost meanwhile (Dask then cancels every task of the client)."""
        key = chunk_key(self.plan.run, chunk)
        future = client.submit(play_chunk, chunk, self._plugin, pure=False, key=key)
        self._playing[key] = chunk
        try:
            played: bytes = await future
            # A chunk played again may come back before the watcher looks: asked once more.
            with contextlib.suppress(Exception):
                _, deaths = await client.run_on_scheduler(_cluster_state([key]))
                self._say_retries(deaths)
            return played
        except FutureCancelledError:
            if client.status in ("connecting", "running"):
                return None
            raise WorkersFailed(
                f"lost the connection to the scheduler at {self.address} while "
                f"{_games_text(chunk)} were played") from None
        except KilledWorker:
            raise WorkersFailed(
                f"every worker that played {_games_text(chunk)} died (Dask gives a chunk "
                f"up after that many); see the workers' logs, and the bot logs in "
                f"{self.log_dir}/worker-*") from None
        except Exception as exc:
            await self._bring_logs(client)
            raise WorkersFailed(
                f"a worker could not play {_games_text(chunk)}: {_first_line(exc)} "
                f"(bot logs in {self.log_dir}/worker-*)") from None
        finally:
            self._playing.pop(key, None)
            self._retries_said.pop(key, None)
            with contextlib.suppress(Exception):  # a client reconnecting forgot it already
                future.release()


FutureCancelledError: Any = distributed.client.FutureCancelledError
KilledWorker: Any = distributed.KilledWorker


def _worker_text(name: str, address: str) -> str:
    """A worker by name and address ("0 (tcp://10.0.0.6:40123)"), or by address alone
    when that is its name."""
    return address if name == address else f"{name} ({address})"


def _games_text(chunk: Chunk) -> str:
    """A chunk's games by their places in the schedule: "games 12-19 of spring"."""
    indexes = sorted(game.game_index for game in chunk.games)
    run = f" of {chunk.tournament}" if chunk.tournament else ""
    if not indexes:
        return f"no games{run}"
    if len(indexes) == 1:
        return f"game {indexes[0]}{run}"
    return f"games {indexes[0]}-{indexes[-1]}{run}"


def _first_line(exc: BaseException) -> str:
    """An error's message, first line only; its kind when it has none."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
