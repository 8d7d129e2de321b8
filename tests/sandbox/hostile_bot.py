"""A hostile bot: tries to break out of its sandbox, then plays legal moves (index 0).

It reads what to attack from ``targets.json`` beside it, and prints one line per
attack to stderr, ``ATTACK <name>: blocked (<what stopped it>)`` or ``ATTACK <name>:
SUCCEEDED (<what it got>)``; the sandbox tests read those lines from its log. It
also leaves a process behind that tries to outlive it (its command line holds the
marker the targets give), for the tests to look for once the bot is stopped.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

from arena.client import Action, View, run

TARGETS = json.loads((Path(__file__).resolve().parent / "targets.json").read_text())
MIB = 1024 * 1024
PTRACE_ATTACH = 16


def report(name: str, attack: Callable[[], str | None]) -> None:
    """Run `attack`: a string back means it got something; an exception, it was stopped."""
    try:
        got = attack()
    except BaseException as exc:  # noqa: BLE001 - MemoryError, OSError, anything stops it
        print(f"ATTACK {name}: blocked ({type(exc).__name__}: {exc})", file=sys.stderr)
        return
    if got is None:
        print(f"ATTACK {name}: blocked (nothing to get)", file=sys.stderr)
    else:
        print(f"ATTACK {name}: SUCCEEDED ({got[:200]})", file=sys.stderr)


def read_file(path: str) -> Callable[[], str | None]:
    def attack() -> str | None:
        data = Path(path).read_bytes()
        return repr(data[:40]) if data else None
    return attack


def connect(host: str, port: int) -> Callable[[], str | None]:
    def attack() -> str | None:
        with socket.create_connection((host, port), timeout=2):
            return f"connected to {host}:{port}"
    return attack


def resolve() -> str | None:
    """Look a name up through the machine's resolver: a resolver that answers at all
    (even that the name does not exist) was reached."""
    try:
        return repr(socket.getaddrinfo(TARGETS["outside_name"], 443))
    except socket.gaierror as exc:
        if exc.errno == socket.EAI_NONAME:
            return f"the resolver answered: {exc}"
        raise


def reach(host: str, port: int) -> Callable[[], str | None]:
    """Reach an address of this machine beyond loopback: refused is reached too."""
    def attack() -> str | None:
        try:
            with socket.create_connection((host, port), timeout=2):
                return f"connected to {host}:{port}"
        except ConnectionRefusedError:
            return f"reached {host}:{port}, which refused"
    return attack


def write_outside_tmp() -> str | None:
    written = []
    for path in TARGETS["write_paths"]:
        with contextlib.suppress(OSError):
            Path(path).write_text("hostile")
            written.append(path)
    if written:
        return f"wrote {written}"
    raise PermissionError(f"none of {TARGETS['write_paths']} could be written")


def fill_tmp() -> str | None:
    written = 0
    chunk = b"x" * MIB
    try:
        with open("/tmp/fill", "wb") as out:
            while written < TARGETS["tmp_bytes"] * 4:
                out.write(chunk)
                out.flush()
                written += len(chunk)
    finally:
        with contextlib.suppress(OSError):
            os.unlink("/tmp/fill")
    return f"wrote {written // MIB} MiB to /tmp"


def allocate() -> str | None:
    block = bytearray(TARGETS["allocate_bytes"])
    return f"allocated {len(block) // MIB} MiB"


def fork_bomb() -> str | None:
    children = []
    try:
        for _ in range(TARGETS["fork_bomb"]):
            pid = os.fork()
            if pid == 0:
                time.sleep(3)
                os._exit(0)
            children.append(pid)
        return f"started {len(children)} processes"
    finally:
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)


def signal_others() -> str | None:
    killed = []
    for pid in TARGETS["pids"]:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    if killed:
        return f"signalled {killed}"
    raise ProcessLookupError(f"none of {TARGETS['pids']} can be reached")


def trace_others() -> str | None:
    libc = ctypes.CDLL(None, use_errno=True)
    traced = [pid for pid in TARGETS["pids"] if libc.ptrace(PTRACE_ATTACH, pid, 0, 0) == 0]
    if traced:
        return f"attached to {traced}"
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def leave_a_survivor() -> None:
    """Start a grandchild in a session of its own that ignores the stop signals."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                signal.signal(signum, signal.SIG_IGN)
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)",
                                      TARGETS["marker"]])
        os._exit(0)
    os.wait()


def attack_everything() -> None:
    """Every attack the sandbox tests check, one report line each."""
    report("read_database", read_file(TARGETS["database"]))
    report("read_admin_token", read_file(TARGETS["admin_token"]))
    report("read_other_bot", read_file(TARGETS["other_bot_file"]))
    report("connect_server_port", connect("127.0.0.1", TARGETS["server_port"]))
    report("connect_other_port", connect("127.0.0.1", TARGETS["other_port"]))
    report("resolve_outside", resolve)
    report("reach_outside", reach(TARGETS["outside_address"], TARGETS["server_port"]))
    report("write_outside_tmp", write_outside_tmp)
    report("fill_tmp", fill_tmp)
    report("allocate_memory", allocate)
    report("fork_bomb", fork_bomb)
    report("kill_others", signal_others)
    report("ptrace_others", trace_others)
    leave_a_survivor()
    print(f"ATTACK done (errno names checked: {errno.errorcode[errno.ESRCH]})",
          file=sys.stderr)
    sys.stderr.flush()


def decide(view: View, legal: list[Action]) -> int:
    """Always the first legal action."""
    return 0


if __name__ == "__main__":
    attack_everything()
    raise SystemExit(run(decide, name="hostile", max_tables=4).exit_code)
