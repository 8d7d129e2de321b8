"""Run `arena` on a pseudo-terminal and read its screen with pyte, as a person would see it."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import pyte

COLUMNS, LINES = 100, 30
"""The size of the terminal the commands run on."""


@dataclass
class Terminal:
    """What a command wrote to a terminal: its raw output, and the screen it left."""

    output: bytes
    screen: list[str]
    exit_code: int | None

    @property
    def text(self) -> str:
        """The screen's lines, right-trimmed, one per line."""
        return "\n".join(line.rstrip() for line in self.screen).rstrip()


def screen_of(output: bytes, columns: int = COLUMNS, lines: int = LINES) -> list[str]:
    """The screen a terminal shows after receiving `output`."""
    screen = pyte.Screen(columns, lines)
    stream = pyte.ByteStream(screen)
    stream.feed(output)
    return list(screen.display)


def run_on_terminal(argv: Sequence[str], env: Mapping[str, str], *, timeout: float = 60,
                    stop_when: Callable[[bytes], bool] | None = None,
                    interrupt_after: float | None = None,
                    on_output: Callable[[bytes], object] | None = None,
                    columns: int = COLUMNS, lines: int = LINES) -> Terminal:
    """Run `argv` with a pseudo-terminal as its stdin, stdout and stderr until it exits;
    with `stop_when`, send it Ctrl-C (SIGINT) once its output so far passes that test, and
    with `interrupt_after`, once that many seconds have passed. `on_output` is called
    with all the output so far each time more comes."""
    controller, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    process = subprocess.Popen(list(argv), stdin=terminal, stdout=terminal, stderr=terminal,
                               env=dict(env), start_new_session=True)
    os.close(terminal)
    chunks: list[bytes] = []
    started = time.monotonic()
    interrupted = False
    try:
        while time.monotonic() - started < timeout:
            seen = b"".join(chunks)
            due = (stop_when is not None and stop_when(seen)) or (
                interrupt_after is not None and time.monotonic() - started > interrupt_after)
            if due and not interrupted:
                os.killpg(process.pid, signal.SIGINT)
                interrupted = True
            ready, _, _ = select.select([controller], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the terminal closed: every writer is gone
                    break
                if not chunk:
                    break
                chunks.append(chunk)
                if on_output is not None:
                    on_output(b"".join(chunks))
            elif process.poll() is not None:
                break
        else:
            raise AssertionError(f"{argv} still running after {timeout} s: "
                                 f"{b''.join(chunks)[-2000:]!r}")
        code = process.wait(timeout=10)
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()
            process.wait()
    output = b"".join(chunks)
    return Terminal(output, screen_of(output, columns, lines), code)


@contextmanager
def spawned_on_terminal(argv: Sequence[str], env: Mapping[str, str], *,
                        columns: int = COLUMNS,
                        lines: int = LINES) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """`argv` running on a pseudo-terminal: the process and the terminal's controlling end,
    to read what it shows and type to it; the process is killed on the way out."""
    controller, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    process = subprocess.Popen(list(argv), stdin=terminal, stdout=terminal, stderr=terminal,
                               env=dict(env), start_new_session=True)
    os.close(terminal)
    try:
        yield process, controller
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        os.close(controller)


def read_until(controller: int, wanted: bytes, timeout: float) -> bytes:
    """What the terminal shows until `wanted` appears, or `timeout` seconds pass."""
    seen = b""
    deadline = time.monotonic() + timeout
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen
