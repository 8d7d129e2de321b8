"""TrueSkill ratings for UNO tables and the leaderboard built from them.

The math is pure: `rate_game` turns the skills before a game into the skills
after it, and `leaderboard` orders rating records. Storage lives in
`arena.store`, which calls `rate_game` inside the transaction that records a
game.

A free-for-all UNO table is rated as one-player teams ranked by place; a
partner game (seats 0 and 2 against 1 and 3) is rated as two teams of two.

Every game is rated under a `RatingParameters`: the module's defaults
(`DEFAULT_PARAMETERS`, TrueSkill's documented values) unless the caller passes
parameters fitted for a pool (`arena.rating.fit`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from functools import lru_cache
from typing import Any, Protocol, TypeVar

import trueskill

MU = 25.0
"""The mean skill of a bot that has not played yet."""
SIGMA = MU / 3
"""The uncertainty of a bot that has not played yet."""
BETA = MU / 6
"""The skill gap that gives the better bot about a 76% chance of beating the other."""
TAU = MU / 300
"""Uncertainty added before each game, so ratings can keep moving.

This is TrueSkill's default for people, whose skill drifts. It holds σ near
0.8 however many games are played; a pool of immutable bot versions
should be rated with τ = 0 (`arena.rating.fit.POOL_TAU`).
"""
DRAW_PROBABILITY = 0.10
"""How likely two evenly matched places are to tie (TrueSkill's documented default).

UNO tables tie less than this: the engine orders the bots that did not go out
by the points left in their hands, so only equal points tie, and fitted to
UNO single hands the draw probability comes out below 1% (`arena.rating.fit`,
measured by `python -m arena.rating.demo`).
"""

BotKey = TypeVar("BotKey", bound=Hashable)


class RatingError(ValueError):
    """A game cannot be rated as given; the message says what is inconsistent."""


class RatingParametersError(ValueError):
    """Rating parameters are out of range or malformed; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Skill:
    """A TrueSkill belief about one bot: mean `mu` and uncertainty `sigma`."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def conservative(self) -> float:
        """μ − 3σ: a skill the bot is very likely to have at least; leaderboards sort by it."""
        return self.mu - 3 * self.sigma


DEFAULT_SKILL = Skill()
"""The skill every bot starts from under the default parameters."""


@dataclass(frozen=True, slots=True)
class RatingParameters:
    """The five numbers a TrueSkill environment is made of.

    `mu` and `sigma` are the skill a bot starts from, `beta` the spread of one
    game's performance around a skill (UNO's luck, on the skill scale), `tau`
    the uncertainty added before every game (how fast a skill may drift), and
    `draw_probability` the chance that two evenly matched, exactly known
    places tie. Construction checks the ranges and raises
    `RatingParametersError`; `to_dict` and `from_dict` round-trip them exactly.
    """

    mu: float = MU
    sigma: float = SIGMA
    beta: float = BETA
    tau: float = TAU
    draw_probability: float = DRAW_PROBABILITY

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise RatingParametersError(f"{f.name}: must be a number, got {value!r}")
            if not math.isfinite(value):
                raise RatingParametersError(f"{f.name}: must be finite, got {value!r}")
            object.__setattr__(self, f.name, float(value))
        for name in ("sigma", "beta"):
            if getattr(self, name) <= 0:
                raise RatingParametersError(f"{name}: must be positive, got {getattr(self, name)}")
        if self.tau < 0:
            raise RatingParametersError(f"tau: must not be negative, got {self.tau}")
        if not 0 < self.draw_probability < 1:
            raise RatingParametersError(
                f"draw_probability: must be strictly between 0 and 1, got {self.draw_probability}"
            )

    @property
    def initial_skill(self) -> Skill:
        """The skill a bot that has not played yet starts from."""
        return Skill(self.mu, self.sigma)

    def environment(self) -> trueskill.TrueSkill:
        """The TrueSkill environment these parameters describe (built once, then shared)."""
        return _environment(self)

    def with_changes(self, **changes: float) -> RatingParameters:
        """A copy with some values changed (checked like any other parameters)."""
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise RatingParametersError(f"unknown rating parameters: {sorted(unknown)}")
        return replace(self, **changes)

    def to_dict(self) -> dict[str, float]:
        """The parameters as a plain JSON-friendly mapping, the inverse of `from_dict`."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RatingParameters:
        """Parameters from a mapping holding exactly the five names `to_dict` writes."""
        if not isinstance(data, Mapping):
            raise RatingParametersError(
                f"rating parameters must be a mapping, got {type(data).__name__}"
            )
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        missing = names - set(data)
        if unknown or missing:
            raise RatingParametersError(
                f"rating parameters need exactly {sorted(names)}; "
                f"unknown {sorted(map(str, unknown))}, missing {sorted(missing)}"
            )
        return cls(**{name: data[name] for name in names})


@lru_cache(maxsize=64)
def _environment(parameters: RatingParameters) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(
        mu=parameters.mu,
        sigma=parameters.sigma,
        beta=parameters.beta,
        tau=parameters.tau,
        draw_probability=parameters.draw_probability,
    )


DEFAULT_PARAMETERS = RatingParameters()
"""TrueSkill's documented parameters: what a game is rated under unless told otherwise."""

ENVIRONMENT = DEFAULT_PARAMETERS.environment()
"""The TrueSkill environment of `DEFAULT_PARAMETERS`."""


