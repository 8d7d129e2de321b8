"""The duplicate-deal design is fair: hands follow the seats, never the bots.

With `duplicate` on, the seat rotations of a table share one deal seed. The
engine's deal is a function of the seed and the seat count alone (the first
dealer is drawn for by seat, the cards go out from the dealer's left), so in
every rotation seat s holds the same cards and the same seat deals and starts:
each bot holds every hand, deals once and starts once per block. These tests
check that structure directly, then play real engine games between small
policies to check its consequences statistically: two identical bots split
the points, and the duplicate and independent designs estimate the same win
rate.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena.engine import OFFICIAL, Action, ActionKind, Card, Game, RuleSet
from arena.engine.outcome import Outcome, Termination
from arena.record import SeatTermination
from arena.store import BotKind, Store
from arena.tournament.schedule import ScheduledTable, TournamentSettings, build_schedule

Policy = Callable[[Game, random.Random], Action]

Z_999 = 3.29
"""Two-sided 99.9 % normal quantile: the width of every interval these tests check."""

SINGLE_HAND = OFFICIAL.with_changes(target_score=None)


def first_playable(game: Game, rng: random.Random) -> Action:
    """Deterministic: the first card play on offer, else the first legal action."""
    legal = game.legal_actions()
    return next((action for action in legal if action.kind is ActionKind.PLAY), legal[0])


def random_playable(game: Game, rng: random.Random) -> Action:
    """A uniformly random card play when one is on offer, else any legal action."""
    legal = game.legal_actions()
    plays = [action for action in legal if action.kind is ActionKind.PLAY]
    return rng.choice(plays or legal)


def play(game: ScheduledTable, policies: Mapping[str, Policy], rules: RuleSet,
         rng: random.Random) -> Game:
    """Play one scheduled game to its end, each seat run by its bot's policy."""
    played = Game.new(rules, len(game.seats), game.seed)
    while played.decider is not None:
        played.apply(policies[game.seats[played.decider]](played, rng))
    return played


def first_listed_scores(settings: TournamentSettings, policies: Mapping[str, Policy]
                        ) -> list[float]:
    """The first-listed bot's score in every game: 1 for a win, a share of 1 for a
    first place tied with others, 0 otherwise. Each game's policies draw from a
    generator of its own, so no game's luck depends on the game before it."""
    bots = list(policies)
    scores: list[float] = []
    for game in build_schedule(settings, bots):
        rng = random.Random(f"{settings.seed}:{game.game_index}")
        outcome = play(game, policies, settings.rules, rng).outcome
        assert outcome is not None
        seat = game.seats.index(bots[0])
        scores.append(1 / len(outcome.winners) if seat in outcome.winners else 0.0)
    return scores


def blocks(schedule: Sequence[ScheduledTable]) -> list[list[ScheduledTable]]:
    """The games of a schedule grouped by deal seed, in playing order."""
    by_seed: dict[int, list[ScheduledTable]] = {}
    for game in schedule:
        by_seed.setdefault(game.seed, []).append(game)
    return list(by_seed.values())


def mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    """The mean of `values` and its standard error."""
    mean = sum(values) / len(values)
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - 1)
    return mean, math.sqrt(variance / len(values))


def block_means(scores: Sequence[float], size: int) -> list[float]:
    """Mean score of each run of `size` consecutive games: one duplicate block each,
    so the standard error accounts for the games of a block being correlated."""
    return [sum(scores[i:i + size]) / size for i in range(0, len(scores), size)]


# -- structure ---------------------------------------------------------------------

Deal = tuple[tuple[tuple[Card, ...], ...], int, Card | None, int | None]
"""What a deal fixes before anyone decides: hands by seat, dealer, first card, first decider."""


def deal_of(game: ScheduledTable, rules: RuleSet) -> Deal:
    """The deal the engine makes for a scheduled game."""
    dealt = Game.new(rules, len(game.seats), game.seed)
    return (tuple(tuple(hand) for hand in dealt.hands), dealt.dealer, dealt.top_card,
            dealt.decider)


DEAL_RULES = [OFFICIAL, OFFICIAL.with_changes(choose_first_dealer=False)]


@pytest.mark.parametrize("rules", DEAL_RULES, ids=["dealer drawn for", "seat 0 deals"])
@pytest.mark.parametrize("table_size", [2, 3, 4])
def test_every_rotation_of_a_duplicate_block_gets_the_same_deal_seat_by_seat(
    rules: RuleSet, table_size: int
) -> None:
    settings = TournamentSettings(table_size=table_size, deals_per_table=3, seed=11,
                                  rules=rules)
    schedule = build_schedule(settings, [f"bot{i}" for i in range(table_size + 1)])
    for block in blocks(schedule):
        assert len(block) == table_size
        assert len({deal_of(game, rules) for game in block}) == 1


