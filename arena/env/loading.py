"""Finding the SDK bot behind a managed bot's command, to play it in this process.

A managed bot is a command the platform launches. A Python SDK bot's command is
``python FILE.py [ARGS]`` or ``python -m MODULE [ARGS]`` (any ``python``,
``python3``, ``python3.11``, with ``-u`` and the like allowed before), and its main
code ends by calling `arena.client.run` (or a `Bot`'s `run` method) with the bot.

`load_bot` runs that main code the way Python would (as ``__main__``, the script's
folder first on ``sys.path``, ``sys.argv`` as the command gives it) with
`arena.client.run` replaced by a catch that takes the bot and its settings and
stops the script there, before it connects anywhere. So whatever the script does
before `run` (read its weights, its environment variables) happens as it would,
and the bot that plays in this process is the very object the script would have
connected with. A command of another shape, or a script that never calls `run`,
is not a Python SDK bot and is refused with `NotAnSdkBot`.

The code runs in this process with this process's rights, unsandboxed: only bots
whose code is trusted belong here.
"""

from __future__ import annotations

import os
import re
import runpy
import shlex
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import arena.client
import arena.client.bot
from arena.client.bot import Bot, as_bot

_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_PLAIN_FLAGS = frozenset({"-u", "-B", "-O", "-OO", "-s", "-S", "-E", "-I", "-q"})


class NotAnSdkBot(ValueError):
    """The bot cannot play in this process; the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class LoadedBot:
    """An SDK bot taken from its script, with the Hello settings it passed to `run`."""

    bot: Bot
    auto_single_action: bool = False


@dataclass(frozen=True, slots=True)
class Entry:
    """What a command runs: a script `path`, or a `module` (with `folder` first on sys.path),
    and the `argv` it is given."""

    folder: Path
    argv: tuple[str, ...]
    path: Path | None = None
    module: str | None = None


def entry_point(name: str, command: str, folder: str | os.PathLike[str] = "") -> Entry:
    """What bot `name`'s `command`, run in `folder` (this folder when ""), runs; raises
    `NotAnSdkBot` for a command that is not ``python FILE.py`` or ``python -m MODULE``."""
    base = Path(folder or ".").resolve()
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise NotAnSdkBot(f"bot {name}: cannot read its command {command!r}: {exc}") from None
    refusal = NotAnSdkBot(
        f"bot {name} is not a Python SDK bot: its command {command!r} is not "
        "`python FILE.py` or `python -m MODULE`, so it cannot play in this process")
    if not words or not _PYTHON.match(Path(words[0]).name):
        raise refusal
    rest = words[1:]
    while rest and rest[0] in _PLAIN_FLAGS:
        rest = rest[1:]
    if len(rest) >= 2 and rest[0] == "-m":
        return Entry(base, (rest[1], *rest[2:]), module=rest[1])
    if not rest or not rest[0].endswith(".py"):
        raise refusal
    path = (base / rest[0]).resolve()
    if not path.is_file():
        raise NotAnSdkBot(f"bot {name}: its script {path} does not exist")
    return Entry(path.parent, (str(path), *rest[1:]), path=path)


class _Caught(Exception):
    """Raised by the stand-in for `run` to stop the script with the bot it was given."""

    def __init__(self, loaded: LoadedBot) -> None:
        super().__init__("caught")
        self.loaded = loaded


def _catch(bot: Any, *, name: str | None = None, auto_single_action: bool = False,
           on_game_start: Any = None, on_events: Any = None, on_game_end: Any = None,
           **_connection: Any) -> Any:
    raise _Caught(LoadedBot(as_bot(bot, name=name, on_game_start=on_game_start,
                                   on_events=on_events, on_game_end=on_game_end),
                            auto_single_action))


@contextmanager
def _catching_run(entry: Entry) -> Iterator[None]:
    """`arena.client.run` replaced by `_catch`, the script's argv and folder in place."""
    saved_run = arena.client.run, arena.client.bot.run
    saved_argv = sys.argv
    arena.client.run = arena.client.bot.run = _catch
    sys.argv = list(entry.argv)
    folder = str(entry.folder)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # kept: the bot may import its own modules later
    try:
        yield
    finally:
        arena.client.run, arena.client.bot.run = saved_run
        sys.argv = saved_argv


def load_bot(name: str, command: str, folder: str | os.PathLike[str] = "") -> LoadedBot:
    """Run bot `name`'s main code up to its `arena.client.run` call and return the bot it
    passes; `NotAnSdkBot` (one line) for anything that is not a Python SDK bot, or a
    script that fails before it gets there."""
    entry = entry_point(name, command, folder)
    with _catching_run(entry):
        try:
            if entry.module is not None:
                with warnings.catch_warnings():  # a module this process imported already
                    warnings.filterwarnings("ignore", "'.*' found in sys.modules",
                                            RuntimeWarning)
                    runpy.run_module(entry.module, run_name="__main__")
            else:
                assert entry.path is not None
                runpy.run_path(str(entry.path), run_name="__main__")
        except _Caught as caught:
            return caught.loaded
        except SystemExit as exc:
            raise NotAnSdkBot(f"bot {name}: its script exited ({exc.code}) without calling "
                              "arena.client.run") from None
        except Exception as exc:
            raise NotAnSdkBot(f"bot {name}: its script failed before calling "
                              f"arena.client.run: {type(exc).__name__}: {exc}") from None
    raise NotAnSdkBot(f"bot {name} is not a Python SDK bot: its script {command!r} never "
                      "calls arena.client.run")
