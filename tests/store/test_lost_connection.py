"""A PostgreSQL store whose connection breaks reconnects and runs the call in flight
again: a transaction cut off midway runs again whole; a commit cut off after it took
effect is not made twice; the locks of its run claims are taken again.

The connection is really lost: the server ends the session (`pg_terminate_backend`,
from another session or from a trigger inside the transaction), or a proxy on
127.0.0.1 between the store and the server lets a COMMIT through and drops the
connection before its reply comes back.
"""

from __future__ import annotations

import inspect
import socket
import threading
from collections.abc import Iterator
from contextlib import closing, suppress
from typing import Any

import psycopg
import pytest

from arena.store import (
    AlreadyRecorded,
    BotKind,
    CommitUncertain,
    Store,
    TournamentBusy,
)
from arena.store.database import Database
from tests.postgres_support import PostgresCluster
from tests.store.test_store import Entry, add_remote_bots, record, two_player_outcome


@pytest.fixture
def url(postgres_cluster: PostgresCluster) -> str:
    return postgres_cluster.migrated_database()


@pytest.fixture
def store(url: str) -> Iterator[Store]:
    with Store.open(url) as opened:
        yield opened


def scheduled_cup(store: Store, games: int = 1) -> int:
    add_remote_bots(store, "alpha", "beta")
    return store.create_tournament(
        "cup", "round_robin", {"seed": 1}, {"target_score": None},
        games=[Entry(1, 1, index, ("alpha", "beta"), seed=11 + index)
               for index in range(games)]).id


def test_a_read_after_the_session_was_ended_reconnects(
        postgres_cluster: PostgresCluster, store: Store) -> None:
    add_remote_bots(store, "alpha")
    notices: list[str] = []
    postgres_cluster.end_sessions()
    with store.reporting_connection(notices.append):
        assert [bot.name for bot in store.list_bots()] == ["alpha"]
    assert [line.split()[0] for line in notices] == ["lost", "reconnected"]


def test_a_transaction_cut_off_midway_runs_again_whole(
        postgres_cluster: PostgresCluster, url: str, store: Store) -> None:
    tournament = scheduled_cup(store)
    scheduled = store.pending_games(tournament)[0]
    # The first game's seats end the session that inserts them, in the transaction.
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("CREATE SEQUENCE cuts")
        admin.execute(
            "CREATE FUNCTION cut_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            " IF nextval('cuts') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid());"
            " END IF; RETURN NEW; END $$")
        admin.execute("CREATE TRIGGER cut AFTER INSERT ON game_seats"
                      " FOR EACH ROW EXECUTE FUNCTION cut_once()")
        summary = record(store, ("alpha", "beta"), seed=11, scheduled_game_id=scheduled.id)
        assert admin.execute("SELECT last_value FROM cuts").fetchone() == (3,)
    assert [game.id for game in store.games()] == [summary.id]
    assert store.schedule_progress(tournament) == (1, 1)
    assert {r.bot: r.games for r in store.ratings(tournament)} == {"alpha": 1, "beta": 1}


class CommitDropper:
    """A TCP proxy on 127.0.0.1 to the cluster; once armed, it lets the next COMMIT
    through, waits for the server's reply (the commit has then taken effect) and drops
    the connection instead of passing the reply on. Once `losing` is set, it drops the
    connection instead of passing the next COMMIT on (the transaction is rolled back)."""

    def __init__(self, port: int) -> None:
        self.server_port = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.armed = threading.Event()
        self.losing = threading.Event()
        self.dropped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.server_port))
            commit_sent = threading.Event()
            threading.Thread(target=self._upstream, args=(client, server, commit_sent),
                             daemon=True).start()
            threading.Thread(target=self._downstream, args=(server, client, commit_sent),
                             daemon=True).start()

    def _upstream(self, client: socket.socket, server: socket.socket,
                  commit_sent: threading.Event) -> None:
        while data := _receive(client):
            if b"COMMIT" in data and self.losing.is_set():
                self.losing.clear()
                self.dropped.set()
                for sock in (server, client):  # wakes the other way, which closes both
                    with suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                return
            if b"COMMIT" in data and self.armed.is_set():
                self.armed.clear()
                commit_sent.set()
                server.sendall(data)
                return  # the other way closes both once the reply is in
            server.sendall(data)
        client.close()
        server.close()

    def _downstream(self, server: socket.socket, client: socket.socket,
                    commit_sent: threading.Event) -> None:
        with closing(client), closing(server):
            while data := _receive(server):
                if commit_sent.is_set():
                    self.dropped.set()
                    return  # the reply to COMMIT: dropped, with the connection
                client.sendall(data)

    def close(self) -> None:
        self.listener.close()


