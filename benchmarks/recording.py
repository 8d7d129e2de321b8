"""Recording benchmark: the driver's recording ceiling, SQLite against PostgreSQL.

However many workers play, the driver alone records: each finished game goes
through `Store.record_game`, which in one transaction stores the game with its
replay log, marks its scheduled game done and rates it with TrueSkill in its two
pools (the tournament's and its rule set's). Games/s of that alone, with no play
at all, is the most games a tournament can finish per second on that store.

The games are played once beforehand with arena's engine (four seats, single
hands, random plays drawing only when forced: some 60 decisions a hand, as bots
that try to win play), so each record carries a real replay log; then a
round-robin schedule of them is recorded back to back into a fresh store. The
PostgreSQL figures use a throwaway local cluster at PostgreSQL's default durability
(every commit flushed), or the database named by `ARENA_BENCH_POSTGRES`, in schemas
of the benchmark's own that it drops afterwards; the second PostgreSQL figure turns
`synchronous_commit` off for its sessions, which, like SQLite's `synchronous=NORMAL`
in WAL mode, lets a power cut undo the latest commits but never half of one.
"""

from __future__ import annotations

import functools
import os
import random
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.engine import Game, RuleSet
from arena.engine.outcome import Outcome
from arena.record import SeatTermination
from arena.store import BotKind, Store
from arena.store.backend import Target
from arena.wire import action_to_dict, event_to_dict
from benchmarks.engine import forced_draw
from benchmarks.stats import median

RULES = RuleSet(target_score=None)
SEATS = ("rec-a", "rec-b", "rec-c", "rec-d")
POSTGRES_VARIABLE = "ARENA_BENCH_POSTGRES"
"""A PostgreSQL URL to measure on instead of a throwaway local cluster."""
MEDIAN = True


@dataclass(frozen=True)
class _Entry:
    round: int
    table: int
    game_index: int
    seats: tuple[str, ...]
    seed: int
    teams: None = None


@dataclass(frozen=True)
class _Played:
    seed: int
    outcome: Outcome
    events: list[dict[str, Any]]
    actions: list[Any]


@functools.cache
def _played(games: int) -> tuple[_Played, ...]:
    """`games` single hands, played once and kept for every run that records them."""
    return tuple(_play(seed) for seed in range(games))


def _play(seed: int) -> _Played:
    rng = random.Random(seed)
    game = Game.new(RULES, len(SEATS), seed)
    events: list[dict[str, Any]] = []
    actions: list[Any] = []
    while game.outcome is None:
        action = forced_draw(rng, game.legal_actions())
        actions.append(action_to_dict(action))
        events.extend(event_to_dict(event) for event in game.apply(action))
    return _Played(seed, game.outcome, events, actions)


def recording_ceiling(store_url: Target, games: int) -> float:
    """Games/s that `record_game` (with its TrueSkill updates) absorbs on the store at
    `store_url` (a file path or a PostgreSQL URL, holding no arena data yet), recording
    `games` scheduled four-seat games back to back with no play at all."""
    played = _played(games)
    now = datetime.now(UTC)
    with Store.open(store_url) as store:
        for name in SEATS:
            store.add_bot(name, BotKind.REMOTE)
        rotations = [SEATS[i:] + SEATS[:i] for i in range(len(SEATS))]
        entries = [_Entry(i + 1, 1, i, rotations[i % len(rotations)], game.seed)
                   for i, game in enumerate(played)]
        store.create_tournament("ceiling", "round_robin", {}, RULES.to_dict(), entries)
        scheduled = store.pending_games("ceiling")
        start = time.perf_counter()
        for game, result in zip(scheduled, played, strict=True):
            store.record_game(
                seats=game.seats, seed=game.seed, rules=RULES.to_dict(),
                outcome=result.outcome, seat_terminations=[SeatTermination.NORMAL] * 4,
                events=result.events, actions=result.actions, started_at=now,
                finished_at=now, scheduled_game_id=game.id)
        return games / (time.perf_counter() - start)


@contextmanager
def postgres_databases() -> Iterator[Callable[[], str] | None]:
    """A maker of new, empty PostgreSQL databases to measure on: schemas of their own in
    `ARENA_BENCH_POSTGRES` (dropped after), else in a throwaway local cluster at
    PostgreSQL's default durability; None when there is no PostgreSQL server to start."""
    url = os.environ.get(POSTGRES_VARIABLE)
    if url:
        with _schemas_in(url) as fresh:
            yield fresh
        return
    from tests.postgres_support import PostgresCluster, server_binaries

    binaries = server_binaries()
    if binaries is None:
        yield None
        return
    cluster = PostgresCluster(binaries, durable=True)
    try:
        cluster.start()
        yield cluster.fresh_database
    finally:
        cluster.stop()


@contextmanager
def _schemas_in(url: str) -> Iterator[Callable[[], str]]:
    import psycopg

    made: list[str] = []
    separator = "&" if "?" in url else "?"
    with psycopg.connect(url, autocommit=True) as admin:
        def fresh() -> str:
            made.append(f"arena_bench_{os.getpid()}_{len(made)}")
            admin.execute(f'CREATE SCHEMA "{made[-1]}"')
            return f"{url}{separator}options=-csearch_path%3D{made[-1]}"
        try:
            yield fresh
        finally:
            for schema in made:
                admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


def run(repeats: int, scale: float) -> list[dict[str, object]]:
    """Median games/s of the recording ceiling on SQLite and on PostgreSQL."""
    games = max(20, int(1000 * scale))
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        sqlite = [recording_ceiling(Path(tmp) / f"ceiling-{n}.db", games)
                  for n in range(repeats)]
    rows: list[dict[str, object]] = [
        _row("SQLite file (WAL, synchronous=NORMAL)", games, sqlite)]
    with postgres_databases() as fresh:
        if fresh is None:
            rows.append({"store": "PostgreSQL: no server binaries (initdb) found",
                         "games": games})
            return rows
        postgres = [recording_ceiling(fresh(), games) for _ in range(repeats)]
        # Each URL ends in its `options`: one more setting goes on the end.
        relaxed = [recording_ceiling(fresh() + "%20-csynchronous_commit%3Doff", games)
                   for _ in range(repeats)]
    rows.append(_row("PostgreSQL, local TCP (synchronous_commit=on)", games, postgres))
    rows.append(_row("PostgreSQL, local TCP (synchronous_commit=off)", games, relaxed))
    return rows


def _row(store: str, games: int, rates: list[float]) -> dict[str, object]:
    return {"store": store, "games": games, "record_game games/s": round(median(rates), 1),
            "ms/game": round(1000 / median(rates), 2)}
