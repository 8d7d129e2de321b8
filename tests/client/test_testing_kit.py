"""The testing kit for bot authors: the scripted fake server and the offline referee."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena import wire
from arena.client import (
    Action,
    ActionKind,
    Card,
    CardsReceived,
    Color,
    Event,
    FunctionBot,
    Outcome,
    Table,
    View,
    passive,
)
from arena.client.testing import (
    Answer,
    Conn,
    ask_bot,
    events,
    first_legal,
    game_end,
    game_start,
    pb_cards,
    play,
    request,
    run_script,
    simple,
)
from arena.engine import Game, RuleSet, classic_deck
from arena.testing import BotFailure, play_offline, stacked
from arena.v1 import bot_pb2, uno_pb2
from sample_bots.python import random_bot
from sample_bots.python.greedy_bot import GreedyBot

ROOT = Path(__file__).resolve().parents[2]
ONE_HAND = {"target_score": None}


def card_action(short: str, color: Color | None = None, *, uno: bool = False) -> Action:
    """An SDK PLAY action."""
    return Action(ActionKind.PLAY, card=Card.parse(short), color=color, uno=uno)


# ------------------------------------------------------- the fake server

def test_greedy_answers_every_scripted_request_legally_in_every_phase() -> None:
    requests = [
        request("r1", "g", 0, "R5 RS B7", "R2", [play("R5"), play("RS"), simple("draw")]),
        request("r2", "g", 0, "W B7", "G2", [play("W", c) for c in ("red", "blue")] +
                [simple("draw")]),
        request("r3", "g", 0, "B7 B1", "W", [simple("choose_color", as_color=c)
                                             for c in ("red", "yellow", "green", "blue")],
                phase="choose_color"),
        request("r4", "g", 0, "B7 B1", "W+4", [simple("challenge"), simple("accept")],
                phase="challenge", active="green", pending_draw=4),
        request("r5", "g", 0, "B7 B1", "G2", [simple("call_uno"), simple("catch", target=1),
                                              simple("pass")],
                phase="catch_window", hand_sizes=[2, 1]),
    ]
    answers = ask_bot(GreedyBot(), [game_start("g", 0, ["greedy", "other"]), *requests])
    assert [a.request.request_id for a in answers] == ["r1", "r2", "r3", "r4", "r5"]
    assert all(answer.is_legal for answer in answers)


def test_greedy_sheds_its_action_card_and_names_the_colour_it_holds_most() -> None:
    answers = ask_bot(GreedyBot(), [
        game_start("g", 0, ["greedy", "other"]),
        request("r1", "g", 0, "R5 RS B7", "R2", [play("R5"), play("RS"), simple("draw")]),
        request("r2", "g", 0, "B7 B1 R3", "W", [simple("choose_color", as_color=c)
                                                for c in ("red", "blue")],
                phase="choose_color"),
    ])
    assert answers[0].action == card_action("RS")
    assert answers[1].action == Action(ActionKind.CHOOSE_COLOR, color=Color.BLUE)


def test_ask_bot_returns_only_after_the_bot_handled_every_message() -> None:
    ended: list[Outcome] = []

    def remember(table: Table, outcome: Outcome) -> None:
        ended.append(outcome)

    def think_slowly(table: Table, new: list[Event]) -> None:
        time.sleep(0.1)  # the fake has sent the GameEnd and finished its script meanwhile

    dealt = events("g", uno_pb2.Event(cards_received=uno_pb2.CardsReceived(
        seat=0, cards=pb_cards("R1 R2"))))
    bot = FunctionBot(first_legal, on_events=think_slowly, on_game_end=remember)
    answers = ask_bot(bot, [game_start("g", 0, ["me", "x"]), dealt, dealt, dealt,
                            game_end("g", [0, 9])])
    assert answers == []
    assert [outcome.winners for outcome in ended] == [(1,)]


def test_a_failed_assertion_inside_a_script_fails_the_run() -> None:
    async def script(conn: Conn) -> None:
        answer = await conn.ask(request("r1", "g", 0, "R5", "R2", [play("R5"), simple("draw")]))
        assert answer.action_index == 1, "the bot did not draw"

    with pytest.raises(AssertionError, match="the bot did not draw"):
        run_script(first_legal, script)


def test_an_answer_by_action_is_matched_to_its_index() -> None:
    asked = request("r1", "g", 0, "W R1", "G2", [play("W", "red"), play("W", "blue")])
    answer = Answer(asked, bot_pb2.Decision(request_id="r1", action=play("W", "blue")))
    assert answer.index == 1 and answer.is_legal
    assert answer.action == card_action("W", Color.BLUE)


@pytest.mark.parametrize("decision", [
    bot_pb2.Decision(request_id="r1", action_index=2),
    bot_pb2.Decision(request_id="r1", action=play("W", "green")),
    bot_pb2.Decision(request_id="r1"),
    bot_pb2.Decision(request_id="other", action_index=0),
])
def test_an_answer_naming_no_legal_action_or_the_wrong_request_is_not_legal(
        decision: bot_pb2.Decision) -> None:
    asked = request("r1", "g", 0, "W R1", "G2", [play("W", "red"), play("W", "blue")])
    assert not Answer(asked, decision).is_legal


# ---------------------------------------------------------- the offline referee

SKIP_OR_LOSE = stacked("RS R5", "R1", starter="R2")
"""Seat 1 goes out with R1 next turn unless seat 0 skips it: RS (calling UNO), then R5."""


def test_offline_greedy_skips_the_seat_about_to_go_out_and_wins() -> None:
    result = play_offline(GreedyBot(), deal=SKIP_OR_LOSE, rules=ONE_HAND)
    assert [d.action for d in result.decisions] == [card_action("RS", uno=True),
                                                    card_action("R5")]
    assert result.won and result.outcome.scores == (1, 0)
    assert result.decisions_by_seat[1] == []


def test_offline_the_same_deal_is_lost_by_playing_the_number_first() -> None:
    def number_first(view: View, legal: list[Action]) -> Action:
        return next(a for a in legal if a.card == Card.parse("R5") and a.uno)

    result = play_offline(number_first, deal=SKIP_OR_LOSE, rules=ONE_HAND)
    assert not result.won and result.outcome.winners == (1,)
    assert [d.action for d in result.decisions_by_seat[1]] == [card_action("R1")]


def test_offline_a_seeded_game_runs_to_the_target_with_every_decision_legal() -> None:
    result = play_offline(GreedyBot(), [random_bot.decide, GreedyBot()], seed=11)
    game = result.game
    assert game.outcome is not None and result.outcome.ranks == game.outcome.ranks
    assert max(result.outcome.scores) >= 500
    decisions = [d for seat in result.decisions_by_seat for d in seat]
    assert len(decisions) == len(game.actions) > 100
    assert all(0 <= d.index < len(d.legal) and not d.fell_back for d in decisions)
    seen = wire.events_for_seat(game.events, 0)
    assert len(result.table.events) == len(seen)


def test_offline_a_seat_sees_only_its_own_cards_dealt() -> None:
    result = play_offline(GreedyBot(), [GreedyBot()], seat=1, seed=4)
    dealt = [e for e in result.table.events if isinstance(e, CardsReceived)]
    assert dealt and {e.seat for e in dealt} == {1}
    assert all(d.view.seat == 1 for d in result.decisions)


def test_offline_a_game_is_a_function_of_its_seed_and_the_answers() -> None:
    def actions(seed: int) -> list[Action]:
        result = play_offline(GreedyBot(), [first_legal], seed=seed, rules=ONE_HAND)
        return [d.action for seat in result.decisions_by_seat for d in seat]

    assert actions(21) == actions(21)
    assert actions(21) != actions(22)


def test_offline_events_outside_requests_reach_the_bot_in_the_same_order() -> None:
    inside = play_offline(GreedyBot(), [GreedyBot()], seed=8)
    outside = play_offline(GreedyBot(), [GreedyBot()], seed=8, events_in_requests=False)
    assert inside.table.events == outside.table.events
    assert [d.action for d in inside.decisions] == [d.action for d in outside.decisions]


def test_offline_a_stacked_deck_deals_the_first_hand() -> None:
    deck = list(reversed(classic_deck()))
    rules = RuleSet(target_score=None)
    result = play_offline(first_legal, deck=deck, rules=rules)
    dealt = Game.from_deck(rules, 2, deck)
    assert result.game.events[:len(dealt.events)] == dealt.events
    assert tuple(result.decisions[0].view.hand) == tuple(
        Card.parse(c.short()) for c in dealt.hands[0])


def test_offline_an_illegal_answer_raises_bot_failure_when_strict() -> None:
    def wrong(view: View, legal: list[Action]) -> Action:
        return card_action("G9")

    with pytest.raises(BotFailure, match="not one of the"):
        play_offline(wrong, deal=SKIP_OR_LOSE, rules=ONE_HAND)


def test_offline_a_lenient_game_plays_a_broken_bot_passively_and_records_it() -> None:
    def broken(view: View, legal: list[Action]) -> Action:
        raise RuntimeError("bug in the bot")

    result = play_offline(broken, deal=SKIP_OR_LOSE, rules=ONE_HAND, strict=False)
    assert result.decisions and all(d.fell_back for d in result.decisions)
    assert all(isinstance(d.error, RuntimeError) for d in result.decisions)
    assert all(d.action == passive(d.legal) for d in result.decisions)
    assert result.outcome.winners == (1,)


def test_offline_a_raising_hook_raises_bot_failure_when_strict() -> None:
    def explode(table: Table) -> None:
        raise ValueError("hook bug")

    with pytest.raises(BotFailure, match="on_game_start raised"):
        play_offline(FunctionBot(first_legal, on_game_start=explode), deal=SKIP_OR_LOSE,
                     rules=ONE_HAND)


# ------------------------------------------------------------- isolation

def layers_loaded_by(module: str) -> list[str]:
    """The engine, server and wire modules that importing `module` loads, in a fresh process."""
    code = (f"import sys, {module}\n"
            "print(' '.join(sorted(m for m in sys.modules if m.split('.')[:2] in "
            "(['arena', 'engine'], ['arena', 'server'], ['arena', 'wire']))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, timeout=60).stdout
    return out.split()


def test_importing_the_fake_server_loads_neither_the_engine_nor_the_server() -> None:
    assert layers_loaded_by("arena.client.testing") == []


def test_importing_the_offline_referee_loads_the_engine() -> None:
    assert "arena.engine" in layers_loaded_by("arena.testing")
