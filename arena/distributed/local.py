"""Worker processes on this machine: `arena tournament run NAME --workers N`.

`LocalWorkers` starts N processes (spawned, not forked: the driver runs gRPC
threads), each with a `WorkerHost` of its own — a match server on a private
loopback port and its own copies of the managed bots, their logs in
``LOG_DIR/worker-I``. Each process plays one chunk at a time. A worker that
dies breaks the pool: the run says which died and how, and stops with a
`WorkersFailed` naming the logs; its unrecorded games stay pending, and running
the tournament again resumes it. On Linux a worker asks
to be killed when the driver dies (its bots then die with it), so a driver
killed with SIGKILL leaves no worker behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.queues import Queue
from multiprocessing.util import Finalize
from pathlib import Path
from types import TracebackType
from typing import Any

from arena.distributed.host import BOT_WAIT, WorkerHost, isolation_of
from arena.logs import LogSettings, follow, settings
from arena.tournament.chunked import (
    Chunk,
    ChunkResult,
    PoolEvent,
    PoolNews,
    WorkerPlan,
    WorkersFailed,
    said_if_slow,
)

PR_SET_PDEATHSIG = 1

EXIT_WAIT = 2.0
"""Seconds a broken pool's processes are given to be reaped before their ends are said."""

ABANDON_POLL = 0.1
"""Seconds between a worker's looks at whether its run has stopped."""

_log = logging.getLogger("arena.worker")

_host: WorkerHost | None = None
"""The worker process's host, started by `_start_host`."""


