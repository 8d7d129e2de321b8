"""Every decision a seat owes is logged with its time and what came of it: answers, the
only legal action played without asking, timeouts with their fallback or forfeit, and
the strikes after each (real gRPC on loopback, in-test bots speaking the protocol)."""

from __future__ import annotations

import asyncio

from arena.record import Decision, DecisionOutcome, Penalty
from arena.result import GameResult, played_game
from arena.server import BotPolicy, SeatTermination
from arena.v1 import bot_pb2
from tests.server.bots import TestBot, first_legal, never_answer
from tests.server.server_support import ONE_HAND, TOKENS, running_server

QUICK = BotPolicy(decision_timeout=0.05, max_strikes=3)


async def slow_first_action(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
    """Answers every request with its first action, 20 ms after it came."""
    await asyncio.sleep(0.02)
    return bot_pb2.Decision(request_id=request.request_id, action_index=0)


def _check_indexes(decisions: tuple[Decision, ...], events: int) -> None:
    assert [d.number for d in decisions] == list(range(len(decisions)))
    befores = [d.events_before for d in decisions]
    assert befores == sorted(befores) and befores[0] > 0 and befores[-1] <= events


def test_timeouts_are_logged_with_their_fallbacks_strikes_and_the_forfeit() -> None:
    async def scenario() -> tuple[GameResult, list[int]]:
        async with running_server() as server:
            hang = await TestBot(server.port or 0, TOKENS["alice"], never_answer).start()
            slow = await TestBot(server.port or 0, TOKENS["bob"], slow_first_action).start()
            result = await server.play_game(["alice", "bob"], ONE_HAND, 4, QUICK, "g")
            await hang.close()
            await slow.close()
        return result, [len(slow.games["g"].requests)]

    result, [asked] = asyncio.run(scenario())
    assert result.seat_terminations == (SeatTermination.TIMEOUT, SeatTermination.NORMAL)
    decisions = result.decisions
    _check_indexes(decisions, len(result.events))
    assert len(decisions) == len(result.actions) + 1, "the forfeit is the last decision"
    hung = [d for d in decisions if d.seat == 0]
    assert [(d.outcome, d.strikes, d.penalty) for d in hung] == [
        (DecisionOutcome.TIMEOUT, 1, Penalty.FALLBACK),
        (DecisionOutcome.TIMEOUT, 2, Penalty.FALLBACK),
        (DecisionOutcome.TIMEOUT, 3, Penalty.FORFEIT)]
    assert all(d.elapsed_ms >= 45 for d in hung)
    answered = [d for d in decisions if d.seat == 1]
    assert len(answered) == asked
    assert all(d.outcome is DecisionOutcome.ANSWERED and d.penalty is None
               and d.strikes == 0 and d.elapsed_ms >= 15 for d in answered)
    assert played_game(result).decisions == decisions


def test_a_single_legal_action_played_without_asking_is_logged_as_auto() -> None:
    async def scenario() -> tuple[GameResult, int, int]:
        async with running_server() as server:
            alice = await TestBot(server.port or 0, TOKENS["alice"], first_legal,
                                  auto_single_action=True).start()
            bob = await TestBot(server.port or 0, TOKENS["bob"], first_legal).start()
            result = await server.play_game(["alice", "bob"], ONE_HAND, 9,
                                            BotPolicy(decision_timeout=5), "g")
            await alice.close()
            await bob.close()
        return result, len(alice.games["g"].requests), len(bob.games["g"].requests)

    result, alice_asked, bob_asked = asyncio.run(scenario())
    _check_indexes(result.decisions, len(result.events))
    assert len(result.decisions) == len(result.actions)
    by_seat = {seat: [d for d in result.decisions if d.seat == seat] for seat in (0, 1)}
    auto = [d for d in by_seat[0] if d.auto]
    assert auto, "seed 9 gives alice a decision with one legal action"
    assert all(d.elapsed_ms == 0 and d.outcome is DecisionOutcome.AUTO for d in auto)
    assert len(by_seat[0]) - len(auto) == alice_asked
    assert [d.outcome for d in by_seat[1]] == [DecisionOutcome.ANSWERED] * bob_asked
