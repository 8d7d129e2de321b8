"""Helpers for the CLI tests: run `arena` in-process or as a real process, and look at its files.

Everything is real: commands start the gRPC server on 127.0.0.1, the database
is an SQLite file under the test's tmp_path, and managed bots are the Python
sample bots run as subprocesses.
"""

from __future__ import annotations

import json
import os
import re
import select
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]
PYTHON_BOTS = ROOT / "sample_bots" / "python"

ARENA = [sys.executable, "-c", "from arena.cli import main; main(prog_name='arena')"]
"""The `arena` command as a real process, independent of where the console script lives."""

ONE_HAND = {"target_score": None}
"""Rules for single hands, the shortest games (TOML cannot say null, so these go in JSON)."""

BOTS = {"greedy": "greedy", "rnd": "random", "counter": "counter"}
"""Three managed sample bots for tournaments: name → script (see `add_bots`)."""


def bot_command(script: str) -> str:
    """The managed-bot command of a Python sample bot (`random`, `greedy` or `counter`)."""
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(PYTHON_BOTS / f'{script}_bot.py'))}"


def invoke(*args: str, env: Mapping[str, str | None] | None = None) -> Result:
    """Run `arena ARGS` through click's CliRunner; exceptions other than exits propagate."""
    return CliRunner(env=dict(env or {})).invoke(main, list(args), catch_exceptions=False)


def arena(db: Path | str, *args: str, env: Mapping[str, str | None] | None = None) -> Result:
    """Run `arena --db DB ARGS` through click's CliRunner."""
    return invoke("--db", str(db), *args, env=env)


def ok(db: Path | str, *args: str) -> Result:
    """Like `arena`, and the command must succeed."""
    result = arena(db, *args)
    assert result.exit_code == 0, (args, result.output)
    return result


def add_bots(db: Path | str, bots: Mapping[str, str]) -> dict[str, str]:
    """Register managed sample bots (name → script); return name → token."""
    return {name: ok(db, "bot", "add", name, "--command", bot_command(script)).stdout.strip()
            for name, script in bots.items()}


def write_json(path: Path, data: Any) -> Path:
    """Write `data` as JSON to `path` and return the path."""
    path.write_text(json.dumps(data))
    return path


def read_only(db: Path) -> sqlite3.Connection:
    """A read-only connection to a database another process may be writing."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    connection.row_factory = sqlite3.Row
    return connection


def query(db: Path | str, sql: str, *params: Any) -> list[Any]:
    """Rows of one read-only query (`?` placeholders) on an SQLite file or a PostgreSQL
    URL, read by column name or position."""
    if isinstance(db, str):
        from arena.store.backend import Connection
        from arena.store.postgres_backend import PostgresBackend

        connection: Connection = PostgresBackend().connect(db, read_only=True)[0]
        try:
            return connection.execute(sql, params).fetchall()
        finally:
            connection.close()
    with closing(read_only(db)) as connection:
        return connection.execute(sql, params).fetchall()


def arena_env(env: Mapping[str, str], db: Path | str) -> dict[str, str]:
    """`env` for an `arena` process on `db`, run from anywhere: the worktree's arena
    comes first on its path (a PostgreSQL store keeps its admin token and bots' logs
    in the current folder, so such tests run from their tmp_path)."""
    return dict(env, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                              env.get("PYTHONPATH")])))


def assert_recorded_once(db: Path | str, tournament: str, total: int) -> None:
    """Each of the `total` games scheduled for `tournament` is done and recorded exactly
    once, linked to its schedule entry and played with the scheduled seed."""
    scheduled = query(db, "SELECT s.* FROM scheduled_games s JOIN tournaments t "
                          "ON t.id = s.tournament_id WHERE t.name = ?", tournament)
    games = query(db, "SELECT g.id, g.seed FROM games g JOIN tournaments t "
                      "ON t.id = g.tournament_id WHERE t.name = ?", tournament)
    assert len(scheduled) == total
    assert len(games) == total, "no game lost, none recorded twice"
    assert sorted(row["game_id"] for row in scheduled) == sorted(row["id"] for row in games), \
        "each game linked once"
    seeds = {row["id"]: row["seed"] for row in games}
    for entry in scheduled:
        assert entry["status"] == "done"
        assert seeds[entry["game_id"]] == entry["seed"]


# ------------------------------------------------------------- processes

def processes_marked(marker: str) -> list[int]:
    """Pids of live processes whose environment holds MARK=`marker` (Linux /proc)."""
    needle = f"ARENA_TEST_MARK={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


def sample_bot_processes(*scripts: str) -> list[int]:
    """Pids of live sample-bot processes (`greedy`, `random`, …) of this tree: the bots
    themselves, not their launchers nor a sandbox's init (Linux /proc)."""
    paths = [str(PYTHON_BOTS / f"{script}_bot.py").encode() for script in scripts]
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            status = (entry / "status").read_text()
        except OSError:
            continue
        nspid = next((line.split()[1:] for line in status.splitlines()
                      if line.startswith("NSpid:")), [])
        sandbox_init = len(nspid) > 1 and nspid[-1] == "1"
        if len(words) > 1 and words[1] in paths and not sandbox_init:
            found.append(int(entry.name))
    return found


