"""What operators watch: Prometheus metrics of one arena process, and its health.

A `Metrics` holds the counters, histograms and gauges of one process in a
`CollectorRegistry` of its own (never the library's global one), and is told of
what happens by small hooks: a game recorded (`game_recorded`, from the store: every
game a driver records, whoever played it, so the numbers of worker processes and
Dask workers reach the driver with their finished games), a build ended, a managed
bot's process ended by a signal. What is *now* — bots connected, tables in play, the
schedule queue, the store's reconnects — is read when Prometheus scrapes
(`watch_server`, `watch_runs`, `watch_store`), from the scraping thread, without
locking anything of the event loop's.

`MetricsServer` serves `/metrics` over HTTP beside `/healthz` (the process answers)
and `/readyz` (it can record: its store takes a write). Counting never changes what
arena does: the hooks only add to counters, and the store logs and forgets a record
listener that fails.
"""

from __future__ import annotations

import collections
import json
import logging
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import CollectorRegistry, Counter, Histogram, make_wsgi_app
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import ThreadingWSGIServer
from prometheus_client.registry import Collector

from arena.record import Decision, DecisionOutcome

if TYPE_CHECKING:
    from wsgiref.types import StartResponse, WSGIEnvironment

_log = logging.getLogger("arena.metrics")

DECISION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                    10.0, 30.0)
"""Upper bounds, in seconds, of the decision-latency histogram's buckets."""

RECORDING_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
                     2.5, 5.0, 10.0)
"""Upper bounds, in seconds, of the recording-latency histogram's buckets."""

FAULT_KINDS = frozenset({DecisionOutcome.TIMEOUT, DecisionOutcome.ILLEGAL,
                         DecisionOutcome.MALFORMED, DecisionOutcome.DISCONNECT,
                         DecisionOutcome.CRASH})
"""The decision outcomes that are a bot's fault."""


