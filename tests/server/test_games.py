"""Whole games over real gRPC on loopback: results, replays, options and many tables."""

from __future__ import annotations

import asyncio

from arena import wire
from arena.engine import Game, RuleSet
from arena.engine.rules import DeckKind
from arena.server import BotPolicy, GameResult, SeatTermination
from arena.v1 import bot_pb2
from tests.server.bots import TestBot, first_legal, random_legal
from tests.server.server_support import ONE_HAND, TOKENS, running_server

TO_200 = RuleSet(target_score=200)


async def connect(port: int, *names: str, **options: object) -> list[TestBot]:
    """One started TestBot per name, each with a random strategy seeded by its position."""
    return [await TestBot(port, TOKENS[name], random_legal(i), **options).start()  # type: ignore[arg-type]
            for i, name in enumerate(names)]


async def close_all(bots: list[TestBot]) -> None:
    for bot in bots:
        await bot.close()


def assert_replays(result: GameResult) -> None:
    """The engine rebuilds the same game from the result's seed and actions."""
    game = result.replay()
    assert game.events == list(result.events)
    assert game.outcome == result.outcome


def decisions(result: GameResult) -> list[tuple[int, int, int]]:
    """Each decision of the game in order: (deciding seat, number of legal actions,
    number of the game's events before it), from a step-by-step replay."""
    game = Game.new(result.rules, len(result.players), result.seed)
    steps = []
    for action in result.actions:
        assert game.decider is not None
        steps.append((game.decider, len(game.legal_actions()), len(game.events)))
        game.apply(action)
    return steps


def test_a_full_game_to_the_target_score_ends_normally_and_replays() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bots = await connect(server.port or 0, "alice", "bob")
            await server.wait_for_bots(["alice", "bob"], timeout=5)
            # A full game is hundreds of decisions: a one-second timeout on a loaded
            # machine would strike a bot that is only slow, which is not this test's point.
            result = await server.play_game(["alice", "bob"], TO_200, seed=7,
                                            policy=BotPolicy(decision_timeout=30.0),
                                            game_id="full")
            await asyncio.sleep(0.05)
            await close_all(bots)
        assert result.game_id == "full"
        assert result.players == ("alice", "bob")
        assert result.outcome.termination == "target_reached"
        assert max(result.outcome.scores) >= 200 and result.outcome.hands_played > 1
        assert result.seat_terminations == (SeatTermination.NORMAL,) * 2
        assert result.strikes == (0, 0)
        assert result.forfeited_seat is None
        assert result.started <= result.finished
        assert_replays(result)
        for seat, bot in enumerate(bots):
            log = bot.games["full"]
            assert log.start is not None and log.start.seat == seat
            assert [p.name for p in log.start.players] == ["alice", "bob"]
            assert wire.rules_from_proto(log.start.rules) == TO_200
            assert log.end is not None
            assert list(log.end.outcome.scores) == list(result.outcome.scores)
            assert list(log.end.outcome.seat_terminations) == [1, 1]
            assert bot.errors == []

    asyncio.run(scenario())


def test_four_bots_answering_with_full_actions_play_house_rules() -> None:
    rules = RuleSet(deck=DeckKind.EDITION_2018, seven_o=True, jump_in=True, progressive=True,
                    target_score=None)

    async def scenario() -> None:
        async with running_server() as server:
            names = ["alice", "bob", "carol", "dave"]
            bots = [await TestBot(server.port or 0, TOKENS[name],
                                  random_legal(i, as_action=True)).start()
                    for i, name in enumerate(names)]
            results = [await server.play_game(names, rules, seed) for seed in range(3)]
            await close_all(bots)
        for result in results:
            assert result.seat_terminations == (SeatTermination.NORMAL,) * 4
            assert_replays(result)
        assert all(bot.errors == [] for bot in bots)

    asyncio.run(scenario())


def test_every_event_reaches_its_seat_before_the_next_request_and_the_end() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bots = await connect(server.port or 0, "alice", "bob", "carol")
            for bot in bots:
                bot.on_message = record_seen
            result = await server.play_game(["alice", "bob", "carol"], ONE_HAND, 3,
                                            game_id="ordered")
            await asyncio.sleep(0.05)
            await close_all(bots)
        steps = decisions(result)
        for seat, bot in enumerate(bots):
            expected = [wire.event_to_proto(e)
                        for e in wire.events_for_seat(result.events, seat)]
            assert bot.games["ordered"].events == expected
            # before each request the bot had seen every event up to that decision
            for request in bot.games["ordered"].requests:
                assert request.view.seat == seat
            # (the bot's events only grow, and end as `expected`: what it had at a
            # request is the first so many of them, so counting them suffices)
            due = [len(wire.events_for_seat(result.events[:before], seat))
                   for decider, _, before in steps if decider == seat]
            assert seen[id(bot)] == due

    seen: dict[int, list[int]] = {}

    def record_seen(bot: TestBot, message: bot_pb2.ServerMessage) -> None:
        """At each request, how many events the bot has received (this message's too)."""
        if message.HasField("decision_request"):
            request = message.decision_request
            received = len(bot.games[request.game_id].events) + len(request.events)
            seen.setdefault(id(bot), []).append(received)

    asyncio.run(scenario())


