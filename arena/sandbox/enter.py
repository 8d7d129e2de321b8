"""Enter a sandbox: ``python -m arena.sandbox.enter PLAN_JSON``.

Sets the plan's resource limits and niceness on itself, then replaces itself with
bubblewrap, which builds the sandbox and runs the plan's command in it. The environment
is passed through unchanged: it is the command's environment (so a token never shows on
a command line).
"""

from __future__ import annotations

import contextlib
import os
import resource
import stat
import sys
from typing import NoReturn

from arena.sandbox.limits import Limits
from arena.sandbox.plan import Plan, bwrap_arguments

CPU_GRACE = 5
"""Seconds of CPU time between SIGXCPU and SIGKILL."""


def enter(plan: Plan) -> NoReturn:
    """Apply `plan`'s limits to this process and exec bwrap with it."""
    apply_limits(plan.limits, privileged=plan.privileged)
    arguments = bwrap_arguments(plan)
    try:
        os.execv(plan.bwrap, arguments)
    except OSError as exc:
        sys.exit(f"cannot start the sandbox ({plan.bwrap}): {exc}")


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