class Metrics:
    """The metrics of one arena process, in `registry` (a new one by default)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        """Where the metrics are registered; `MetricsServer` serves it."""
        r = self.registry
        self.games_recorded = Counter(
            "arena_games_recorded_total", "Games recorded by this process (as driver).",
            registry=r)
        self.decisions = Counter(
            "arena_decisions_total",
            "Decisions seats owed in recorded games, by bot and outcome "
            "(answered, auto, or a fault).", ["bot", "outcome"], registry=r)
        self.decision_seconds = Histogram(
            "arena_decision_seconds",
            "Time a bot took to answer a decision (answered in time; recorded games).",
            ["bot"], buckets=DECISION_BUCKETS, registry=r)
        self.faults = Counter(
            "arena_faults_total",
            "Decisions that were a bot's fault (timeout, illegal, malformed, disconnect, "
            "crash), by bot and kind.", ["bot", "kind"], registry=r)
        self.recording_seconds = Histogram(
            "arena_recording_seconds",
            "Time to record one finished game with its rating update (one transaction).",
            buckets=RECORDING_BUCKETS, registry=r)
        self.builds = Counter(
            "arena_builds_total", "Builds of submitted versions, by outcome "
            "(ok, failed, timed_out, not_run).", ["outcome"], registry=r)
        self.sandbox_kills = Counter(
            "arena_sandbox_kills_total",
            "Managed bot processes ended by a signal arena did not send (a sandbox limit: "
            "memory, CPU time, file size), by bot and signal.", ["bot", "signal"],
            registry=r)
        self.worker_events = Counter(
            "arena_worker_events_total",
            "What happened to the workers of this process's runs, by event (worker_died, "
            "worker_left, worker_joined, chunk_replayed, scheduler_lost, scheduler_back).",
            ["event"], registry=r)
        self._now = _Now()
        r.register(self._now)

    # ------------------------------------------------------------------ hooks

    def game_recorded(self, seats: Sequence[str], decisions: Sequence[Decision] | None,
                      seconds: float) -> None:
        """Count a game recorded in `seconds`, with its `decisions` (seat i is bot
        `seats[i]`)."""
        self.games_recorded.inc()
        self.recording_seconds.observe(seconds)
        counts: collections.Counter[tuple[int, DecisionOutcome]] = collections.Counter()
        answers: dict[int, list[float]] = {}
        for decision in decisions or ():
            counts[decision.seat, decision.outcome] += 1
            if decision.outcome is DecisionOutcome.ANSWERED:
                answers.setdefault(decision.seat, []).append(decision.elapsed_ms / 1000)
        for (seat, outcome), count in counts.items():
            bot = _bot(seats, seat)
            self.decisions.labels(bot, outcome.value).inc(count)
            if outcome in FAULT_KINDS:
                self.faults.labels(bot, outcome.value).inc(count)
        for seat, times in answers.items():
            latency = self.decision_seconds.labels(_bot(seats, seat))
            for elapsed in times:
                latency.observe(elapsed)

    def build_ended(self, outcome: str) -> None:
        """Count a build that ended as `outcome` (ok, failed, timed_out, not_run)."""
        self.builds.labels(outcome).inc()

    def worker_event(self, event: str) -> None:
        """Count `event`, a `PoolEvent` of a run's workers."""
        self.worker_events.labels(str(event)).inc()

    def bot_exited(self, bot: str, code: int) -> None:
        """Hear that managed bot `bot`'s process exited on its own with `code`: killed by
        a signal (arena's own stop never calls this) when the code is negative, or, as a
        sandbox reports its command's death, 128 plus the signal's number."""
        killed_by = -code if code < 0 else code - 128 if code > 128 else 0
        if killed_by > 0:
            self.sandbox_kills.labels(bot, _signal_name(killed_by)).inc()

    # ------------------------------------------------------------- watching

    def watch_server(self, server: WatchedServer) -> None:
        """Report the bots connected to `server` (a match server) at each scrape."""
        if server not in self._now.servers:
            self._now.servers.append(server)

    def watch_runs(self, runs: Callable[[], Sequence[LiveRun]]) -> None:
        """Report the tables in play and the schedule queue of the runs `runs()` gives
        at each scrape (`arena.tournament.runner.live_runs`)."""
        if runs not in self._now.runs:
            self._now.runs.append(runs)

    def watch_store(self, store: WatchedStore) -> None:
        """Count the games `store` records and its reconnects."""
        if store not in self._now.stores:
            self._now.stores.append(store)
            store.record_listeners.append(self.game_recorded)


RecordListener = Callable[[Sequence[str], Sequence[Decision] | None, float], None]
"""Told of each game a store records: its seats (bot names), its decisions, and the
seconds the recording took."""


class WatchedServer(Protocol):
    """What `Metrics.watch_server` reads of a match server (`ArenaServer` is one)."""

    def connected_bots(self) -> list[str]:
        """The names of the bots connected now."""


class WatchedStore(Protocol):
    """What `Metrics.watch_store` reads of a store (`arena.store.Store` is one)."""

    record_listeners: list[RecordListener]
    reconnects: int


class LiveRun(Protocol):
    """A run going on in this process, as `Metrics.watch_runs` reads it."""

    @property
    def run(self) -> str:
        """The tournament's or ladder's name."""

    @property
    def in_play(self) -> int:
        """Games started and not yet recorded."""

    @property
    def queued(self) -> int:
        """Games yet to start."""


