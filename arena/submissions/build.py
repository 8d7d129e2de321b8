"""Building a submitted version: its build command, once, in its folder, under limits.

`run_build` is the one place a build command is started. It runs the command
with ``/bin/sh -c`` in the version's folder, with a clean environment (no
token, no server address, no database), under a wall-clock time limit and
resource limits (address space, CPU time, file size), in a process group of
its own that is killed whole when the time is up. Its output is kept as the
build's log.

Sandboxed (`sandbox` ``auto`` where this machine has one, or ``required``), the
build runs in the same bubblewrap sandbox as play (`arena.sandbox.wrap`) with no
network: it sees the system, arena's Python and SDK and the protocol files
read-only, and only its own folder writable; under a root arena, as a uid of its
own that owns the folder for the build's length. Unsandboxed (``off``), the limits
are set by `arena.submissions.limited`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from arena.sandbox import (
    Limits,
    SandboxError,
    cgroups,
    command_paths,
    sandbox_uid,
    sdk_paths,
    status,
    wrap,
)

MIB = 1024 * 1024

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"

LIMITED = Path(__file__).with_name("limited.py")
"""The limits setter, run as a script in isolated mode (`-I`): it needs nothing but the
standard library, whatever the build's folder and whichever arena is installed."""

LOG_TAIL_BYTES = 64 * 1024
"""How much of a build's output is kept: its end."""

BuildSandbox = Literal["off", "auto", "required"]
"""Whether builds run sandboxed: never, where this machine can, or always (refused where it
cannot), as managed bots are (`arena.supervisor.BotIsolation.sandbox`)."""

BUILD_SECONDS = 600.0
"""How long a build may take by default, in wall-clock and in CPU seconds."""

BUILD_PROCESSES = 512
"""Processes and threads a sandboxed build may run at once (a compiler starts many)."""


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """What one build may use."""

    seconds: float = BUILD_SECONDS
    """Wall-clock time; the CPU-time limit is the same number of seconds."""
    memory_bytes: int = 4096 * MIB
    """Address space of each process."""
    file_bytes: int = 1024 * MIB
    """The largest file it may write."""
    disk_bytes: int = 512 * MIB
    """The disk the version's folder may take once built (its files and what the build
    writes): a build past it is stopped, fails, and its files are removed."""
    cpu_percent: int = 100
    """Its share of the CPU, all its processes together, in percent of one core (in a
    sandbox, where the machine has cgroups; `memory_bytes` is then its memory in all
    too)."""


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


OutputListener = Callable[[str], None]
"""Told the tail of a running build's output, as it grows."""


def run_build(command: str, folder: Path, limits: BuildLimits = BuildLimits(),
              env: Mapping[str, str] | None = None,
              sandbox: BuildSandbox = "off",
              on_output: OutputListener | None = None) -> BuildResult:
    """Run the build `command` in `folder` (see the module) and say how it ended;
    `on_output` is told the tail of its output while it runs. Raises `SandboxError` when
    `sandbox` is ``required`` and this machine has none."""
    found = status()
    if sandbox == "required" and not found.available:
        raise SandboxError(f"builds must be sandboxed, and {found.reason}")
    if sandbox != "off" and found.available:
        key = f"build/{folder.name}"
        sandbox_limits = _sandbox_limits(limits)
        try:
            group = cgroups.create(key, sandbox_limits)
        except OSError as exc:
            raise SandboxError(f"cannot make the build's cgroup: {exc}") from None
        owner = _lend(folder, sandbox_uid(key)) if found.mode == "root" else None
        try:
            inside = {**build_environment(folder, env),
                      "PATH": os.pathsep.join([str(Path(sys.executable).parent), DEFAULT_PATH])}
            argv = _sandboxed(command, folder, sandbox_limits, key,
                              group.procs_files if group is not None else ())
            return _run(argv, inside, command, folder, limits, group, on_output)
        finally:
            if group is not None:
                group.remove()
            if owner is not None:
                _give_back(folder, owner)
    argv = [sys.executable, "-I", str(LIMITED), str(limits.memory_bytes),
            str(max(1, int(limits.seconds))), str(min(limits.file_bytes, limits.disk_bytes)), "--",
            "/bin/sh", "-c", command]
    return _run(argv, build_environment(folder, env), command, folder, limits,
                on_output=on_output)


def _sandbox_limits(limits: BuildLimits) -> Limits:
    """The sandbox's limits for a build under `limits`: its memory in all as much as one
    process may take, one core, `BUILD_PROCESSES` processes."""
    return Limits(memory_bytes=limits.memory_bytes, processes=BUILD_PROCESSES,
                  output_bytes=min(limits.file_bytes, limits.disk_bytes),
                  cpu_seconds=max(1, int(limits.seconds)),
                  total_memory_bytes=limits.memory_bytes, cpu_percent=limits.cpu_percent)


