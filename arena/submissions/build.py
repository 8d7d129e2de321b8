"""Building a submitted version: its build command, once, in its folder, under limits.

`run_build` is the one place a build command is started. It runs the command
with ``/bin/sh -c`` in the version's folder, with a clean environment (no
token, no server address, no database), under a wall-clock time limit and
resource limits (address space, CPU time, file size; see
`arena.submissions.limited`), in a process group of its own that is killed
whole when the time is up. Its output is kept as the build's log.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

MIB = 1024 * 1024

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"

LIMITED = Path(__file__).with_name("limited.py")
"""The limits setter, run as a script in isolated mode (`-I`): it needs nothing but the
standard library, whatever the build's folder and whichever arena is installed."""

LOG_TAIL_BYTES = 64 * 1024
"""How much of a build's output is kept: its end."""


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """What one build may use."""

    seconds: float = 600.0
    """Wall-clock time; the CPU-time limit is the same number of seconds."""
    memory_bytes: int = 4096 * MIB
    """Address space of each process."""
    file_bytes: int = 1024 * MIB
    """The largest file it may write."""


@dataclass(frozen=True, slots=True)
class BuildResult:
    """How a build ended."""

    ok: bool
    exit_code: int | None
    """None when it was killed at the time limit."""
    timed_out: bool
    seconds: float
    log: str
    """The end of its output (stdout and stderr together), and how it ended."""


def build_environment(folder: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a build gets: a PATH whose first entry holds arena's Python, HOME
    and TMPDIR in the version's folder, a UTF-8 locale, and `extra`; nothing else."""
    path = os.pathsep.join([str(Path(sys.executable).parent),
                            os.environ.get("PATH") or DEFAULT_PATH])
    env = {"PATH": path, "HOME": str(folder), "TMPDIR": str(folder), "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(extra or {})
    return env


def run_build(command: str, folder: Path, limits: BuildLimits = BuildLimits(),
              env: Mapping[str, str] | None = None) -> BuildResult:
    """Run the build `command` in `folder` (see the module) and say how it ended."""
    argv = [sys.executable, "-I", str(LIMITED), str(limits.memory_bytes),
            str(max(1, int(limits.seconds))), str(limits.file_bytes), "--",
            "/bin/sh", "-c", command]
    started = time.monotonic()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(argv, cwd=folder, env=build_environment(folder, env),
                                   stdin=subprocess.DEVNULL, stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        timed_out = False
        try:
            code: int | None = process.wait(timeout=limits.seconds)
        except subprocess.TimeoutExpired:
            timed_out, code = True, None
        _kill_group(process.pid)
        if timed_out:
            process.wait()
        seconds = time.monotonic() - started
        log = _tail(output) + _ending(command, code, timed_out, seconds, limits)
    return BuildResult(ok=code == 0, exit_code=code, timed_out=timed_out, seconds=seconds,
                       log=log)


def _kill_group(pid: int) -> None:
    """Kill what the build left running in its group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _tail(stream: IO[bytes]) -> str:
    stream.seek(0, os.SEEK_END)
    size = stream.tell()
    stream.seek(max(0, size - LOG_TAIL_BYTES))
    data: bytes = stream.read()
    prefix = f"[... {size - len(data):,} bytes of output left out]\n" if size > len(data) else ""
    return prefix + data.decode("utf-8", "replace")


def _ending(command: str, code: int | None, timed_out: bool, seconds: float,
            limits: BuildLimits) -> str:
    if timed_out:
        how = f"killed after the time limit of {limits.seconds:g} s"
    elif code == 0:
        how = "succeeded"
    elif code is not None and code < 0:
        how = f"killed by signal {-code}"
    else:
        how = f"failed with exit code {code}"
    return f"\n--- build `{command}` {how} ({seconds:.1f} s)\n"
