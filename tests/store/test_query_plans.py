"""Running a store for many callers: readers beside the writer, the plans of the queries a
large history makes slow, and the schema's status and migrations, on both backends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from arena.store import MIGRATIONS, NoDatabase, Store
from arena.store.status import database_status, migrate_database
from tests.postgres_support import BACKENDS, PostgresCluster
from tests.store.test_store import add_remote_bots, record

NEW_IN_10 = ("games_tournament", "pool_games_game")


@pytest.fixture(params=BACKENDS)
def empty_target(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a store that does not exist yet goes, once on each backend."""
    if request.param == "sqlite":
        return tmp_path / "arena.db"
    cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
    return cluster.fresh_database()


def _in_thread(call: Any) -> tuple[threading.Thread, list[Any]]:
    answer: list[Any] = []
    thread = threading.Thread(target=lambda: answer.append(call()), daemon=True)
    thread.start()
    return thread, answer


@contextmanager
def _writer_busy(store: Store) -> Iterator[None]:
    """Hold the store's writer in the middle of a write transaction (a game being
    recorded, say) for the block: a bot is added, and not yet committed."""
    with store._transaction() as conn:
        conn.execute("INSERT INTO bots (name, kind, token_hash, created_at)"
                     " VALUES ('uncommitted', 'remote', 'h', '2026-01-01T00:00:00+00:00')")
        yield


def test_readers_read_the_last_commit_while_the_writer_is_busy(
        store_target: Path | str) -> None:
    with Store.open(store_target, readers=2) as store:
        assert store.readers
        add_remote_bots(store, "alpha", "beta")
        game = record(store, ("alpha", "beta"))
        with _writer_busy(store):
            thread, answer = _in_thread(lambda: (
                [bot.name for bot in store.list_bots()], [g.id for g in store.games()],
                store.get_game(game.id).id, [r.bot for r in store.ratings()]))
            thread.join(10)
            assert not thread.is_alive(), "a reader waited for the writer"
        assert answer == [(["alpha", "beta"], [game.id], game.id, ["alpha", "beta"])] or \
            answer == [(["alpha", "beta"], [game.id], game.id, ["beta", "alpha"])]


def test_without_readers_a_read_waits_for_the_writer(store_target: Path | str) -> None:
    with Store.open(store_target) as store:
        assert not store.readers
        add_remote_bots(store, "alpha")
        with _writer_busy(store):
            thread, answer = _in_thread(lambda: [bot.name for bot in store.list_bots()])
            thread.join(0.5)
            assert thread.is_alive() and answer == []
        thread.join(10)
        assert answer == [["alpha", "uncommitted"]]


def test_a_reading_method_inside_a_write_sees_the_write(store_target: Path | str) -> None:
    with Store.open(store_target, readers=2) as store, _writer_busy(store):
        assert [bot.name for bot in store.list_bots()] == ["uncommitted"]


def test_a_reader_refuses_to_write(store_target: Path | str) -> None:
    with Store.open(store_target, readers=1) as store:
        assert store._readers is not None
        with store._readers.connection() as conn, pytest.raises(Exception, match="read.?only"):
            conn.execute("INSERT INTO bots (name, kind, token_hash, created_at)"
                         " VALUES ('x', 'remote', 'h', '2026-01-01T00:00:00+00:00')")
        assert store.list_bots() == []


def test_a_store_in_memory_or_read_as_it_stands_reads_through_its_one_connection() -> None:
    with Store.open(":memory:", readers=4) as store:
        assert not store.readers
        add_remote_bots(store, "alpha")
        assert [bot.name for bot in store.list_bots()] == ["alpha"]


