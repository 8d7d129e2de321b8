"""Run a command under resource limits: ``python -I limited.py MEMORY CPU FILE_SIZE --
COMMAND [ARGS...]`` sets the address-space limit (bytes), the CPU-time limit
(seconds) and the largest file it may write (bytes), then becomes the command.

Setting the limits in a process of its own, rather than in a ``preexec_fn``, lets a
server with gRPC threads running start builds without a plain fork.
"""

from __future__ import annotations

import os
import resource
import sys


def main(argv: list[str]) -> None:
    """Apply the limits in `argv` and exec the command after ``--``."""
    if len(argv) < 5 or argv[3] != "--" or not all(a.isdigit() for a in argv[:3]):
        sys.exit("usage: python -I limited.py MEMORY CPU FILE_SIZE -- COMMAND [ARGS...]")
    memory, cpu, file_size = (int(a) for a in argv[:3])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    command = argv[4:]
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.exit(f"cannot start {command[0]!r}: {exc}")


if __name__ == "__main__":
    main(sys.argv[1:])
