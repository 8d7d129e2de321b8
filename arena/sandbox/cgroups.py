"""Totals for a sandbox and everything it starts: memory, processes and CPU, through cgroups.

Resource limits (`arena.sandbox.limits`) bound each process; a cgroup bounds the whole
sandbox: its memory, counting what it keeps in its private ``/tmp`` and in memfds, the
number of its processes and threads, and its share of the CPU. Each sandbox gets a
group of its own (`create`), which `arena.sandbox.enter` joins before bwrap starts, and
which is emptied (what is left in it killed) and removed when the sandbox has ended
(`Group.remove`).

cgroup v2 is used where the machine has it with the controllers delegated to arena's
group; otherwise cgroup v1, one hierarchy per controller. `support` says, controller by
controller, what is in force here and why not.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from arena.sandbox.limits import Limits

CONTROLLERS = ("memory", "pids", "cpu")
"""What a sandbox's totals are made of: memory, processes and threads, CPU share."""

CPU_PERIOD_US = 100_000
"""The CPU scheduler's period for a group's share (100 ms, the kernel's default)."""

BASE = "arena"
"""The folder, inside arena's own cgroup, holding the sandboxes' groups (cgroup v1's cpu
hierarchy aside: see `_support`)."""

PREFIX = "arena-sandbox-"
"""How the name of a sandbox's group starts."""


@dataclass(frozen=True, slots=True)
class Support:
    """Which totals this machine enforces: `version` ``v2``, ``v1`` or ``none``;
    `folders`, controller → the folder in which arena creates its groups; `missing`,
    controller → why it is not in force."""

    version: str
    folders: dict[str, str]
    missing: dict[str, str]

    @property
    def available(self) -> bool:
        """Whether any total is in force."""
        return bool(self.folders)


def support() -> Support:
    """What this machine allows, checked once per process by making a group."""
    return _support()


@functools.cache
def _support() -> Support:
    memberships = _memberships()
    mounts = _mounts()
    if "" in memberships and "cgroup2" in mounts and _v2_has_controllers(mounts["cgroup2"]):
        return _support_v2(mounts["cgroup2"], memberships[""])
    folders: dict[str, str] = {}
    missing: dict[str, str] = {}
    for controller in CONTROLLERS:
        mount = mounts.get(controller)
        if mount is None or controller not in memberships:
            missing[controller] = (f"no cgroup hierarchy with the {controller} controller is "
                                   "mounted")
            continue
        folder = os.path.normpath(os.path.join(mount, memberships[controller].lstrip("/")))
        if controller != "cpu":
            # A cpu group competes for the CPU as one process does: the sandboxes' groups
            # sit beside arena's own processes, each weighing what an unsandboxed bot
            # would, rather than in one folder that would weigh as one process in all.
            folder = os.path.join(folder, BASE)
        reason = _writable(folder)
        if reason is None:
            folders[controller] = folder
        else:
            missing[controller] = reason
    for folder in dict.fromkeys(folders.values()):
        _sweep(folder)
    return Support("v1" if folders else "none", folders, missing)


def _support_v2(mount: str, own: str) -> Support:
    parent = os.path.join(mount, own.lstrip("/"))
    folder = os.path.join(parent, BASE)
    reason = _writable(folder)
    enabled: set[str] = set()
    if reason is None:
        available = set(Path(parent, "cgroup.controllers").read_text().split())
        for controller in CONTROLLERS:
            if controller in available:
                # The parent hands a controller down only while it holds no process of
                # its own (arena, unless started in a delegated group of its own).
                with contextlib.suppress(OSError):
                    Path(parent, "cgroup.subtree_control").write_text(f"+{controller}")
                with contextlib.suppress(OSError):
                    Path(folder, "cgroup.subtree_control").write_text(f"+{controller}")
        enabled = set(Path(folder, "cgroup.subtree_control").read_text().split())
    folders = {c: folder for c in CONTROLLERS if c in enabled}
    if folders:
        _sweep(folder)
    missing = {c: reason or f"the {c} controller is not delegated to arena's cgroup {parent}"
               for c in CONTROLLERS if c not in enabled}
    return Support("v2" if folders else "none", folders, missing)


def _memberships() -> dict[str, str]:
    """controller → arena's group in that hierarchy ("" for cgroup v2's)."""
    found: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            for name in names.split(",") if names else [""]:
                found[name] = path
    return found


