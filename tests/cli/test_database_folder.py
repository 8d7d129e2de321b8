"""A database whose folder this user cannot enter: every command says so in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli.cli_support import ARENA, ok
from tests.support import unenterable_folder

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("command", [["rankings"], ["tournament", "list"],
                                     ["bot", "add", "another"]])
def test_a_database_in_a_folder_the_user_cannot_enter_is_a_clear_error(
        tmp_path: Path, command: list[str]) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    db = folder / "arena.db"
    ok(db, "bot", "add", "far-away")
    with unenterable_folder(folder) as run:
        result = run([*ARENA, "--db", str(db), *command])
        from_env = run([shutil.which("env") or "/usr/bin/env", f"ARENA_DB={db}", *ARENA, *command])
    for answer in (result, from_env):
        assert (answer.returncode, answer.stdout) == (2, ""), answer.stderr
        assert "Traceback" not in answer.stderr
        assert answer.stderr.endswith(
            f"cannot reach {db}: permission denied: the folder {folder} cannot be entered "
            "by this user\n"), answer.stderr