@pytest.mark.parametrize("table_size", [2, 3, 4])
def test_each_bot_holds_every_hand_deals_once_and_starts_once_per_duplicate_block(
    table_size: int,
) -> None:
    settings = TournamentSettings(table_size=table_size, deals_per_table=3, seed=12)
    schedule = build_schedule(settings, [f"bot{i}" for i in range(table_size + 1)])
    for block in blocks(schedule):
        hands, dealer, _, first = deal_of(block[0], settings.rules)
        assert first is not None
        held = Counter((game.seats[seat], hand) for game in block
                       for seat, hand in enumerate(hands))
        bots = set(block[0].seats)
        assert held == Counter((bot, hand) for bot in bots for hand in hands)
        assert sorted(game.seats[dealer] for game in block) == sorted(bots)
        assert sorted(game.seats[first] for game in block) == sorted(bots)


@pytest.mark.parametrize("table_size", [2, 3, 4])
def test_a_one_table_duplicate_schedule_is_the_same_whichever_bot_is_listed_first(
    table_size: int,
) -> None:
    # A match is one table of all its bots: listing them in a rotated order plays
    # the same seatings on the same deals, only in another order, so under duplicate
    # deals being listed first can change nothing.
    bots = [f"bot{i}" for i in range(table_size)]
    settings = TournamentSettings(table_size=table_size, deals_per_table=3, seed=14)
    games = Counter((game.seats, game.seed) for game in build_schedule(settings, bots))
    for shift in range(1, table_size):
        relisted = build_schedule(settings, bots[shift:] + bots[:shift])
        assert Counter((game.seats, game.seed) for game in relisted) == games


@pytest.mark.parametrize("table_size", [2, 3])
def test_identical_deterministic_bots_split_every_duplicate_block_exactly(
    table_size: int,
) -> None:
    # Identical deterministic bots make the rotations of a block one game with the
    # bots moved round: the same seat wins each time, so each bot wins exactly once.
    # A deal that depended on anything but the seed would break the tie somewhere.
    bots = {f"bot{i}": first_playable for i in range(table_size)}
    settings = TournamentSettings(table_size=table_size, deals_per_table=40, seed=13)
    scores = first_listed_scores(settings, bots)
    assert block_means(scores, table_size) == [1 / table_size] * 40


# -- statistics --------------------------------------------------------------------


def test_identical_bots_score_one_half_for_the_first_listed_under_duplicate_deals() -> None:
    settings = TournamentSettings(table_size=2, deals_per_table=1500, seed=21,
                                  rules=SINGLE_HAND)
    scores = first_listed_scores(settings, {"one": random_playable, "two": random_playable})
    mean, error = mean_and_error(block_means(scores, 2))
    assert error < 0.01
    assert abs(mean - 0.5) < Z_999 * error


def test_duplicate_and_independent_deals_estimate_the_same_win_rate() -> None:
    policies = {"first": first_playable, "random": random_playable}
    estimates = []
    for duplicate in (True, False):
        settings = TournamentSettings(table_size=2, deals_per_table=1500, seed=22,
                                      duplicate=duplicate, rules=SINGLE_HAND)
        estimates.append(mean_and_error(block_means(first_listed_scores(settings, policies), 2)))
    (on, on_error), (off, off_error) = estimates
    error = math.hypot(on_error, off_error)
    assert 0.5 < off < 0.8  # the bots differ, and the difference is not a foregone one
    assert error < 0.015
    assert abs(on - off) < Z_999 * error


# -- ties --------------------------------------------------------------------------


def test_a_shared_first_place_is_a_win_for_both_seats_and_rates_them_alike(
    tmp_path: Path,
) -> None:
    tie = Outcome(Termination.SINGLE_HAND, scores=(0, 0), ranks=(0, 0), hands_played=1)
    when = datetime(2025, 1, 1, tzinfo=UTC)
    with Store.open(tmp_path / "arena.db") as store:
        for bot in ("first", "second"):
            store.add_bot(bot, BotKind.REMOTE)
        store.record_game(seats=("first", "second"), seed=7, rules={"target_score": None},
                          outcome=tie, seat_terminations=[SeatTermination.NORMAL] * 2,
                          events=[], actions=[], started_at=when, finished_at=when)
        ratings = {rating.bot: rating for rating in store.ratings()}
    assert ratings["first"].wins == ratings["second"].wins == 1
    assert ratings["first"].mu == pytest.approx(ratings["second"].mu)
    assert ratings["first"].sigma == pytest.approx(ratings["second"].sigma)
