"""A sandboxed run as plain data, and the bubblewrap command line that carries it out.

`make_plan` looks at the file system once (which system folders are symlinks, which
hidden paths exist and where); `bwrap_arguments` turns the plan into bwrap's arguments
without looking at anything, so the command line can be checked word by word.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from arena.sandbox.limits import Limits

SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""System folders every sandbox sees read-only (a symlink stays a symlink)."""

ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "nsswitch.conf", "passwd", "group",
             "hosts", "host.conf", "localtime", "timezone", "alternatives", "ssl",
             "ca-certificates", "ca-certificates.conf", "mime.types", "os-release")
"""What of /etc a sandbox sees: the dynamic linker, users and groups, time zone and
certificates; nothing else (no resolver configuration, no credentials)."""

INSIDE_UID = 65534
"""The uid a sandboxed process sees itself as when arena is not root (nobody)."""

UID_BASE = 2_000_000_000
UID_SPAN = 100_000_000
"""Sandboxes of a root arena run as uids drawn from [UID_BASE, UID_BASE + UID_SPAN):
no account on the machine uses them, and each bot has its own, so one bot's
processes never count against another's process limit."""


class SandboxError(RuntimeError):
    """A command cannot be sandboxed as asked (a path that may not be shown, say)."""


@dataclass(frozen=True, slots=True)
class Mount:
    """One step of the sandbox's file system: `kind` is ``ro`` or ``rw`` (bind `source`
    at `dest`), ``symlink`` (a link at `dest` to `source`), ``dir`` (an empty folder),
    ``hide-file`` (cover `dest` with /dev/null, which cannot be opened there: binds
    are nodev) or ``hide-dir`` (cover `dest` with an empty folder no one may enter)."""

    kind: str
    dest: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything one sandboxed run needs, as JSON-able data.

    `privileged` means arena runs as root: bwrap then runs as root too (so it can
    read any file it is asked to show) and the command is started as `uid` through
    setpriv, with no capabilities. Otherwise bwrap runs as arena's own user in a new
    user namespace, and the command sees itself as `INSIDE_UID`.
    """

    argv: tuple[str, ...]
    workdir: str
    mounts: tuple[Mount, ...]
    limits: Limits = field(default_factory=Limits)
    network: bool = False
    privileged: bool = False
    uid: int = INSIDE_UID
    bwrap: str = "bwrap"
    setpriv: str = "setpriv"
    seccomp: bool = False
    """Whether the command runs under `arena.sandbox.seccomp`'s filter."""
    cgroups: tuple[str, ...] = ()
    """The ``cgroup.procs`` files (one per cgroup hierarchy) the sandbox joins before
    bwrap starts: the totals of `arena.sandbox.cgroups` count everything it runs."""

    def to_json(self) -> str:
        """The plan as one line of JSON (what `from_json` reads back)."""
        data = {"argv": list(self.argv), "workdir": self.workdir,
                "mounts": [[m.kind, m.dest, m.source] for m in self.mounts],
                "limits": self.limits.to_dict(), "network": self.network,
                "privileged": self.privileged, "uid": self.uid, "bwrap": self.bwrap,
                "setpriv": self.setpriv, "seccomp": self.seccomp,
                "cgroups": list(self.cgroups)}
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Plan:
        """The plan `to_json` wrote."""
        data: dict[str, Any] = json.loads(text)
        return cls(tuple(data["argv"]), data["workdir"],
                   tuple(Mount(kind, dest, source) for kind, dest, source in data["mounts"]),
                   Limits.from_dict(data["limits"]), bool(data["network"]),
                   bool(data["privileged"]), int(data["uid"]), data["bwrap"], data["setpriv"],
                   bool(data.get("seccomp", False)), tuple(data.get("cgroups", ())))


def sandbox_uid(key: str) -> int:
    """The uid a root arena runs the sandbox named by `key` as (stable for a key)."""
    digest = hashlib.sha256(key.encode()).digest()
    return UID_BASE + int.from_bytes(digest[:8], "big") % UID_SPAN


def make_plan(argv: Sequence[str], *, workdir: str, read_only_paths: Iterable[str] = (),
              writable_paths: Iterable[str] = (), hidden_paths: Iterable[str] = (),
              sockets: Mapping[str, str] | None = None, limits: Limits | None = None,
              network: bool = False, privileged: bool = False, uid: int = INSIDE_UID,
              bwrap: str = "bwrap", setpriv: str = "setpriv", seccomp: bool = False,
              cgroups: Sequence[str] = ()) -> Plan:
    """The plan for running `argv` in `workdir` (an absolute path) with the system, and
    `read_only_paths` and `writable_paths` at their own paths; each of `sockets`
    (host path → path inside) bound in; and whatever of `hidden_paths` lies inside a
    shown folder covered up. A path inside a system folder needs no binding; ``/``
    itself is refused."""
    if not argv:
        raise SandboxError("nothing to run")
    read_only = _outermost(_absolute(read_only_paths))
    writable = _outermost(_absolute(writable_paths))
    shown = [*read_only, *writable]
    mounts = [*_system_mounts(), *(Mount("ro", p, p) for p in read_only),
              *(Mount("rw", p, p) for p in writable)]
    for host, inside in (sockets or {}).items():
        mounts.append(Mount("ro", _absolute([inside])[0], os.path.abspath(host)))
    for hidden in _absolute(hidden_paths):
        if any(_inside(hidden, folder) for folder in shown) and os.path.lexists(hidden):
            mounts.append(Mount("hide-dir" if os.path.isdir(hidden) else "hide-file", hidden))
    workdir = os.path.normpath(os.path.abspath(workdir))
    bound = [m.dest for m in mounts if m.kind in ("ro", "rw")]
    if workdir != "/" and not any(_inside(workdir, folder) for folder in bound):
        mounts.append(Mount("dir", workdir))
    return Plan(tuple(argv), workdir, tuple(_with_parents(mounts)), limits or Limits(),
                network, privileged, uid, bwrap, setpriv, seccomp, tuple(cgroups))


