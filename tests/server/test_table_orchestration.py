"""The table as plain orchestration: whole games driven through in-memory seat proxies.

No gRPC, no clock: each seat is a `ScriptedSeat` whose script answers every
decision, so a test can make a given decision time out, come back illegal or
find the seat gone, and check what the table made of it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from arena import wire
from arena.engine import Game
from arena.engine.actions import Action, ActionKind
from arena.engine.rules import RuleSet
from arena.engine.view import SeatView
from arena.policy import Violation
from arena.server import BotPolicy, GameAbortedError, SeatTermination, passive_action
from arena.server.connection import BotConnection, BotHello
from arena.server.seat import ConnectionSeat, Departed, Script, ScriptedSeat, SeatSetup
from arena.server.table import GameTable
from arena.v1 import bot_pb2

ONE_HAND = RuleSet(target_score=None)
PLAYERS = ("alice", "bob", "carol")
FALLBACK = BotPolicy(decision_timeout=0.5, time_bank=2.0, max_strikes=3)
SEED = 7


def first_legal(view: SeatView, legal: Sequence[Action]) -> Action:
    """The first legal action."""
    return legal[0]


def unlisted(legal: Sequence[Action]) -> Action:
    """An action that is not among `legal`."""
    candidates = (Action(ActionKind.PASS), Action(ActionKind.DRAW), Action(ActionKind.KEEP))
    return next(action for action in candidates if action not in legal)


def on_decisions(numbers: set[int], answer: Action | Violation | Departed | None,
                 otherwise: Script = first_legal) -> Script:
    """A script that answers its decisions `numbers` (counted from 0) with `answer`
    (None: an unlisted action), and the others as `otherwise` does."""
    count = 0

    def script(view: SeatView, legal: Sequence[Action]) -> Action | Violation | Departed:
        nonlocal count
        count += 1
        if count - 1 not in numbers:
            return otherwise(view, legal)
        return unlisted(legal) if answer is None else answer
    return script


def deciders(table: GameTable) -> list[int]:
    """The seat that took each action of the table's game, by replaying it."""
    game = Game.new(table.rules, len(table.players), table.seed)
    seats = []
    for action in table.game.actions:
        assert game.decider is not None
        seats.append(game.decider)
        game.apply(action)
    return seats


def play(scripts: Sequence[Script], policy: BotPolicy = FALLBACK,
         crashed: bool = False) -> tuple[GameTable, list[ScriptedSeat]]:
    """Play one single-hand game with a scripted seat per script; the crash check says
    `crashed`."""
    async def crash_check(bot_name: str) -> bool:
        return crashed

    table = GameTable("g1", PLAYERS[:len(scripts)], ONE_HAND, SEED, policy, crash_check)
    seats = [ScriptedSeat(script) for script in scripts]
    for number, seat in enumerate(seats):
        table.seat(number, seat)
    asyncio.run(table.run())
    return table, seats


def test_a_clean_game_ends_normally_with_every_seat_told_the_outcome() -> None:
    table, seats = play([first_legal] * 3)
    result = table.result()
    assert result.seat_terminations == (SeatTermination.NORMAL,) * 3
    assert result.strikes == (0, 0, 0) and result.forfeited_seat is None
    assert len(result.actions) == table.decisions
    for seat in seats:
        assert seat.ended is not None
        outcome, reason = seat.ended
        assert list(outcome.scores) == list(result.outcome.scores)
        assert reason == result.outcome.termination.value
        assert seat.strikes == [] and seat.forfeited is None and not seat.left


def test_each_seat_is_sent_exactly_the_events_its_audience_rule_lets_it_see() -> None:
    table, seats = play([first_legal] * 3)
    for number, seat in enumerate(seats):
        assert seat.seen == wire.events_for_seat(table.game.events, number)


def test_every_seat_is_told_its_place_the_players_and_the_policy() -> None:
    _, seats = play([first_legal] * 3)
    for number, seat in enumerate(seats):
        assert seat.setup is not None
        assert (seat.setup.seat, seat.setup.players) == (number, PLAYERS)
        assert seat.setup.policy == FALLBACK and seat.setup.game_id == "g1"


def test_a_timeout_is_a_strike_played_as_the_passive_action_and_it_empties_the_bank() -> None:
    table, seats = play([on_decisions({0}, SeatTermination.TIMEOUT), first_legal, first_legal])
    alice = seats[0]
    assert alice.strikes == [(1, SeatTermination.TIMEOUT)]
    assert table.result().strikes == (1, 0, 0)
    first = alice.asked[0]
    assert (first.timeout, first.bank) == (0.5 + 2.0, 2.0)
    assert table.game.actions[deciders(table).index(0)] == passive_action(first.legal)
    assert (alice.asked[1].timeout, alice.asked[1].bank) == (0.5, 0.0)
    assert table.result().seat_terminations == (SeatTermination.NORMAL,) * 3


