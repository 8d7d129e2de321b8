"""The attack campaign on a root arena, replayed: each way a bot once widened its sandbox
or shared it with another, tried again against the real sandbox, and held."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox import Limits, command_paths, popen_kwargs, wrap
from arena.supervisor import BotIsolation, BotSupervisor, ManagedBot, ManagedBotError
from tests.sandbox.sandbox_support import require_sandbox

MIB = 1024 * 1024

PROBE = """\
import json, os, sys
seen = {path: os.path.exists(path) and bool(os.listdir(path) if os.path.isdir(path) else 1)
        for path in sys.argv[1:]}
seen["own folder"] = sorted(os.listdir("."))
print("SEEN " + json.dumps(seen))
"""


def _run_version(tmp_path: Path, command: str, folder: Path,
                 limits: Limits | None = None) -> str:
    """Run `command` as a submitted version in `folder` under a sandboxing supervisor
    (with `limits`) until it exits; its log."""
    return _exit_and_log(tmp_path, command, folder, limits)[1]


def _exit_and_log(tmp_path: Path, command: str, folder: Path,
                  limits: Limits | None = None) -> tuple[int | None, str]:
    """`_run_version`'s run: the version's exit code, and its log."""
    sock = tmp_path / "bots.sock"
    codes: list[int | None] = []
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(sock))

        async def scenario() -> None:
            supervisor = BotSupervisor(f"unix:{sock}", tmp_path / "logs", max_restarts=0,
                                       isolation=BotIsolation("required", limits or Limits()))
            await supervisor.start(ManagedBot("v", command, "t", cwd=folder))
            codes.append(await supervisor.exit_code("v", 30))
            assert codes[0] is not None
            await supervisor.stop()

        asyncio.run(scenario())
    return codes[0], (tmp_path / "logs" / "v.log").read_text()


def _seen(log: str) -> dict[str, object]:
    line = next(line for line in log.splitlines() if line.startswith("SEEN "))
    seen: dict[str, object] = json.loads(line.removeprefix("SEEN "))
    return seen


def test_a_run_line_naming_host_paths_shows_the_version_none_of_them(tmp_path: Path) -> None:
    require_sandbox()
    version, other = tmp_path / "version", tmp_path / "other"
    version.mkdir()
    other.mkdir()
    (version / "probe.py").write_text(PROBE)
    (other / "secret.txt").write_text("another bot's secret")
    named = ["/etc/hostname", "/etc/shadow", "/home", "/var", str(other)]
    seen = _seen(_run_version(tmp_path, f"{sys.executable} probe.py {' '.join(named)}",
                              version))
    assert {path: seen[path] for path in named} == dict.fromkeys(named, False)
    assert seen["own folder"] == ["probe.py"]


def test_a_run_line_naming_no_file_of_the_version_still_shows_it_its_folder(
        tmp_path: Path) -> None:
    require_sandbox()
    version = tmp_path / "version"
    version.mkdir()
    (version / "probe.py").write_text(PROBE)
    code = "exec(open('probe.py').read())"
    seen = _seen(_run_version(tmp_path, f"{sys.executable} -c \"{code}\"", version))
    assert seen["own folder"] == ["probe.py"]


def test_a_version_started_by_a_program_elsewhere_is_refused_not_shown_it(
        tmp_path: Path) -> None:
    require_sandbox()
    version, elsewhere = tmp_path / "version", tmp_path / "elsewhere"
    version.mkdir()
    elsewhere.mkdir()
    tool = elsewhere / "tool"
    tool.write_text("#!/bin/sh\necho escaped\n")
    tool.chmod(0o755)
    sock = tmp_path / "bots.sock"
    supervisor = BotSupervisor(f"unix:{sock}", tmp_path / "logs", max_restarts=0,
                               isolation=BotIsolation("required"))
    with pytest.raises(ManagedBotError, match="neither in its folder nor a runtime"):
        asyncio.run(supervisor.start(ManagedBot("v", f"{tool} --fast", "t", cwd=version)))


KEYRING = """\
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
SESSION = -3
if sys.argv[1] == "id":
    print(libc.syscall(250, 0, SESSION, 0), ctypes.get_errno())
elif sys.argv[1] == "add":
    print(libc.syscall(248, b"user", b"arena-channel", b"hello", 5, SESSION), ctypes.get_errno())
else:
    print(libc.syscall(250, 10, SESSION, b"user", b"arena-channel", 0), ctypes.get_errno())
