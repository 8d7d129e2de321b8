"""A terminal screen that redraws a block of lines in place.

`arena watch`, `arena replay --board` and `arena rankings --watch` draw whole
frames: each frame overwrites the previous one from the top-left corner, clipped
to the terminal's width and height so it never scrolls. The cursor is hidden
while frames are drawn and shown again when the screen is closed, also after
Ctrl-C; the last frame stays on the terminal.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, TextIO

import click

HOME = "\x1b[H"
"""Move the cursor to the top-left corner."""
CLEAR_SCREEN = "\x1b[2J"
CLEAR_LINE_END = "\x1b[K"
CLEAR_BELOW = "\x1b[J"
HIDE_CURSOR = "\x1b[?25l"
SHOW_CURSOR = "\x1b[?25h"
RESET = "\x1b[0m"

DEFAULT_DELAY = 0.25
"""Seconds between two frames of a game's board unless `--delay` says otherwise."""

_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def can_redraw(stream: TextIO | None = None) -> bool:
    """Whether frames can be drawn in place: the stream is a terminal that moves its cursor
    (not `TERM=dumb`)."""
    target = stream if stream is not None else sys.stdout
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def can_draw_board(stream: TextIO | None = None) -> bool:
    """Whether a game's board is drawn (`watch`, `replay --board`): frames can be redrawn
    in place and NO_COLOR is not set; otherwise a game is printed as plain lines."""
    return can_redraw(stream) and "NO_COLOR" not in os.environ


def visible_width(text: str) -> int:
    """How many columns `text` takes, not counting its escape sequences."""
    return len(_ESCAPE.sub("", text))


def strip_escapes(text: str) -> str:
    """`text` without its escape sequences."""
    return _ESCAPE.sub("", text)


def clip(text: str, width: int) -> str:
    """`text` cut to `width` visible columns, escape sequences kept whole; a cut line whose
    styles were open ends with a reset."""
    if visible_width(text) <= width:
        return text
    out: list[str] = []
    shown = 0
    position = 0
    styled = False
    while position < len(text) and shown < width:
        match = _ESCAPE.match(text, position)
        if match is not None:
            out.append(match.group())
            styled = True
            position = match.end()
            continue
        out.append(text[position])
        shown += 1
        position += 1
    return "".join(out) + (RESET if styled else "")


class Screen:
    """Frames drawn in place on a terminal stream; use it as a context manager."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.frames = 0

    def __enter__(self) -> Screen:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def size(self) -> tuple[int, int]:
        """The terminal's (columns, lines)."""
        columns, lines = shutil.get_terminal_size()
        return max(columns, 20), max(lines, 5)

    def draw(self, lines: Sequence[str]) -> None:
        """Replace the previous frame by `lines`, clipped so the frame never scrolls."""
        columns, rows = self.size()
        shown = [clip(line, columns) for line in lines[:rows - 1]]
        start = "" if self.frames else HIDE_CURSOR + CLEAR_SCREEN
        # Counted before writing: a Ctrl-C while the terminal takes the frame must still
        # give the cursor back.
        self.frames += 1
        self.stream.write(start + HOME + "".join(line + CLEAR_LINE_END + "\r\n" for line in shown)
                          + CLEAR_BELOW)
        self.stream.flush()

    def close(self) -> None:
        """Show the cursor again; the last frame stays, the cursor below it. A screen
        that drew nothing leaves the terminal as it was."""
        if self.frames:
            self.stream.write(SHOW_CURSOR)
            self.stream.flush()


def delay_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """The `--delay SECONDS` option of the commands that draw a game's board."""
    return click.option(
        "--delay", type=click.FloatRange(min=0), default=DEFAULT_DELAY, show_default=True,
        metavar="SECONDS",
        help="On a terminal's board: at least this long between two frames.")(function)
