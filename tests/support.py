"""Helpers shared by several test folders: the CI switch, free ports and polling."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable


def in_ci() -> bool:
    """True when the suite runs under CI (CI=true), where every toolchain must be present
    and nothing may skip; read from the environment at each call."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


IN_CI = in_ci()
"""`in_ci()` as it was when the suite started."""


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