def test_events_in_requests_delivers_the_same_events_in_fewer_messages() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bots = await connect(server.port or 0, "alice", "bob", events_in_requests=True)
            result = await server.play_game(["alice", "bob"], ONE_HAND, 5, game_id="inline")
            await asyncio.sleep(0.05)
            await close_all(bots)
        for seat, bot in enumerate(bots):
            expected = [wire.event_to_proto(e)
                        for e in wire.events_for_seat(result.events, seat)]
            assert bot.games["inline"].events == expected
            requests = sum(1 for m in bot.messages if m.HasField("decision_request"))
            event_messages = sum(1 for m in bot.messages if m.HasField("events"))
            assert event_messages <= 1  # only the last events, before the GameEnd
            assert requests == len(bot.games["inline"].requests)
            assert any(len(r.events) for r in bot.games["inline"].requests)

    asyncio.run(scenario())


def test_auto_single_action_takes_forced_decisions_without_asking() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            auto = await TestBot(server.port or 0, TOKENS["alice"], first_legal,
                                 auto_single_action=True).start()
            plain = await TestBot(server.port or 0, TOKENS["bob"], first_legal).start()
            results = [await server.play_game(["alice", "bob"], ONE_HAND, seed)
                       for seed in range(4)]
            await close_all([auto, plain])
        auto_requests = [r for log in auto.games.values() for r in log.requests]
        plain_requests = [r for log in plain.games.values() for r in log.requests]
        auto_decisions = sum(1 for result in results
                             for i, _ in enumerate(result.actions))
        # alice (seat 0) was asked for every decision but her forced ones; bob for all
        steps = [step for result in results for step in decisions(result)]
        forced = sum(1 for seat, legal, _ in steps if seat == 0 and legal == 1)
        assert forced > 0
        assert auto_decisions > len(auto_requests) + len(plain_requests)
        assert auto_decisions == len(auto_requests) + len(plain_requests) + forced
        assert len(auto_requests) == sum(1 for seat, legal, _ in steps
                                         if seat == 0 and legal > 1)
        assert auto_requests and all(len(r.legal_actions) > 1 for r in auto_requests)
        assert any(len(r.legal_actions) == 1 for r in plain_requests)
        for result in results:
            assert_replays(result)

    asyncio.run(scenario())


def test_one_connection_plays_many_tables_at_once() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            port = server.port or 0
            alice = await TestBot(port, TOKENS["alice"], random_legal(1), max_tables=6).start()
            opponents = await connect(port, "bob", "carol", "dave")
            games = [server.play_game(["alice", opponent], ONE_HAND, seed, game_id=f"t{seed}")
                     for seed, opponent in enumerate(["bob", "carol", "dave"] * 2)]
            seen_tables = 0

            async def watch_alice() -> None:
                nonlocal seen_tables
                while True:
                    for connection in server.connections():
                        if connection.bot_name == "alice":
                            seen_tables = max(seen_tables, len(connection.tables))
                    await asyncio.sleep(0.001)

            watcher = asyncio.create_task(watch_alice())
            results = await asyncio.gather(*games)
            watcher.cancel()
            await close_all([alice, *opponents])
        assert seen_tables >= 2
        assert sorted(alice.games) == [f"t{i}" for i in range(6)]
        for result in results:
            assert result.seat_terminations == (SeatTermination.NORMAL,) * 2
            assert_replays(result)

    asyncio.run(scenario())


def test_a_full_connection_makes_the_next_game_wait_for_a_free_slot() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bots = await connect(server.port or 0, "alice", "bob", "carol")
            first = asyncio.create_task(server.play_game(["alice", "bob"], ONE_HAND, 1))
            second = asyncio.create_task(server.play_game(["alice", "carol"], ONE_HAND, 2))
            await asyncio.sleep(0)
            assert len(server.tables()) == 1
            results = await asyncio.gather(first, second)
            await close_all(bots)
        assert [r.seat_terminations for r in results] == [(SeatTermination.NORMAL,) * 2] * 2
        assert results[0].finished <= results[1].started

    asyncio.run(scenario())


def test_many_connections_play_many_games_at_once() -> None:
    names = ["alice", "bob", "carol", "dave", "eve", "spy"]

    async def scenario() -> None:
        async with running_server() as server:
            bots = await connect(server.port or 0, *names)
            await server.wait_for_bots(names, timeout=5)
            assert server.connected_bots() == sorted(names)
            pairs = [(names[i], names[(i + 1) % 6]) for i in range(6)]
            pairs = pairs[0::2] + pairs[1::2]
            results = await asyncio.gather(*(
                server.play_game(list(pair), ONE_HAND, seed)
                for seed, pair in enumerate(pairs)))
            await close_all(bots)
        assert len(results) == 6
        assert all(r.seat_terminations == (SeatTermination.NORMAL,) * 2 for r in results)

    asyncio.run(scenario())


def test_wait_for_bots_names_the_bots_that_did_not_come() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bots = await connect(server.port or 0, "alice")
            try:
                await server.wait_for_bots(["alice", "bob", "carol"], timeout=0.1)
            except TimeoutError as exc:
                message = str(exc)
            else:  # pragma: no cover
                raise AssertionError("wait_for_bots did not time out")
            await close_all(bots)
        assert "bob" in message and "carol" in message and "alice" not in message

    asyncio.run(scenario())


def test_a_bot_may_not_take_two_seats_of_one_game() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            try:
                await server.play_game(["alice", "alice"], ONE_HAND, 1)
            except ValueError as exc:
                assert "one seat" in str(exc)
            else:  # pragma: no cover
                raise AssertionError("duplicate players were accepted")

    asyncio.run(scenario())


def test_welcome_names_the_bot_and_its_table_limit() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bot = await TestBot(server.port or 0, TOKENS["carol"], max_tables=3).start()
            await bot.close()
        assert bot.welcome == bot_pb2.Welcome(bot_name="carol", server_version="0.1.0",
                                              max_tables=3)

    asyncio.run(scenario())