def descends_from(pid: int, ancestor: int) -> bool:
    """Whether process `pid` is `ancestor` or one of its descendants (Linux /proc)."""
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def is_alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def is_launcher(pid: int) -> bool:
    """Whether process `pid` is the launcher a managed bot runs under (Linux /proc):
    each managed bot is two processes, `arena.supervisor.launch` and the bot's command."""
    with suppress(OSError):
        return b"arena.supervisor.launch" in Path(f"/proc/{pid}/cmdline").read_bytes()
    return False


def kill_marked(marker: str) -> list[int]:
    """SIGKILL the process group of every process marked with `marker`; return their pids."""
    pids = processes_marked(marker)
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    return pids


def has_open(pid: int, path: Path) -> bool:
    """Whether process `pid` has the file `path` open (Linux /proc)."""
    with suppress(OSError):
        for descriptor in Path(f"/proc/{pid}/fd").iterdir():
            with suppress(OSError):
                if Path(os.readlink(descriptor)) == path.resolve():
                    return True
    return False


@contextmanager
def marked_env(marker: str) -> Iterator[dict[str, str]]:
    """An environment that tags a process and its children with `marker`.

    Whatever is still alive with the tag when the block ends is killed, so a
    test never leaves a bot behind (managed bots run in sessions of their own).
    """
    env = dict(os.environ, ARENA_TEST_MARK=marker, NO_COLOR="1")
    env.pop("ARENA_DB", None)
    try:
        yield env
    finally:
        kill_marked(marker)


@contextmanager
def serving(db: Path | str, port: int, env: Mapping[str, str],
            *options: str) -> Iterator[subprocess.Popen[bytes]]:
    """`arena --db DB serve --port PORT OPTIONS` in the background (its stderr piped),
    killed on the way out if it is still running."""
    server = subprocess.Popen([*ARENA, "--db", str(db), "serve", "--port", str(port), *options],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield server
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        assert server.stderr is not None
        server.stderr.close()


def wait_for_line(process: subprocess.Popen[bytes], text: str, timeout: float) -> str:
    """Read the stderr of `process` until it says `text`; return all it said."""
    assert process.stderr is not None
    seen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 0.1)
        if ready:
            chunk = os.read(process.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
            if text.encode() in seen:
                return seen.decode()
    raise AssertionError(f"no {text!r} from the server; it said {seen.decode()!r}")


def leaderboard_tables(text: str) -> list[tuple[str, list[dict[str, str]]]]:
    """Each leaderboard a command printed: its pool heading and its rows, read by column
    (the columns under the header's dashes), without the notes below it."""
    lines = text.splitlines()
    tables = []
    for index, line in enumerate(lines):
        if not line.startswith("place ") or index + 1 >= len(lines):
            continue
        spans = [match.span() for match in re.finditer(r"-+", lines[index + 1])]
        header = [line[start:end + 2].strip() for start, end in spans]
        rows = []
        for row in lines[index + 2:]:
            if not row.strip() or "share a place" in row or row.startswith("CI: "):
                break
            rows.append({name: row[start:end + 2].strip()
                         for name, (start, end) in zip(header, spans, strict=True)})
        tables.append((lines[index - 1] if index else "", rows))
    return tables