def bwrap_arguments(plan: Plan) -> list[str]:
    """bwrap's command line for `plan` (its first word is bwrap itself), as it would be
    written out whole; `enter` passes the options through a descriptor instead."""
    return [plan.bwrap, *bwrap_options(plan), "--", *sandboxed_command(plan)]


def bwrap_options(plan: Plan) -> list[str]:
    """bwrap's options for `plan`: what the sandbox is made of (without ``--seccomp``,
    whose descriptor `enter` adds)."""
    words = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not plan.network:
        words.append("--unshare-net")
    if not plan.privileged:
        words += ["--unshare-user", "--disable-userns", "--uid", str(INSIDE_UID),
                  "--gid", str(INSIDE_UID)]
    words += ["--die-with-parent", "--new-session", "--hostname", "arena-sandbox",
              "--perms", "1777", "--size", str(plan.limits.tmp_bytes), "--tmpfs", "/tmp",
              "--proc", "/proc", "--dev", "/dev"]
    for mount in plan.mounts:
        words += _mount_words(mount)
    words += ["--chdir", plan.workdir, "--remount-ro", "/"]
    if plan.privileged:
        words += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add",
                  "CAP_SETPCAP"]
    return words


def sandboxed_command(plan: Plan) -> list[str]:
    """What bwrap runs in the sandbox: the plan's command, under a root arena started
    through setpriv as the plan's uid with no capabilities, an empty bounding set and no
    new privileges."""
    if not plan.privileged:
        return list(plan.argv)
    return [plan.setpriv, "--reuid", str(plan.uid), "--regid", str(plan.uid),
            "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
            "--", *plan.argv]


def _mount_words(mount: Mount) -> list[str]:
    if mount.kind == "ro":
        return ["--ro-bind", mount.source, mount.dest]
    if mount.kind == "rw":
        return ["--bind", mount.source, mount.dest]
    if mount.kind == "symlink":
        return ["--symlink", mount.source, mount.dest]
    if mount.kind == "dir":
        return ["--perms", "0755", "--dir", mount.dest]
    if mount.kind == "hide-dir":
        return ["--perms", "0000", "--size", "4096", "--tmpfs", mount.dest]
    if mount.kind == "hide-file":
        return ["--ro-bind", "/dev/null", mount.dest]
    raise SandboxError(f"unknown mount kind {mount.kind!r}")


def _system_mounts() -> list[Mount]:
    mounts = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            mounts.append(Mount("symlink", path, os.readlink(path)))
        elif os.path.isdir(path):
            mounts.append(Mount("ro", path, path))
    for name in ETC_FILES:
        path = f"/etc/{name}"
        if os.path.exists(path):
            mounts.append(Mount("ro", path, path))
    return mounts


def _with_parents(mounts: list[Mount]) -> list[Mount]:
    """`mounts` preceded by the folders their destinations need (mode 0755, so the
    sandbox's user can pass through them), except those a system mount or /tmp gives."""
    given = {"/", "/tmp", "/proc", "/dev"}
    parents: list[Mount] = []
    for mount in mounts:
        if mount.kind in ("hide-dir", "hide-file"):
            continue
        for parent in reversed(PurePosixPath(mount.dest).parents):
            folder = str(parent)
            if folder in given:
                continue
            given.add(folder)
            parents.append(Mount("dir", folder))
    return [*parents, *(m for m in mounts if m.kind != "dir" or m.dest not in given)]


def _absolute(paths: Iterable[str]) -> list[str]:
    result = []
    for path in paths:
        absolute = os.path.normpath(os.path.abspath(path))
        if absolute == "/":
            raise SandboxError("a sandbox cannot show the whole file system (/)")
        result.append(absolute)
    return result


def _outermost(paths: list[str]) -> list[str]:
    """`paths` without those inside a system folder or inside another of them, sorted."""
    kept: list[str] = []
    for path in sorted(set(paths)):
        if any(_inside(path, system) for system in SYSTEM_PATHS):
            continue
        if not any(_inside(path, outer) for outer in kept):
            kept.append(path)
    return kept


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
