"""The SQLite store: schema migrations, bots and tokens, schedules, atomic game records."""

from __future__ import annotations

import os
import random
import socket
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from arena import rating
from arena.engine import PARTNER_TEAMS
from arena.engine.outcome import Outcome, Termination
from arena.rating import pools as rating_pools
from arena.record import Decision, DecisionOutcome, Penalty, SeatTermination
from arena.store import (
    MIGRATIONS,
    AlreadyRecorded,
    BotKind,
    DamagedDatabase,
    DatabaseError,
    DuplicateName,
    EntrantRemoved,
    GameStatus,
    InvalidInput,
    Migration,
    NoDatabase,
    NotWritable,
    SchemaError,
    Store,
    StoreError,
    TournamentBusy,
    TournamentStatus,
    UnknownBot,
    UnknownGame,
    UnknownTournament,
    hash_token,
)
from tests.support import read_only_folder

START = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Entry:
    round: int
    table: int
    game_index: int
    seats: tuple[str, ...]
    seed: int
    teams: tuple[tuple[int, ...], ...] | None = None


@pytest.fixture
def store(store_target: Path | str) -> Iterator[Store]:
    with Store.open(store_target) as opened:
        yield opened


def add_remote_bots(store: Store, *names: str) -> None:
    for name in names:
        store.add_bot(name, BotKind.REMOTE)


def two_player_outcome(winner: int = 0) -> Outcome:
    scores = (50, 0) if winner == 0 else (0, 50)
    ranks = (0, 1) if winner == 0 else (1, 0)
    return Outcome(Termination.SINGLE_HAND, scores, ranks, hands_played=1)


def record(store: Store, seats: tuple[str, ...], **overrides: Any) -> Any:
    arguments: dict[str, Any] = {
        "seats": seats,
        "seed": 7,
        "rules": {"target_score": None},
        "outcome": two_player_outcome(),
        "seat_terminations": [SeatTermination.NORMAL] * len(seats),
        "events": [{"type": "deal", "seat": 0}, {"type": "play", "card": "R5"}],
        "actions": [0, 3],
        "started_at": START,
        "finished_at": START + timedelta(seconds=2),
    }
    arguments.update(overrides)
    return store.record_game(**arguments)


def tournament_with_one_game(store: Store) -> Any:
    add_remote_bots(store, "alpha", "beta")
    store.create_tournament(
        "cup", "round_robin", {"seed": 1}, {"target_score": None},
        games=[Entry(1, 1, 0, ("alpha", "beta"), seed=11)],
    )
    return store.pending_games("cup")[0]


# -- files ------------------------------------------------------------------------


def test_a_new_database_and_its_wal_and_shm_files_are_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    with Store.open(path) as store:
        store.add_bot("alpha", BotKind.REMOTE)
        files = [path, tmp_path / "arena.db-wal", tmp_path / "arena.db-shm"]
        modes = {file.name: oct(file.stat().st_mode & 0o777) for file in files}
    assert modes == {"arena.db": "0o600", "arena.db-wal": "0o600", "arena.db-shm": "0o600"}


def test_an_existing_database_file_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    path.touch()
    path.chmod(0o640)
    Store.open(path).close()
    assert path.stat().st_mode & 0o777 == 0o640


def test_opening_to_read_creates_no_database(tmp_path: Path) -> None:
    with pytest.raises(NoDatabase, match=f"no database at {tmp_path / 'typo.db'}"):
        Store.open(tmp_path / "typo.db", read_only=True)
    assert list(tmp_path.iterdir()) == []


def test_opening_an_empty_file_to_read_finds_no_database_in_it(tmp_path: Path) -> None:
    (tmp_path / "empty.db").touch()
    with pytest.raises(NoDatabase, match="holds no arena database yet"):
        Store.open(tmp_path / "empty.db", read_only=True)
    assert (tmp_path / "empty.db").read_bytes() == b""


