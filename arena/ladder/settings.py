"""A ladder's settings: its table size, rule set, bot policy, tables and matchmaking.

Like a tournament's, they are data: a TOML table (`arena ladder run --settings
FILE`) read into a frozen `LadderSettings`, stored with the ladder so that a
restarted ladder plays on as it began. The ladder is stored as a tournament of
format `ladder` whose settings read as a tournament's (`tournament_settings`), so
its games, public ids, replays and exports are a tournament's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from arena.engine.rules import RuleSet, Scoring
from arena.store import LADDER_FORMAT, Tournament
from arena.tournament.schedule import (
    MAX_SEED,
    SettingsError,
    TournamentSettings,
    check_settings_keys,
)

DEFAULT_NAME = "ladder"
"""The ladder's name when none is given: its games are `ladder:INDEX`."""

MAX_TABLES = 1024
"""The most tables a ladder plays at once."""


class Matchmaking(StrEnum):
    """How a ladder picks the bots of its next table."""

    INFORMATION = "information"
    """The table that tells most: uncertain bots first, closely matched tables (see
    `arena.ladder.matchmaking.choose_table`)."""
    RANDOM = "random"
    """Bots drawn at random: the baseline information is measured against."""


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """Everything that decides how a ladder plays.

    - `table_size`: seats per table (2 by default, so that two bots make a ladder).
    - `rotations`: a table's deal is played in every cyclic rotation of its seats before
      the next table of those bots; `duplicate`: the rotations share the deal.
    - `seed`: the ladder seed every deal seed derives from.
    - `tables`: how many tables play at once (it shrinks while a scheduled tournament
      takes its share of the server's tables).
    - `matchmaking`: how the bots of each table are picked.
    - `wait`: seconds a new version is given to connect before the ladder goes on
      without it (it joins whenever it connects).
    - `policy`: the bot policy every table applies; `rules`: the rule set.
    - `per_author`: at most this many bots of each author play (their newest); None: all.
    """

    table_size: int = 2
    rotations: bool = True
    duplicate: bool = True
    seed: int = 0
    tables: int = 4
    matchmaking: Matchmaking = Matchmaking.INFORMATION
    wait: float = 30.0
    policy: Mapping[str, Any] = field(default_factory=dict)
    rules: RuleSet = field(default_factory=RuleSet)
    per_author: int | None = None

    def __post_init__(self) -> None:
        if self.per_author is not None and not 1 <= self.per_author <= 1000:
            raise SettingsError(f"per_author: must be between 1 and 1000, got {self.per_author}")
        if not 1 <= self.tables <= MAX_TABLES:
            raise SettingsError(f"tables: must be between 1 and {MAX_TABLES}, got {self.tables}")
        if not 0 <= self.seed <= MAX_SEED:
            raise SettingsError(f"seed: must be between 0 and {MAX_SEED:,}, got {self.seed:,}")
        if not 0 < self.wait <= 3600:
            raise SettingsError(f"wait: must be above 0 and at most 3600 s, got {self.wait}")
        if self.rules.scoring is Scoring.PARTNERS:
            raise SettingsError("rules: the ladder seats every bot for itself, so its scoring "
                                "cannot be 'partners' (a partner tournament can)")
        self.tournament_settings()  # the table size, policy and rule set checked as a tournament's

    def tournament_settings(self) -> TournamentSettings:
        """The settings of the tournament the ladder is stored as."""
        return TournamentSettings(table_size=self.table_size, rotations=self.rotations,
                                  duplicate=self.duplicate, seed=self.seed,
                                  concurrency=self.tables, policy=dict(self.policy),
                                  rules=self.rules)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-friendly values, the inverse of `from_dict`."""
        return {"table_size": self.table_size, "rotations": self.rotations,
                "duplicate": self.duplicate, "seed": self.seed, "tables": self.tables,
                "matchmaking": self.matchmaking.value, "wait": self.wait,
                "policy": dict(self.policy), "rules": self.rules.to_dict(),
                **({} if self.per_author is None else {"per_author": self.per_author})}

    def stored(self) -> dict[str, Any]:
        """The settings as the ladder's tournament stores them: a tournament's (the rule set
        apart, stored on its own)."""
        return {key: value for key, value in self.tournament_settings().to_dict().items()
                if key != "rules"}

    def differences(self, settings: Mapping[str, Any], rules: Mapping[str, Any]) -> list[str]:
        """What of the games these settings would change against a stored ladder's
        `settings` and `rules` ("table_size: 4 stored, 2 given"): its table size, seat
        rotations, deals, seed and rule set stay as the ladder began (its tables, policy,
        matchmaking and wait may change from one run to the next)."""
        mine = self.stored()
        changed = [f"{key}: {settings.get(key)!r} stored, {mine[key]!r} given"
                   for key in ("table_size", "rotations", "duplicate", "seed")
                   if settings.get(key) != mine[key]]
        if RuleSet.from_dict(dict(rules)) != self.rules:
            changed.append("rules: the stored rule set differs from the one given")
        return changed

    @classmethod
    def from_stored(cls, settings: Mapping[str, Any], rules: Mapping[str, Any]
                    ) -> LadderSettings:
        """The settings a stored ladder was started with (`stored` read back; matchmaking
        and wait, which are not stored, as by default)."""
        return cls.from_dict({"table_size": settings.get("table_size", 2),
                              "rotations": settings.get("rotations", True),
                              "duplicate": settings.get("duplicate", True),
                              "seed": settings.get("seed", 0),
                              "tables": settings.get("concurrency", 4),
                              "policy": settings.get("policy", {}), "rules": dict(rules)})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LadderSettings:
        """Settings from a mapping (a TOML file's table); unknown keys and bad values raise
        `SettingsError` naming the key."""
        check_settings_keys(data, {f.name for f in fields(cls)}, "ladder setting")
        values: dict[str, Any] = {}
        for name in ("table_size", "seed", "tables", "per_author"):
            if name in data:
                values[name] = _whole(name, data[name])
        for name in ("rotations", "duplicate"):
            if name in data:
                if not isinstance(data[name], bool):
                    raise SettingsError(f"{name}: must be true or false, got {data[name]!r}")
                values[name] = data[name]
        if "matchmaking" in data:
            try:
                values["matchmaking"] = Matchmaking(str(data["matchmaking"]))
            except ValueError:
                choices = ", ".join(repr(m.value) for m in Matchmaking)
                raise SettingsError(f"matchmaking: {data['matchmaking']!r} is not one of "
                                    f"{choices}") from None
        if "wait" in data:
            wait = data["wait"]
            if isinstance(wait, bool) or not isinstance(wait, int | float):
                raise SettingsError(f"wait: must be a number of seconds, got {wait!r}")
            values["wait"] = float(wait)
        if "policy" in data:
            if not isinstance(data["policy"], Mapping):
                raise SettingsError(f"policy: must be a table of settings, got {data['policy']!r}")
            values["policy"] = dict(data["policy"])
        rules = TournamentSettings.from_dict({"rules": data.get("rules", {})}).rules
        return cls(**values, rules=rules)

    def with_tables(self, tables: int | None) -> LadderSettings:
        """These settings with `tables` tables at once (unchanged for None)."""
        if tables is None:
            return self
        return LadderSettings.from_dict({**self.to_dict(), "tables": tables})


def _whole(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingsError(f"{name}: must be a whole number, got {value!r}")
    return value


def is_ladder(tournament: Tournament) -> bool:
    """Whether a stored tournament is a ladder."""
    return tournament.format == LADDER_FORMAT
