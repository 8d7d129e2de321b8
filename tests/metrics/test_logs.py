"""Structured logs: `--log-format json` writes one JSON event per line, with the run, game
and bot ids where they apply, for serve, runs and the worker processes of a run; the
human format stays the default. And the options' bad input, said in one line."""

from __future__ import annotations

import json
import logging
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.logs import JsonFormatter
from tests.cli.cli_support import (
    ARENA,
    ONE_HAND,
    arena,
    bot_command,
    ok,
    serving,
    wait_for_line,
    write_json,
)
from tests.cli.cli_support import marked_env as marked
from tests.support import TIME_SCALE, free_port

pytestmark = pytest.mark.timeout(int(240 * TIME_SCALE))

GAMES = 8


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    with marked(f"logs-{tmp_path.name}") as marked_env:
        marked_env.pop("ARENA_LOG_FORMAT", None)
        marked_env.pop("ARENA_LOG_FILE", None)
        yield marked_env


def events(text: str) -> list[dict[str, Any]]:
    """Every line of `text` as the JSON object it must be."""
    lines = [line for line in text.splitlines() if line.strip()]
    parsed = [json.loads(line) for line in lines]
    assert all(isinstance(event, dict) for event in parsed)
    for event in parsed:
        assert {"time", "level", "logger", "message"} <= event.keys(), event
        assert event["time"].endswith("Z")
    return parsed


def test_a_json_event_carries_its_fields_and_its_exception() -> None:
    logger = logging.getLogger("arena.test")
    try:
        raise ValueError("bad seat")
    except ValueError:
        record = logger.makeRecord("arena.test", logging.WARNING, __file__, 1,
                                   "bot %s forfeited", ("ann",), sys.exc_info(),
                                   extra={"run": "spring", "game": "spring:4", "bot": "ann"})
    event = json.loads(JsonFormatter().format(record))
    assert event["level"] == "warning"
    assert event["logger"] == "arena.test"
    assert event["message"] == "bot ann forfeited"
    assert (event["run"], event["game"], event["bot"]) == ("spring", "spring:4", "ann")
    assert "ValueError: bad seat" in event["exception"]
    assert "args" not in event and "msg" not in event


def test_a_run_on_two_workers_logs_json_events_with_run_game_and_bot_ids(
        tmp_path: Path, env: dict[str, str]) -> None:
    db = tmp_path / "arena.db"
    for name, script in (("greedy", "greedy"), ("rnd", "random")):
        ok(db, "bot", "add", name, "--command", bot_command(script))
    rules = write_json(tmp_path / "rules.json", ONE_HAND)
    ok(db, "tournament", "create", "cup", "greedy", "rnd", "--table-size", "2",
       "--deals", str(GAMES // 2), "--rules", str(rules))
    log = tmp_path / "arena.log.jsonl"
    run = subprocess.run([*ARENA, "--db", str(db), "--log-format", "json", "--log-file",
                          str(log), "tournament", "run", "cup", "--workers", "2"],
                         env=env, capture_output=True, text=True, timeout=200 * TIME_SCALE)
    assert run.returncode == 0, run.stderr
    assert "{" not in run.stderr  # the events went to the file
    logged = events(log.read_text(encoding="utf-8"))
    recorded = [e for e in logged if e["message"] == "game recorded"]
    assert sorted(e["game"] for e in recorded) == [f"cup:{i}" for i in range(GAMES)]
    assert all(e["run"] == "cup" and sorted(e["bots"]) == ["greedy", "rnd"]
               for e in recorded)
    messages = [e["message"] for e in logged]
    assert "run cup started" in messages
    ended = [e for e in logged if e["message"] == "run cup ended: finished"]
    assert [(e["done"], e["total"], e["played"]) for e in ended] == [(GAMES, GAMES, GAMES)]
    workers = [e for e in logged if e["logger"] == "arena.worker"
               and e["message"].startswith("worker ")]
    assert sorted(e["worker"] for e in workers) == [0, 1]
    assert len({e["pid"] for e in workers}) == 2
    assert all(e["run"] == "cup" for e in workers)
    chunks = [e for e in logged if e["message"].startswith("chunk of ")]
    assert sum(e["games"] for e in chunks) == GAMES


def test_serve_logs_json_on_stderr_and_nothing_else(tmp_path: Path,
                                                    env: dict[str, str]) -> None:
    db = tmp_path / "arena.db"
    port = free_port()
    with serving(db, port, env) as plain:
        said = wait_for_line(plain, "arena serving on", 60 * TIME_SCALE)
        assert "{" not in said  # the human format stays the default
    env = dict(env, ARENA_LOG_FORMAT="json")
    with serving(db, port, env) as server:
        said = wait_for_line(server, '"message": "serving"', 60 * TIME_SCALE)
        server.send_signal(signal.SIGTERM)
        assert server.wait(30 * TIME_SCALE) == 0
        assert server.stderr is not None
        said += server.stderr.read().decode()
    logged = events(said)
    serving_event = next(e for e in logged if e["message"] == "serving")
    assert serving_event["address"] == f"127.0.0.1:{port}"
    assert serving_event["logger"] == "arena.serve"


def test_a_log_file_that_cannot_be_written_is_said_in_one_line(tmp_path: Path) -> None:
    result = arena(tmp_path / "arena.db", "--log-file", str(tmp_path / "nowhere" / "x.log"),
                   "bot", "list")
    assert result.exit_code == 1
    assert result.output.startswith("Error: --log-file: cannot write ")
    assert "Traceback" not in result.output


def test_metrics_go_with_the_process_that_plays(tmp_path: Path) -> None:
    result = arena(tmp_path / "arena.db", "--server", "127.0.0.1:1", "tournament", "run",
                   "cup", "--metrics", "127.0.0.1:0")
    assert result.exit_code == 2
    assert "with --server the run is the server's: start `arena serve` with --metrics" \
        in result.output
    result = arena(tmp_path / "arena.db", "ladder", "run", "--metrics", "localhost")
    assert result.exit_code == 2
    assert "'localhost' is not HOST:PORT (say 127.0.0.1:9464)" in result.output


def test_a_metrics_port_in_use_is_said_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = arena(tmp_path / "arena.db", "tournament", "run", "cup",
                       "--metrics", f"127.0.0.1:{port}")
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: --metrics: cannot listen on 127.0.0.1:{port}: ")
    assert "Traceback" not in result.output
