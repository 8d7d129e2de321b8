"""Helpers for the sandbox tests: requiring a working sandbox, and finding processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.sandbox import status
from tests.support import in_ci

HERE = Path(__file__).resolve().parent
HOSTILE_BOT = HERE / "hostile_bot.py"


def require_sandbox() -> None:
    """Skip the test when this machine cannot sandbox — or fail it under CI=true."""
    found = status()
    if found.available:
        return
    if in_ci():
        pytest.fail(f"no sandbox under CI=true: {found.reason}")
    pytest.skip(f"no sandbox here: {found.reason}")


def processes_with(marker: str) -> list[int]:
    """The pids of the processes whose command line holds `marker`."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            words = Path(entry.path, "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(marker.encode() in word for word in words):
            found.append(int(entry.name))
    return found


def status_field(pid: int, field: str) -> list[str]:
    """A field of /proc/PID/status, split into words."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name == field:
            return value.split()
    raise KeyError(field)