class _Now(Collector):
    """The gauges read at each scrape: bots connected, the runs' tables and queues,
    and the store reconnects."""

    def __init__(self) -> None:
        self.servers: list[WatchedServer] = []
        self.stores: list[WatchedStore] = []
        self.runs: list[Callable[[], Sequence[LiveRun]]] = []

    def collect(self) -> Iterable[Any]:
        bots = GaugeMetricFamily("arena_bots_connected",
                                 "Bots connected to this process's match server now.")
        nobody: list[str] = []
        connected = {b for s in self.servers for b in _read(s.connected_bots, nobody)}
        bots.add_metric([], float(len(connected)))
        yield bots
        tables = GaugeMetricFamily(
            "arena_tables_in_play", "Games a run of this process has started and not yet "
            "recorded (on this server or on workers), by run.", labels=["run"])
        queue = GaugeMetricFamily(
            "arena_schedule_queue_games", "Scheduled games a run of this process has yet "
            "to start, by run.", labels=["run"])
        by_run: dict[str, list[int]] = {}
        none: Sequence[LiveRun] = ()
        runs = [run for source in self.runs for run in _read(source, none)]
        for run in runs:
            seen = by_run.setdefault(run.run, [0, 0])
            seen[0] += run.in_play
            seen[1] += run.queued
        for name, (in_play, queued) in sorted(by_run.items()):
            tables.add_metric([name], float(in_play))
            queue.add_metric([name], float(queued))
        yield tables
        yield queue
        reconnects = CounterMetricFamily(
            "arena_store_reconnects", "Times the store reconnected to its database after "
            "losing its connection.")
        reconnects.add_metric([], float(sum(s.reconnects for s in self.stores)))
        yield reconnects

    def describe(self) -> Iterable[Any]:
        return []


T = TypeVar("T")


def _read(look: Callable[[], T], default: T) -> T:
    """What `look()` gives, read from the scraping thread while the event loop may be
    changing it: tried again when a collection changed size under it, `default` after
    three tries."""
    for _ in range(3):
        try:
            return look()
        except RuntimeError:  # "... changed size during iteration"
            continue
    return default


def _bot(seats: Sequence[str], seat: int) -> str:
    return seats[seat] if seat < len(seats) else "?"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


# ------------------------------------------------------------------- serving

Readiness = Callable[[], str | None]
"""Says why the process cannot record now (None: it can)."""


class MetricsServer:
    """`/metrics`, `/healthz` and `/readyz` over HTTP on `host`:`port` (0: a free port),
    in a thread of its own, from `start` to `stop`.

    `/healthz` answers 200 while the process serves; `/readyz` answers 200 when
    `ready()` says the process can record, 503 with the reason otherwise (both as a
    small JSON document).
    """

    def __init__(self, metrics: Metrics, host: str, port: int,
                 ready: Readiness | None = None) -> None:
        self.metrics = metrics
        self.host = host
        self.requested_port = port
        self.ready = ready
        self._server: ThreadingWSGIServer | None = None
        self._thread: threading.Thread | None = None
        self._exposition = make_wsgi_app(metrics.registry)

    @property
    def port(self) -> int:
        """The port it listens on (after `start`)."""
        assert self._server is not None, "the metrics server is not started"
        return int(self._server.server_address[1])

    def start(self) -> MetricsServer:
        """Listen and serve in a daemon thread; `OSError` when the address cannot be had."""
        self._server = make_server(self.host, self.requested_port, self._app,
                                   ThreadingWSGIServer, handler_class=_QuietHandler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="arena-metrics", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the port."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def __enter__(self) -> MetricsServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _app(self, environ: WSGIEnvironment, start_response: StartResponse
             ) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/healthz":
            return _json(start_response, 200, {"status": "ok"})
        if path == "/readyz":
            why = self._not_ready()
            if why is None:
                return _json(start_response, 200, {"status": "ready"})
            return _json(start_response, 503, {"status": "not ready", "reason": why})
        return self._exposition(environ, start_response)  # type: ignore[no-any-return]

    def _not_ready(self) -> str | None:
        if self.ready is None:
            return None
        try:
            return self.ready()
        except Exception as exc:  # a failing check is an answer: not ready
            return f"{type(exc).__name__}: {exc}"


def _json(start_response: StartResponse, status: int, body: dict[str, str]
          ) -> Iterator[bytes]:
    text = json.dumps(body).encode()
    reason = {200: "OK", 503: "Service Unavailable"}[status]
    start_response(f"{status} {reason}", [("Content-Type", "application/json"),
                                          ("Content-Length", str(len(text)))])
    yield text


class _QuietHandler(WSGIRequestHandler):
    """Requests go to the `arena.metrics` logger at debug level, not to stderr."""

    def log_message(self, format: str, *args: Any) -> None:
        _log.debug("metrics request: " + format, *args)
