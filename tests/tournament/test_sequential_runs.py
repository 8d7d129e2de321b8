"""Sequential runs: a schedule grown deal block by deal block until the games decide."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.engine import RuleSet
from arena.engine.outcome import Outcome, Termination, ranks_from_keys
from arena.record import SeatTermination
from arena.store import BotKind, ScheduledGame, Store
from arena.tournament.runner import PlayedGame, create_tournament, run_tournament
from arena.tournament.schedule import TournamentSettings, build_schedule, more_deals
from arena.tournament.sequential import SprtPlan, run_sprt, run_until_separated


class SkilledTable:
    """FAKE table runner for these tests only: a seat's points are its deal's luck for that
    seat (seeded by the deal, so every rotation of a duplicate deal deals the same luck to
    the same seat) plus its bot's skill."""

    def __init__(self, skills: dict[str, float], fail_after: int | None = None) -> None:
        self.skills = skills
        self.fail_after = fail_after
        self.played = 0

    async def __call__(self, game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        if self.fail_after is not None and self.played >= self.fail_after:
            raise RuntimeError("the server went away")
        self.played += 1
        await asyncio.sleep(0)
        luck = random.Random(game.seed)
        points = [luck.gauss(0, 1) + self.skills[bot] for bot in game.seats]
        ranks = ranks_from_keys([-p for p in points])
        return PlayedGame(
            outcome=Outcome(Termination.SINGLE_HAND, tuple(int(100 * p) for p in points),
                            ranks, hands_played=1),
            events=[], actions=[], seat_terminations=[SeatTermination.NORMAL] * len(game.seats))


@pytest.fixture
def store(store_target: Path | str) -> Iterator[Store]:
    with Store.open(store_target) as opened:
        for bot in ("ann", "bob", "cat", "twin"):
            opened.add_bot(bot, BotKind.REMOTE)
        yield opened


def _tournament(store: Store, bots: list[str], name: str = "cup", **settings: object) -> int:
    values: dict[str, object] = {"table_size": 2, "seed": 9, "deals_per_table": 2,
                                 "rules": {"target_score": None}, **settings}
    return create_tournament(store, name, TournamentSettings.from_dict(values), bots).id


def test_more_deals_play_the_deals_a_longer_schedule_would_have_played() -> None:
    short = TournamentSettings.from_dict({"table_size": 3, "seed": 5, "deals_per_table": 2})
    long = TournamentSettings.from_dict({"table_size": 3, "seed": 5, "deals_per_table": 5})
    bots = ["ann", "bob", "cat", "dan"]
    grown = [*build_schedule(short, bots), *more_deals(short, build_schedule(short, bots), 3)]
    played = sorted((g.round, g.table, g.seats, g.seed) for g in grown)
    assert played == sorted((g.round, g.table, g.seats, g.seed)
                            for g in build_schedule(long, bots))
    assert [g.game_index for g in grown] == list(range(len(grown)))


def test_a_clearly_better_bot_is_separated_and_the_run_stops(store: Store) -> None:
    tournament = _tournament(store, ["ann", "bob"])
    outcome = asyncio.run(run_until_separated(
        store, tournament, SkilledTable({"ann": 1.5, "bob": 0.0}), max_games=400))
    assert outcome.conclusion.startswith("every adjacent pair is separated at 95% after")
    assert outcome.unseparated == ()
    assert outcome.games == len(store.scheduled_games(tournament)) < 400
    assert store.pending_games(tournament) == []
    assert store.tournament(tournament).settings["deals_per_table"] == outcome.games // 2


def test_identical_bots_are_never_separated_and_the_budget_says_so(store: Store) -> None:
    tournament = _tournament(store, ["ann", "twin", "bob"])
    skills = {"ann": 0.0, "twin": 0.0, "bob": 3.0}
    outcome = asyncio.run(run_until_separated(store, tournament, SkilledTable(skills),
                                              max_games=120))
    assert outcome.games <= 120
    assert "the budget of 120 games is spent" in outcome.conclusion
    assert outcome.unseparated in (("ann ~ twin",), ("twin ~ ann",))


def test_a_run_stopped_midway_resumes_to_the_same_decision(store: Store) -> None:
    whole = _tournament(store, ["ann", "bob"], name="whole")
    broken = _tournament(store, ["ann", "bob"], name="broken")
    skills = {"ann": 0.8, "bob": 0.0}
    expected = asyncio.run(run_until_separated(store, whole, SkilledTable(skills),
                                               max_games=400))
    with pytest.raises(RuntimeError, match="went away"):
        asyncio.run(run_until_separated(store, broken, SkilledTable(skills, fail_after=9),
                                        max_games=400))
    resumed = asyncio.run(run_until_separated(store, broken, SkilledTable(skills),
                                              max_games=400))
    assert resumed.games == expected.games
    assert [(g.seats, g.seed) for g in store.scheduled_games(broken)] == \
        [(g.seats, g.seed) for g in store.scheduled_games(whole)]


def test_an_sprt_match_accepts_h1_for_the_better_bot_and_h0_for_an_equal_one(
        store: Store) -> None:
    better = _tournament(store, ["ann", "bob"], name="better", deals_per_table=1)
    outcome = asyncio.run(run_sprt(store, better, SkilledTable({"ann": 1.0, "bob": 0.0}),
                                   SprtPlan(score1=0.6).test(), "ann"))
    assert outcome.sprt is not None and outcome.sprt.decision.value == "H1"
    assert outcome.conclusion.startswith(
        "H1 (an expected score of 0.600 per deal) accepted for ann over H0 (0.500) after")
    assert outcome.games == 2 * outcome.sprt.blocks
    equal = _tournament(store, ["ann", "twin"], name="equal", deals_per_table=1)
    outcome = asyncio.run(run_sprt(store, equal, SkilledTable({"ann": 0.0, "twin": 0.0}),
                                   SprtPlan(score1=0.6).test(), "ann"))
    assert outcome.sprt is not None and outcome.sprt.decision.value == "H0"


def test_an_sprt_that_runs_out_of_games_says_where_it_stands(store: Store) -> None:
    tournament = _tournament(store, ["ann", "twin"], deals_per_table=1)
    outcome = asyncio.run(run_sprt(store, tournament, SkilledTable({"ann": 0.0, "twin": 0.0}),
                                   SprtPlan(score1=0.51).test(), "ann", max_games=10))
    assert outcome.games == 10
    assert outcome.conclusion.startswith("the budget of 10 games is spent before the test")


def test_the_schedule_a_plain_run_plays_is_untouched(store: Store) -> None:
    tournament = _tournament(store, ["ann", "bob"])
    asyncio.run(run_tournament(store, tournament, SkilledTable({"ann": 1.0, "bob": 0.0})))
    assert len(store.scheduled_games(tournament)) == 4
