"""Helpers shared by several test folders: the CI switch, free ports, polling, and a
server with the admin service over the services."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from arena.server import ArenaServer
from arena.server.assembly import build_server
from arena.server.auth_store import SessionTokens
from arena.services import Services
from arena.store import BotKind, Store


def in_ci() -> bool:
    """True when the suite runs under CI (CI=true), where every toolchain must be present
    and nothing may skip; read from the environment at each call."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


IN_CI = in_ci()
"""`in_ci()` as it was when the suite started."""

def time_scale() -> float:
    """How much longer than on a quiet machine the tests' time limits may be: the factor
    in ARENA_TEST_TIME_SCALE, else how busy the machine is (the last minute's load
    average per core), at least 1. A time-dependent test takes its deadlines times this
    factor, so that a busy machine slows the suite down instead of failing it."""
    text = os.environ.get("ARENA_TEST_TIME_SCALE", "").strip()
    if text:
        return max(1.0, float(text))
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


TIME_SCALE = time_scale()
"""`time_scale()` as it was when the suite started."""

ROOT = Path(__file__).resolve().parents[1]
"""The project's root folder: a process started there can import arena."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Callable[[], object], timeout: float = 20.0, what: str = "condition",
               interval: float = 0.01) -> None:
    """Poll `condition` until it holds; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


class ManagedServer(NamedTuple):
    """An in-process server with the admin service over the services, on a fresh
    database, and the table of its managed bots' session tokens."""

    store: Store
    server: ArenaServer
    services: Services
    port: int
    tokens: SessionTokens


@contextlib.asynccontextmanager
async def managed_server(folder: Path, *, admin_token: str | None = None,
                         public: bool = False, database: str | Path | None = None,
                         ) -> AsyncIterator[ManagedServer]:
    """Serve `folder`/arena.db (or `database`) on a free loopback port (bot logs in
    `folder`/logs), as `arena serve` does; stopped and closed on the way out. With
    `admin_token`, its admin calls are checked as `arena serve`'s are (the organizer's
    token, the authors' tokens, `public`)."""
    store = Store.open(folder / "arena.db" if database is None else database)
    holder: list[Services] = []
    tokens = SessionTokens()
    server = build_server(store, folder / "logs", holder.append, session_tokens=tokens,
                          admin_token=admin_token, public=public)
    try:
        port = await server.start("127.0.0.1", 0)
        yield ManagedServer(store, server, holder[0], port, tokens)
    finally:
        await server.stop(0.5)
        store.close()


_WITHOUT_WRITE_OVERRIDE = """
import ctypes, os, sys
PR_CAPBSET_READ, PR_CAPBSET_DROP = 23, 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2
prctl = ctypes.CDLL(None, use_errno=True).prctl
for cap, name in ((CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE"),
                  (CAP_DAC_READ_SEARCH, "CAP_DAC_READ_SEARCH")):
    if os.geteuid() == 0 and prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 \\
            and prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 0:
        sys.exit(f"cannot give up {name}: {os.strerror(ctypes.get_errno())}")
os.execv(sys.argv[1], sys.argv[1:])
"""
"""Runs its arguments as a command that file permissions bind even under root: root
ignores them through CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, which are dropped from
the bounding set first, so the exec'd command has them in none of its sets."""


RunBound = Callable[[Sequence[str]], subprocess.CompletedProcess[str]]
"""``run(argv)``: `subprocess.run` of a command bound by file permissions, from `ROOT`,
its output captured as text."""


@contextlib.contextmanager
def read_only_folder(folder: Path) -> Iterator[RunBound]:
    """Make `folder` read-only (mode 0555) and yield a runner for commands that cannot
    write in it, even when the tests run as root. Before yielding, a probe proves they
    cannot, so a test on a read-only folder never passes for lack of one."""
    def run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-c", _WITHOUT_WRITE_OVERRIDE, *argv]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT,
                              check=False)

    mode = folder.stat().st_mode & 0o7777
    folder.chmod(0o555)
    try:
        probe = run([sys.executable, "-c",
                     f"open({str(folder / 'probe')!r}, 'x')"])
        assert probe.returncode != 0 and "Permission denied" in probe.stderr, (
            f"the folder {folder} can still be written: {probe.stderr}")
        yield run
    finally:
        folder.chmod(mode)


@contextlib.contextmanager
def unenterable_folder(folder: Path) -> Iterator[RunBound]:
    """Make `folder` one nobody may enter or list (mode 0000) and yield a runner for
    commands bound by that, even when the tests run as root; a probe proves first that
    they are."""
    def run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-c", _WITHOUT_WRITE_OVERRIDE, *argv]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT,
                              check=False)

    mode = folder.stat().st_mode & 0o7777
    folder.chmod(0)
    try:
        probe = run([sys.executable, "-c", f"import os; os.stat({str(folder / 'x')!r})"])
        assert probe.returncode != 0 and "Permission denied" in probe.stderr, (
            f"the folder {folder} can still be entered: {probe.stderr}")
        yield run
    finally:
        folder.chmod(mode)


@contextlib.contextmanager
def store_with_remote_bots(path: Path, bots: Sequence[str]) -> Iterator[Store]:
    """A store at `path` with each of `bots` registered as a remote bot, closed afterwards."""
    with Store.open(path) as opened:
        for bot in bots:
            opened.add_bot(bot, BotKind.REMOTE)
        yield opened


CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium, which the browser tests drive with Playwright."""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium launched through Playwright, closed on the way out; the test
    skips (saying what is missing) without either."""
    if not CHROMIUM.exists():
        pytest.skip(f"no {CHROMIUM} (Debian's chromium package)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()