"""


def _in_sandbox(tmp_path: Path, code: str, *args: str, key: str = "a"
                ) -> subprocess.CompletedProcess[str]:
    folder = tmp_path / "probe"
    folder.mkdir(mode=0o755, exist_ok=True)
    script = folder / "probe.py"
    script.write_text(code)
    argv = [sys.executable, str(script), *args]
    wrapped = wrap(argv, workdir=folder, read_only_paths=command_paths(argv, cwd=folder),
                   key=f"campaign/{key}")
    return subprocess.run(wrapped, **popen_kwargs({}), capture_output=True, text=True,
                          timeout=60, check=False)


def _session_keyring() -> int:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.syscall(250, 0, -3, 1))


def test_no_sandbox_reaches_arenas_session_keyring_nor_passes_a_key_to_another(
        tmp_path: Path) -> None:
    require_sandbox()
    if os_machine() != "x86_64":
        pytest.skip("the probe's system call numbers are x86-64's")
    ours = _session_keyring()
    inside = _in_sandbox(tmp_path, KEYRING, "id")
    assert inside.returncode == 0, inside.stderr
    keyring, _ = inside.stdout.split()
    assert int(keyring) != ours and int(keyring) < 0
    added = _in_sandbox(tmp_path, KEYRING, "add", key="a").stdout.split()
    found = _in_sandbox(tmp_path, KEYRING, "find", key="b").stdout.split()
    assert int(added[0]) < 0 and int(found[0]) < 0


def os_machine() -> str:
    import os

    return os.uname().machine


KERNEL = """\
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
calls = {"unshare_user": (272, 0x10000000), "mount": (165, b"none", b"/tmp", b"tmpfs", 0, 0),
         "ptrace_attach_1": (101, 16, 1, 0, 0), "bpf": (321, 0, 0, 0),
         "perf_event_open": (298, 0, 0, -1, -1, 0), "init_module": (175, 0, 0, b""),
         "kexec_load": (246, 0, 0, 0, 0), "setns": (308, 0, 0), "keyctl": (250, 0, -3, 0),
         "clone_newuser": (56, 0x10000000 | 17, 0, 0, 0, 0)}
out = {}
for name, args in calls.items():
    result = libc.syscall(*args)
    if result == 0 and name.startswith("clone"):
        os._exit(0)
    out[name] = (result, ctypes.get_errno())
