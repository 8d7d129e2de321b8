"""The statistics on real UNO games, played in-process with the engine.

Single-hand games at four seats, every deal played in its four seat rotations
(duplicate deals, as `arena.tournament.schedule` plays them). The bots are
policies: *greedy* plays the first playable card it is offered, *random* takes
any legal action. Identical bots have an expected score of exactly 0.5: each
sits every seat equally often with the same deals.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

import pytest

from arena.engine import ActionKind, Game, RuleSet
from arena.engine.actions import Action
from arena.stats import RankedGame, duplicate_effect, leaderboard

Policy = Callable[[Game, random.Random], Action]
SINGLE_HAND = RuleSet(target_score=None)
TOURNAMENTS = 40
DEALS = 5


def greedy(game: Game, rng: random.Random) -> Action:
    """The first playable card offered, else any legal action."""
    legal = game.legal_actions()
    plays = [action for action in legal if action.kind is ActionKind.PLAY]
    return plays[0] if plays else rng.choice(legal)


def random_legal(game: Game, rng: random.Random) -> Action:
    """Any legal action, uniformly."""
    return rng.choice(game.legal_actions())


def play_duplicate(policies: Mapping[str, Policy], first_deal: int,
                   deals: int) -> list[RankedGame]:
    """`deals` deals, each played in every seat rotation of `policies`' bots."""
    bots = list(policies)
    games = []
    for deal in range(first_deal, first_deal + deals):
        for turn in range(len(bots)):
            seats = tuple(bots[turn:] + bots[:turn])
            game = Game.new(SINGLE_HAND, len(seats), seed=deal)
            rng = random.Random(deal * len(bots) + turn)
            while game.outcome is None:
                assert game.decider is not None
                game.apply(policies[seats[game.decider]](game, rng))
            games.append(RankedGame(deal, seats, game.outcome.ranks))
    return games


@pytest.fixture(scope="module")
def identical_tournaments() -> list[list[RankedGame]]:
    """Tournaments of four identical greedy bots."""
    field: dict[str, Policy] = {f"greedy_{n}": greedy for n in range(4)}
    return [play_duplicate(field, first_deal=t * DEALS, deals=DEALS) for t in range(TOURNAMENTS)]


def test_intervals_of_identical_uno_bots_cover_one_half(
        identical_tournaments: list[list[RankedGame]]) -> None:
    intervals = [(s.ci_low, s.ci_high) for games in identical_tournaments
                 for s in leaderboard(games).standings]
    covered = sum(low <= 0.5 <= high for low, high in intervals)
    effect = duplicate_effect([game for games in identical_tournaments for game in games])
    print(f"\nUNO, four identical greedy bots, {DEALS} duplicate deals x 4 rotations: "
          f"0.5 covered by {covered}/{len(intervals)} intervals; duplicate design: {effect}")
    assert covered >= 0.88 * len(intervals)


def test_four_identical_uno_bots_share_one_place(
        identical_tournaments: list[list[RankedGame]]) -> None:
    shared = sum(all(s.place == "1–4" for s in leaderboard(games).standings)
                 for games in identical_tournaments)
    print(f"\nUNO, four identical bots share place 1–4: {shared}/{TOURNAMENTS}")
    assert shared >= 0.9 * TOURNAMENTS


def test_greedy_uno_bots_are_separated_from_random_ones_that_share_a_place() -> None:
    field: dict[str, Policy] = {"greedy_a": greedy, "random_a": random_legal,
                                "greedy_b": greedy, "random_b": random_legal}
    runs = 5
    # Seven deals at least: the exact test cannot separate a pair of four bots (α/3 each)
    # in six, whose most lopsided result has p = 2/64.
    boards = [leaderboard(play_duplicate(field, first_deal=1000 + r * 8, deals=8))
              for r in range(runs)]
    places = [{s.bot: s.place for s in board.standings} for board in boards]
    print(f"\nUNO, greedy against random, 8 deals x 4 rotations: {places}")
    assert all(p["random_a"] == p["random_b"] == "3–4" for p in places)
    assert all(p["greedy_a"] in ("1", "2", "1–2") for p in places)
