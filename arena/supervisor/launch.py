"""Start a managed bot so that it, and every process it starts, dies with arena.

``python -m arena.supervisor.launch PARENT_PID COMMAND [ARGS...]`` leads a process
group of its own (the supervisor starts it in a new session). It asks Linux for
SIGTERM when its parent (arena, PARENT_PID) dies, starts the command as its child in
its group, and stays as the command's small parent:

- on SIGTERM, SIGINT or SIGHUP (the parent-death signal when arena dies, however it
  died, or the supervisor stopping the bot) it passes SIGTERM to the whole group, and
  SIGKILLs the group, itself included, once the command has exited or `GRACE` seconds
  later, whichever comes first;
- when the command exits by itself, what it left running in the group (a wrapper's
  children) is sent SIGTERM, and the launcher exits as the command did: the same exit
  code, or killed by the same signal.

Linux sends the parent-death signal only to the process that asked for it: a launcher
that exec'd the command would pass it to ``bash -c '…'`` and not to the bot bash started.
Staying as the parent lets it reach the whole group. If arena died before the request
was made, the launcher exits at once. Elsewhere there is no parent-death signal, and the
rest still holds. Doing this in a launcher rather than a ``preexec_fn`` lets the parent
start bots without a plain fork while gRPC threads are running.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import sys
from types import FrameType

PR_SET_PDEATHSIG = 1

GRACE = 2.0
"""Seconds the group has, after SIGTERM, before it is SIGKILLed; less than the
supervisor waits before it SIGKILLs the group itself."""

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""The signals that stop the bot's whole group."""


class _Stop:
    """Turns the first stop signal into SIGTERM for the group and a SIGKILL later."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            return  # the SIGTERM just sent to the group reaches the launcher too
        self.requested = True
        signal.signal(signal.SIGALRM, lambda signum, frame: _kill_group(signal.SIGKILL))
        signal.setitimer(signal.ITIMER_REAL, GRACE)
        _kill_group(signal.SIGTERM)


def main(argv: list[str]) -> None:
    """Run the command in `argv` (after the parent's pid) as described above."""
    if len(argv) < 2 or not argv[0].isdigit():
        sys.exit("usage: python -m arena.supervisor.launch PARENT_PID COMMAND [ARGS...]")
    parent, command = int(argv[0]), argv[1:]
    if os.getpgrp() != os.getpid():
        os.setpgid(0, 0)  # the signals below go to the group: it must be the bot's own
    stop = _Stop()
    for signum in STOP_SIGNALS:
        signal.signal(signum, stop)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent or stop.requested:
        sys.exit("arena stopped before this bot started")
    try:
        child = os.posix_spawnp(command[0], command, os.environ)
    except OSError as exc:
        sys.exit(f"cannot start {command[0]!r}: {exc}")
    _, status = os.waitpid(child, 0)
    if stop.requested:
        _kill_group(signal.SIGKILL)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _kill_group(signal.SIGTERM)
    _exit_as(status)


def _kill_group(signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(os.getpid(), signum)


def _exit_as(status: int) -> None:
    """Exit as the process whose wait status is `status` did."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        if signum not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(signum, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the bot's crash, not ours
        os.kill(os.getpid(), signum)
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
