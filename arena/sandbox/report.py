"""The isolation in force on this machine, in plain words (for `arena doctor`)."""

from __future__ import annotations

from arena.sandbox.api import SandboxStatus
from arena.sandbox.limits import MIB, Limits


def describe(found: SandboxStatus, limits: Limits | None = None) -> list[str]:
    """Lines saying which isolation managed bots get here, and why."""
    limits = limits or Limits()
    if not found.available:
        return [
            "sandbox: none — managed bots run as plain processes, as arena's own user",
            f"  why: {found.reason}",
            "  so: `arena serve` on an address other than loopback refuses to launch "
            "managed bots unless given --unsafe-bots; install bubblewrap to sandbox them",
            "  builds of submitted bots: plain processes under time, memory and file-size "
            "limits, with the network of arena's user",
        ]
    version = found.version or "bubblewrap"
    return [
        f"sandbox: {version} ({found.bwrap}), in force for every managed bot",
        f"  how: {found.reason}",
        "  each bot: no network (it reaches its match server through a Unix socket only), "
        "its own PID namespace, a read-only view of the system, the SDK and its own files, "
        f"a private /tmp of {limits.tmp_bytes // MIB} MiB; it does not see the database, "
        "the token files, the logs or other bots' files, and dies with arena",
        f"  limits: {limits.memory_bytes // MIB} MiB of address space per process, "
        f"{limits.processes} processes and threads, {limits.open_files} open files, "
        f"{limits.output_bytes // MIB} MiB of output per start, "
        f"{limits.cpu_seconds} s of CPU per process (decisions are bounded by their "
        f"deadlines), niceness {limits.nice}",
        "  builds of submitted bots: the same sandbox, with no network, only the version's "
        "own folder writable, and the build's own time and memory limits",
    ]