def test_an_illegal_answer_is_a_strike_played_as_the_passive_action() -> None:
    table, seats = play([first_legal, on_decisions({0}, None), first_legal])
    bob = seats[1]
    assert bob.strikes == [(1, SeatTermination.ILLEGAL)]
    assert table.result().strikes == (0, 1, 0)
    assert bob.asked[0].legal[0] != passive_action(bob.asked[0].legal)
    assert table.game.actions[deciders(table).index(1)] == passive_action(bob.asked[0].legal)
    assert bob.asked[1].bank == 2.0  # an illegal answer costs no time
    assert table.result().seat_terminations == (SeatTermination.NORMAL,) * 3


def test_the_strike_limit_forfeits_the_game_with_the_offender_named() -> None:
    table, seats = play([on_decisions({0, 1, 2}, SeatTermination.TIMEOUT), first_legal])
    result = table.result()
    assert [strike for strike, _ in seats[0].strikes] == [1, 2, 3]
    assert seats[0].forfeited is SeatTermination.TIMEOUT
    assert result.forfeited_seat == 0 and result.strikes == (3, 0)
    assert result.seat_terminations == (SeatTermination.TIMEOUT, SeatTermination.NORMAL)
    assert all(seat.ended is not None and seat.ended[1] == "forfeit: seat 0 (alice), timeout"
               for seat in seats)
    assert len(seats[0].asked) == 3


def test_under_the_forfeit_policy_one_illegal_answer_ends_the_game() -> None:
    table, seats = play([first_legal, on_decisions({0}, None)],
                        BotPolicy(decision_timeout=0.5, on_violation="forfeit"))
    result = table.result()
    assert result.forfeited_seat == 1 and seats[1].strikes == []
    assert result.seat_terminations == (SeatTermination.NORMAL, SeatTermination.ILLEGAL)
    assert len(seats[1].asked) == 1


def test_a_seat_that_departs_plays_on_absent_and_is_never_asked_again() -> None:
    table, seats = play([on_decisions({0}, Departed(SeatTermination.DISCONNECT)), first_legal],
                        BotPolicy(decision_timeout=0.002, max_strikes=None))
    alice = seats[0]
    assert alice.left and len(alice.asked) == 1 and alice.ended is None
    assert table.result().strikes[0] == deciders(table).count(0)  # each one a fallback
    assert table.result().seat_terminations[0] is SeatTermination.NORMAL


def test_a_departed_seat_whose_bot_crashed_forfeits_as_a_crash() -> None:
    table, seats = play([on_decisions({0}, Departed(SeatTermination.DISCONNECT)), first_legal],
                        BotPolicy(decision_timeout=0.5, max_strikes=2), crashed=True)
    result = table.result()
    assert result.seat_terminations == (SeatTermination.CRASH, SeatTermination.NORMAL)
    assert result.forfeited_seat == 0 and result.strikes == (2, 0)
    assert seats[0].strikes == []  # told nothing once it had left


def test_a_seat_taken_over_mid_game_is_sent_the_events_so_far_then_the_rest() -> None:
    late = ScriptedSeat(first_legal)
    asked = 0
    table: GameTable

    def alice(view: SeatView, legal: Sequence[Action]) -> Action:
        nonlocal asked
        asked += 1
        if asked == 3:
            table.take_over(1, late)
        return legal[0]

    table = GameTable("g1", PLAYERS[:2], ONE_HAND, SEED,
                      BotPolicy(decision_timeout=0.1, max_strikes=None))
    table.seat(0, ScriptedSeat(alice))
    assert table.orphan_seats("bob") == [1]
    asyncio.run(table.run())
    assert late.setup is not None and late.ended is not None
    assert late.seen == wire.events_for_seat(table.game.events, 1)
    bob_decisions = deciders(table).count(1)
    assert 1 <= table.result().strikes[1] < bob_decisions  # the absent ones only
    assert len(late.asked) == bob_decisions - table.result().strikes[1]


def test_an_absent_seat_whose_bot_returns_before_the_deadline_is_asked_not_penalised() -> None:
    late = ScriptedSeat(first_legal)

    async def scenario() -> GameTable:
        table = GameTable("g1", PLAYERS[:2], ONE_HAND, SEED,
                          BotPolicy(decision_timeout=2.0, max_strikes=None))
        table.seat(0, ScriptedSeat(first_legal))
        asyncio.get_running_loop().call_later(0.05, table.take_over, 1, late)
        await table.run()
        return table

    table = asyncio.run(scenario())
    assert table.result().strikes == (0, 0)
    assert len(late.asked) == deciders(table).count(1) >= 1
    assert late.asked[0].timeout < 2.0  # the wait came out of its first decision's time


