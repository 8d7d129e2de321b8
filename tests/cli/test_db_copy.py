"""A PostgreSQL store from the command line: `--db` or `ARENA_DB` names it, and `arena db
copy` moves an SQLite history into it, which then reads the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.store import Store
from tests.cli.cli_support import arena, invoke, ok
from tests.store.test_store import add_remote_bots, record, tournament_with_one_game
from tests.support import free_port


def _history(path: Path) -> None:
    with Store.open(path) as store:
        scheduled = tournament_with_one_game(store)
        record(store, scheduled.seats, seed=11, scheduled_game_id=scheduled.id)
        add_remote_bots(store, "gamma")
        record(store, ("gamma", "alpha"))


def _with_password(url: str) -> str:
    """The same URL with a password in it (the test cluster trusts every connection)."""
    return url.replace("postgresql://postgres@", "postgresql://postgres:hush-hush@")


@pytest.fixture
def copied(tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The URL of a PostgreSQL database `arena db copy` filled from an SQLite history."""
    monkeypatch.chdir(tmp_path)
    _history(tmp_path / "arena.db")
    result = ok(tmp_path / "arena.db", "db", "copy", str(tmp_path / "arena.db"),
                _with_password(postgres_url))
    assert result.output.startswith(f"copied {tmp_path / 'arena.db'} into "
                                    "postgresql://postgres:***@"), result.output
    for count in ("3 bots", "1 tournaments", "2 games"):
        assert f" {count}," in result.output or result.output.rstrip().endswith(count), count
    return postgres_url


@pytest.mark.parametrize("command", [["rankings"], ["tournament", "list"], ["bot", "list"],
                                     ["games"], ["rankings", "--pools"]])
def test_a_copied_history_reads_the_same_on_postgresql(
        copied: str, tmp_path: Path, command: list[str]) -> None:
    assert ok(copied, *command).output == ok(tmp_path / "arena.db", *command).output


def test_a_second_copy_into_the_same_database_is_refused_without_its_password(
        copied: str, tmp_path: Path) -> None:
    result = arena(tmp_path / "arena.db", "db", "copy", str(tmp_path / "arena.db"),
                   _with_password(copied))
    assert result.exit_code == 1
    assert "already holds arena data (3 in bots" in result.output
    assert "arena copies only into an empty database" in result.output
    assert "hush-hush" not in result.output


def test_copying_a_file_that_does_not_exist_is_refused(tmp_path: Path,
                                                      postgres_url: str) -> None:
    result = arena(tmp_path / "x.db", "db", "copy", str(tmp_path / "missing.db"), postgres_url)
    assert (result.exit_code, result.output.strip()) == (
        1, f"Error: no database at {tmp_path / 'missing.db'}")


def test_arena_db_naming_a_postgresql_url_selects_postgresql(
        postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    added = invoke("bot", "add", "far-away", env={"ARENA_DB": _with_password(postgres_url)})
    assert added.exit_code == 0, added.output
    with Store.open(postgres_url) as store:
        assert [bot.name for bot in store.list_bots()] == ["far-away"]
    assert not (tmp_path / "arena.db").exists()


def test_a_postgresql_server_that_cannot_be_reached_is_named_without_its_password(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"postgresql://arena:hush-hush@127.0.0.1:{free_port()}/arena"
    result = invoke("bot", "list", env={"ARENA_DB": url})
    assert result.exit_code == 1
    assert result.output.startswith("Error: cannot use the database postgresql://arena:***@"
                                    "127.0.0.1:"), result.output
    assert "hush-hush" not in result.output