def _mounts() -> dict[str, str]:
    """controller → where its v1 hierarchy is mounted; "cgroup2" → the v2 mount."""
    found: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            before, _, after = line.partition(" - ")
            fields, rest = before.split(), after.split()
            if len(fields) < 5 or len(rest) < 3:
                continue
            mount_point = fields[4]
            if rest[0] == "cgroup2":
                found.setdefault("cgroup2", mount_point)
            elif rest[0] == "cgroup":
                for option in rest[2].split(","):
                    if option in CONTROLLERS:
                        found.setdefault(option, mount_point)
    return found


def _v2_has_controllers(mount: str) -> bool:
    try:
        return bool(set(Path(mount, "cgroup.controllers").read_text().split())
                    & set(CONTROLLERS))
    except OSError:
        return False


_GROUP_NAME = re.compile(re.escape(PREFIX) + r".*-(\d+)-[0-9a-f]{8}")


def _sweep(folder: str) -> None:
    """Remove the empty groups an arena that was killed left in `folder`."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            named = _GROUP_NAME.fullmatch(entry.name)
            if named is None or not entry.is_dir() or _alive(int(named.group(1))):
                continue
            with contextlib.suppress(OSError):
                os.rmdir(entry.path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _writable(folder: str) -> str | None:
    """None if arena can make groups in `folder` (made if need be); else why not."""
    probe = os.path.join(folder, f"{PREFIX}probe-{os.getpid()}-{secrets.token_hex(3)}")
    try:
        os.makedirs(folder, exist_ok=True)
        os.mkdir(probe)
        os.rmdir(probe)
    except OSError as exc:
        return f"arena cannot make groups in {folder}: {exc.strerror or exc}"
    return None


@dataclass(frozen=True, slots=True)
class Group:
    """One sandbox's cgroup (a folder per hierarchy)."""

    folders: tuple[str, ...]

    @property
    def procs_files(self) -> tuple[str, ...]:
        """The files a process writes its pid to in order to join the group."""
        return tuple(os.path.join(folder, "cgroup.procs") for folder in self.folders)

    def memory_peak(self) -> int | None:
        """The most memory the group has held, if this machine says."""
        for folder in self.folders:
            for name in ("memory.max_usage_in_bytes", "memory.peak"):
                with contextlib.suppress(OSError, ValueError):
                    return int(Path(folder, name).read_text())
        return None

    def kill(self, wait: float = 2.0) -> bool:
        """SIGKILL everything in the group, and wait up to `wait` seconds for it to be
        gone; whether it is."""
        deadline = time.monotonic() + wait
        while True:
            pids = [pid for folder in self.folders for pid in _pids(folder)]
            if not pids:
                return True
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)

    def remove(self, wait: float = 2.0) -> None:
        """Kill whatever is still in the group and remove it (what cannot be removed
        within `wait` seconds is left for the kernel to empty)."""
        deadline = time.monotonic() + wait
        for folder in self.folders:
            while True:
                Group((folder,)).kill(0)
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.01)


def _pids(folder: str) -> list[int]:
    try:
        return [int(word) for word in Path(folder, "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def create(key: str, limits: Limits) -> Group | None:
    """A new group for the sandbox `key` names, with `limits`' totals set; None where
    this machine has no totals. `OSError` if it cannot be made."""
    found = support()
    if not found.available:
        return None
    name = f"{PREFIX}{_UNSAFE.sub('_', key)[-80:]}-{os.getpid()}-{secrets.token_hex(4)}"
    settings = _settings(found.version, limits)
    folders: list[str] = []
    try:
        for folder in dict.fromkeys(found.folders.values()):
            path = os.path.join(folder, name)
            os.mkdir(path)
            folders.append(path)
        for controller, folder in found.folders.items():
            for file, value in settings[controller]:
                target = Path(folder, name, file)
                if target.exists():
                    target.write_text(value)
    except BaseException:
        Group(tuple(folders)).remove()
        raise
    return Group(tuple(folders))


def _settings(version: str, limits: Limits) -> dict[str, list[tuple[str, str]]]:
    """controller → the files to write, in order, and their values."""
    memory, quota = str(limits.total_memory_bytes), CPU_PERIOD_US * limits.cpu_percent // 100
    if version == "v2":
        return {"memory": [("memory.max", memory), ("memory.swap.max", "0")],
                "pids": [("pids.max", str(limits.processes))],
                "cpu": [("cpu.max", f"{quota} {CPU_PERIOD_US}")]}
    return {"memory": [("memory.limit_in_bytes", memory), ("memory.memsw.limit_in_bytes", memory)],
            "pids": [("pids.max", str(limits.processes))],
            "cpu": [("cpu.cfs_period_us", str(CPU_PERIOD_US)), ("cpu.cfs_quota_us", str(quota))]}
