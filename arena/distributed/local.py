"""Worker processes on this machine: `arena tournament run NAME --workers N`.

`LocalWorkers` starts N processes (spawned, not forked: the driver runs gRPC
threads), each with a `WorkerHost` of its own — a match server on a private
loopback port and its own copies of the managed bots, their logs in
``LOG_DIR/worker-I``. Each process plays one chunk at a time. A worker that
dies breaks the pool: the run stops with the error, its unrecorded games stay
pending, and running the tournament again resumes it. On Linux a worker asks
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
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.queues import Queue
from multiprocessing.util import Finalize
from pathlib import Path
from types import TracebackType

from arena.distributed.host import WorkerHost, isolation_of
from arena.logs import LogSettings, follow, settings
from arena.tournament.chunked import Chunk, ChunkResult, WorkerPlan

PR_SET_PDEATHSIG = 1

_log = logging.getLogger("arena.worker")

_host: WorkerHost | None = None
"""The worker process's host, started by `_start_host`."""


class LocalWorkers:
    """A pool of `workers` local worker processes for one run (an async context manager).

    With `cpus`, worker I is pinned to the cores `cpus[I]` (its server and its bots
    together: the bots inherit the pinning), for measuring throughput per core.
    """

    def __init__(self, plan: WorkerPlan, workers: int,
                 cpus: Sequence[frozenset[int]] | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers: must be at least 1, got {workers}")
        if cpus is not None and len(cpus) != workers:
            raise ValueError(f"cpus: one set of cores per worker, got {len(cpus)} for {workers}")
        self.plan = plan
        self._workers = workers
        self._cpus = cpus
        self._executor: ProcessPoolExecutor | None = None

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
            initargs=(self.plan, slots, os.getpid(), settings()))
        try:
            # One call per worker spawns them all, and a worker that cannot start its
            # bots fails the run here, before the first chunk.
            await asyncio.gather(*(self._on_executor(_ready) for _ in range(self._workers)))
        except BaseException:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
            raise
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, True, cancel_futures=True)

    async def play(self, chunk: Chunk) -> ChunkResult:
        """Play `chunk` on the next free worker process."""
        return await self._on_executor(_play, chunk)

    async def _on_executor(self, function: object, *args: object) -> ChunkResult:
        if self._executor is None:
            raise RuntimeError("the worker pool is not started")
        loop = asyncio.get_running_loop()
        result: ChunkResult = await loop.run_in_executor(self._executor, function, *args)  # type: ignore[arg-type]
        return result


def _start_host(plan: WorkerPlan, slots: Queue[tuple[int, frozenset[int] | None]],
                driver: int, logs: LogSettings | None = None) -> None:
    """In a worker process: die with the `driver` process, log as it does (`logs`), take
    a slot, pin to its cores, start the host."""
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
    _log.info("worker %d started for %s", index, plan.run,
              extra={"run": plan.run, "worker": index, "pid": os.getpid(),
                     "bots": [name for name, _ in plan.bots]})


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