def test_readers_recover_from_a_server_that_ended_their_sessions(
        postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.migrated_database()
    with Store.open(url, readers=2, reconnect_within=10) as store:
        add_remote_bots(store, "alpha")
        assert [bot.name for bot in store.list_bots()] == ["alpha"]
        assert postgres_cluster.end_sessions() >= 2
        assert [bot.name for bot in store.list_bots()] == ["alpha"]


def _record_statements(store: Store) -> list[tuple[str, tuple[Any, ...]]]:
    """Every statement the store's connections run from now on, with its parameters."""
    seen: list[tuple[str, tuple[Any, ...]]] = []
    writer = store._writer

    class Recording:
        def __getattr__(self, name: str) -> Any:
            return getattr(writer, name)

        def execute(self, sql: str, parameters: Any = (), /) -> Any:
            seen.append((sql, tuple(parameters)))
            return writer.execute(sql, parameters)

    store._writer = Recording()
    return seen


def _fill(store: Store, tournaments: int = 40, games: int = 8000) -> None:
    """A history large enough that a query without its index reads far too much: games
    of `tournaments` played one after another, each game rated in one pool, written
    straight into the tables."""
    now = "2026-01-01T00:00:00+00:00"
    with store._transaction() as conn:
        for number in (1, 2):
            conn.execute("INSERT INTO bots (id, name, kind, token_hash, created_at) VALUES"
                         " (?, ?, 'remote', ?, ?)", (number, f"bot{number}", f"h{number}", now))
        conn.executemany(
            "INSERT INTO tournaments (id, name, format, settings, rules, status, created_at)"
            " VALUES (?, ?, 'round_robin', '{}', '{}', 'finished', ?)",
            [(t, f"t{t}", now) for t in range(1, tournaments + 1)])
        conn.executemany(
            "INSERT INTO games (id, tournament_id, rules, seed, termination, hands_played,"
            " rated, events, actions, started_at, finished_at) VALUES"
            " (?, ?, '{}', ?, 'single_hand', 1, 1, '[]', '[]', ?, ?)",
            [(g, (g - 1) * tournaments // games + 1, g, now, now)
             for g in range(1, games + 1)])
        conn.executemany(
            "INSERT INTO game_seats (game_id, seat, bot_id, score, rank, termination)"
            " VALUES (?, ?, ?, 0, ?, ?)",
            [(g, seat, seat + 1, seat, "normal" if g % 7 else "timeout")
             for g in range(1, games + 1) for seat in (0, 1)])
        conn.execute("INSERT INTO pools (id, key, description, parameters) VALUES"
                     " (1, 'rules:x', 'x', '{}')")
        conn.executemany("INSERT INTO pool_games (pool_id, game_id) VALUES (1, ?)",
                         [(g,) for g in range(1, games + 1)])
        store._backend.reset_ids(conn, "games")
    with store._lock:
        store._writer.execute("ANALYZE")


def _plans(store: Store) -> dict[str, str]:
    """The plan of each statement the slow reads run: a tournament's latest games, its
    seat endings, and the pool of the latest game (the leaderboard's default)."""
    seen = _record_statements(store)
    store.games(tournament="t2", limit=20)
    store.seat_endings("t2")
    store.pool_key()
    slow = {"games of a tournament": "g.tournament_id = ?",
            "seat endings": "GROUP BY b.name, s.termination",
            "latest pool": "FROM pool_games g JOIN pools p"}
    plans = {}
    for what, marker in slow.items():
        sql, parameters = next((sql, p) for sql, p in seen if marker in sql)
        with store._lock:
            plans[what] = store._backend.explain(store._writer, sql, parameters)
    return plans


def test_the_slow_reads_use_the_indexes_of_migration_10(empty_target: Path | str) -> None:
    with Store.open(empty_target, migrations=MIGRATIONS[:9]) as before:
        _fill(before)
        old = _plans(before)
    with Store.open(empty_target) as after:
        with after._lock:
            after._writer.execute("ANALYZE")
        new = _plans(after)
        assert [g.id for g in after.games(tournament="t2", limit=3)] == [400, 399, 398]
    for what in ("games of a tournament", "seat endings"):
        assert "games_tournament" in new[what], (what, new[what])
        assert "games_tournament" not in old[what]
    assert "pool_games_game" in new["latest pool"], new["latest pool"]
    assert "pool_games_game" not in old["latest pool"]
    if after.backend == "postgresql":
        # before: every newer game read and dropped on the way to an older tournament's
        assert "Filter: (tournament_id = " in old["games of a tournament"]
        assert "Index Cond: (tournament_id = " in new["games of a tournament"]
        # before: every game read to find a tournament's
        assert "Seq Scan on games" in old["seat endings"], old["seat endings"]
        assert "Seq Scan on games" not in new["seat endings"]
        # before: every pool game read and sorted to find the latest
        assert "Seq Scan on pool_games" in old["latest pool"], old["latest pool"]
        assert "Seq Scan on pool_games" not in new["latest pool"]


def test_status_says_the_version_what_is_pending_and_each_table(
        empty_target: Path | str) -> None:
    with Store.open(empty_target, migrations=MIGRATIONS[:9]) as store:
        add_remote_bots(store, "alpha", "beta")
        record(store, ("alpha", "beta"))
    found = database_status(empty_target)
    assert (found.version, found.latest) == (9, MIGRATIONS[-1].version)
    assert [m.version for m in found.pending] == [10]
    rows = {table.name: table.rows for table in found.tables}
    assert (rows["bots"], rows["games"], rows["game_seats"], rows["schema_migrations"]) == \
        (2, 1, 2, 9)
    if found.backend == "postgresql":
        assert all(table.bytes for table in found.tables)
        assert any("TYPE timestamptz" in s for s in found.pending[0].statements)
    else:
        assert not any("timestamptz" in s for s in found.pending[0].statements)
    assert database_status(empty_target).version == 9, "status changed nothing"


def test_migrate_dry_run_changes_nothing_and_migrate_applies_what_it_listed(
        empty_target: Path | str) -> None:
    with Store.open(empty_target, migrations=MIGRATIONS[:9]) as store:
        add_remote_bots(store, "alpha", "beta")
        game = record(store, ("alpha", "beta"))
    planned = migrate_database(empty_target, dry_run=True)
    assert [m.version for m in planned] == [10]
    assert database_status(empty_target).version == 9
    assert migrate_database(empty_target) == planned
    assert database_status(empty_target).pending == ()
    assert migrate_database(empty_target) == ()
    with Store.open(empty_target) as store:
        again = store.get_game(game.id)
    assert (again.started_at, again.finished_at) == (game.started_at, game.finished_at)


def test_migrating_a_database_that_does_not_exist_yet_gives_it_the_whole_schema(
        empty_target: Path | str) -> None:
    with pytest.raises(NoDatabase):
        database_status(empty_target)
    assert [m.version for m in migrate_database(empty_target, dry_run=True)] == \
        [m.version for m in MIGRATIONS]
    with pytest.raises(NoDatabase):
        database_status(empty_target)
    assert len(migrate_database(empty_target)) == len(MIGRATIONS)
    assert database_status(empty_target).version == MIGRATIONS[-1].version
