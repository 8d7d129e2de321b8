"""Helpers for the report tests: the tournament they all look at, and database copies."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

TOURNAMENT = "spring"


@dataclass(frozen=True)
class Played:
    """A finished tournament: its database, the report `arena report` wrote of it, and
    the order `arena rankings` lists its bots in."""

    db: Path
    page: Path
    ranking_order: list[str]


def copy_database(source: Path, target: Path) -> Path:
    """A copy of the database at `source` written to `target` (through SQLite's backup,
    so that nothing still in a write-ahead log is left behind); returns `target`."""
    with closing(sqlite3.connect(source)) as original, closing(sqlite3.connect(target)) as copy:
        original.backup(copy)
    return target
