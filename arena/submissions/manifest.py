"""`arena-bot.toml`: what a submitted bot is called, how it is built and how it runs.

```toml
name = "greedy"                 # the bot's name; versions are greedy@1, greedy@2, ...
run = "python greedy_bot.py"    # the command that starts it, in its own folder
build = "make"                  # optional: run once per version, before it plays
runtime = "python"              # optional: "python", "node" or "native" (the default)
```

A `runtime = "python"` bot's leading `python` (or `python3`) is arena's own
interpreter, which has the SDK (`arena.client`) installed.
"""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena.store import NAME

MANIFEST = "arena-bot.toml"
"""The manifest's file name in a bot's folder, unless `--manifest` names another."""

MAX_COMMAND_CHARS = 1000
"""The longest run or build command a manifest may give."""


class Runtime(StrEnum):
    """What a bot needs installed to build and run."""

    PYTHON = "python"
    """arena's Python, with the SDK: a leading `python` in its commands is that interpreter."""
    NODE = "node"
    """Node.js: its dependencies come with the bot's files (builds have no network)."""
    NATIVE = "native"
    """Nothing beyond what the build made (a compiled program)."""


class ManifestError(ValueError):
    """A manifest that arena cannot use; the message names the file and the field."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """A bot's manifest, checked: its name, its commands and its runtime."""

    name: str
    run: str
    build: str | None = None
    runtime: Runtime = Runtime.NATIVE

    def to_dict(self) -> dict[str, Any]:
        """The manifest as plain values (as stored with each version)."""
        values: dict[str, Any] = {"name": self.name, "run": self.run,
                                  "runtime": self.runtime.value}
        if self.build is not None:
            values["build"] = self.build
        return values


_FIELDS = ("name", "run", "build", "runtime")


def parse_manifest(text: str, source: str = MANIFEST, *, name: str | None = None) -> Manifest:
    """The manifest in TOML `text` (read from `source`, for messages); `name`, if given,
    replaces the manifest's own. Raises `ManifestError` saying what is wrong."""
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ManifestError(f"{source}: nested too deeply (a manifest is a few flat "
                            "fields)") from None
    unknown = sorted(set(values) - set(_FIELDS))
    if unknown:
        raise ManifestError(f"{source}: unknown field {unknown[0]!r} (a manifest has "
                            f"{', '.join(_FIELDS)})")
    bot_name = name if name is not None else _text(values, "name", source, required=True)
    assert bot_name is not None
    if not NAME.fullmatch(bot_name):
        raise ManifestError(
            f"{source}: name {bot_name!r} must start with a letter or digit and use only "
            "letters, digits, '_', '.' and '-' (at most 64 characters)")
    run = _text(values, "run", source, required=True)
    assert run is not None
    runtime = _text(values, "runtime", source) or Runtime.NATIVE.value
    try:
        chosen = Runtime(runtime)
    except ValueError:
        choices = ", ".join(repr(r.value) for r in Runtime)
        raise ManifestError(f"{source}: runtime {runtime!r} is not one of {choices}") from None
    _check_run(run, chosen, source)
    return Manifest(name=bot_name, run=run, build=_text(values, "build", source),
                    runtime=chosen)


RUNTIME_WORDS = {Runtime.PYTHON: ("python", "python3"), Runtime.NODE: ("node", "nodejs"),
                 Runtime.NATIVE: ()}
"""The words a run line may start with to start the bot with its runtime."""


def _check_run(run: str, runtime: Runtime, source: str) -> None:
    """`ManifestError` unless `run` starts the bot from its folder (a relative path to a
    program in it, ``./bot`` or ``build/bot``) or with its runtime (`RUNTIME_WORDS`):
    a sandboxed bot sees only its runtime and its own folder."""
    try:
        words = shlex.split(run)
    except ValueError as exc:
        raise ManifestError(f"{source}: cannot read 'run': {exc}") from None
    program = words[0] if words else ""
    if program in RUNTIME_WORDS[runtime]:
        return
    parts = program.split("/")
    if "/" in program and not program.startswith("/") and ".." not in parts:
        return
    allowed = " or ".join(repr(word) for word in RUNTIME_WORDS[runtime])
    runtime_words = f"with its runtime ({allowed}) or " if allowed else ""
    raise ManifestError(
        f"{source}: 'run' starts {program!r}: a bot starts {runtime_words}from its own "
        "folder (a relative path such as ./bot or build/bot); it sees nothing else")


def _text(values: dict[str, Any], field: str, source: str, *,
          required: bool = False) -> str | None:
    value = values.get(field)
    if value is None:
        if required:
            raise ManifestError(f"{source}: missing {field!r}")
        return None
    if not isinstance(value, str) or not value.strip():
        raise ManifestError(f"{source}: {field!r} must be a non-empty string")
    if len(value) > MAX_COMMAND_CHARS or "\x00" in value or "\n" in value:
        raise ManifestError(f"{source}: {field!r} must be one line of at most "
                            f"{MAX_COMMAND_CHARS} characters")
    return value.strip()
