"""Enter a sandbox: ``python -m arena.sandbox.enter PLAN_JSON``.

Joins the plan's cgroups, takes a new session keyring of its own (so nothing of
arena's session keyring is reachable from the sandbox), sets the plan's resource
limits and niceness on itself, then replaces itself with bubblewrap, which builds the
sandbox and runs the plan's command in it. bwrap's options (the mounts, with their host
paths) reach it through a descriptor (``--args FD``), so they never show on a command
line: the sandbox's own ``/proc/1/cmdline`` holds bwrap, that descriptor and the
command, nothing more. The seccomp filter comes through another (``--seccomp FD``).
The environment is passed through unchanged: it is the command's environment (so a
token never shows on a command line).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import resource
import stat
import sys
from typing import NoReturn

from arena.sandbox.limits import Limits
from arena.sandbox.plan import Plan, bwrap_options, sandboxed_command

CPU_GRACE = 5
"""Seconds of CPU time between SIGXCPU and SIGKILL."""


KEYCTL_JOIN_SESSION_KEYRING = 1


def enter(plan: Plan) -> NoReturn:
    """Join `plan`'s cgroups, take a fresh session keyring, apply its limits to this
    process and exec bwrap with it."""
    try:
        join_cgroups(plan.cgroups)
        try:
            new_session_keyring()
        except OSError:
            # The filter refuses every keyring call anyway (and where arena itself may
            # not make keyrings, a container's own filter usually refuses them too).
            if not plan.seccomp:
                raise
        options = bwrap_options(plan)
        if plan.seccomp:
            from arena.sandbox.seccomp import SeccompError, filter_fd
            try:
                options += ["--seccomp", str(filter_fd())]
            except SeccompError as exc:
                sys.exit(f"cannot build the sandbox's seccomp filter: {exc}")
        arguments_fd = _arguments_fd(options)
    except OSError as exc:
        sys.exit(f"cannot prepare the sandbox: {exc}")
    apply_limits(plan.limits, privileged=plan.privileged)
    try:
        os.execv(plan.bwrap, [plan.bwrap, "--args", str(arguments_fd), "--",
                              *sandboxed_command(plan)])
    except OSError as exc:
        sys.exit(f"cannot start the sandbox ({plan.bwrap}): {exc}")


def join_cgroups(procs_files: tuple[str, ...]) -> None:
    """Move this process into each cgroup whose ``cgroup.procs`` file is given."""
    for procs in procs_files:
        with open(procs, "w", encoding="ascii") as out:
            out.write(str(os.getpid()))


def new_session_keyring() -> None:
    """Replace this process's session keyring with a new, empty, anonymous one, so that
    what it runs cannot reach the keys of arena's session (nor share one with another
    sandbox). A kernel without keyrings has nothing to reach."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(_KEYCTL, KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        code = ctypes.get_errno()
        if code != errno.ENOSYS:
            raise OSError(code, f"cannot take a new session keyring: {os.strerror(code)}")


_KEYCTL = 250 if os.uname().machine == "x86_64" else 219  # x86-64; arm64 and most others


def _arguments_fd(words: list[str]) -> int:
    """A descriptor (inheritable) from which bwrap reads `words`, NUL-terminated."""
    data = b"".join(word.encode() + b"\0" for word in words)
    fd = os.memfd_create("arena-sandbox-args", 0)
    written = 0
    while written < len(data):
        written += os.write(fd, data[written:])
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    return fd


def apply_limits(limits: Limits, *, privileged: bool) -> None:
    """Set `limits` on this process, for what it runs to inherit."""
    _set(resource.RLIMIT_AS, limits.memory_bytes)
    _set(resource.RLIMIT_NOFILE, limits.open_files)
    _set(resource.RLIMIT_FSIZE, _output_size() + limits.output_bytes)
    if limits.cpu_seconds:
        _set(resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + CPU_GRACE)
    # Counted per user: a root arena's sandbox has a uid of its own; otherwise the
    # sandbox shares arena's user, whose processes already count.
    _set(resource.RLIMIT_NPROC, limits.processes + (0 if privileged else _own_tasks()))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    with contextlib.suppress(OSError):
        os.nice(limits.nice)


def _set(limit: int, soft: int, hard: int | None = None) -> None:
    _, current_hard = resource.getrlimit(limit)
    hard = soft if hard is None else hard
    if current_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    resource.setrlimit(limit, (soft, hard))


def _output_size() -> int:
    """How large the file stdout appends to already is (0 for a pipe or a terminal)."""
    try:
        info = os.fstat(1)
    except OSError:
        return 0
    return info.st_size if stat.S_ISREG(info.st_mode) else 0


def _own_tasks() -> int:
    """The processes and threads this process's real user has now."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if os.stat(entry.path).st_uid == uid:
                count += len(os.listdir(f"{entry.path}/task"))
    return count


def main(argv: list[str]) -> None:
    """Enter the sandbox the one argument (a plan as JSON) describes."""
    if len(argv) != 1:
        sys.exit("usage: python -m arena.sandbox.enter PLAN_JSON")
    enter(Plan.from_json(argv[0]))


if __name__ == "__main__":
    main(sys.argv[1:])
