"""Every seat gets a seed for its own randomness in its GameStart, and the random bot follows it.

The seed (`GameStart.bot_seed`) is a one-way hash of the deal seed, the seat and
the seating: the same game brings the same seeds, every seat and game its own,
and none of them is the deal seed or deals the game's cards.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

from arena import wire
from arena.client import Action, View
from arena.client.testing import ask_bot, first_legal, game_start, play, request, simple
from arena.engine import Game, RuleSet
from arena.engine.actions import Action as EngineAction
from arena.engine.view import SeatView
from arena.server import BotPolicy
from arena.server.connection import BotConnection, BotHello
from arena.server.seat import ConnectionSeat, ScriptedSeat, SeatSetup
from arena.server.table import GameTable
from arena.testing import play_offline
from arena.tournament.schedule import TournamentSettings, build_schedule
from arena.v1 import bot_pb2
from sample_bots.python import random_bot

ONE_HAND = RuleSet(target_score=None)
BOTS = ("ann", "bob", "cat", "dan")


def first_action(view: SeatView, legal: Sequence[EngineAction]) -> EngineAction:
    return legal[0]


def seeds_of(seed: int, players: tuple[str, ...]) -> list[int]:
    return [wire.bot_seed(seed, seat, players) for seat in range(len(players))]


def test_the_same_game_and_seat_always_get_the_same_bot_seed() -> None:
    assert seeds_of(12345, BOTS) == seeds_of(12345, BOTS)


def test_bot_seeds_are_unsigned_64_bit_numbers() -> None:
    seeds = [wire.bot_seed(deal, seat, BOTS) for deal in range(200) for seat in range(4)]
    assert all(0 <= s < 2**64 for s in seeds)
    assert max(seeds) >= 2**63  # the whole range is used, not a 63-bit deal seed's


def test_every_seat_of_every_game_of_a_duplicate_schedule_gets_its_own_bot_seed() -> None:
    settings = TournamentSettings(table_size=3, deals_per_table=4, seed=7, rules=ONE_HAND)
    games = build_schedule(settings, BOTS)
    assert len({g.seed for g in games}) < len(games), "rotations share their deal"
    seeds = [s for g in games for s in seeds_of(g.seed, g.seats)]
    assert len(seeds) == len(set(seeds)) == sum(len(g.seats) for g in games)


def test_no_bot_seed_is_a_deal_seed_or_deals_its_game_s_cards() -> None:
    settings = TournamentSettings(table_size=2, deals_per_table=10, seed=3, rules=ONE_HAND)
    games = build_schedule(settings, BOTS)
    deal_seeds = {g.seed for g in games}
    for game in games:
        dealt = Game.new(ONE_HAND, 2, game.seed)
        for bot_seed in seeds_of(game.seed, game.seats):
            assert bot_seed not in deal_seeds and bot_seed >> 1 not in deal_seeds
            from_bot_seed = Game.new(ONE_HAND, 2, bot_seed >> 1)
            assert from_bot_seed.hands != dealt.hands


def test_a_table_tells_each_seat_its_bot_seed() -> None:
    table = GameTable("g1", BOTS[:3], ONE_HAND, 99, BotPolicy(), None)
    seats = [ScriptedSeat(first_action) for _ in range(3)]
    for number, seat in enumerate(seats):
        table.seat(number, seat)
    assert [seat.setup.bot_seed for seat in seats if seat.setup] == seeds_of(99, BOTS[:3])


def test_the_game_start_a_connection_is_sent_carries_the_bot_seed() -> None:
    async def sent_game_start(bot_seed: int | None) -> bot_pb2.GameStart:
        connection = BotConnection("ann", BotHello())
        seat = ConnectionSeat(connection)
        seat.join(SeatSetup("g1", 0, ("ann", "bob"), ONE_HAND, BotPolicy(), bot_seed))
        message = connection._outbox.get_nowait()
        assert message is not None
        return bot_pb2.ServerMessage.FromString(message).game_start

    start = asyncio.run(sent_game_start(2**64 - 1))
    assert start.HasField("bot_seed") and start.bot_seed == 2**64 - 1
    assert not asyncio.run(sent_game_start(None)).HasField("bot_seed")


def test_an_offline_game_gives_the_bot_the_seed_a_server_would() -> None:
    result = play_offline(first_legal, [first_legal], rules=ONE_HAND, seed=5, seat=1)
    names = tuple(p.name for p in result.table.players)
    assert result.table.bot_seed == wire.bot_seed(5, 1, names)


def test_a_table_s_generator_follows_its_bot_seed() -> None:
    draws = []
    for bot_seed in (1, 1, 2):
        def decide(view: View, legal: list[Action]) -> int:
            draws.append((view.table.bot_seed, [view.table.rng.random() for _ in range(3)]))
            return 0
        ask_bot(decide, [game_start("g", 0, ["me", "you"], bot_seed=bot_seed),
                         request("r", "g", 0, hand="R5", top="R2", legal=[simple("draw")])])
    assert draws[0] == draws[1] and draws[0][0] == 1
    assert draws[2][0] == 2 and draws[2][1] != draws[0][1]


def test_without_a_bot_seed_a_table_s_generator_is_seeded_by_the_system() -> None:
    draws = []

    def decide(view: View, legal: list[Action]) -> int:
        draws.append((view.table.bot_seed, view.table.rng.getrandbits(64)))
        return 0
    for _ in range(2):
        ask_bot(decide, [game_start("g", 0, ["me", "you"]),
                         request("r", "g", 0, hand="R5", top="R2", legal=[simple("draw")])])
    assert draws[0][0] is None and draws[0][1] != draws[1][1]


WIDE = [play("R5"), play("R6"), play("R7"), play("R8"), play("R9"), simple("draw")]


def random_answers(order: list[str]) -> dict[str, list[int | None]]:
    """The random bot's answers, by game, to 12 requests of games a and b sent in `order`."""
    counters = {game: itertools.count() for game in "ab"}
    messages: list[bot_pb2.ServerMessage | bot_pb2.DecisionRequest] = [
        game_start("a", 0, ["me", "you"], bot_seed=11),
        game_start("b", 0, ["me", "you"], bot_seed=12)]
    for game in order:
        messages.append(request(f"{game}{next(counters[game])}", game, 0,
                                hand="R5 R6 R7 R8 R9", top="R2", legal=WIDE))
    answers: dict[str, list[int | None]] = {"a": [], "b": []}
    for answer in ask_bot(random_bot.decide, messages):
        answers[answer.request.game_id].append(answer.index)
    return answers


def test_the_random_bot_plays_a_game_the_same_way_whatever_other_games_interleave() -> None:
    one_after_the_other = random_answers(["a"] * 6 + ["b"] * 6)
    interleaved = random_answers(["b", "a", "a", "b", "a", "b", "b", "a", "b", "a", "b", "a"])
    assert one_after_the_other == interleaved
    assert one_after_the_other["a"] != one_after_the_other["b"]
