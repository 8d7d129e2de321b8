"""Commands run through `wrap` in the real sandbox: what they see and what stops them."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox import Limits, command_paths, popen_kwargs, wrap
from arena.supervisor import BotIsolation, BotSupervisor, ManagedBot, ManagedBotError
from arena.supervisor.process import SOCKET_INSIDE
from tests.sandbox.sandbox_support import require_sandbox

MIB = 1024 * 1024


def _run(code: str, tmp_path: Path, limits: Limits | None = None,
         stdout: Path | None = None, read_only_paths: tuple[Path, ...] = (),
         writable_paths: tuple[Path, ...] = (), hidden_paths: tuple[Path, ...] = (),
         ) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-c", code]
    wrapped = wrap(argv, workdir=tmp_path,
                   read_only_paths=[*command_paths(argv, cwd=tmp_path), *read_only_paths],
                   writable_paths=writable_paths, hidden_paths=hidden_paths, limits=limits,
                   key=f"test/{tmp_path}")
    kwargs = popen_kwargs({})
    if stdout is None:
        return subprocess.run(wrapped, **kwargs, capture_output=True, text=True, timeout=60,
                              check=False)
    with stdout.open("ab") as out:
        return subprocess.run(wrapped, **kwargs, stdout=out, stderr=subprocess.PIPE,
                              text=True, timeout=60, check=False)


def test_a_hidden_file_in_a_shown_folder_cannot_be_read(tmp_path: Path) -> None:
    require_sandbox()
    tmp_path.chmod(0o755)  # a root arena's sandbox runs as another user: it must read
    (tmp_path / "arena.db").write_text("SQLite format 3")
    (tmp_path / "bot.txt").write_text("mine")
    code = ("print(open('bot.txt').read())\n"
            "try:\n    print(open('arena.db').read())\nexcept OSError as e:\n"
            "    print(type(e).__name__)")
    done = _run(code, tmp_path, read_only_paths=(tmp_path,),
                hidden_paths=(tmp_path / "arena.db",))
    assert done.stdout.split() == ["mine", "PermissionError"], done.stderr


def test_a_writable_path_can_be_written_and_nothing_else_outside_tmp(tmp_path: Path) -> None:
    require_sandbox()
    (tmp_path / "out").mkdir()
    (tmp_path / "out").chmod(0o777)
    code = ("open('out/built', 'w').write('ok')\n"
            "try:\n    open('elsewhere', 'w')\nexcept OSError as e:\n    print(type(e).__name__)")
    done = _run(code, tmp_path, writable_paths=(tmp_path / "out",))
    assert (tmp_path / "out" / "built").read_text() == "ok", done.stderr
    assert done.stdout.strip() in ("PermissionError", "OSError") and done.returncode == 0
    assert not (tmp_path / "elsewhere").exists()


def test_a_command_burning_cpu_past_its_budget_is_killed(tmp_path: Path) -> None:
    require_sandbox()
    done = _run("while True: pass", tmp_path, Limits(cpu_seconds=1))
    assert done.returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU,
                               -signal.SIGKILL, 128 + signal.SIGKILL), done


def test_output_past_its_limit_stops_the_command(tmp_path: Path) -> None:
    require_sandbox()
    log = tmp_path / "bot.log"
    log.write_bytes(b"x" * (3 * MIB))  # a log's earlier runs do not count against this one
    done = _run("import sys\nfor _ in range(4): sys.stdout.write('y' * 1048576)\n"
                "sys.stdout.flush()", tmp_path, Limits(output_bytes=2 * MIB), stdout=log)
    assert done.returncode in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ, 1), done
    assert log.stat().st_size <= 5 * MIB


def test_open_files_are_limited(tmp_path: Path) -> None:
    require_sandbox()
    done = _run("import os\nfds = []\ntry:\n    while True: fds.append(os.open('/dev/null', 0))\n"
                "except OSError as e:\n    print(len(fds), e.errno)", tmp_path,
                Limits(open_files=64))
    count, code = done.stdout.split()
    assert int(count) < 64 and code == "24", done


def test_a_required_sandbox_the_machine_lacks_stops_the_bot_from_starting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.sandbox import SandboxStatus
    from arena.supervisor import process

    monkeypatch.setattr(process, "status", lambda: SandboxStatus(False, "none", "no bwrap"))
    supervisor = BotSupervisor("unix:/nowhere", tmp_path, isolation=BotIsolation("required"))
    with pytest.raises(ManagedBotError, match="no bwrap"):
        asyncio.run(supervisor.start(ManagedBot("b", f"{sys.executable} -c 1", "t")))


def test_a_sandboxed_bot_needs_a_unix_socket_address(tmp_path: Path) -> None:
    require_sandbox()
    supervisor = BotSupervisor("127.0.0.1:5555", tmp_path, isolation=BotIsolation("required"))
    with pytest.raises(ManagedBotError, match="Unix socket"):
        asyncio.run(supervisor.start(ManagedBot("b", f"{sys.executable} -c 1", "t")))


def test_a_sandboxed_bot_is_given_the_socket_inside_and_no_more_of_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_sandbox()
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "admin-secret")
    script = ("import os; print(sorted(os.environ)); print(os.environ['ARENA_SERVER'], "
              "os.path.exists(os.environ['ARENA_SERVER'][5:]))")
    sock = tmp_path / "bots.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(sock))

        async def scenario() -> None:
            supervisor = BotSupervisor(f"unix:{sock}", tmp_path / "logs", max_restarts=0,
                                       isolation=BotIsolation("required"))
            await supervisor.start(ManagedBot("echo", f"{sys.executable} -c \"{script}\"", "t"))
            assert await supervisor.exit_code("echo", 30) == 0
            await supervisor.stop()

        asyncio.run(scenario())
    log = (tmp_path / "logs" / "echo.log").read_text()
    assert f"unix:{SOCKET_INSIDE} True" in log
    assert "ARENA_ADMIN_TOKEN" not in log and "ARENA_TOKEN" in log


def test_a_root_arena_refuses_in_plain_words_a_bot_others_cannot_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.sandbox import SandboxStatus
    from arena.supervisor import process

    monkeypatch.setattr(process, "status", lambda: SandboxStatus(True, "root", "as root"))
    folder = tmp_path / "private"
    folder.mkdir(mode=0o700)
    (folder / "bot.py").write_text("")
    supervisor = BotSupervisor(f"unix:{tmp_path / 's.sock'}", tmp_path / "logs",
                               isolation=BotIsolation("required"))
    with pytest.raises(ManagedBotError, match=r"not readable by other users \(mode 0700\)"):
        asyncio.run(supervisor.start(ManagedBot("b", f"{sys.executable} {folder}/bot.py", "t")))
