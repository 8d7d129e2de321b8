"""One finished game as the statistics see it, and a bot's score in it.

A bot's *score* in a game is the mean, over its opponents at that table, of 1
when it placed higher, 0.5 when they tied and 0 when it placed lower. 0.5 is an
average result whatever the table size; in a two-seat game the score is the
win (1), the draw (0.5) or the loss (0). With teams, teammates share a rank and
are not each other's opponents, so a partner game scores 1 for the winning
team's bots and 0 for the others.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RankedGame:
    """A finished game: who sat where and where each seat placed.

    - `block`: the deal block the game belongs to. Games in one block are the
      rotations of one deal (same round, table and deal seed); without duplicate
      deals every game is its own block. Any hashable value, e.g.
      `(round, table, deal)` or the game's id.
    - `seats[i]`: the bot in seat `i` (a bot sits at most once per game).
    - `ranks[i]`: the place of seat `i`, 0 for the best; tied seats share a rank.
    - `teams`: the seats of each team (every seat in exactly one team), or None
      when every seat plays for itself. Teammates must share a rank.
    """

    block: Hashable
    seats: tuple[str, ...]
    ranks: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...] | None = None

    def __post_init__(self) -> None:
        if len(self.seats) < 2:
            raise ValueError(f"a game has at least two seats, got {len(self.seats)}")
        if len(self.ranks) != len(self.seats):
            raise ValueError(f"{len(self.seats)} seats but {len(self.ranks)} ranks")
        if len(set(self.seats)) != len(self.seats):
            raise ValueError(f"a bot sits at most once per game: {self.seats}")
        if min(self.ranks) < 0:
            raise ValueError(f"ranks are 0 or more: {self.ranks}")
        if self.teams is not None:
            self._check_teams(self.teams)

    def _check_teams(self, teams: tuple[tuple[int, ...], ...]) -> None:
        seats = sorted(seat for team in teams for seat in team)
        if seats != list(range(len(self.seats))):
            raise ValueError(f"teams {teams} must hold every seat exactly once")
        for team in teams:
            if len({self.ranks[seat] for seat in team}) != 1:
                raise ValueError(f"teammates {team} must share a rank: {self.ranks}")

    def won_alone(self, seat: int) -> bool:
        """True when `seat` placed first and no opponent shared its place (a team's win is
        won alone by every one of its seats)."""
        team = self.team_of(seat)
        return self.ranks[seat] == 0 and all(
            rank != 0 for other, rank in enumerate(self.ranks) if other not in team)

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The seats playing with `seat` (itself included)."""
        if self.teams is None:
            return (seat,)
        return next(team for team in self.teams if seat in team)

    def opponents(self, seat: int) -> tuple[int, ...]:
        """The seats playing against `seat`."""
        team = self.team_of(seat)
        return tuple(other for other in range(len(self.seats)) if other not in team)

    def result(self, seat: int, other: int) -> float:
        """1 when `seat` placed above `other`, 0.5 for a tie, 0 when below."""
        mine, theirs = self.ranks[seat], self.ranks[other]
        return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0

    def score(self, seat: int) -> float | None:
        """The seat's score: its mean result against its opponents (None if it has none)."""
        opponents = self.opponents(seat)
        if not opponents:
            return None
        return sum(self.result(seat, other) for other in opponents) / len(opponents)

    def scores(self) -> Iterator[tuple[int, str, float]]:
        """`(seat, bot, score)` for every seat that had an opponent."""
        for seat, bot in enumerate(self.seats):
            score = self.score(seat)
            if score is not None:
                yield seat, bot, score
