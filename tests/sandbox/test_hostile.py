"""A hostile bot in the real sandbox: each attack fails, and the tournament goes on."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.record import SeatTermination
from arena.sandbox import Limits
from arena.server.assembly import build_server, private_paths
from arena.server.auth import issue_admin_token
from arena.services import Services
from arena.store import Store
from arena.supervisor import BotIsolation
from tests.sandbox.sandbox_support import (
    HOSTILE_BOT,
    processes_with,
    require_sandbox,
    status_field,
)
from tests.support import ROOT, wait_until

MIB = 1024 * 1024
LIMITS = Limits(memory_bytes=1536 * MIB, processes=64, tmp_bytes=16 * MIB)
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"
ATTACKS = ("read_database", "read_admin_token", "read_other_bot", "connect_server_port",
           "connect_other_port", "resolve_outside", "reach_outside", "write_outside_tmp",
           "fill_tmp", "allocate_memory", "fork_bomb", "kill_others", "ptrace_others")


@pytest.fixture
def other_port() -> Iterator[int]:
    """A loopback port someone listens on (that no bot may reach)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def _bot_folders(tmp_path: Path) -> tuple[Path, Path]:
    hostile, other = tmp_path / "hostile", tmp_path / "other"
    hostile.mkdir()
    other.mkdir()
    shutil.copy(HOSTILE_BOT, hostile / "hostile_bot.py")
    shutil.copy(RANDOM_BOT, other / "random_bot.py")
    (other / "secret.txt").write_text("the other bot's secret")
    return hostile, other


def _write_targets(hostile: Path, tmp_path: Path, *, server_port: int, other_port: int,
                   pids: list[int], marker: str) -> None:
    targets = {
        "database": str(tmp_path / "arena.db"), "admin_token": str(tmp_path / "arena.admin-token"),
        "other_bot_file": str(tmp_path / "other" / "secret.txt"), "server_port": server_port,
        "other_port": other_port, "outside_name": "arena-sandbox-check.invalid",
        "outside_address": _own_address(),
        "write_paths": [str(hostile / "mine.txt"), str(tmp_path / "x.txt"), "/etc/x", "/x",
                        str(ROOT / "x.txt")],
        "tmp_bytes": LIMITS.tmp_bytes, "allocate_bytes": 4096 * MIB, "fork_bomb": 500,
        "pids": pids, "marker": marker}
    (hostile / "targets.json").write_text(json.dumps(targets))


def _own_address() -> str:
    """An address of this machine's own beyond loopback (outside the sandbox, reaching it
    needs a network), so that no test sends anything to another machine."""
    done = subprocess.run(["hostname", "-I"], capture_output=True, text=True, check=False)
    for word in done.stdout.split():
        if ":" not in word and not word.startswith("127."):
            return word
    pytest.fail(f"this machine has no IPv4 address beyond loopback: {done.stdout!r}")


def _inside_a_pid_namespace(pid: int) -> bool:
    """Whether the process runs in a PID namespace of its own, other than as its init."""
    ids = status_field(pid, "NSpid")
    return len(ids) == 2 and ids[1] != "1"


def _attack_lines(log: Path) -> dict[str, str]:
    lines = {}
    for line in log.read_text().splitlines():
        if line.startswith("ATTACK "):
            name, _, outcome = line.removeprefix("ATTACK ").partition(": ")
            lines[name] = outcome
    return lines


def test_every_attack_of_a_hostile_bot_fails_while_its_games_are_recorded(
        tmp_path: Path, other_port: int) -> None:
    require_sandbox()
    hostile, other = _bot_folders(tmp_path)
    marker = f"hostile-survivor-{uuid.uuid4().hex}"
    db = tmp_path / "arena.db"
    issue_admin_token(db, environ={})
    isolation = BotIsolation("required", LIMITS)

    async def scenario() -> tuple[Store, list[int]]:
        store = Store.open(db)
        holder: list[Services] = []
        server = build_server(store, tmp_path / "logs", holder.append, isolation=isolation,
                              hidden_paths=private_paths(db))
        port = await server.start("127.0.0.1", 0)
        services = holder[0]
        try:
            services.bots.add("other", "managed", f"{sys.executable} {other}/random_bot.py")
            services.bots.add("hostile", "managed",
                               f"{sys.executable} {hostile}/hostile_bot.py")
            await services.runs.ensure_bots(["other"], wait_seconds=30)
            other_pids = processes_with(str(other / "random_bot.py"))
            _write_targets(hostile, tmp_path, server_port=port, other_port=other_port,
                           pids=[os.getpid(), *other_pids], marker=marker)
            services.competitions.create_tournament("t", ["hostile", "other"], {
                "format": "round_robin", "table_size": 2, "deals_per_table": 1, "seed": 3,
                "concurrency": 2, "rules": {"target_score": None},
                "policy": {"decision_timeout": 5.0}})
            await services.runs.run_tournament("t", 2, wait_seconds=30)
            wait_until(lambda: processes_with(marker), 10, "the survivor to start")
            survivors = processes_with(marker)
            sandboxed = [pid for pid in processes_with(str(hostile / "hostile_bot.py"))
                         if _inside_a_pid_namespace(pid)]
            uids = [status_field(pid, "Uid")[0] for pid in sandboxed + survivors]
        finally:
            await server.stop(0.5)
        assert sandboxed and survivors and "0" not in uids, uids
        return store, survivors

    store, survivors = asyncio.run(scenario())
    try:
        games = store.games(tournament="t")
        assert len(games) == 2
        for game in games:
            seat = game.seats.index("hostile")
            assert game.seat_terminations[seat] is SeatTermination.NORMAL
            assert game.forfeited_seat is None
    finally:
        store.close()
    outcomes = _attack_lines(tmp_path / "logs" / "hostile.log")
    for attack in ATTACKS:
        assert outcomes.get(attack, "").startswith("blocked"), (attack, outcomes.get(attack))
    wait_until(lambda: not processes_with(marker), 10, "the survivor to end")
    assert not (hostile / "mine.txt").exists() and not (tmp_path / "x.txt").exists()


def test_a_sandboxed_bot_and_what_it_left_running_end_when_arena_is_killed(
        tmp_path: Path, other_port: int) -> None:
    require_sandbox()
    hostile, other = _bot_folders(tmp_path)
    marker = f"hostile-survivor-{uuid.uuid4().hex}"
    _write_targets(hostile, tmp_path, server_port=1, other_port=other_port, pids=[],
                   marker=marker)
    arena = [sys.executable, "-m", "arena", "--db", str(tmp_path / "arena.db")]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with Store.open(tmp_path / "arena.db") as store:
        for name, script in (("hostile", hostile / "hostile_bot.py"),
                             ("other", other / "random_bot.py")):
            store.add_bot(name, "managed", f"{sys.executable} {script}")
    match = subprocess.Popen([*arena, "match", "hostile", "other", "--games", "100000"],
                             cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: processes_with(marker), 30, "the survivor to start")
        assert processes_with(str(hostile / "hostile_bot.py"))
    finally:
        match.send_signal(signal.SIGKILL)
        match.wait(10)
    wait_until(lambda: not processes_with(marker), 10, "the survivor to end")
    wait_until(lambda: not processes_with(str(tmp_path)), 10, "every bot to end")
