"""The PostgreSQL store: what is its own (URLs, schema checks, locks), and copying a
history between backends. Everything else the store promises is tested on both
backends in test_store.py."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import psycopg
import pytest

from arena.store import (
    MIGRATIONS,
    BotKind,
    Migration,
    NoDatabase,
    SchemaError,
    Store,
    TournamentBusy,
)
from arena.store.backend import describe, is_postgres, side_path
from arena.store.postgres_backend import _pyformat
from arena.store.transfer import CopyRefused, copy_database
from tests.store.test_store import add_remote_bots, record, tournament_with_one_game
from tests.support import ROOT, wait_until


def test_a_postgresql_url_selects_postgresql_and_anything_else_is_a_file() -> None:
    assert is_postgres("postgresql://arena@db/cup") and is_postgres("postgres://db/cup")
    assert not is_postgres("arena.db") and not is_postgres(Path("postgresql:/x"))
    assert not is_postgres("postgresql:cup.db")


def test_a_url_is_printed_without_its_password() -> None:
    assert describe("postgresql://arena:s3cret@db:5432/cup?sslmode=require&password=p2") == \
        "postgresql://arena:***@db:5432/cup?sslmode=require&password=***"
    assert describe("postgresql://arena@db/cup") == "postgresql://arena@db/cup"
    assert describe(Path("a/arena.db")) == "a/arena.db"


def test_files_kept_with_a_postgresql_store_are_named_after_its_database() -> None:
    assert side_path("postgresql://arena:pw@db/cup") == Path("cup")
    assert side_path("postgresql://db") == Path("postgres")
    assert side_path(Path("x/arena.db")) == Path("x/arena.db")


def test_placeholders_become_psycopgs_outside_quoted_text_only() -> None:
    assert _pyformat("SELECT * FROM t WHERE a = ? AND b LIKE 'x?%' AND c = ?") == \
        "SELECT * FROM t WHERE a = %s AND b LIKE 'x?%%' AND c = %s"
    assert _pyformat("""SELECT "odd?" FROM t WHERE s = 'it''s ?' AND n % 2 = ?""") == \
        """SELECT "odd?" FROM t WHERE s = 'it''s ?' AND n %% 2 = %s"""


def test_a_new_postgresql_database_is_migrated_to_the_latest_version(postgres_url: str) -> None:
    with Store.open(postgres_url) as store:
        assert (store.schema_version, store.backend) == (MIGRATIONS[-1].version, "postgresql")
    with psycopg.connect(postgres_url) as check:
        versions = check.execute("SELECT version FROM schema_migrations ORDER BY 1").fetchall()
    assert versions == [(m.version,) for m in MIGRATIONS]


def test_ratings_keep_double_precision(postgres_url: str) -> None:
    with Store.open(postgres_url) as store:
        add_remote_bots(store, "alpha", "beta")
        record(store, ("alpha", "beta"))
        stored = [(r.mu, r.sigma) for r in store.ratings()]
        rebuilt = [(r.mu, r.sigma) for r in store.rebuilt_ratings(store.pool_key())]
    assert stored == rebuilt, "exactly: a REAL column would round them to 4 bytes"


def test_a_postgresql_database_with_tables_of_its_own_is_refused_and_left_alone(
        postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as foreign:
        foreign.execute("CREATE TABLE notes (text TEXT)")
    with pytest.raises(SchemaError, match=r"not an arena database: it holds tables of its own"
                                          r" \(notes\)"):
        Store.open(postgres_url)
    with psycopg.connect(postgres_url) as foreign:
        tables = foreign.execute("SELECT tablename FROM pg_tables"
                                 " WHERE schemaname = current_schema()").fetchall()
    assert tables == [("notes",)]


def test_an_empty_postgresql_database_opened_to_read_holds_no_database(
        postgres_url: str) -> None:
    with pytest.raises(NoDatabase, match="holds no arena database yet"):
        Store.open(postgres_url, read_only=True)


def test_a_postgresql_database_that_does_not_exist_is_no_database_to_read(
        postgres_url: str) -> None:
    missing = postgres_url.split("?")[0].rsplit("/", 1)[0] + "/no_such_database"
    with pytest.raises(NoDatabase, match="does not exist"):
        Store.open(missing, read_only=True)


def test_a_postgresql_database_opened_to_read_cannot_be_written_through(
        postgres_url: str) -> None:
    Store.open(postgres_url).close()
    with Store.open(postgres_url, read_only=True) as store:
        assert store.list_bots() == []
        with pytest.raises(store._backend.errors, match="read-only"):
            store.add_bot("alpha", BotKind.REMOTE)


def test_a_failed_postgresql_migration_leaves_no_trace(postgres_url: str) -> None:
    Store.open(postgres_url).close()
    broken = Migration(MIGRATIONS[-1].version + 1, "half",
                       ("CREATE TABLE half (x INTEGER)", "NOT SQL AT ALL"))
    with pytest.raises(SchemaError, match="half"):
        Store.open(postgres_url, migrations=(*MIGRATIONS, broken))
    with Store.open(postgres_url) as store:
        assert "half" not in store._backend.tables(store._conn)
        assert store.schema_version == MIGRATIONS[-1].version


def test_a_postgresql_database_newer_than_the_code_is_refused(postgres_url: str) -> None:
    future = Migration(MIGRATIONS[-1].version + 1, "future", ("CREATE TABLE future (x TEXT)",))
    Store.open(postgres_url, migrations=(*MIGRATIONS, future)).close()
    with pytest.raises(SchemaError, match="newer"):
        Store.open(postgres_url)


# -- claims and writers -------------------------------------------------------------


def test_a_second_store_on_the_database_is_refused_the_claim(store_target: Path | str) -> None:
    with Store.open(store_target) as first, Store.open(store_target) as second:
        first.create_tournament("cup", "round_robin", {}, {})
        first.claim_run("cup")
        with pytest.raises(TournamentBusy, match="already being run by process"):
            second.claim_run("cup")


def test_a_claim_lapses_once_its_connection_ends_whatever_its_host_says(
        postgres_url: str) -> None:
    with Store.open(postgres_url) as store:
        store.create_tournament("cup", "round_robin", {}, {})
        other = Store.open(postgres_url)
        other.claim_run("cup")
        with store._transaction() as conn:  # as a run on another machine would look
            conn.execute("UPDATE tournament_runs SET host = 'elsewhere'")
        with pytest.raises(TournamentBusy, match="on elsewhere"):
            store.claim_run("cup")
        other.close()
        # The server lets go of the lock once it has seen the connection end.
        wait_until(lambda: store.tournament("cup").run_by == "", timeout=5,
                   what="the closed connection's claim to lapse")
        assert store.claim_run("cup").pid == os.getpid()


def test_a_claim_of_a_killed_process_on_another_host_lapses_without_waiting_for_heartbeats(
        postgres_url: str) -> None:
    with Store.open(postgres_url) as store:
        store.create_tournament("cup", "round_robin", {}, {})
        holder = subprocess.Popen(
            [sys.executable, "-c", "import sys, time; from arena.store import Store; "
             "store = Store.open(sys.argv[1]); store.claim_run('cup'); "
             "print('claimed', flush=True); time.sleep(120)", postgres_url],
            stdout=subprocess.PIPE, text=True, cwd=ROOT)
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "claimed\n"
            with store._transaction() as conn:
                conn.execute("UPDATE tournament_runs SET host = 'elsewhere'")
            assert store.tournament("cup").run_by.startswith(f"process {holder.pid} on elsewhere")
        finally:
            holder.kill()
            holder.wait()
        wait_until(lambda: store.tournament("cup").run_by == "", timeout=5,
                   what="the killed run's claim to lapse")
        assert store.claim_run("cup").pid == os.getpid()


def test_writers_on_two_connections_never_lose_a_rating_update(postgres_url: str) -> None:
    with Store.open(postgres_url) as setup:
        add_remote_bots(setup, "alpha", "beta")
    stores = [Store.open(postgres_url) for _ in range(3)]
    failures: list[BaseException] = []

    def play(store: Store) -> None:
        try:
            for _ in range(8):
                record(store, ("alpha", "beta"))
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(store,)) for store in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert failures == []
        ratings = stores[0].ratings()
        assert {r.bot: r.games for r in ratings} == {"alpha": 24, "beta": 24}
        assert [(r.mu, r.sigma) for r in ratings] == [
            (r.mu, r.sigma) for r in stores[0].rebuilt_ratings(stores[0].pool_key())]
    finally:
        for store in stores:
            store.close()


def test_a_scheduled_game_recorded_through_two_connections_counts_once(
        postgres_url: str) -> None:
    with Store.open(postgres_url) as first, Store.open(postgres_url) as second:
        scheduled = tournament_with_one_game(first)
        record(first, scheduled.seats, seed=11, scheduled_game_id=scheduled.id)
        with pytest.raises(Exception, match="already recorded"):
            record(second, scheduled.seats, seed=11, scheduled_game_id=scheduled.id)
        assert len(second.games()) == 1


# -- copying ------------------------------------------------------------------------


def _history(store_target: Path | str) -> Store:
    store = Store.open(store_target)
    scheduled = tournament_with_one_game(store)
    record(store, scheduled.seats, seed=11, scheduled_game_id=scheduled.id)
    record(store, ("alpha", "beta"))
    store.remove_bot("beta")
    store.claim_run("cup")
    return store


def _everything(store: Store) -> object:
    tournaments = [replace(t, run_by="") for t in store.list_tournaments()]
    return (store.list_bots(include_removed=True), tournaments,
            store.scheduled_games("cup"), store.games(limit=None),
            [store.get_game(game.id) for game in store.games(limit=None)],
            store.pools(), [store.ratings(pool=pool.key) for pool in store.pools()],
            store.rating_history("alpha"))


def test_a_sqlite_history_copied_into_postgresql_reads_back_the_same(
        tmp_path: Path, postgres_url: str) -> None:
    with _history(tmp_path / "arena.db") as source:
        copied = copy_database(tmp_path / "arena.db", postgres_url)
        with Store.open(postgres_url) as destination:
            assert _everything(destination) == _everything(source)
            assert destination.run_claim("cup") is None, "claims stay with their database"
    assert copied["games"] == 2 and copied["game_seats"] == 4 and copied["bots"] == 2


def test_a_copied_history_numbers_new_rows_after_the_copied_ones(
        tmp_path: Path, postgres_url: str) -> None:
    _history(tmp_path / "arena.db").close()
    copy_database(tmp_path / "arena.db", postgres_url)
    with Store.open(postgres_url) as destination:
        destination.add_bot("gamma", BotKind.REMOTE)
        assert record(destination, ("alpha", "gamma")).id == 3
        assert destination.bot("gamma").id == 3


def test_a_postgresql_history_copies_back_into_a_new_sqlite_file(
        tmp_path: Path, postgres_url: str) -> None:
    with _history(postgres_url) as source:
        copy_database(postgres_url, tmp_path / "back.db")
        with Store.open(tmp_path / "back.db") as back:
            assert _everything(back) == _everything(source)


def test_a_copy_into_a_database_that_holds_arena_data_is_refused_and_writes_nothing(
        tmp_path: Path, postgres_url: str) -> None:
    _history(tmp_path / "arena.db").close()
    with Store.open(postgres_url) as destination:
        destination.add_bot("mine", BotKind.REMOTE)
    with pytest.raises(CopyRefused, match=r"already holds arena data \(1 in bots\)"):
        copy_database(tmp_path / "arena.db", postgres_url)
    with Store.open(postgres_url) as destination:
        assert [bot.name for bot in destination.list_bots()] == ["mine"]


def test_a_failed_copy_leaves_the_destination_empty(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _history(tmp_path / "arena.db").close()
    from arena.store import transfer

    real = transfer._copy_table

    def fail_at_pools(*args: object) -> int:
        if args[-1] == "pools":
            raise SchemaError("broken on purpose")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(transfer, "_copy_table", fail_at_pools)
    with pytest.raises(SchemaError, match="broken on purpose"):
        copy_database(tmp_path / "arena.db", postgres_url)
    with Store.open(postgres_url) as destination:
        assert destination.list_bots(include_removed=True) == []
        assert destination.games() == []


def test_a_migrations_sqlite_types_become_postgresqls() -> None:
    from arena.store.postgres_backend import PostgresBackend

    assert PostgresBackend().ddl(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, bot_id INTEGER NOT NULL, mu REAL,"
        " data BLOB, name TEXT, PRIMARY KEY (bot_id, name))") == (
        "CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
        " bot_id BIGINT NOT NULL, mu DOUBLE PRECISION, data BYTEA, name TEXT,"
        " PRIMARY KEY (bot_id, name))")
