"""How well the leaderboard's claims hold, measured on synthetic tournaments.

`python -m arena.stats.calibration` prints, for the synthetic model of
`arena.stats.simulate` (a four-bot field at one table, every deal played in all
four rotations):

- coverage: the share of 95% score intervals that contain the bot's exact
  expected score, with and without duplicate deals;
- shared place: how often two identical bots in the field share a place;
- separation: how often a clearly stronger bot is alone in first place;
- a heads-up round robin (`round_robin_coverage`): coverage and mean width of
  the intervals stratified by pairing against today's unstratified ones.

The tests in `tests/stats/` assert on these same functions.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from arena.stats.games import RankedGame
from arena.stats.leaderboard import leaderboard
from arena.stats.simulate import expected_scores, round_robin, tournament

FIELD = {"strong": 0.4, "twin_a": 0.0, "twin_b": 0.0, "weak": -0.3}
"""A four-bot field with two identical bots between a stronger and a weaker one."""
CLEAR_FIELD = {"clear": 1.0, "twin_a": 0.0, "twin_b": 0.0, "weak": -0.3}
"""A four-bot field whose best bot is clearly stronger (expected score 0.71 against 0.46)."""
SAMPLE_FIELD = {"counter": 1.65, "greedy": 1.6, "random_a": -1.65, "random_b": -1.65}
"""Four bots spread like the sample bots heads up: two that play to win (counter beats greedy
51% of the time), two that play at random and lose 95% of their games to them."""


@dataclass(frozen=True, slots=True)
class Coverage:
    """How often intervals held the truth, and how wide they were on average."""

    covered: int
    total: int
    mean_width: float

    @property
    def rate(self) -> float:
        """The share of intervals holding the truth."""
        return self.covered / self.total


@dataclass(frozen=True, slots=True)
class Design:
    """A synthetic tournament design: deals per tournament, duplicate or not, luck and noise."""

    deals: int = 12
    duplicate: bool = True
    luck: float = 1.0
    noise: float = 1.0


def coverage(strengths: Mapping[str, float], design: Design, tournaments: int,
             seed: int, confidence: float = 0.95) -> tuple[int, int]:
    """(intervals containing the exact expected score, intervals) over `tournaments` runs."""
    truth = expected_scores(strengths, design.luck, design.noise)
    rng = random.Random(seed)
    covered = total = 0
    for _ in range(tournaments):
        board = leaderboard(_play(strengths, design, rng), confidence)
        for standing in board.standings:
            covered += standing.ci_low <= truth[standing.bot] <= standing.ci_high
            total += 1
    return covered, total


def round_robin_coverage(strengths: Mapping[str, float], deals: int, tournaments: int,
                         seed: int, stratify: bool, confidence: float = 0.95) -> Coverage:
    """Coverage and mean width of the score intervals over `tournaments` heads-up round robins
    of `deals` duplicate deals per pair, stratified by pairing or not."""
    truth = expected_scores(strengths, 1.0, 1.0)
    rng = random.Random(seed)
    covered = total = 0
    width = 0.0
    for _ in range(tournaments):
        board = leaderboard(round_robin(strengths, deals, rng), confidence, stratify=stratify)
        for standing in board.standings:
            covered += standing.ci_low <= truth[standing.bot] <= standing.ci_high
            width += standing.ci_high - standing.ci_low
            total += 1
    return Coverage(covered, total, width / total)


def shared_place(strengths: Mapping[str, float], first: str, second: str, design: Design,
                 runs: int, seed: int) -> int:
    """In how many of `runs` tournaments `first` and `second` share a place."""
    rng = random.Random(seed)
    shared = 0
    for _ in range(runs):
        board = leaderboard(_play(strengths, design, rng))
        shared += board.standing(first).tier == board.standing(second).tier
    return shared


def alone_first(strengths: Mapping[str, float], bot: str, design: Design, runs: int,
                seed: int) -> int:
    """In how many of `runs` tournaments `bot` is alone in first place."""
    rng = random.Random(seed)
    alone = 0
    for _ in range(runs):
        board = leaderboard(_play(strengths, design, rng))
        alone += board.standing(bot).place == "1"
    return alone


def _play(strengths: Mapping[str, float], design: Design,
          rng: random.Random) -> list[RankedGame]:
    return tournament(strengths, design.deals, rng, design.duplicate, design.luck, design.noise)


def main() -> None:
    """Print the calibration figures (the same runs as tests/stats/test_calibration.py)."""
    for duplicate in (True, False):
        covered, total = coverage(FIELD, Design(duplicate=duplicate), 500, seed=1)
        print(f"coverage, {'duplicate' if duplicate else 'independent'} deals, 12 deals x 4 "
              f"rotations, 500 tournaments: {covered}/{total} = {covered / total:.2%}")
    runs = 400
    shared = shared_place(FIELD, "twin_a", "twin_b", Design(), runs, seed=2)
    print(f"identical bots share a place: {shared}/{runs} = {shared / runs:.1%}")
    alone = alone_first(CLEAR_FIELD, "clear", Design(deals=20), runs, seed=3)
    print(f"clearly stronger bot alone in first, 20 duplicate deals: "
          f"{alone}/{runs} = {alone / runs:.1%}")
    for field, name in ((SAMPLE_FIELD, "sample-bot-like"), (FIELD, "close")):
        for deals in (10, 40):
            plain = round_robin_coverage(field, deals, 500, seed=4, stratify=False)
            strata = round_robin_coverage(field, deals, 500, seed=4, stratify=True)
            print(f"heads-up round robin, {name} field, {deals} deals per pair, 500 runs: "
                  f"coverage {plain.rate:.1%} unstratified, {strata.rate:.1%} stratified; "
                  f"width {strata.mean_width / plain.mean_width:.2f}x")


if __name__ == "__main__":
    main()
