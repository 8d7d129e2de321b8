"""`arena report`: where it writes, and what it says when it cannot."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.cli.cli_support import arena
from tests.report.report_support import TOURNAMENT, Played


def test_the_report_says_what_it_wrote(played: Played, tmp_path: Path) -> None:
    page = tmp_path / "out.html"
    result = arena(played.db, "report", TOURNAMENT, "--output", str(page))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"wrote {page}: 6 of 6 games, 6 replays\n"
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_without_an_output_the_report_is_named_after_the_tournament(
        played: Played, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = arena(played.db, "report", TOURNAMENT)
    assert result.exit_code == 0, result.output
    assert (tmp_path / f"{TOURNAMENT}.html").is_file()


def test_a_report_needs_the_local_database_not_a_server(played: Played,
                                                        tmp_path: Path) -> None:
    result = arena(played.db, "--server", "127.0.0.1:1", "report", TOURNAMENT,
                   "-o", str(tmp_path / "r.html"))
    assert result.exit_code == 2
    assert "does not work with --server" in result.output
    assert not (tmp_path / "r.html").exists()


def test_an_unknown_tournament_is_named_and_nothing_is_written(played: Played,
                                                               tmp_path: Path) -> None:
    result = arena(played.db, "report", "autumn", "-o", str(tmp_path / "r.html"))
    assert result.exit_code == 1
    assert "autumn" in result.output and "arena tournament list" in result.output
    assert not (tmp_path / "r.html").exists()


def test_a_missing_database_is_not_created(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    result = arena(db, "report", TOURNAMENT, "-o", str(tmp_path / "r.html"))
    assert result.exit_code == 1
    assert "--db or ARENA_DB" in result.output
    assert not db.exists()


@pytest.mark.parametrize("option", ["-h", "--help"])
def test_the_help_says_the_report_reads_the_local_database(option: str) -> None:
    result = CliRunner().invoke(main, ["report", option])
    assert result.exit_code == 0
    assert "does not work with --server" in " ".join(result.output.split())