def _receive(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except OSError:
        return b""


@pytest.fixture
def dropper(postgres_cluster: PostgresCluster) -> Iterator[CommitDropper]:
    proxy = CommitDropper(postgres_cluster.port)
    yield proxy
    proxy.close()


@pytest.fixture
def proxied(url: str, dropper: CommitDropper, postgres_cluster: PostgresCluster
            ) -> Iterator[Store]:
    with Store.open(url.replace(f":{postgres_cluster.port}/", f":{dropper.port}/")
                    ) as opened:
        yield opened


def test_a_game_whose_commit_took_effect_unseen_is_recorded_once(
        dropper: CommitDropper, proxied: Store) -> None:
    tournament = scheduled_cup(proxied)
    scheduled = proxied.pending_games(tournament)[0]
    dropper.armed.set()
    summary = record(proxied, ("alpha", "beta"), seed=11, scheduled_game_id=scheduled.id)
    assert dropper.dropped.is_set()
    assert summary.scheduled_game_id == scheduled.id
    assert [game.id for game in proxied.games()] == [summary.id]
    assert {r.bot: r.games for r in proxied.ratings(tournament)} == {"alpha": 1, "beta": 1}


def test_a_game_whose_lost_commit_another_recorded_meanwhile_is_already_recorded(
        url: str, dropper: CommitDropper, proxied: Store) -> None:
    tournament = scheduled_cup(proxied)
    scheduled = proxied.pending_games(tournament)[0]

    def record_it_elsewhere(line: str) -> None:
        if line.startswith("lost"):
            with Store.open(url) as other:
                record(other, ("alpha", "beta"), seed=11, scheduled_game_id=scheduled.id,
                       outcome=two_player_outcome(winner=1))

    dropper.losing.set()
    with proxied.reporting_connection(record_it_elsewhere), \
            pytest.raises(AlreadyRecorded, match=f"scheduled game {scheduled.id} is already"):
        record(proxied, ("alpha", "beta"), seed=11, scheduled_game_id=scheduled.id)
    assert dropper.dropped.is_set()
    assert [game.outcome for game in proxied.games()] == [two_player_outcome(winner=1)]


def test_games_appended_by_a_commit_that_took_effect_unseen_are_appended_once(
        dropper: CommitDropper, proxied: Store) -> None:
    tournament = scheduled_cup(proxied)
    dropper.armed.set()
    added = proxied.append_games(tournament, [Entry(2, 1, 1, ("beta", "alpha"), seed=40),
                                              Entry(2, 2, 2, ("alpha", "beta"), seed=41)])
    assert dropper.dropped.is_set()
    assert [(game.game_index, game.seed) for game in added] == [(1, 40), (2, 41)]
    assert [game.game_index for game in proxied.scheduled_games(tournament)] == [0, 1, 2]


def test_a_change_that_cannot_be_made_twice_is_not_when_its_commit_is_unseen(
        dropper: CommitDropper, proxied: Store) -> None:
    dropper.armed.set()
    with pytest.raises(CommitUncertain, match="may or may not have been made"):
        proxied.add_bot("alpha", BotKind.REMOTE)
    assert [bot.name for bot in proxied.list_bots()] == ["alpha"]


def test_a_game_outside_any_schedule_is_not_recorded_twice_when_its_commit_is_unseen(
        dropper: CommitDropper, proxied: Store) -> None:
    add_remote_bots(proxied, "alpha", "beta")
    dropper.armed.set()
    with pytest.raises(CommitUncertain, match="may or may not have been recorded"):
        record(proxied, ("alpha", "beta"))
    assert len(proxied.games()) == 1


def test_a_reconnected_store_holds_its_claim_again(
        postgres_cluster: PostgresCluster, url: str, store: Store) -> None:
    tournament = scheduled_cup(store)
    claim = store.claim_run(tournament)
    postgres_cluster.end_sessions()
    assert store.refresh_run(claim)  # reconnects, and takes the claim's lock again
    with Store.open(url) as other, pytest.raises(TournamentBusy, match="already being run"):
        other.claim_run(tournament)
    store.release_run(claim)
    with Store.open(url) as other:
        other.release_run(other.claim_run(tournament))


def test_every_public_method_of_the_store_is_one_unit() -> None:
    own = {name for name, _ in inspect.getmembers(Database)}
    methods: dict[str, Any] = {
        name: value for name, value in inspect.getmembers(Store, inspect.isfunction)
        if not name.startswith("_") and name not in own}
    assert len(methods) > 40
    assert [name for name, method in methods.items()
            if not getattr(method, "__arena_unit__", False)] == []


def test_a_read_only_store_stays_read_only_once_reconnected(
        postgres_cluster: PostgresCluster, url: str, store: Store) -> None:
    add_remote_bots(store, "alpha")
    with Store.open(url, read_only=True) as reader:
        postgres_cluster.end_sessions()
        assert [bot.name for bot in reader.list_bots()] == ["alpha"]
        with pytest.raises(Exception, match="read-only transaction"):
            reader.add_bot("beta", BotKind.REMOTE)
    assert [bot.name for bot in store.list_bots()] == ["alpha"]
