"""How a PostgreSQL store's connections present themselves and guard against a silent or
stuck server: their name, TCP keepalives, the statement timeout; and timestamptz."""

from __future__ import annotations

import threading
from datetime import datetime

import psycopg
import pytest

from arena.store import ConnectionSettings, StatementTimeout, Store
from arena.store.postgres_backend import WRITE_LOCK
from tests.postgres_support import PostgresCluster
from tests.store.test_store import add_remote_bots, record
from tests.support import wait_until


def _names(cluster: PostgresCluster) -> list[str]:
    with psycopg.connect(cluster.url(), autocommit=True) as admin:
        return sorted(str(row[0]) for row in admin.execute(
            "SELECT application_name FROM pg_stat_activity WHERE backend_type ="
            " 'client backend' AND application_name LIKE 'arena%'"))


def test_every_connection_says_which_process_it_is(postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.migrated_database()
    settings = ConnectionSettings(application_name="arena serve")
    with Store.open(url, connection=settings, readers=2) as store:
        store.list_bots()
        assert _names(postgres_cluster) == ["arena serve", "arena serve (reader)"]
    # A server process ends after its client has gone: its row goes a moment later.
    wait_until(lambda: not _names(postgres_cluster), timeout=10,
               what="the closed store's connections to end")
    assert _names(postgres_cluster) == []


def test_a_name_the_url_gives_is_kept(postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.migrated_database() + "&application_name=arena%20nightly"
    with Store.open(url, connection=ConnectionSettings(application_name="arena serve")):
        assert _names(postgres_cluster) == ["arena nightly"]


def test_connections_keep_tcp_keepalives(postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.migrated_database()
    settings = ConnectionSettings(keepalive_idle=17, keepalive_interval=4, keepalive_count=2)
    with Store.open(url, connection=settings, readers=1) as store:
        assert store._readers is not None
        with store._readers.connection() as reader:
            for conn in (store._writer, reader):
                given = conn._raw.info.get_parameters()  # type: ignore[attr-defined]
                assert (given["keepalives"], given["keepalives_idle"],
                        given["keepalives_interval"], given["keepalives_count"]) == \
                    ("1", "17", "4", "2")


def test_a_write_stuck_behind_a_lock_ends_with_the_statement_timeout(
        postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.migrated_database()
    with Store.open(url, connection=ConnectionSettings(statement_timeout=0.5)) as store, \
            psycopg.connect(url) as other:
        # another writer of the same schema holds the write lock and does not let go
        other.execute("SELECT pg_advisory_xact_lock(%s::integer, %s::integer)",
                      (WRITE_LOCK, store._backend._schema_key))  # type: ignore[attr-defined]
        with pytest.raises(StatementTimeout, match=r"ran longer than the statement timeout "
                           r"\(0\.5 s\); nothing of it was kept.*ARENA_DB_STATEMENT_TIMEOUT"):
            add_remote_bots(store, "alpha")
        other.rollback()
        add_remote_bots(store, "alpha")
        assert [bot.name for bot in store.list_bots()] == ["alpha"]


def test_a_read_stuck_behind_a_lock_on_a_reader_ends_with_the_statement_timeout(
        postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.migrated_database()
    with Store.open(url, connection=ConnectionSettings(statement_timeout=0.5),
                    readers=1) as store, psycopg.connect(url) as other:
        other.execute("LOCK TABLE bots IN ACCESS EXCLUSIVE MODE")
        with pytest.raises(StatementTimeout, match=r"\(0\.5 s\)"):
            store.list_bots()
        other.rollback()
        assert store.list_bots() == []


def test_no_statement_timeout_lets_a_statement_wait(postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.migrated_database()
    with Store.open(url, connection=ConnectionSettings(statement_timeout=None)) as store, \
            psycopg.connect(url) as other:
        other.execute("LOCK TABLE bots IN ACCESS EXCLUSIVE MODE")
        done = threading.Event()

        def list_bots() -> None:
            store.list_bots()
            done.set()

        thread = threading.Thread(target=list_bots, daemon=True)
        thread.start()
        assert not done.wait(1.5)
        other.rollback()
        assert done.wait(10)


def test_moments_are_timestamptz_and_read_back_as_written(
        postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.migrated_database()
    with Store.open(url) as store:
        add_remote_bots(store, "alpha", "beta")
        game = record(store, ("alpha", "beta"))
        again = store.get_game(game.id)
        bot = store.bot("alpha")
    assert (again.started_at, again.finished_at) == (game.started_at, game.finished_at)
    assert isinstance(bot.created_at, datetime) and bot.created_at.utcoffset() is not None
    with psycopg.connect(url) as check:
        types = {(str(row[0]), str(row[1])): str(row[2]) for row in check.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema()")}
    moments = {key: kind for key, kind in types.items()
               if key[1].endswith("_at") or key == ("audit", "at")}
    assert moments and set(moments.values()) == {"timestamp with time zone"}, moments
