"""The isolation in force on this machine, in plain words (for `arena doctor`).

Each line says what a test in ``tests/sandbox/`` tries to break: a line is printed only
for what is in force here, and what is not says why not.
"""

from __future__ import annotations

from arena.sandbox import cgroups, seccomp
from arena.sandbox.api import SandboxStatus
from arena.sandbox.limits import LOG_FILES, MIB, Limits


def describe(found: SandboxStatus, limits: Limits | None = None,
             log_files: int = LOG_FILES) -> list[str]:
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
        "  mounts: arena's alone: a submitted version sees the system, its runtime, the SDK "
        "and its own folder, nothing its run line names; an operator's bot (`bot add "
        "--command`) sees the folders its command names and the paths given with "
        "`--read-only`",
        "  keyring: a new, empty session keyring for each sandbox; none of arena's",
        *_seccomp_lines(),
        _privileges(found),
        *_totals(limits),
        f"  limits: {limits.memory_bytes // MIB} MiB of address space per process, "
        f"{limits.processes} processes and threads, {limits.open_files} open files, "
        f"{limits.cpu_seconds} s of CPU per process (decisions are bounded by their "
        f"deadlines), niceness {limits.nice}",
        f"  logs: at most {limits.output_bytes // MIB} MiB a file and {log_files} files a "
        "bot, rotated when a start finds the log half full, however often it restarts",
        "  builds of submitted bots: the same sandbox, with no network, only the version's "
        "own folder writable, and the build's own time, memory, CPU and disk limits",
    ]


def _seccomp_lines() -> list[str]:
    why = seccomp.unavailable()
    if why is not None:
        return ["  seccomp: not in force", f"    why: {why}"]
    return ["  seccomp: in force (a libseccomp filter): keyrings, mount, unshare, setns and "
            "new namespaces, ptrace, bpf, perf events, modules and kexec are refused; "
            "bwrap's options reach it through a descriptor, so no mount shows in the "
            "sandbox's /proc/1/cmdline"]


def _privileges(found: SandboxStatus) -> str:
    if found.mode == "root":
        return ("  privileges: a uid of its own, no capabilities, an empty bounding set, no "
                "new privileges")
    return ("  privileges: arena's user, seen inside as nobody, in a user namespace that "
            "cannot make another; no capabilities")


def _totals(limits: Limits) -> list[str]:
    found = cgroups.support()
    held = {
        "memory": f"{limits.total_memory_bytes // MIB} MiB of memory in all (its /tmp "
                  "and memfds included)",
        "pids": f"{limits.processes} processes and threads in all",
        "cpu": f"{limits.cpu_percent}% of one core",
    }
    lines = []
    if found.folders:
        shown = ", ".join(held[c] for c in cgroups.CONTROLLERS if c in found.folders)
        lines.append(f"  totals (cgroup {found.version}), in force for each bot and each "
                     f"build: {shown}")
    for controller, why in found.missing.items():
        lines += [f"  totals: no {controller} total", f"    why: {why}"]
    return lines
