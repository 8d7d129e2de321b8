"""Running any command in a sandbox: `wrap` a command line, start it with `popen_kwargs`.

```
argv = wrap(["python", "bot.py"], workdir="/srv/bots/alice",
            read_only_paths=["/srv/bots/alice", *sdk_paths()])
process = subprocess.Popen(argv, **popen_kwargs({"ARENA_TOKEN": token}))
```

The wrapped command is a small Python step that sets the limits and execs bubblewrap;
it runs the command with no network, its own PID namespace, the system and the given
paths read-only (writable ones writable), a private size-limited ``/tmp``, and, under a
root arena, as a uid of its own. `status` says whether this works on this machine.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.sandbox import seccomp
from arena.sandbox.limits import Limits
from arena.sandbox.plan import (
    INSIDE_UID,
    SandboxError,
    make_plan,
    sandbox_uid,
)

ROOT = Path(__file__).resolve().parents[2]
"""The folder holding the `arena` package (what a sandboxed Python SDK bot imports)."""

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
"""PATH inside a sandbox."""

PROBE_TIMEOUT = 20.0
"""Seconds the sandbox check may take."""

_BOOT = ("import sys; sys.path.insert(0, {root!r}); "
         "from arena.sandbox.enter import main; main(sys.argv[1:])")


@dataclass(frozen=True, slots=True)
class SandboxStatus:
    """Whether commands can be sandboxed on this machine, how, and why (plain words)."""

    available: bool
    mode: str
    """``root`` (bwrap as root, commands as uids of their own), ``user`` (bwrap in a user
    namespace of arena's user) or ``none``."""
    reason: str
    bwrap: str | None = None
    version: str = ""


def status() -> SandboxStatus:
    """This machine's sandbox, checked once per process by sandboxing ``true``."""
    return _status()


@functools.cache
def _status() -> SandboxStatus:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return SandboxStatus(False, "none", "bubblewrap (bwrap) is not installed")
    privileged = os.geteuid() == 0
    if privileged and shutil.which("setpriv") is None:
        return SandboxStatus(False, "none", "setpriv (util-linux) is not installed, so a "
                             "root arena cannot start bots as another user", bwrap)
    version = _version(bwrap)
    try:
        argv = wrap(["true"], workdir="/", key="arena-sandbox-check")
        done = subprocess.run(argv, **popen_kwargs({}), capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError, SandboxError) as exc:
        return SandboxStatus(False, "none", f"bubblewrap cannot run here: {exc}", bwrap,
                             version)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return SandboxStatus(False, "none", f"bubblewrap cannot build a sandbox here: {said}",
                             bwrap, version)
    if privileged:
        return SandboxStatus(True, "root", "arena runs as root: bubblewrap builds each "
                             "sandbox as root and starts the command as a uid of its own, "
                             "with no capabilities", bwrap, version)
    return SandboxStatus(True, "user", "bubblewrap builds each sandbox in a new user "
                         f"namespace; the command runs as arena's user, seen inside as uid "
                         f"{INSIDE_UID}", bwrap, version)


def _version(bwrap: str) -> str:
    try:
        done = subprocess.run([bwrap, "--version"], capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def wrap(argv: Sequence[str], *, workdir: str | Path,
         read_only_paths: Iterable[str | Path] = (),
         writable_paths: Iterable[str | Path] = (),
         hidden_paths: Iterable[str | Path] = (),
         sockets: Mapping[str | Path, str] | None = None,
         limits: Limits | None = None, network: bool = False,
         key: str | None = None, cgroups: Sequence[str] = ()) -> list[str]:
    """The command line that runs `argv` in a sandbox, in `workdir`.

    The sandbox shows the system read-only, `read_only_paths` read-only and
    `writable_paths` writable at their own paths, each of `sockets` (host path →
    path inside) read-only, and covers whatever of `hidden_paths` lies inside those;
    nothing else of the machine (no home, no repository, no database) is there. It
    has a private ``/tmp`` of `limits.tmp_bytes`, no network unless `network`, and
    its own PID namespace; it dies with the process that started it. Under a root
    arena the command runs as the uid `key` names (its own: give each bot its own key;
    `sandbox_uid(key)` says which, to chown a writable folder to it).
    The command runs under the seccomp filter of `arena.sandbox.seccomp` where this
    machine can build it, with a new session keyring, and in `cgroups` (the
    ``cgroup.procs`` files of a `arena.sandbox.cgroups.Group`) when given.
    `argv[0]` should be an absolute path: PATH inside is `BASE_PATH`.
    Raises `SandboxError` when bubblewrap is not installed or a path cannot be shown.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxError("bubblewrap (bwrap) is not installed")
    privileged = os.geteuid() == 0
    plan = make_plan(
        argv, workdir=str(workdir), read_only_paths=[str(p) for p in read_only_paths],
        writable_paths=[str(p) for p in writable_paths],
        hidden_paths=[str(p) for p in hidden_paths],
        sockets={str(host): inside for host, inside in (sockets or {}).items()},
        limits=limits, network=network, privileged=privileged,
        uid=sandbox_uid(key or " ".join(argv)) if privileged else INSIDE_UID, bwrap=bwrap,
        setpriv=shutil.which("setpriv") or "setpriv", seccomp=seccomp.unavailable() is None,
        cgroups=cgroups)
    return [sys.executable, "-I", "-S", "-c", _BOOT.format(root=str(ROOT)), plan.to_json()]


def sandbox_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a sandboxed command: a minimal base (PATH, HOME and TMPDIR in
    /tmp, a UTF-8 locale) plus `env`; nothing of arena's own environment."""
    base = {"PATH": BASE_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
    return {**base, **(env or {})}


def popen_kwargs(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Keyword arguments for `subprocess.Popen` (or `asyncio.create_subprocess_exec`) of a
    `wrap`ped command: `sandbox_env(env)`, its own session, no stdin, no inherited
    descriptors. Add ``stdout``/``stderr`` (a log file, say) as needed."""
    return {"env": sandbox_env(env), "start_new_session": True,
            "stdin": subprocess.DEVNULL, "close_fds": True}


def sdk_paths() -> list[str]:
    """What a bot using arena's Python SDK or the protocol files needs to see: the
    `arena` package and, beside it, ``protos/``."""
    paths = [str(ROOT / "arena")]
    if (ROOT / "protos").is_dir():
        paths.append(str(ROOT / "protos"))
    return paths


def program_path(program: str, *, cwd: str | Path, path: str | None) -> str | None:
    """Where `program` (a command's first word) is: looked up on `path` as a shell would,
    or taken relative to `cwd` when it names a folder; None if it is nowhere."""
    if os.sep in program:
        candidate = os.path.join(cwd, program)
        return os.path.abspath(candidate) if os.access(candidate, os.X_OK) else None
    found = shutil.which(program, path=path)
    return os.path.abspath(found) if found else None


def command_paths(argv: Sequence[str], *, cwd: str | Path, path: str | None = None
                  ) -> list[str]:
    """What a command line needs to see beyond the system: its program's home (an
    interpreter's prefix or virtual environment, both for a link and for what it links
    to; else the program's folder) and the folder of each argument that names an
    existing file (a folder argument: itself)."""
    paths: list[str] = []
    program = program_path(argv[0], cwd=cwd, path=path) if argv else None
    if program is not None:
        for where in dict.fromkeys((program, os.path.realpath(program))):
            paths.append(_program_home(where))
    for word in argv[1:]:
        candidate = os.path.abspath(os.path.join(cwd, word))
        if os.path.isdir(candidate):
            paths.append(candidate)
        elif os.path.exists(candidate):
            paths.append(os.path.dirname(candidate))
    return [p for p in dict.fromkeys(paths) if p != "/"]


def _program_home(program: str) -> str:
    folder = os.path.dirname(program)
    if os.path.basename(folder) == "bin":
        prefix = os.path.dirname(folder)
        lib = Path(prefix) / "lib"
        if (Path(prefix) / "pyvenv.cfg").is_file() or any(lib.glob("python3*")) \
                or (lib / "node_modules").is_dir():
            return prefix
    return folder