class LocalWorkers:
    """A pool of `workers` local worker processes for one run (an async context manager).

    With `cpus`, worker I is pinned to the cores `cpus[I]` (its server and its bots
    together: the bots inherit the pinning), for measuring throughput per core.
    """

    def __init__(self, plan: WorkerPlan, workers: int,
                 cpus: Sequence[frozenset[int]] | None = None, *,
                 say: PoolNews | Callable[[str], None] | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers: must be at least 1, got {workers}")
        if cpus is not None and len(cpus) != workers:
            raise ValueError(f"cpus: one set of cores per worker, got {len(cpus)} for {workers}")
        self.plan = plan
        self._workers = workers
        self._cpus = cpus
        self._executor: ProcessPoolExecutor | None = None
        self.say = say if isinstance(say, PoolNews) else PoolNews(plan.run, say)
        self._said_lost = False
        self._saying_lost = threading.Lock()
        self._processes: dict[int, Any] = {}
        self._abandon: Any = multiprocessing.get_context("spawn").RawValue(ctypes.c_bool, False)
        """Set once the run stops, read by each worker (no lock: a worker killed while it
        holds one would hang the driver)."""

    @property
    def size(self) -> int:
        """How many worker processes the pool has."""
        return self._workers

    async def __aenter__(self) -> LocalWorkers:
        context = multiprocessing.get_context("spawn")
        slots: Queue[tuple[int, frozenset[int] | None]] = context.Queue()
        for index in range(self._workers):
            slots.put((index, None if self._cpus is None else self._cpus[index]))
        self._executor = ProcessPoolExecutor(
            self._workers, mp_context=context, initializer=_start_host,
            initargs=(self.plan, slots, os.getpid(), settings(), self._abandon))
        try:
            # One call per worker spawns them all, and a worker that cannot start its
            # bots fails the run here, before the first chunk.
            await said_if_slow(
                asyncio.gather(*(self._on_executor(_ready) for _ in range(self._workers))),
                f"starting {self._workers} worker processes, each with its own match server "
                f"and bots (a bot has up to {BOT_WAIT:g} s to connect)", self.say)
        except BaseException:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
            raise
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            # A run that stopped (Ctrl-C, SIGTERM, an error) waits for no chunk in play:
            # its games stay pending and are played first next time.
            self._abandon.value = True
            await asyncio.to_thread(executor.shutdown, True, cancel_futures=True)

    async def play(self, chunk: Chunk) -> ChunkResult:
        """Play `chunk` on the next free worker process."""
        return await self._on_executor(_play, chunk)

    async def _on_executor(self, function: object, *args: object) -> ChunkResult:
        executor = self._executor
        if executor is None:
            raise RuntimeError("the worker pool is not started")
        loop = asyncio.get_running_loop()
        try:
            running: asyncio.Future[ChunkResult] = loop.run_in_executor(
                executor, function, *args)  # type: ignore[arg-type]
            # A submission may spawn a worker process: kept to say how it ended.
            self._processes.update(getattr(executor, "_processes", None) or {})
            result: ChunkResult = await running
        except BrokenProcessPool:
            raise WorkersFailed(await asyncio.to_thread(self._lost, executor)) from None
        return result

    def _lost(self, executor: ProcessPoolExecutor) -> str:
        """Say (once) which worker processes died and how; what the run's error says."""
        processes = {**self._processes, **(getattr(executor, "_processes", None) or {})}
        # The broken pool's own thread reaps the processes as it terminates them; one it
        # is reaping reads as running until it has: asked again for a moment.
        deadline = time.monotonic() + EXIT_WAIT
        while any(process.exitcode is None for process in processes.values()) \
                and time.monotonic() < deadline:
            time.sleep(0.02)
        dead = sorted((process.pid, process.exitcode) for process in processes.values()
                      if process.exitcode not in (None, 0))
        # The pool terminates the others once one died: name the one that did first.
        first = [(pid, code) for pid, code in dead if code != -signal.SIGTERM]
        dead = first or dead
        which = ", ".join(f"pid {pid} ({_exit_text(code)})" for pid, code in dead)
        what = f"a worker process died: {which}" if dead else "a worker process died"
        with self._saying_lost:
            said, self._said_lost = self._said_lost, True
        if not said:
            self.say(f"{what}; the chunks out are abandoned", PoolEvent.WORKER_DIED)
        return (f"{what} (killed, or out of memory?); bot logs in "
                f"{self.plan.log_dir}/worker-*")


def _exit_text(code: int | None) -> str:
    """A process's exit code in words: "killed by SIGKILL", "exit code 3"."""
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


def _start_host(plan: WorkerPlan, slots: Queue[tuple[int, frozenset[int] | None]],
                driver: int, logs: LogSettings | None = None,
                abandon: Any = None) -> None:
    """In a worker process: die with the `driver` process, log as it does (`logs`), take
    a slot, pin to its cores, start the host; give up its chunks once `abandon` is set."""
    global _host
    _die_with_parent(driver)
    follow(logs)
    index, cpus = slots.get()
    if cpus is not None:
        os.sched_setaffinity(0, cpus)
    host = WorkerHost(plan.bots, Path(plan.log_dir) / f"worker-{index}", folders=plan.folders,
                      isolation=isolation_of(plan.isolation), read_only=plan.read_only)
    host.start()
    _host = host
    Finalize(host, host.stop, exitpriority=10)
    if abandon is not None:
        threading.Thread(target=_abandon_when_set, args=(abandon, host), daemon=True,
                         name="arena-worker-abandon").start()
    _log.info("worker %d started for %s", index, plan.run,
              extra={"run": plan.run, "worker": index, "pid": os.getpid(),
                     "bots": [name for name, _ in plan.bots]})


def _abandon_when_set(abandon: Any, host: WorkerHost) -> None:
    """In a worker process: abandon `host`'s chunks once the driver sets `abandon`."""
    while not abandon.value:
        time.sleep(ABANDON_POLL)
    _log.info("the run stopped: chunks in play abandoned", extra={"pid": os.getpid()})
    host.abandon()


def _die_with_parent(parent: int) -> None:
    """Ask Linux for SIGKILL when the parent process dies; exit if it is gone already."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def _ready() -> ChunkResult:
    """In a worker process: answer once the host is started (the initializer ran)."""
    return ChunkResult((), 0.0)


def _play(chunk: Chunk) -> ChunkResult:
    """In a worker process: play `chunk` on its host."""
    if _host is None:
        raise RuntimeError("this worker process has no host")
    result = _host.play(chunk)
    _log.info("chunk of %d games played", len(result.games), extra={
        "run": chunk.tournament, "pid": os.getpid(), "games": len(result.games),
        "seconds": round(result.seconds, 3)})
    return result
