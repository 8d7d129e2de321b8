"""No admin call from the CLI waits for ever: a call has a deadline, and a stream ends
once the server has sent nothing, not even a heartbeat, for a while. Real processes:
`arena serve` stopped with SIGSTOP, and `arena --server` commands against it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.cli.session import ServerSilent, admin_session
from arena.v1 import admin_pb2
from tests.cli.cli_support import ARENA, bot_command, ok, query, serving, wait_for_line
from tests.support import TIME_SCALE, free_port


@contextmanager
def stopped(server: subprocess.Popen[bytes]) -> Iterator[None]:
    """The server process stopped (SIGSTOP) while the block runs, then let go on."""
    os.kill(server.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.pid, signal.SIGCONT)


def remote(db: Path, port: int, *args: str, **env: str) -> tuple[subprocess.CompletedProcess[str],
                                                                 float]:
    """`arena --server 127.0.0.1:PORT ARGS` as a process, and how long it took."""
    started = time.monotonic()
    result = subprocess.run([*ARENA, "--db", str(db), "--server", f"127.0.0.1:{port}", *args],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "NO_COLOR": "1", **env}, check=False)
    return result, time.monotonic() - started


def test_a_call_to_a_server_that_stopped_answering_ends_with_a_clear_line(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    ok(db, "bot", "add", "alice")
    ok(db, "bot", "add", "bob")
    ok(db, "tournament", "create", "cup", "alice", "bob", "--table-size", "2", "--deals", "2")
    port = free_port()
    with serving(db, port, dict(os.environ)) as server:
        wait_for_line(server, "arena serving on", 30 * TIME_SCALE)
        with stopped(server):
            result, took = remote(db, port, "tournament", "schedule", "cup",
                                  ARENA_CALL_TIMEOUT="2")
    assert result.returncode == 1, result
    assert result.stderr == (
        f"Error: the arena server at 127.0.0.1:{port} did not answer GetSchedule within 2 s: "
        "it may be stopped, overloaded or unreachable (ARENA_CALL_TIMEOUT sets how long to "
        "wait)\n")
    assert took < 2 + 15 * TIME_SCALE, f"took {took:.1f} s"


def test_a_run_whose_server_stops_answering_ends_with_a_clear_line(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    for name in ("r1", "r2"):
        ok(db, "bot", "add", name, "--command", bot_command("random"))
    # The server's heartbeats come every 5 s: the silence allowed is longer.
    ok(db, "tournament", "create", "cup", "r1", "r2", "--table-size", "2", "--deals", "400",
       "--rules", str(_one_hand(tmp_path)))
    port = free_port()
    with serving(db, port, dict(os.environ)) as server:
        wait_for_line(server, "arena serving on", 30 * TIME_SCALE)
        run = subprocess.Popen([*ARENA, "--db", str(db), "--server", f"127.0.0.1:{port}",
                                "tournament", "run", "cup"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "NO_COLOR": "1",
                                    "ARENA_STREAM_SILENCE": "8"})
        try:
            deadline = time.monotonic() + 60 * TIME_SCALE
            while not query(db, "SELECT COUNT(*) FROM games")[0][0]:
                assert time.monotonic() < deadline, "no game was played"
                assert run.poll() is None, run.communicate()
                time.sleep(0.1)
            with stopped(server):
                started = time.monotonic()
                _, stderr = run.communicate(timeout=60)
                took = time.monotonic() - started
        finally:
            if run.poll() is None:
                run.kill()
    assert run.returncode == 1
    assert stderr.splitlines()[-1] == (
        f"Error: the arena server at 127.0.0.1:{port} sent nothing on RunTournament for 8 s: "
        "it stopped answering (ARENA_STREAM_SILENCE sets how long to wait)"), stderr
    assert took < 8 + 15 * TIME_SCALE, f"took {took:.1f} s"


def _one_hand(folder: Path) -> Path:
    rules = folder / "rules.json"
    rules.write_text('{"target_score": null}')
    return rules


def test_a_quiet_run_is_kept_alive_by_the_servers_heartbeats(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.server import admin

    monkeypatch.setattr(admin, "HEARTBEAT_SECONDS", 0.2)
    monkeypatch.setenv("ARENA_STREAM_SILENCE", "1")
    db = tmp_path / "arena.db"
    ok(db, "bot", "add", "alice")
    ok(db, "bot", "add", "bob")
    ok(db, "tournament", "create", "cup", "alice", "bob", "--table-size", "2", "--deals", "1")

    async def scenario() -> list[admin_pb2.RunProgress]:
        async with admin_session(None, db) as session:
            request = admin_pb2.RunTournamentRequest(tournament="cup", remote_wait_seconds=3)
            return [update async for update in session.admin.RunTournament(request)]

    # Remote bots that never connect: 3 s without a game, the stream's silence allowed 1 s.
    with pytest.raises(Exception) as failed:
        asyncio.run(scenario())
    assert not isinstance(failed.value, ServerSilent), failed.value
    assert "bots not connected after 3 s: alice, bob" in str(failed.value)


def test_a_bad_wait_setting_is_one_clear_line(tmp_path: Path) -> None:
    result = subprocess.run([*ARENA, "--db", str(tmp_path / "arena.db"), "bot", "list"],
                            capture_output=True, text=True, timeout=60, check=False,
                            env={**os.environ, "ARENA_CALL_TIMEOUT": "soon"})
    assert result.returncode == 1
    assert result.stderr == "Error: ARENA_CALL_TIMEOUT must be a number of seconds, got 'soon'\n"
