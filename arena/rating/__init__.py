"""TrueSkill ratings for UNO tables and the leaderboard built from them.

The math is pure: `rate_game` turns the skills before a game into the skills
after it, and `leaderboard` orders rating records. Storage lives in
`arena.store`, which calls `rate_game` inside the transaction that records a
game.

A free-for-all UNO table is rated as one-player teams ranked by place; a
partner game (seats 0 and 2 against 1 and 3) is rated as two teams of two.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

import trueskill

MU = 25.0
"""The mean skill of a bot that has not played yet."""
SIGMA = MU / 3
"""The uncertainty of a bot that has not played yet."""
BETA = MU / 6
"""The skill gap that gives the better bot about a 76% chance of beating the other."""
TAU = MU / 300
"""Uncertainty added before each game, so ratings can keep moving."""
DRAW_PROBABILITY = 0.10
"""How likely two evenly matched places are to tie.

Ties are frequent at UNO tables: a single-hand game leaves every bot that did
not go out tied on zero, and a dead hand ties the whole table. The package's
documented default fits that.
"""

ENVIRONMENT = trueskill.TrueSkill(
    mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=DRAW_PROBABILITY
)
"""The TrueSkill environment every game is rated in."""

BotKey = TypeVar("BotKey", bound=Hashable)


class RatingError(ValueError):
    """A game cannot be rated as given; the message says what is inconsistent."""


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
"""The skill every bot starts from."""


def rate_game(
    before: Mapping[BotKey, Skill],
    seats: Sequence[BotKey],
    ranks: Sequence[int],
    teams: Sequence[Sequence[int]] | None = None,
) -> dict[BotKey, Skill]:
    """The skill of every bot at the table after one game.

    `seats[i]` is the bot in seat i and `ranks[i]` its place (0 is best, equal
    ranks are ties). `teams` lists the seats of each team; None means every
    seat plays for itself. Bots missing from `before` start at `DEFAULT_SKILL`.
    A bot may fill several seats of one team, but never seats on two teams:
    that raises `RatingError`, as do ranks that disagree inside a team.
    """
    if len(ranks) != len(seats):
        raise RatingError(f"{len(seats)} seats but {len(ranks)} ranks")
    groups = _team_groups(teams, len(seats))
    _check_bot_on_one_team(seats, groups)
    team_ranks = [_team_rank(group, ranks) for group in groups]
    rating_groups = [
        tuple(_to_trueskill(before.get(seats[seat], DEFAULT_SKILL)) for seat in group)
        for group in groups
    ]
    rated = ENVIRONMENT.rate(rating_groups, ranks=team_ranks)
    after: dict[BotKey, Skill] = {}
    for group, new_ratings in zip(groups, rated, strict=True):
        for seat, new in zip(group, new_ratings, strict=True):
            after.setdefault(seats[seat], Skill(float(new.mu), float(new.sigma)))
    return after


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
    return ENVIRONMENT.create_rating(mu=skill.mu, sigma=skill.sigma)


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