def test_an_absent_seat_is_penalised_only_once_its_deadline_and_time_bank_have_passed(
        ) -> None:
    async def scenario() -> tuple[GameTable, float]:
        table = GameTable("g1", PLAYERS[:2], ONE_HAND, SEED,
                          BotPolicy(decision_timeout=0.05, time_bank=0.1, max_strikes=2))
        table.seat(0, ScriptedSeat(first_legal))
        loop = asyncio.get_running_loop()
        started = loop.time()
        await table.run()
        return table, loop.time() - started

    table, elapsed = asyncio.run(scenario())
    result = table.result()
    assert result.forfeited_seat == 1 and result.strikes == (0, 2)
    assert result.seat_terminations[1] is SeatTermination.DISCONNECT
    assert elapsed >= 0.05 + 0.1 + 0.05  # deadline and bank, then a deadline: the bank is spent


def test_an_absent_seat_whose_bot_crashed_is_not_waited_for() -> None:
    async def scenario() -> tuple[GameTable, float]:
        async def crash_check(bot_name: str) -> bool:
            return True

        table = GameTable("g1", PLAYERS[:2], ONE_HAND, SEED,
                          BotPolicy(decision_timeout=5.0, max_strikes=2), crash_check)
        table.seat(0, ScriptedSeat(first_legal))
        loop = asyncio.get_running_loop()
        started = loop.time()
        await table.run()
        return table, loop.time() - started

    table, elapsed = asyncio.run(scenario())
    assert table.result().seat_terminations[1] is SeatTermination.CRASH
    assert elapsed < 1.0


def test_with_auto_single_action_a_seat_is_never_asked_a_decision_with_one_choice() -> None:
    table = GameTable("g1", PLAYERS, ONE_HAND, SEED, FALLBACK)
    seats = [ScriptedSeat(first_legal, auto_single_action=True) for _ in PLAYERS]
    for number, seat in enumerate(seats):
        table.seat(number, seat)
    asyncio.run(table.run())
    asked = [a for seat in seats for a in seat.asked]
    assert asked and all(len(a.legal) > 1 for a in asked)
    assert len(asked) < table.decisions


def test_an_aborted_game_raises_and_tells_every_seat_it_was_aborted() -> None:
    table: GameTable

    def aborting(view: SeatView, legal: Sequence[Action]) -> Action:
        table.abort()
        return legal[0]

    table = GameTable("g1", PLAYERS[:2], ONE_HAND, SEED, FALLBACK)
    seats = [ScriptedSeat(aborting), ScriptedSeat(first_legal)]
    for number, seat in enumerate(seats):
        table.seat(number, seat)
    with pytest.raises(GameAbortedError):
        asyncio.run(table.run())
    assert table.is_over and deciders(table).count(0) == 1 and deciders(table)[-1] == 0
    for seat in seats:
        assert seat.ended is not None and seat.ended[1] == "aborted: the server stopped the game"
        assert seat.ended[0].termination == "aborted"


def test_a_seat_lost_on_one_connection_keeps_the_bots_other_connections_seats() -> None:
    table = GameTable("g1", ("x", "x"), ONE_HAND, SEED, FALLBACK, None)
    first, second = ScriptedSeat(first_legal), ScriptedSeat(first_legal)
    table.seat(0, first)
    table.seat(1, second)
    table.detach(lambda proxy: proxy is first, SeatTermination.DISCONNECT)
    assert table.orphan_seats("x") == [0]
    assert first.left and not second.left


def test_a_request_after_waiting_for_a_reconnect_tells_the_bot_the_time_left() -> None:
    async def scenario() -> bot_pb2.DecisionRequest:
        connection = BotConnection("x", BotHello())
        seat = ConnectionSeat(connection)
        seat.join(SeatSetup("g1", 0, ("x", "y"), ONE_HAND, BotPolicy(decision_timeout=2.0)))
        game = Game.new(ONE_HAND, 2, SEED)
        assert game.decider is not None
        asking = asyncio.ensure_future(seat.decide(game.view(game.decider),
                                                   game.legal_actions(), 1.25, 0.5))
        await asyncio.sleep(0)
        asking.cancel()
        sent = []
        while not connection._outbox.empty():
            message = connection._outbox.get_nowait()
            assert message is not None
            sent.append(bot_pb2.ServerMessage.FromString(message))
        return next(m.decision_request for m in sent if m.HasField("decision_request"))

    request = asyncio.run(scenario())
    assert (request.time_left_ms, request.time_bank_ms) == (750, 500)