def test_a_database_opened_to_read_cannot_be_written_through(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    Store.open(path).close()
    with Store.open(path, read_only=True) as store:
        assert store.list_bots() == []
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.add_bot("alpha", BotKind.REMOTE)
    assert [p.name for p in tmp_path.iterdir()] == ["arena.db"], "no journal files left"


def test_a_database_opened_to_read_is_still_brought_up_to_date_where_it_can_be(
        tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    Store.open(path, migrations=MIGRATIONS[:1]).close()
    with Store.open(path, read_only=True) as store:
        assert store.schema_version == MIGRATIONS[-1].version


_READ_BOTS = ("import sys; from arena.store import Store; "
              "store = Store.open(sys.argv[1], read_only=True); "
              "print(*(bot.name for bot in store.list_bots())); store.close()")


def test_a_database_in_a_read_only_folder_can_be_read_and_is_left_as_it_was(
        tmp_path: Path) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    with Store.open(folder / "arena.db") as store:
        add_remote_bots(store, "alpha", "beta")
    before = _files_of(folder)
    with read_only_folder(folder) as run:
        result = run([sys.executable, "-c", _READ_BOTS, str(folder / "arena.db")])
    assert (result.returncode, result.stdout, result.stderr) == (0, "alpha beta\n", "")
    assert _files_of(folder) == before


def test_a_database_in_a_read_only_folder_is_read_while_its_writer_has_it_open(
        tmp_path: Path) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    with Store.open(folder / "arena.db") as store:
        add_remote_bots(store, "alpha")
        assert (folder / "arena.db-wal").exists()
        with read_only_folder(folder) as run:
            result = run([sys.executable, "-c", _READ_BOTS, str(folder / "arena.db")])
    assert (result.returncode, result.stdout, result.stderr) == (0, "alpha\n", "")


_ADD_BOT = ("import sys; from arena.store import Store, StoreError\n"
            "try: Store.open(sys.argv[1]).add_bot('alpha', 'remote')\n"
            "except StoreError as exc: sys.exit(f'{type(exc).__name__}: {exc}')")


@pytest.mark.parametrize("exists", [True, False], ids=["existing", "new"])
def test_writing_in_a_read_only_folder_says_the_folder_is_not_writable(
        tmp_path: Path, exists: bool) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    if exists:
        Store.open(folder / "arena.db").close()
    with read_only_folder(folder) as run:
        result = run([sys.executable, "-c", _ADD_BOT, str(folder / "arena.db")])
    assert result.returncode == 1
    assert result.stderr.startswith(f"{NotWritable.__name__}: the folder {folder} is not "
                                    "writable"), result.stderr


# -- schema -----------------------------------------------------------------------


def test_new_database_is_migrated_to_the_latest_version_in_wal_mode(tmp_path: Path) -> None:
    with Store.open(tmp_path / "new.db") as store:
        assert store.schema_version == MIGRATIONS[-1].version
        assert store.journal_mode == "wal"
    connection = sqlite3.connect(tmp_path / "new.db")
    versions = connection.execute("SELECT version FROM schema_migrations").fetchall()
    assert versions == [(m.version,) for m in MIGRATIONS]


def test_reopening_applies_only_new_migrations(tmp_path: Path) -> None:
    path = tmp_path / "grow.db"
    Store.open(path).close()
    extra = Migration(MIGRATIONS[-1].version + 1, "notes", ("CREATE TABLE notes (text TEXT)",))
    with Store.open(path, migrations=(*MIGRATIONS, extra)) as store:
        assert store.schema_version == extra.version
    with Store.open(path, migrations=(*MIGRATIONS, extra)) as store:
        assert store.schema_version == extra.version


def test_failed_migration_leaves_no_trace(tmp_path: Path) -> None:
    path = tmp_path / "broken.db"
    Store.open(path).close()
    broken = Migration(
        MIGRATIONS[-1].version + 1, "half", ("CREATE TABLE half (x)", "NOT SQL AT ALL")
    )
    with pytest.raises(SchemaError, match="half"):
        Store.open(path, migrations=(*MIGRATIONS, broken))
    connection = sqlite3.connect(path)
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert "half" not in tables
    assert connection.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == (
        MIGRATIONS[-1].version
    )


def test_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    future = Migration(MIGRATIONS[-1].version + 1, "future", ("CREATE TABLE future (x)",))
    Store.open(path, migrations=(*MIGRATIONS, future)).close()
    with pytest.raises(SchemaError, match="newer"):
        Store.open(path)


def test_foreign_keys_are_enforced(store: Store) -> None:
    with pytest.raises(store._backend.integrity_errors), store._transaction() as conn:
        conn.execute("INSERT INTO game_seats VALUES (999, 0, 999, 0, 0, 'normal')")


# -- bots -------------------------------------------------------------------------


def test_add_bot_returns_a_token_and_stores_only_its_hash(store: Store, tmp_path: Path) -> None:
    bot, token = store.add_bot("alpha", BotKind.REMOTE)
    assert bot.name == "alpha" and bot.kind is BotKind.REMOTE and bot.active
    assert len(token) >= 32
    dump = "\n".join(str(tuple(row)) for table in store._backend.tables(store._conn)
                     for row in store._conn.execute(f"SELECT * FROM {table}"))
    assert token not in dump
    assert hash_token(token) in dump


def test_bot_by_token_finds_the_bot_and_rejects_other_tokens(store: Store) -> None:
    bot, token = store.add_bot("alpha", BotKind.REMOTE)
    _, other = store.add_bot("beta", "managed", "python bot.py")
    assert store.bot_by_token(token) == bot
    assert store.bot_by_token(other) == store.bot("beta")
    assert store.bot_by_token(token + "x") is None
    assert token != other


def test_duplicate_bot_name_is_refused(store: Store) -> None:
    store.add_bot("alpha", BotKind.REMOTE)
    with pytest.raises(DuplicateName, match="alpha"):
        store.add_bot("alpha", BotKind.MANAGED, "run")


@pytest.mark.parametrize(
    ("name", "kind", "command", "message"),
    [
        ("alpha", BotKind.MANAGED, None, "needs a command"),
        ("alpha", BotKind.MANAGED, "  ", "needs a command"),
        ("alpha", BotKind.REMOTE, "run", "takes no command"),
        ("alpha", "robot", None, "managed' or 'remote"),
        ("", BotKind.REMOTE, None, "bot name"),
        ("has space", BotKind.REMOTE, None, "bot name"),
        ("x" * 65, BotKind.REMOTE, None, "bot name"),
    ],
)
def test_bad_bot_definitions_are_refused(
    store: Store, name: str, kind: str, command: str | None, message: str
) -> None:
    with pytest.raises(InvalidInput, match=message):
        store.add_bot(name, kind, command)


def test_list_bots_is_by_name_and_hides_removed_bots(store: Store) -> None:
    add_remote_bots(store, "charlie", "alpha", "bravo")
    store.remove_bot("bravo")
    assert [bot.name for bot in store.list_bots()] == ["alpha", "charlie"]
    everyone = store.list_bots(include_removed=True)
    assert [(bot.name, bot.active) for bot in everyone] == [
        ("alpha", True), ("bravo", False), ("charlie", True)
    ]


def test_removed_bot_token_stops_working_and_name_is_free_again(store: Store) -> None:
    _, token = store.add_bot("alpha", BotKind.REMOTE)
    store.remove_bot("alpha")
    assert store.bot_by_token(token) is None
    with pytest.raises(UnknownBot):
        store.bot("alpha")
    new, _ = store.add_bot("alpha", BotKind.REMOTE)
    assert store.bot("alpha") == new


def test_removing_an_unknown_bot_is_refused(store: Store) -> None:
    with pytest.raises(UnknownBot, match="ghost"):
        store.remove_bot("ghost")


def test_reset_token_replaces_the_old_token(store: Store) -> None:
    _, old = store.add_bot("alpha", BotKind.REMOTE)
    new = store.reset_token("alpha")
    assert store.bot_by_token(old) is None
    assert store.bot_by_token(new) == store.bot("alpha")


def test_a_database_with_tables_of_its_own_is_refused_and_left_untouched(
        tmp_path: Path) -> None:
    path = tmp_path / "foreign.db"
    foreign = sqlite3.connect(path)
    with foreign:
        foreign.execute("CREATE TABLE bots (x)")
    foreign.close()
    with pytest.raises(SchemaError, match=r"not an arena database: it holds tables of its own"
                                          r" \(bots\)"):
        Store.open(path)
    foreign = sqlite3.connect(path)
    tables = [row[0] for row in foreign.execute("SELECT name FROM sqlite_master")]
    foreign.close()
    assert tables == ["bots"]


def _files_of(folder: Path) -> dict[str, bytes]:
    return {entry.name: entry.read_bytes() for entry in sorted(folder.iterdir())}


def test_a_foreign_database_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    path = tmp_path / "foreign.db"
    foreign = sqlite3.connect(path)
    with foreign:
        foreign.execute("CREATE TABLE notes (text TEXT)")
        foreign.execute("INSERT INTO notes VALUES ('mine')")
    foreign.close()
    before = _files_of(tmp_path)
    with pytest.raises(SchemaError, match="not an arena database"):
        Store.open(path)
    assert _files_of(tmp_path) == before, "same bytes, and no -wal or -shm file"


def test_a_newer_schema_database_is_refused_before_anything_is_written(
        tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    future = Migration(MIGRATIONS[-1].version + 1, "future", ("CREATE TABLE future (x)",))
    Store.open(path, migrations=(*MIGRATIONS, future)).close()
    kept = sqlite3.connect(path)  # as a copy made without its journal mode would be
    kept.execute("PRAGMA journal_mode = DELETE")
    kept.close()
    before = _files_of(tmp_path)
    with pytest.raises(SchemaError, match="newer"):
        Store.open(path)
    assert _files_of(tmp_path) == before, "same bytes, and no -wal or -shm file"


def test_an_unreadable_schema_version_is_a_schema_error(tmp_path: Path) -> None:
    path = tmp_path / "odd.db"
    odd = sqlite3.connect(path)
    with odd:
        odd.execute("CREATE TABLE schema_migrations (version TEXT, description TEXT,"
                    " applied_at TEXT)")
        odd.execute("INSERT INTO schema_migrations VALUES ('20240101_init', 'x', 'y')")
    odd.close()
    with pytest.raises(SchemaError, match="a version arena cannot read: '20240101_init'"):
        Store.open(path)


def _damage(store: Store, statement: str) -> None:
    with store._transaction() as conn:
        conn.execute(statement)


def test_a_tournament_row_damaged_outside_arena_is_reported_as_such(store: Store) -> None:
    store.create_tournament("cup", "round_robin", {}, {})
    _damage(store, "UPDATE tournaments SET settings = 'not json'")
    with pytest.raises(DamagedDatabase, match="damaged tournament: JSONDecodeError"):
        store.list_tournaments()
    if store.backend == "postgresql":
        # a timestamptz column refuses what is not a moment
        with pytest.raises(DatabaseError, match="invalid input syntax for type timestamp"):
            _damage(store, "UPDATE tournaments SET settings = '{}', created_at = 'not a date'")
        return
    _damage(store, "UPDATE tournaments SET settings = '{}', created_at = 'yesterday'")
    with pytest.raises(DamagedDatabase, match="damaged tournament: ValueError: Invalid isoformat"):
        store.tournament("cup")


@pytest.mark.parametrize("game_id", [-1, 2**63, 2**64 - 1])
def test_a_game_id_sqlite_cannot_hold_is_no_game(store: Store, game_id: int) -> None:
    with pytest.raises(UnknownGame, match=f"no game {game_id}"):
        store.get_game(game_id)


def test_a_game_whose_seats_were_deleted_is_reported_damaged(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    game = record(store, ("alpha", "beta"))
    _damage(store, "DELETE FROM game_seats")
    with pytest.raises(DamagedDatabase, match=f"damaged game: ValueError: game {game.id} has 0"):
        store.get_game(game.id)


# -- run claims -------------------------------------------------------------------


def test_claimed_tournament_refuses_a_second_run_naming_the_holder(store: Store) -> None:
    store.create_tournament("cup", "round_robin", {}, {})
    claim = store.claim_run("cup")
    assert (claim.host, claim.pid) == (socket.gethostname(), os.getpid())
    with pytest.raises(TournamentBusy, match=f"'cup' is already being run by process "
                                              f"{os.getpid()} on {socket.gethostname()}"):
        store.claim_run("cup")
    assert store.run_claim("cup") == claim


def test_released_claim_lets_the_next_run_claim(store: Store) -> None:
    store.create_tournament("cup", "round_robin", {}, {})
    store.release_run(store.claim_run("cup"))
    assert store.run_claim("cup") is None
    assert store.claim_run("cup").tournament_id == store.tournament("cup").id


def test_claim_without_heartbeats_lapses_and_is_taken_over(store: Store) -> None:
    store.create_tournament("cup", "round_robin", {}, {})
    old = store.claim_run("cup")
    assert store.refresh_run(old)
    new = store.claim_run("cup", stale_after=0)
    assert new.token != old.token
    assert not store.refresh_run(old), "the old run learns it lost the tournament"
    store.release_run(old)
    assert store.run_claim("cup") == new, "releasing a lost claim leaves the new one"


def test_claim_of_a_process_that_exited_on_this_host_is_taken_over(
        store: Store, store_target: Path | str) -> None:
    store.create_tournament("cup", "round_robin", {}, {})
    script = ("import sys; from arena.store import Store; "
              "Store.open(sys.argv[1]).claim_run('cup')")
    subprocess.run([sys.executable, "-c", script, str(store_target)], check=True)
    gone = store.run_claim("cup")
    assert gone is not None and gone.pid != os.getpid()
    assert store.claim_run("cup").pid == os.getpid()


def test_tournament_reads_running_only_while_a_run_holds_it(store: Store) -> None:
    store.create_tournament("cup", "round_robin", {}, {})
    claim = store.claim_run("cup")
    assert store.set_tournament_status("cup", "running").status is TournamentStatus.RUNNING
    store.release_run(claim)  # as a killed run's claim lapses
    assert store.tournament("cup").status is TournamentStatus.STOPPED
    assert [t.status for t in store.list_tournaments()] == [TournamentStatus.STOPPED]


@pytest.mark.parametrize("change", ["heartbeat_at = '2026-01-01T00:00:00'",
                                    "heartbeat_at = 'soon'", "pid = 99999999999999999"])
def test_a_damaged_claim_holds_nothing(store: Store, change: str) -> None:
    store.create_tournament("cup", "round_robin", {}, {})
    store.claim_run("cup")
    store.set_tournament_status("cup", "running")
    damage = f"UPDATE tournament_runs SET {change}, host = '{socket.gethostname()}'"
    if store.backend == "postgresql" and "soon" in change:
        with pytest.raises(DatabaseError, match="invalid input syntax for type timestamp"):
            _damage(store, damage)  # a timestamptz column holds moments only
        return
    _damage(store, damage)
    assert store.tournament("cup").status is TournamentStatus.STOPPED
    assert store.claim_run("cup").pid == os.getpid()


def test_database_from_schema_version_1_gains_run_claims(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    Store.open(path, migrations=MIGRATIONS[:1]).close()
    old = sqlite3.connect(path)
    with old:
        old.execute("INSERT INTO tournaments (name, format, settings, rules, status, created_at)"
                    " VALUES ('cup', 'round_robin', '{}', '{}', 'created', ?)",
                    (START.isoformat(),))
    old.close()
    with Store.open(path) as store:
        assert store.schema_version == MIGRATIONS[-1].version
        assert store.claim_run("cup").tournament_id == store.tournament("cup").id


def test_scheduled_game_of_a_removed_bot_is_not_recorded(store: Store) -> None:
    scheduled = tournament_with_one_game(store)
    removed = scheduled.seats[1]
    store.remove_bot(removed)
    assert store.removed_entrants(scheduled.tournament_id) == [removed]
    with pytest.raises(EntrantRemoved, match=f"{removed} has been removed since it was scheduled"):
        record(store, scheduled_game_id=scheduled.id, seats=scheduled.seats,
               seed=scheduled.seed)
    assert store.games() == []


# -- tournaments and schedules ------------------------------------------------------


def test_tournament_keeps_settings_rules_and_schedule(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta", "gamma", "delta")
    games = [
        Entry(1, 1, 0, ("alpha", "beta", "gamma", "delta"), 5, ((0, 2), (1, 3))),
        Entry(1, 1, 1, ("beta", "gamma", "delta", "alpha"), 5, ((0, 2), (1, 3))),
    ]
    created = store.create_tournament(
        "cup", "partners", {"seed": 3}, {"scoring": "partners"}, games=games
    )
    assert created.status is TournamentStatus.CREATED
    assert store.tournament("cup") == created == store.tournament(created.id)
    assert created.settings == {"seed": 3} and created.rules == {"scoring": "partners"}
    scheduled = store.scheduled_games("cup")
    assert [(g.game_index, g.seats, g.seed, g.teams) for g in scheduled] == [
        (e.game_index, e.seats, e.seed, e.teams) for e in games
    ]
    assert all(g.status is GameStatus.PENDING and g.game_id is None for g in scheduled)
    assert store.schedule_progress("cup") == (0, 2)


@pytest.mark.parametrize("name", ["", " ", "-x", "two words", "line\nbreak", "é", "a" * 65])
@pytest.mark.parametrize("kind", ["bot", "tournament"])
def test_a_name_that_is_not_one_plain_word_is_refused(store: Store, kind: str,
                                                      name: str) -> None:
    with pytest.raises(InvalidInput, match=f"^{kind} name .* must start with a letter or digit"):
        if kind == "bot":
            store.add_bot(name, BotKind.REMOTE)
        else:
            store.create_tournament(name, "round_robin", {}, {})
    assert store.list_bots() == [] and store.list_tournaments() == []


def test_duplicate_tournament_name_is_refused(store: Store) -> None:
    store.create_tournament("cup", "round_robin", {}, {})
    with pytest.raises(DuplicateName, match="cup"):
        store.create_tournament("cup", "round_robin", {}, {})


def test_unknown_tournament_is_refused(store: Store) -> None:
    with pytest.raises(UnknownTournament, match="nope"):
        store.pending_games("nope")
    with pytest.raises(UnknownTournament):
        store.tournament(42)


def test_schedule_naming_an_unknown_bot_creates_nothing(store: Store) -> None:
    add_remote_bots(store, "alpha")
    with pytest.raises(UnknownBot, match="ghost"):
        store.create_tournament(
            "cup", "round_robin", {}, {}, games=[Entry(1, 1, 0, ("alpha", "ghost"), 1)]
        )
    assert store.list_tournaments() == []


def test_add_scheduled_games_refuses_a_repeated_game_index(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    store.create_tournament("cup", "round_robin", {}, {})
    store.add_scheduled_games("cup", [Entry(1, 1, 0, ("alpha", "beta"), 1)])
    with pytest.raises(InvalidInput, match="game index 0"):
        store.add_scheduled_games("cup", [Entry(1, 1, 0, ("beta", "alpha"), 1)])
    assert len(store.scheduled_games("cup")) == 1


def test_tournament_status_changes_and_bad_status_is_refused(store: Store) -> None:
    store.create_tournament("cup", "round_robin", {}, {})
    store.claim_run("cup")
    assert store.set_tournament_status("cup", "running").status is TournamentStatus.RUNNING
    with pytest.raises(InvalidInput, match="paused"):
        store.set_tournament_status("cup", "paused")


# -- recording games ---------------------------------------------------------------


def test_record_game_stores_the_replay_and_updates_ratings(store: Store) -> None:
    scheduled = tournament_with_one_game(store)
    summary = record(store, scheduled.seats, seed=11, scheduled_game_id=scheduled.id)
    game = store.get_game(summary.id)
    assert game.seats == ("alpha", "beta") and game.seed == 11
    assert game.outcome == two_player_outcome()
    assert game.events == ({"type": "deal", "seat": 0}, {"type": "play", "card": "R5"})
    assert game.actions == (0, 3)
    assert game.started_at == START and game.tournament_id == scheduled.tournament_id
    assert game.scheduled_game_id == scheduled.id
    assert store.pending_games("cup") == []
    assert store.schedule_progress("cup") == (1, 1)
    done = store.scheduled_games("cup")[0]
    assert done.status is GameStatus.DONE and done.game_id == game.id
    overall = {r.bot: r for r in store.ratings()}
    in_cup = {r.bot: r for r in store.ratings("cup")}
    expected = rating.rate_game({}, ["alpha", "beta"], [0, 1],
                                parameters=rating_pools.pool_parameters(2))["alpha"].mu
    assert overall["alpha"].mu == pytest.approx(expected) and expected > rating.MU
    assert in_cup["alpha"].mu == pytest.approx(expected)
    assert (overall["alpha"].games, overall["alpha"].wins, overall["alpha"].points) == (1, 1, 50)
    assert (overall["beta"].games, overall["beta"].wins, overall["beta"].points) == (1, 0, 0)
    board = rating.leaderboard(store.ratings())
    assert [(row.place, row.bot, row.win_rate) for row in board] == [(1, "alpha", 1.0),
                                                                    (2, "beta", 0.0)]


def test_recording_a_done_scheduled_game_again_is_refused_and_changes_nothing(
    store: Store,
) -> None:
    scheduled = tournament_with_one_game(store)
    record(store, scheduled.seats, seed=11, scheduled_game_id=scheduled.id)
    ratings_before = store.ratings()
    with pytest.raises(AlreadyRecorded):
        record(store, scheduled.seats, seed=11, scheduled_game_id=scheduled.id)
    assert len(store.games()) == 1
    assert store.ratings() == ratings_before


def test_failure_in_the_rating_update_rolls_the_whole_game_back(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    scheduled = tournament_with_one_game(store)

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("power cut")

    monkeypatch.setattr(rating, "rate_game", explode)
    with pytest.raises(RuntimeError, match="power cut"):
        record(store, scheduled.seats, seed=11, scheduled_game_id=scheduled.id)
    assert store.games() == []
    assert store.pending_games("cup") == [scheduled]
    assert store.ratings() == [] and store.rating_history("alpha") == []
    counts = [
        store._conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        for table in ("games", "game_seats", "pool_ratings", "pool_rating_history", "pool_games")
    ]
    assert counts == [0, 0, 0, 0, 0]


def test_scheduled_game_must_be_recorded_with_its_own_seats_and_seed(store: Store) -> None:
    scheduled = tournament_with_one_game(store)
    with pytest.raises(InvalidInput, match="seed"):
        record(store, ("beta", "alpha"), seed=11, scheduled_game_id=scheduled.id)
    with pytest.raises(InvalidInput, match="seed"):
        record(store, scheduled.seats, seed=12, scheduled_game_id=scheduled.id)
    with pytest.raises(UnknownGame):
        record(store, scheduled.seats, seed=11, scheduled_game_id=999)
    assert store.games() == []


def test_ad_hoc_game_counts_only_in_the_pool_of_its_rules_and_table_size(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    store.create_tournament("cup", "round_robin", {}, {})
    summary = record(store, ("alpha", "beta"), outcome=two_player_outcome(winner=1))
    assert summary.tournament_id is None and summary.scheduled_game_id is None
    assert [r.bot for r in store.ratings()] == ["beta", "alpha"]
    assert store.ratings("cup") == []


def test_unrated_game_is_stored_without_touching_ratings(store: Store) -> None:
    add_remote_bots(store, "alpha")
    summary = record(store, ("alpha", "alpha"), rated=False)
    assert store.get_game(summary.id).rated is False
    assert store.ratings() == []


def test_self_play_cannot_be_rated(store: Store) -> None:
    add_remote_bots(store, "alpha")
    with pytest.raises(InvalidInput, match="two teams"):
        record(store, ("alpha", "alpha"))
    assert store.games() == []


def test_partner_game_rates_teams(store: Store) -> None:
    add_remote_bots(store, "a", "b", "c", "d")
    outcome = Outcome(Termination.TARGET_REACHED, (510, 120, 510, 120), (0, 1, 0, 1), 4)
    record(store, ("a", "b", "c", "d"), outcome=outcome, teams=PARTNER_TEAMS,
           seat_terminations=["normal"] * 4)
    mus = {r.bot: r.mu for r in store.ratings()}
    assert mus["a"] == pytest.approx(mus["c"]) and mus["b"] == pytest.approx(mus["d"])
    assert mus["a"] > mus["b"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"seat_terminations": ["normal"]}, "1 seat terminations"),
        ({"seat_terminations": ["normal", "asleep"]}, "asleep"),
        ({"seat_terminations": ["normal"] * 11}, "2 seats but"),
        ({"started_at": datetime(2025, 1, 1)}, "time zone"),
        ({"events": [{"card": {1, 2}}]}, "not plain JSON"),
    ],
)
def test_malformed_game_is_refused(
    store: Store, overrides: dict[str, Any], message: str
) -> None:
    add_remote_bots(store, "alpha", "beta")
    with pytest.raises(InvalidInput, match=message):
        record(store, ("alpha", "beta"), **overrides)
    assert store.games() == []


def test_game_with_one_seat_is_refused(store: Store) -> None:
    add_remote_bots(store, "alpha")
    with pytest.raises(InvalidInput, match="2 to 10 seats"):
        record(store, ("alpha",), seat_terminations=["normal"])


def test_game_with_an_unknown_bot_is_refused(store: Store) -> None:
    add_remote_bots(store, "alpha")
    with pytest.raises(UnknownBot, match="ghost"):
        record(store, ("alpha", "ghost"))


def test_seat_terminations_are_kept_per_seat(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    summary = record(store, ("alpha", "beta"), seat_terminations=["normal", "timeout"])
    assert store.get_game(summary.id).seat_terminations == (
        SeatTermination.NORMAL, SeatTermination.TIMEOUT
    )


def test_get_game_of_an_unknown_id_is_refused(store: Store) -> None:
    with pytest.raises(UnknownGame, match="12"):
        store.get_game(12)


def test_games_lists_newest_first_and_filters(store: Store) -> None:
    scheduled = tournament_with_one_game(store)
    add_remote_bots(store, "gamma")
    first = record(store, ("alpha", "gamma"))
    second = record(store, scheduled.seats, seed=11, scheduled_game_id=scheduled.id)
    third = record(store, ("gamma", "beta"))
    assert [g.id for g in store.games()] == [third.id, second.id, first.id]
    assert [g.id for g in store.games(tournament="cup")] == [second.id]
    assert [g.id for g in store.games(bot="alpha")] == [second.id, first.id]
    assert [g.id for g in store.games(limit=1)] == [third.id]


def test_rating_history_follows_each_rated_game(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    games = [record(store, ("alpha", "beta"), outcome=two_player_outcome(w)) for w in (0, 0, 1)]
    history = store.rating_history("alpha")
    assert [point.game_id for point in history] == [g.id for g in games]
    first_win = rating.rate_game({}, ["alpha", "beta"], [0, 1],
                                 parameters=rating_pools.pool_parameters(2))["alpha"]
    assert (history[0].mu, history[0].sigma) == pytest.approx((first_win.mu, first_win.sigma))
    assert history[1].mu > history[0].mu > history[2].mu
    current = {r.bot: r for r in store.ratings()}["alpha"]
    assert (history[-1].mu, history[-1].sigma) == (current.mu, current.sigma)


def test_history_and_games_survive_removing_a_bot(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    summary = record(store, ("alpha", "beta"))
    store.remove_bot("alpha")
    assert store.get_game(summary.id).seats == ("alpha", "beta")
    assert len(store.rating_history("alpha")) == 1
    with pytest.raises(UnknownBot):
        record(store, ("alpha", "beta"))


def test_errors_share_one_base_class() -> None:
    for error in (DuplicateName, UnknownBot, UnknownTournament, UnknownGame, InvalidInput,
                  AlreadyRecorded, SchemaError):
        assert issubclass(error, StoreError)


def test_store_can_be_used_from_several_threads(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    failures: list[BaseException] = []

    def play_games() -> None:
        try:
            for _ in range(10):
                record(store, ("alpha", "beta"))
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    threads = [threading.Thread(target=play_games) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert {r.bot: r.games for r in store.ratings()} == {"alpha": 40, "beta": 40}


def test_every_protocol_seat_termination_can_be_stored() -> None:
    from arena.v1 import uno_pb2

    names = uno_pb2.SeatTermination.keys()
    values = {name.removeprefix("SEAT_TERMINATION_").lower() for name in names}
    values.discard("unspecified")
    assert values <= {termination.value for termination in SeatTermination}


def test_migration_3_moves_a_stored_forfeit_marker_into_its_column(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    Store.open(path, migrations=MIGRATIONS[:2]).close()
    conn = sqlite3.connect(path)
    with conn:
        for bot_id, name in ((1, "a"), (2, "b")):
            conn.execute("INSERT INTO bots (id, name, kind, token_hash, created_at)"
                         " VALUES (?, ?, 'remote', ?, '2026-01-01T00:00:00+00:00')",
                         (bot_id, name, name))
        for game_id, actions in ((1, '[{"draw":{}},{"forfeit":1}]'), (2, '[{"draw":{}}]')):
            conn.execute(
                "INSERT INTO games (id, rules, seed, termination, hands_played, rated, events,"
                " actions, started_at, finished_at) VALUES (?, '{}', 7, 'forfeit', 1, 0, '[]',"
                " ?, '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:01+00:00')",
                (game_id, actions))
            conn.executemany(
                "INSERT INTO game_seats (game_id, seat, bot_id, score, rank, termination)"
                " VALUES (?, ?, ?, 0, ?, 'normal')",
                [(game_id, 0, 1, 0), (game_id, 1, 2, 1)])
    conn.close()
    with Store.open(path) as store:
        forfeited, played_out = store.get_game(1), store.get_game(2)
    assert (forfeited.forfeited_seat, forfeited.actions) == (1, ({"draw": {}},))
    assert (played_out.forfeited_seat, played_out.actions) == (None, ({"draw": {}},))


DECISIONS = (
    Decision(0, 0, 3, 12, DecisionOutcome.ANSWERED, 0),
    Decision(1, 1, 4, 0, DecisionOutcome.AUTO, 0),
    Decision(0, 2, 5, 1000, DecisionOutcome.TIMEOUT, 1, Penalty.FALLBACK),
    Decision(1, 3, 6, 7, DecisionOutcome.ILLEGAL, 1, Penalty.FORFEIT),
)


def test_a_game_s_decisions_are_stored_with_it_and_read_back(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    with_decisions = record(store, ("alpha", "beta"), decisions=DECISIONS)
    without = record(store, ("alpha", "beta"))
    assert store.get_game(with_decisions.id).decisions == DECISIONS
    assert store.get_game(without.id).decisions is None


def test_migration_9_keeps_older_games_without_decisions(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    with Store.open(path, migrations=tuple(m for m in MIGRATIONS if m.version < 9)) as old:
        add_remote_bots(old, "alpha", "beta")
        with old._transaction() as conn:
            conn.execute(
                "INSERT INTO games (id, rules, seed, termination, hands_played, rated, events,"
                " actions, started_at, finished_at) VALUES (1, '{}', 7, 'single_hand', 1, 0,"
                " '[]', '[]', '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:01+00:00')")
            conn.executemany(
                "INSERT INTO game_seats (game_id, seat, bot_id, score, rank, termination)"
                " VALUES (1, ?, ?, 0, ?, 'normal')", [(0, 1, 0), (1, 2, 1)])
    with Store.open(path) as store:
        assert store.schema_version == MIGRATIONS[-1].version >= 9
        assert store.get_game(1).decisions is None
        newer = record(store, ("alpha", "beta"), decisions=DECISIONS)
        assert store.get_game(newer.id).decisions == DECISIONS


def test_damaged_stored_decisions_are_a_damaged_database(tmp_path: Path) -> None:
    with Store.open(tmp_path / "arena.db") as store:
        add_remote_bots(store, "alpha", "beta")
        game = record(store, ("alpha", "beta"), decisions=DECISIONS)
        with store._transaction() as conn:
            conn.execute("UPDATE games SET decisions = '[[0, 1]]' WHERE id = ?", (game.id,))
        with pytest.raises(DamagedDatabase, match="array of 7 values"):
            store.get_game(game.id)


def test_a_stored_game_reads_back_as_a_game_record_that_replays(tmp_path: Path) -> None:
    from arena import wire
    from arena.engine import RuleSet
    from arena.engine.game import Game

    rules = RuleSet(target_score=None)
    game = Game.new(rules, 2, seed=11)
    actions = []
    while game.outcome is None:
        action = game.legal_actions()[0]
        actions.append(action)
        game.apply(action)
    with Store.open(tmp_path / "arena.db") as store:
        store.add_bot("a", "remote")
        store.add_bot("b", "remote")
        summary = store.record_game(
            seats=["a", "b"], seed=11, rules=rules.to_dict(), outcome=game.outcome,
            seat_terminations=["normal", "normal"], events=[],
            actions=[wire.action_to_dict(a) for a in actions], started_at=START,
            finished_at=START)
        record = store.get_game(summary.id).game_record()
    assert record.actions == tuple(actions) and record.seats == ("a", "b")
    assert record.verify_replay().outcome == game.outcome


# -- rating pools -------------------------------------------------------------------


def four_player_outcome(ranks: tuple[int, ...]) -> Outcome:
    return Outcome(Termination.SINGLE_HAND, tuple(10 * (3 - r) for r in ranks), ranks, 1)


def test_a_tournament_game_is_rated_in_its_tournament_pool_and_its_rules_pool(
        store: Store) -> None:
    scheduled = tournament_with_one_game(store)
    record(store, scheduled.seats, seed=11, scheduled_game_id=scheduled.id)
    pools = {pool.key: pool for pool in store.pools()}
    assert set(pools) == {"tournament:cup", rating_pools.rules_pool({"target_score": None}, 2)}
    assert pools["tournament:cup"].description == "tournament cup"
    assert [p.games for p in pools.values()] == [1, 1]
    assert store.pool_key("cup") == "tournament:cup"
    assert store.pool_key() == rating_pools.rules_pool({"target_score": None}, 2)


def test_tables_of_other_sizes_or_rules_are_rated_in_pools_of_their_own(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta", "gamma", "delta")
    record(store, ("alpha", "beta"))
    record(store, ("alpha", "beta", "gamma", "delta"), outcome=four_player_outcome((0, 1, 2, 3)))
    record(store, ("alpha", "beta"), rules={"target_score": 200})
    heads_up = rating_pools.rules_pool({"target_score": None}, 2)
    assert {r.bot for r in store.ratings(pool=heads_up)} == {"alpha", "beta"}
    assert [r.games for r in store.ratings(pool=heads_up)] == [1, 1]
    descriptions = sorted(pool.description for pool in store.pools())
    assert descriptions == ["official rules with target_score=200, 2 seats",
                            "official rules with target_score=none, 2 seats",
                            "official rules with target_score=none, 4 seats"]


def test_pools_rate_with_no_drift_so_sigma_shrinks_with_every_game(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    sigmas = []
    for game in range(30):
        record(store, ("alpha", "beta"), outcome=two_player_outcome(winner=game % 2))
        sigmas.append({r.bot: r.sigma for r in store.ratings()}["alpha"])
    assert store.pool(store.pool_key()).parameters.tau == 0
    assert all(later < earlier for earlier, later in zip(sigmas, sigmas[1:], strict=False))


def test_rebuilding_a_pool_from_its_stored_games_gives_the_same_ratings(store: Store) -> None:
    add_remote_bots(store, "a", "b", "c", "d")
    rng = random.Random(5)
    for _ in range(40):
        seats = tuple(rng.sample("abcd", 4))
        if rng.random() < 0.5:
            ranks = tuple(rng.choice([(0, 1, 0, 1), (1, 0, 1, 0)]))
            record(store, seats, outcome=four_player_outcome(ranks), teams=((0, 2), (1, 3)),
                   rules={"target_score": None, "scoring": "partners"})
        else:
            order = rng.sample(range(4), 4)
            record(store, seats, outcome=four_player_outcome(tuple(order)))
    assert len(store.pools()) == 2
    for pool in store.pools():
        stored = store.ratings(pool=pool.key)
        assert store.rebuilt_ratings(pool.key) == stored
        assert sum(r.games for r in stored) == 4 * pool.games


def test_migration_4_rates_an_existing_database_into_pools(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    with Store.open(path, migrations=MIGRATIONS[:3]) as old:
        old.add_bot("alpha", "remote")
        old.add_bot("beta", "remote")
        with old._transaction() as conn:
            for game_id, winner in ((1, 0), (2, 1), (3, 0)):
                conn.execute(
                    "INSERT INTO games (id, rules, seed, termination, hands_played, rated, events,"
                    " actions, started_at, finished_at) VALUES (?, '{\"target_score\": null}',"
                    " 7, 'single_hand', 1, 1, '[]', '[]', '2026-01-01T00:00:00+00:00',"
                    " '2026-01-01T00:00:01+00:00')", (game_id,))
                conn.executemany(
                    "INSERT INTO game_seats (game_id, seat, bot_id, score, rank, termination)"
                    " VALUES (?, ?, ?, 0, ?, 'normal')",
                    [(game_id, 0, 1, 0 if winner == 0 else 1),
                     (game_id, 1, 2, 1 if winner == 0 else 0)])
    with Store.open(path) as migrated:
        key = migrated.pool_key()
        ratings = {r.bot: r for r in migrated.ratings(pool=key)}
        assert (ratings["alpha"].games, ratings["alpha"].wins) == (3, 2)
        assert migrated.rebuilt_ratings(key) == migrated.ratings(pool=key)
        assert [g.game_id for g in migrated.pool_games(key)] == [1, 2, 3]


def test_a_duplicate_deal_is_one_block_across_its_seat_rotations(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    store.create_tournament(
        "dup", "round_robin", {"seed": 1}, {"target_score": None},
        games=[Entry(1, 1, 0, ("alpha", "beta"), seed=11),
               Entry(1, 1, 1, ("beta", "alpha"), seed=11),
               Entry(1, 1, 2, ("alpha", "beta"), seed=12)])
    for scheduled in store.pending_games("dup"):
        record(store, scheduled.seats, seed=scheduled.seed, scheduled_game_id=scheduled.id)
    blocks = [game.block for game in store.pool_games("tournament:dup")]
    assert blocks[0] == blocks[1] != blocks[2]


def test_a_pools_games_after_a_game_are_the_ones_rated_since(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    first, second, third = (record(store, ("alpha", "beta")) for _ in range(3))
    key = store.pool_key()
    assert [g.game_id for g in store.pool_games(key, after=first.id)] == [second.id, third.id]
    assert store.pool_games(key, after=third.id) == []


def test_a_stored_game_migration_4_cannot_rate_fails_it_as_a_schema_error(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    with Store.open(path, migrations=MIGRATIONS[:3]) as old:
        old.add_bot("alpha", "remote")
        old.add_bot("beta", "remote")
        with old._transaction() as conn:
            conn.execute(
                "INSERT INTO games (id, rules, seed, termination, hands_played, rated, events,"
                " actions, started_at, finished_at) VALUES (1, '{\"no_such_rule\": 1}', 7,"
                " 'single_hand', 1, 1, '[]', '[]', '2026-01-01T00:00:00+00:00',"
                " '2026-01-01T00:00:01+00:00')")
            conn.executemany(
                "INSERT INTO game_seats (game_id, seat, bot_id, score, rank, termination)"
                " VALUES (1, ?, ?, 0, ?, 'normal')", [(0, 1, 0), (1, 2, 1)])
    with pytest.raises(SchemaError, match="migration 4"):
        Store.open(path)
    with Store.open(path, migrations=MIGRATIONS[:3]) as unchanged:
        assert unchanged.schema_version == 3
