"""Start a managed bot so that it dies with the arena process that launched it.

``python -m arena.supervisor.launch PARENT_PID COMMAND [ARGS...]`` asks Linux for SIGTERM
when its parent (arena, PARENT_PID) dies, then replaces itself with the
command; the request survives the exec. If the parent died before the request
was made, it exits at once. Elsewhere it simply runs the command. Doing this in a
launcher rather than a ``preexec_fn`` lets the parent start bots without a
plain fork while gRPC threads are running.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def main(argv: list[str]) -> None:
    """Set the parent-death signal and exec the command in `argv` (after the parent's pid)."""
    if len(argv) < 2 or not argv[0].isdigit():
        sys.exit("usage: python -m arena.supervisor.launch PARENT_PID COMMAND [ARGS...]")
    parent, argv = int(argv[0]), argv[1:]
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        sys.exit("arena stopped before this bot started")
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        sys.exit(f"cannot start {argv[0]!r}: {exc}")


if __name__ == "__main__":
    main(sys.argv[1:])