def _sandboxed(command: str, folder: Path, limits: Limits, key: str,
               cgroup_files: tuple[str, ...]) -> list[str]:
    """The sandboxed command line of a build: no network, its folder writable."""
    python = [sys.executable]
    return wrap(["/bin/sh", "-c", command], workdir=folder,
                read_only_paths=[*sdk_paths(), *command_paths(python, cwd=folder)],
                writable_paths=[folder], network=False, key=key, limits=limits,
                cgroups=cgroup_files)


def _lend(folder: Path, uid: int) -> int:
    """Make `folder`'s tree the build uid's for the build; return who owned it."""
    owner = folder.stat().st_uid
    _chown_tree(folder, uid)
    return owner


def _give_back(folder: Path, owner: int) -> None:
    """Give `folder`'s tree back to `owner`, readable (not writable) by the sandbox's
    users, whatever modes the build left: a version's files only change in its build."""
    _chown_tree(folder, owner)
    for path in [folder, *folder.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode & 0o777
        wanted = 0o755 if path.is_dir() or mode & 0o100 else 0o644
        os.chmod(path, wanted)


def _chown_tree(folder: Path, uid: int) -> None:
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, uid, uid, follow_symlinks=False)


def _run(argv: list[str], env: Mapping[str, str], command: str, folder: Path,
         limits: BuildLimits, group: cgroups.Group | None = None,
         on_output: OutputListener | None = None) -> BuildResult:
    started = time.monotonic()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(argv, cwd=folder, env=dict(env),
                                   stdin=subprocess.DEVNULL, stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=True,
                                   close_fds=True)
        timed_out = over_quota = False
        code: int | None = None
        while code is None:
            left = limits.seconds - (time.monotonic() - started)
            if left <= 0:
                timed_out = True
                break
            try:
                code = process.wait(timeout=min(QUOTA_CHECK_SECONDS, left))
            except subprocess.TimeoutExpired:
                if disk_usage(folder) > limits.disk_bytes:
                    over_quota = True
                    break
                if on_output is not None:
                    on_output(_tail_so_far(output.fileno()))
        _kill_group(process.pid)
        if group is not None:
            group.kill()  # a sandbox's processes are in a session of their own
        if code is None:
            process.wait()
        over_quota = over_quota or disk_usage(folder) > limits.disk_bytes
        seconds = time.monotonic() - started
        if over_quota:
            _empty(folder)
            code = None
            ending = (f"\n--- build `{command}` stopped: the version's folder grew past its "
                      f"disk quota of {limits.disk_bytes / MIB:g} MiB; its files are removed "
                      f"({seconds:.1f} s)\n")
        else:
            ending = _ending(command, code, timed_out, seconds, limits)
        log = _tail(output) + ending
    return BuildResult(ok=code == 0, exit_code=code, timed_out=timed_out, seconds=seconds,
                       log=log)


QUOTA_CHECK_SECONDS = 0.2
"""How often a running build's folder is measured against its disk quota."""


BLOCK = 4096
"""The least an entry of a folder is counted for: an empty file still takes an inode."""


def disk_usage(folder: Path) -> int:
    """The bytes of disk `folder`'s tree takes (its blocks, at least `BLOCK` an entry;
    links not followed)."""
    total = 0
    for directory, subdirs, names in os.walk(folder):
        for name in [*subdirs, *names]:
            with contextlib.suppress(OSError):
                total += max(os.lstat(os.path.join(directory, name)).st_blocks * 512, BLOCK)
    return total


def _empty(folder: Path) -> None:
    """Remove everything inside `folder` (a build's files past its quota)."""
    for entry in list(folder.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _kill_group(pid: int) -> None:
    """Kill what the build left running in its group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _tail_so_far(descriptor: int) -> str:
    """The tail of a running build's output, read without moving the offset the build
    writes at (the build shares the file's description)."""
    size = os.fstat(descriptor).st_size
    data = os.pread(descriptor, LOG_TAIL_BYTES, max(0, size - LOG_TAIL_BYTES))
    prefix = f"[... {size - len(data):,} bytes of output left out]\n" if size > len(data) else ""
    return prefix + data.decode("utf-8", "replace")


def _tail(stream: IO[bytes]) -> str:
    """The tail of a build's output."""
    return _tail_so_far(stream.fileno())


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


def describe_builds(limits: BuildLimits = BuildLimits()) -> list[str]:
    """Lines saying what holds for submitted bots and their builds, whatever the sandbox
    (for `arena doctor`)."""
    return [
        "submissions: an archive is checked whole before anything is written (paths, "
        "every symlink chain, name lengths, sizes, zip bombs, manifest nesting, names that "
        "pass for another bot's), and a refused submit leaves no blob and no folder; a run "
        "line starts the bot from its own folder or its runtime",
        f"  builds: at most {limits.seconds:g} s, {limits.memory_bytes // MIB} MiB of memory "
        f"(in all, where cgroups allow), {limits.cpu_percent}% of one core (where cgroups "
        f"allow), and a disk quota of {limits.disk_bytes // MIB} MiB for the version's "
        "folder: past it the build fails and its files are removed",
    ]
