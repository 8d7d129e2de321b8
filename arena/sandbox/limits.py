"""What a sandboxed process may use: memory, processes, open files, output, /tmp, CPU."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

MIB = 1024 * 1024

LOG_FILES = 3
"""Log files a managed bot keeps by default, its current one included, each of at most
`Limits.output_bytes` (see `arena.supervisor.BotIsolation.log_files`)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits for one sandboxed command and everything it starts.

    `memory_bytes` bounds each process's address space (RLIMIT_AS); `processes` the
    processes and threads of the sandbox's user (RLIMIT_NPROC); `open_files` each
    process's file descriptors (RLIMIT_NOFILE); `output_bytes` how much its output file
    (a bot's log) may grow during this run (RLIMIT_FSIZE, counted from the log's size at
    the start); `tmp_bytes` the private ``/tmp``. CPU: decisions are bounded by their
    deadlines, so a process only gets a budget of `cpu_seconds` of CPU time in all
    (RLIMIT_CPU: SIGXCPU, then SIGKILL a few seconds later): a bot that burns CPU
    between decisions is killed when it has spent it (and restarted as a crashed bot
    is). It runs at niceness `nice` (0 by default: a higher one puts bots behind the
    server, and behind everything else on a busy machine).

    Where this machine has cgroups (`arena.sandbox.cgroups`), the sandbox as a whole
    also holds at most `total_memory_bytes` of memory (its processes', its ``/tmp``'s
    and its memfds'), at most `processes` processes and threads, and `cpu_percent` of
    one core.
    """

    memory_bytes: int = 2048 * MIB
    processes: int = 256
    open_files: int = 256
    output_bytes: int = 16 * MIB
    tmp_bytes: int = 64 * MIB
    cpu_seconds: int = 3600
    nice: int = 0
    total_memory_bytes: int = 1024 * MIB
    cpu_percent: int = 100

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"sandbox limit {name}: a whole number >= 0, got {value!r}")
        if self.processes < 1 or self.open_files < 16 or self.memory_bytes < 16 * MIB \
                or self.total_memory_bytes < 16 * MIB or self.cpu_percent < 1:
            raise ValueError("sandbox limits: at least 1 process, 16 open files, 16 MiB, "
                             "1% of a core")

    def to_dict(self) -> dict[str, int]:
        """The limits as plain data (what `from_dict` reads back)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Limits:
        """Limits from `to_dict`'s form; missing keys take their defaults."""
        return cls(**{key: int(value) for key, value in data.items()})
