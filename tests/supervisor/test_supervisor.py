"""Managed bots are launched with their environment, logged, restarted and stopped."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
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
    assert _wait_gone(bot_pid), "the bot outlived the arena process that launched it"


def _alive(pid: int) -> bool:
    """Whether process `pid` exists and has not exited (a zombie has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            return False
        time.sleep(0.02)
    return True


def _pid_bot(tmp_path: Path) -> tuple[Path, Path]:
    """A bot script that writes its pid to a file and then sleeps; (script, pid file)."""
    pid_file = tmp_path / "bot.pid"
    script = tmp_path / "bot.py"
    script.write_text(f"import os, time\nopen({str(pid_file)!r} + '.tmp', 'w').write("
                      f"str(os.getpid()))\nos.rename({str(pid_file)!r} + '.tmp', "
                      f"{str(pid_file)!r})\ntime.sleep(60)\n")
    return script, pid_file


def _read_pid(pid_file: Path, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while not pid_file.exists():
        assert time.monotonic() < deadline, "the bot never started"
        time.sleep(0.02)
    return int(pid_file.read_text())


def test_a_bot_started_through_a_wrapper_dies_with_a_killed_arena_process(
        tmp_path: Path) -> None:
    script, pid_file = _pid_bot(tmp_path)
    command = f"bash -c '{PY} {script}; true'"
    parent_code = f"""
import asyncio
from pathlib import Path
from arena.supervisor import BotSupervisor, ManagedBot
async def main():
    s = BotSupervisor("127.0.0.1:1", Path({str(tmp_path)!r}))
    await s.start(ManagedBot("wrapped", {command!r}, "t"))
    await asyncio.sleep(60)
asyncio.run(main())
"""
    parent = subprocess.Popen([PY, "-c", parent_code])
    try:
        bot_pid = _read_pid(pid_file)
    finally:
        parent.kill()
        parent.wait()
    assert _wait_gone(bot_pid), "the wrapped bot outlived the arena process that launched it"


def test_stopping_a_bot_started_through_a_wrapper_ends_the_bot_too(tmp_path: Path) -> None:
    script, pid_file = _pid_bot(tmp_path)

    async def scenario() -> int:
        supervisor = BotSupervisor("127.0.0.1:1", tmp_path)
        await supervisor.start(ManagedBot("wrapped", f"bash -c '{PY} {script}; true'", "t"))
        bot_pid = await asyncio.to_thread(_read_pid, pid_file)
        await supervisor.stop(timeout=5)
        return bot_pid

    bot_pid = run(scenario())
    assert isinstance(bot_pid, int)
    assert _wait_gone(bot_pid, timeout=1.0)


def test_what_a_wrapper_leaves_running_when_it_exits_is_ended(tmp_path: Path) -> None:
    script, pid_file = _pid_bot(tmp_path)
    exits: list[int] = []

    async def scenario() -> int:
        supervisor = BotSupervisor("127.0.0.1:1", tmp_path, max_restarts=0,
                                   on_exit=lambda name, code: exits.append(code))
        await supervisor.start(ManagedBot(
            "wrapped", f"bash -c '{PY} {script} & while [ ! -e {pid_file} ]; do sleep 0.05; "
                       "done; exit 3'", "t"))
        bot_pid = await asyncio.to_thread(_read_pid, pid_file)
        assert await supervisor.exit_code("wrapped", 5.0) == 3
        await supervisor.stop()
        return bot_pid

    bot_pid = run(scenario())
    assert isinstance(bot_pid, int)
    assert _wait_gone(bot_pid), "the wrapper's child outlived it"
    assert exits == [3], "the wrapper's own exit code"


def test_a_bot_killed_by_a_signal_is_reported_killed_by_that_signal(tmp_path: Path) -> None:
    async def scenario() -> int | None:
        supervisor = BotSupervisor("127.0.0.1:1", tmp_path, max_restarts=0)
        await supervisor.start(ManagedBot(
            "killed", f"{PY} -c \"import os, signal; os.kill(os.getpid(), signal.SIGUSR1)\"",
            "t"))
        code = await supervisor.exit_code("killed", 5.0)
        await supervisor.stop()
        return code

    assert run(scenario()) == -signal.SIGUSR1


def test_a_new_bot_log_is_owner_only_and_an_existing_one_keeps_its_mode(
        tmp_path: Path) -> None:
    (tmp_path / "old.log").touch()
    (tmp_path / "old.log").chmod(0o644)

    async def scenario() -> None:
        supervisor = BotSupervisor("127.0.0.1:1", tmp_path, max_restarts=0)
        for name in ("new", "old"):
            await supervisor.start(ManagedBot(name, f"{PY} -c pass", "t"))
        await supervisor.stop()

    run(scenario())
    modes = {name: (tmp_path / f"{name}.log").stat().st_mode & 0o777 for name in ("new", "old")}
    assert modes == {"new": 0o600, "old": 0o644}