def rate_game(
    before: Mapping[BotKey, Skill],
    seats: Sequence[BotKey],
    ranks: Sequence[int],
    teams: Sequence[Sequence[int]] | None = None,
    *,
    parameters: RatingParameters = DEFAULT_PARAMETERS,
) -> dict[BotKey, Skill]:
    """The skill of every bot at the table after one game.

    `seats[i]` is the bot in seat i and `ranks[i]` its place (0 is best, equal
    ranks are ties). `teams` lists the seats of each team; None means every
    seat plays for itself. The game is rated in the environment `parameters`
    describe, and bots missing from `before` start at its `initial_skill`.
    A bot may fill several seats of one team, but never seats on two teams:
    that raises `RatingError`, as do ranks that disagree inside a team.
    """
    groups, team_ranks = table_teams(seats, ranks, teams)
    start = parameters.initial_skill
    rating_groups = [
        tuple(_to_trueskill(before.get(seats[seat], start)) for seat in group)
        for group in groups
    ]
    rated = parameters.environment().rate(rating_groups, ranks=team_ranks)
    after: dict[BotKey, Skill] = {}
    for group, new_ratings in zip(groups, rated, strict=True):
        for seat, new in zip(group, new_ratings, strict=True):
            after.setdefault(seats[seat], Skill(float(new.mu), float(new.sigma)))
    return after


def table_teams(
    seats: Sequence[BotKey],
    ranks: Sequence[int],
    teams: Sequence[Sequence[int]] | None = None,
) -> tuple[list[list[int]], list[int]]:
    """The seats of each team at a table and each team's rank, checked as `rate_game` checks.

    Raises `RatingError` for the tables `rate_game` refuses.
    """
    if len(ranks) != len(seats):
        raise RatingError(f"{len(seats)} seats but {len(ranks)} ranks")
    groups = _team_groups(teams, len(seats))
    _check_bot_on_one_team(seats, groups)
    return groups, [_team_rank(group, ranks) for group in groups]


def _team_groups(teams: Sequence[Sequence[int]] | None, seat_count: int) -> list[list[int]]:
    if seat_count < 2:
        raise RatingError(f"a rated game needs at least 2 seats, got {seat_count}")
    if teams is None:
        return [[seat] for seat in range(seat_count)]
    groups = [list(team) for team in teams]
    listed = sorted(seat for group in groups for seat in group)
    if listed != list(range(seat_count)):
        raise RatingError(
            f"teams {groups} must list every seat 0..{seat_count - 1} exactly once"
        )
    if len(groups) < 2 or any(not group for group in groups):
        raise RatingError(f"a rated game needs at least two non-empty teams, got {groups}")
    return groups


def _check_bot_on_one_team(seats: Sequence[BotKey], groups: list[list[int]]) -> None:
    team_of: dict[BotKey, int] = {}
    for team, group in enumerate(groups):
        for seat in group:
            bot = seats[seat]
            if team_of.setdefault(bot, team) != team:
                raise RatingError(
                    f"bot {bot!r} sits on two teams; a bot can't be rated against itself"
                )


def _team_rank(group: list[int], ranks: Sequence[int]) -> int:
    team_ranks = {ranks[seat] for seat in group}
    if len(team_ranks) != 1:
        raise RatingError(f"seats {group} play as a team but have different ranks {team_ranks}")
    return team_ranks.pop()


def _to_trueskill(skill: Skill) -> trueskill.Rating:
    return trueskill.Rating(mu=skill.mu, sigma=skill.sigma)


class RatingRecord(Protocol):
    """What the leaderboard needs to know about a bot (a stored rating has all of it)."""

    @property
    def bot(self) -> str:
        """The bot's name."""

    @property
    def mu(self) -> float:
        """Mean skill."""

    @property
    def sigma(self) -> float:
        """Skill uncertainty."""

    @property
    def games(self) -> int:
        """Rated games played."""

    @property
    def wins(self) -> int:
        """Rated games finished in first place (ties included)."""

    @property
    def points(self) -> int:
        """Sum of the bot's final scores over its rated games."""


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One line of the leaderboard; `place` starts at 1 and is shared by equal ratings."""

    place: int
    bot: str
    conservative: float
    mu: float
    sigma: float
    games: int
    wins: int
    win_rate: float
    average_points: float


Record = TypeVar("Record", bound=RatingRecord)


def ranked(records: Iterable[Record]) -> list[Record]:
    """Rating records best first: by conservative skill μ − 3σ, then μ, then bot name.

    This is the one leaderboard order; the store returns ratings in it too.
    """
    return sorted(records, key=lambda r: (-_conservative(r), -r.mu, r.bot))


def _conservative(record: RatingRecord) -> float:
    return Skill(record.mu, record.sigma).conservative


def leaderboard(records: Iterable[RatingRecord]) -> list[LeaderboardRow]:
    """One row per record, in the order of `ranked`; equal conservative skills share a place."""
    rows: list[LeaderboardRow] = []
    for position, record in enumerate(ranked(records), start=1):
        conservative = _conservative(record)
        tied = bool(rows) and rows[-1].conservative == conservative
        rows.append(
            LeaderboardRow(
                place=rows[-1].place if tied else position,
                bot=record.bot,
                conservative=conservative,
                mu=record.mu,
                sigma=record.sigma,
                games=record.games,
                wins=record.wins,
                win_rate=record.wins / record.games if record.games else 0.0,
                average_points=record.points / record.games if record.games else 0.0,
            )
        )
    return rows
