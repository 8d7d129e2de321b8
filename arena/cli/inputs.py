"""What the command line takes: number ranges, seconds, and settings and rules files."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

import click

FORMATS = ("table", "json", "csv")

DEFAULT_DB = "arena.db"
"""The database a command uses when neither --db nor ARENA_DB names one."""

UINT32 = click.IntRange(0, 2**32 - 1)
"""The values a uint32 field of an admin request carries."""
UINT64 = click.IntRange(0, 2**64 - 1)
"""The values a uint64 field of an admin request carries."""
POSITIVE_UINT32 = click.IntRange(1, 2**32 - 1)
"""The values above 0 a uint32 field carries."""

SEED_HELP = ("Seed of the deals: the same seed deals the same cards in the same games "
             "and sends each seat the same GameStart bot_seed (what the bots decide, and "
             "any randomness of their own, is theirs; the random sample bot draws its "
             "choices from bot_seed, so it repeats them).")
"""The help of every --seed option: what a seed fixes, and what it does not."""


class Seconds(click.FloatRange):
    """A finite number of seconds, 0 or more (click.FloatRange lets nan and inf through)."""

    def __init__(self) -> None:
        super().__init__(min=0)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        """The number of seconds `value` says, or a usage error."""
        seconds = super().convert(value, param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value} is not a finite number of seconds.", param, ctx)
        return seconds


MAX_NESTING = 32
"""How deep tables and lists may nest in a settings or rules file (they need 3 levels)."""


def load_table(path: str | None, what: str) -> dict[str, Any]:
    """A settings table from a TOML or JSON file (JSON by a `.json` extension in any case,
    TOML otherwise); a file that is no such table is a `click.BadParameter` naming it."""
    if path is None:
        return {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise click.BadParameter(f"{path}: not a UTF-8 text file", param_hint=what) from None
    except OSError as exc:
        raise click.BadParameter(f"{path}: {exc.strerror}", param_hint=what) from None
    too_deep = click.BadParameter(f"{path}: nested too deeply (more than {MAX_NESTING} levels)",
                                  param_hint=what)
    try:
        data = json.loads(text) if Path(path).suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise click.BadParameter(f"{path}: {exc}", param_hint=what) from None
    except RecursionError:
        raise too_deep from None
    if not isinstance(data, dict):
        raise click.BadParameter(f"{path}: must hold a table of settings", param_hint=what)
    if _nesting(data) > MAX_NESTING:
        raise too_deep
    return data


def _nesting(value: object) -> int:
    """How many tables and lists deep `value` goes (counted without recursion)."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((child, depth) for child in (
                item.values() if isinstance(item, dict) else item))
    return deepest


def rules_json(path: str | None) -> str:
    """The rule set in a file, checked here so a mistake is reported before any play."""
    data = load_table(path, "--rules")
    if set(data) == {"rules"} and isinstance(data["rules"], dict):
        data = data["rules"]
    from arena.engine import RuleSet, RuleSetError

    try:
        return json.dumps(RuleSet.from_dict(data).to_dict()) if data else ""
    except RuleSetError as exc:
        raise click.BadParameter(str(exc), param_hint="--rules") from None


class StartTime(click.ParamType):  # type: ignore[type-arg]
    """`--at`: a time to come, local unless it says its offset (see `parse_at`); UTC."""

    name = "when"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        """The moment in UTC, or a usage error saying how to write one."""
        from datetime import datetime

        from arena.tournament.timetable import TimetableError, parse_at

        if isinstance(value, datetime):
            return value
        try:
            return parse_at(str(value))
        except TimetableError as exc:
            self.fail(str(exc), param, ctx)


class Period(click.ParamType):  # type: ignore[type-arg]
    """`--every`: a period such as 24h, 30m, 7d or 90s, as whole seconds."""

    name = "period"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        """The period in seconds, or a usage error saying how to write one."""
        from arena.tournament.timetable import TimetableError, parse_every

        if isinstance(value, int):
            return value
        try:
            return parse_every(str(value))
        except TimetableError as exc:
            self.fail(str(exc), param, ctx)
