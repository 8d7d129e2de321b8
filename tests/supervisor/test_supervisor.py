"""Managed bots are launched with their environment, logged, restarted and stopped."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from arena.supervisor import BotSupervisor, ManagedBot, ManagedBotError

PY = sys.executable


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_managed_bot_gets_server_and_token_in_its_environment(tmp_path: Path) -> None:
    script = "import os; print(os.environ['ARENA_SERVER'], os.environ['ARENA_TOKEN'])"

    async def scenario() -> None:
        supervisor = BotSupervisor("127.0.0.1:5555", tmp_path, max_restarts=0)
        await supervisor.start(ManagedBot("echo", f"{PY} -c \"{script}\"", "tok-123"))
        for _ in range(100):
            if supervisor.exit_codes("echo"):
                break
            await asyncio.sleep(0.05)
        await supervisor.stop()

    run(scenario())
    assert "127.0.0.1:5555 tok-123" in (tmp_path / "echo.log").read_text()


def test_crashing_bot_is_restarted_up_to_the_limit_and_each_exit_is_reported(
    tmp_path: Path,
) -> None:
    exits: list[tuple[str, int]] = []

    async def scenario() -> None:
        supervisor = BotSupervisor("127.0.0.1:1", tmp_path, max_restarts=2, backoff=0.01,
                                   on_exit=lambda name, code: exits.append((name, code)))
        await supervisor.start(ManagedBot("crasher", f"{PY} -c \"raise SystemExit(3)\"", "t"))
        for _ in range(200):
            if len(exits) == 3:
                break
            await asyncio.sleep(0.02)
        await supervisor.stop()
        assert supervisor.restarts("crasher") == 2

    run(scenario())
    assert exits == [("crasher", 3)] * 3


def test_exit_code_waits_a_moment_for_an_exiting_bot_and_not_for_a_running_one(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        supervisor = BotSupervisor("127.0.0.1:1", tmp_path, max_restarts=0)
        await supervisor.start(ManagedBot(
            "dying", f"{PY} -c \"import time; time.sleep(0.2); raise SystemExit(7)\"", "t"))
        await supervisor.start(ManagedBot(
            "living", f"{PY} -c \"import time; time.sleep(60)\"", "t"))
        assert await supervisor.exit_code("dying", 5.0) == 7
        started = asyncio.get_running_loop().time()
        assert await supervisor.exit_code("living", 0.2) is None
        assert asyncio.get_running_loop().time() - started < 2
        assert await supervisor.exit_code("unknown", 0.2) is None
        await supervisor.stop()

    run(scenario())


def test_stop_ends_a_bot_that_runs_forever(tmp_path: Path) -> None:
    async def scenario() -> None:
        supervisor = BotSupervisor("127.0.0.1:1", tmp_path)
        await supervisor.start(ManagedBot("sleeper", f"{PY} -c \"import time; time.sleep(60)\"",
                                          "t"))
        assert supervisor.is_running("sleeper")
        await supervisor.stop(timeout=2)
        assert not supervisor.is_running("sleeper")

    run(scenario())


def test_missing_program_is_a_clear_error(tmp_path: Path) -> None:
    async def scenario() -> None:
        supervisor = BotSupervisor("127.0.0.1:1", tmp_path)
        with pytest.raises(ManagedBotError, match="cannot start"):
            await supervisor.start(ManagedBot("ghost", "/no/such/program --x", "t"))
        await supervisor.stop()

    run(scenario())


def test_bots_die_with_a_killed_arena_process(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    parent_code = f"""
import asyncio, sys, time
from pathlib import Path
from arena.supervisor import BotSupervisor, ManagedBot
async def main():
    s = BotSupervisor("127.0.0.1:1", Path({str(tmp_path)!r}))
    await s.start(ManagedBot("sleeper", "{PY} -c 'import time; time.sleep(60)'", "t"))
    print(s._bots["sleeper"].process.pid, flush=True)
    await asyncio.sleep(60)
asyncio.run(main())
"""
    parent = subprocess.Popen([PY, "-c", parent_code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    bot_pid = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    for _ in range(100):
        try:
            os.kill(bot_pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(bot_pid, signal.SIGKILL)
    raise AssertionError("the bot outlived the arena process that launched it")