status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines())
out["seccomp"] = status["Seccomp"]
out["bounding"] = status["CapBnd"]
out["pid1"] = open("/proc/1/cmdline", "rb").read().decode(errors="replace")
print(json.dumps(out))
"""


def test_the_kernel_calls_a_bot_never_needs_are_refused_and_pid1_shows_no_mounts(
        tmp_path: Path) -> None:
    require_sandbox()
    if os_machine() != "x86_64":
        pytest.skip("the probe's system call numbers are x86-64's")
    done = _in_sandbox(tmp_path, KERNEL)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    eperm = 1
    for name in ("unshare_user", "mount", "ptrace_attach_1", "bpf", "perf_event_open",
                 "init_module", "kexec_load", "setns", "keyctl", "clone_newuser"):
        assert found[name] == [-1, eperm], name
    assert found["seccomp"] == "2" and int(found["bounding"], 16) == 0
    assert "--ro-bind" not in found["pid1"] and str(tmp_path) not in found["pid1"].split(
        "\0--\0")[0]


def test_a_system_call_of_another_abi_kills_the_bot_instead_of_passing_the_filter(
        tmp_path: Path) -> None:
    require_sandbox()
    if os_machine() != "x86_64":
        pytest.skip("the probe's system call numbers are x86-64's")
    x32_unshare = "import ctypes; ctypes.CDLL(None).syscall(0x40000000 | 272, 0x10000000)"
    done = _in_sandbox(tmp_path, x32_unshare)
    assert done.returncode == 128 + signal.SIGSYS, done


def test_a_bot_flooding_its_log_across_restarts_keeps_a_few_capped_files(
        tmp_path: Path) -> None:
    require_sandbox()
    cap = 256 * 1024
    flood = "import sys; [sys.stderr.write('x' * 65536) for _ in iter(int, 1)]"
    sock = tmp_path / "bots.sock"
    isolation = BotIsolation("required", Limits(output_bytes=cap), log_files=3)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(sock))

        async def scenario() -> None:
            supervisor = BotSupervisor(f"unix:{sock}", tmp_path / "logs", max_restarts=3,
                                       backoff=0.0, isolation=isolation)
            await supervisor.start(ManagedBot("flood", f"{sys.executable} -c \"{flood}\"",
                                              "t"))
            for _ in range(600):
                if supervisor.gave_up("flood"):
                    break
                await asyncio.sleep(0.05)
            assert supervisor.gave_up("flood") and len(supervisor.exit_codes("flood")) == 4
            await supervisor.stop()

        asyncio.run(scenario())
    logs = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert logs == ["flood.log", "flood.log.1", "flood.log.2"]
    assert all((tmp_path / "logs" / name).stat().st_size <= cap for name in logs)


MEMORY = """\
import os, sys, time
MIB = 1024 * 1024
def hold(size):
    if sys.argv[1] == "memfd":  # many files: each one's size is bounded on its own
        for index in range(size // MIB):
            if index % 8 == 0:
                fd = os.memfd_create("hoard")
            os.write(fd, b"x" * MIB)
    else:
        block = b"x" * size
    time.sleep(1.5)
    os._exit(0)
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        hold(96 * MIB)
    children.append(pid)
held = sum(os.waitpid(pid, 0)[1] == 0 for pid in children)
print(f"HELD {held} of 4", flush=True)
"""


@pytest.mark.parametrize("how", ["heap", "memfd"])
def test_a_bots_processes_together_hold_no_more_memory_than_its_total(
        tmp_path: Path, how: str) -> None:
    require_sandbox()
    from arena.sandbox import cgroups

    if "memory" not in cgroups.support().folders:
        pytest.skip(f"no memory cgroup here: {cgroups.support().missing['memory']}")
    version = tmp_path / "version"
    version.mkdir()
    (version / "hoard.py").write_text(MEMORY)
    limits = Limits(memory_bytes=1024 * MIB, total_memory_bytes=256 * MIB)
    code, log = _exit_and_log(tmp_path, f"{sys.executable} hoard.py {how}", version, limits)
    held = [line for line in log.splitlines() if line.startswith("HELD ")]
    # Either some of the hoarders were killed, or (memory no process can give back)
    # the whole bot was.
    assert (held and held[0] != "HELD 4 of 4") or (not held and code in (-9, 128 + 9)), (code, log)


THREADS = """\
import threading, time
started = 0
for _ in range(100):
    try:
        threading.Thread(target=time.sleep, args=(2,), daemon=True).start()
        started += 1
    except RuntimeError:
        break
print(f"THREADS {started}", flush=True)
"""


def test_a_bots_processes_and_threads_together_stop_at_its_total(tmp_path: Path) -> None:
    require_sandbox()
    version = tmp_path / "version"
    version.mkdir()
    (version / "threads.py").write_text(THREADS)
    log = _run_version(tmp_path, f"{sys.executable} threads.py", version,
                       Limits(processes=24))
    started = [int(line.split()[1]) for line in log.splitlines() if line.startswith("THREADS")]
    assert started and started[0] < 24, log


SPIN = """\
import os, time
def spin():
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        pass
    os._exit(0)
children = [pid for pid in (os.fork() for _ in range(2)) if pid or spin()]
for pid in children:
    os.waitpid(pid, 0)
times = os.times()
print(f"CPU {times.children_user + times.children_system:.2f}", flush=True)
"""


def _cpu(log: str) -> float:
    return next(float(line.split()[1]) for line in log.splitlines() if line.startswith("CPU "))


def test_a_bot_spinning_in_many_processes_gets_only_its_share_of_the_cpu(
        tmp_path: Path) -> None:
    require_sandbox()
    from arena.sandbox import cgroups

    if "cpu" not in cgroups.support().folders:
        pytest.skip(f"no cpu cgroup here: {cgroups.support().missing['cpu']}")
    version = tmp_path / "version"
    version.mkdir()
    (version / "spin.py").write_text(SPIN)
    log = _run_version(tmp_path, f"{sys.executable} spin.py", version, Limits(cpu_percent=10))
    # Two processes spinning for a second would take up to 2 s of CPU; 10% of a core
    # gives them about 0.1 s (0.5 s leaves room for the scheduler's periods).
    assert _cpu(log) < 0.5, log


def test_a_builds_processes_together_stay_within_its_memory_and_cpu(tmp_path: Path) -> None:
    require_sandbox()
    from arena.sandbox import cgroups
    from arena.submissions import BuildLimits, run_build

    if {"memory", "cpu"} - set(cgroups.support().folders):
        pytest.skip(f"no memory or cpu cgroup here: {cgroups.support().missing}")
    folder = tmp_path / "version"
    folder.mkdir()
    (folder / "hoard.py").write_text(MEMORY)
    (folder / "spin.py").write_text(SPIN)
    result = run_build("python hoard.py heap; python spin.py", folder,
                       BuildLimits(memory_bytes=256 * MIB, cpu_percent=25), sandbox="required")
    held = [line for line in result.log.splitlines() if line.startswith("HELD ")]
    assert held and held[0] != "HELD 4 of 4", result.log
    assert _cpu(result.log) < 0.7, result.log  # 25% of a core: about 0.25 s of 2
