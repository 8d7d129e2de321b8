"""The SDK's helpers answer with the UNO call: `plays`, `first_of` and `call_or_catch`."""

from __future__ import annotations

from arena.client import (
    Action,
    ActionKind,
    Card,
    Color,
    call_or_catch,
    first_of,
    passive,
    plays,
)
from arena.client.testing import ask_bot, game_start, play, request, simple
from arena.engine import events as ev
from arena.testing import play_offline, stacked

R5, R7, B5 = Card.parse("R5"), Card.parse("R7"), Card.parse("B5")
WILD = Card.parse("W")


def play_of(card: Card, *, uno: bool = False, color: Color | None = None) -> Action:
    return Action(ActionKind.PLAY, card=card, color=color, uno=uno)


DRAW = Action(ActionKind.DRAW)
TWO_LEFT = [play_of(R5), play_of(R5, uno=True), play_of(R7), play_of(R7, uno=True), DRAW]
"""A seat holding R5 R7 on a red card: each play leaves one card, so each is listed twice."""


def test_plays_keeps_only_the_play_that_calls_uno_when_one_card_is_left() -> None:
    assert plays(TWO_LEFT) == [play_of(R5, uno=True), play_of(R7, uno=True)]


def test_plays_keeps_every_play_when_none_can_call_uno() -> None:
    legal = [play_of(R5), play_of(WILD, color=Color.RED), play_of(WILD, color=Color.BLUE), DRAW]
    assert plays(legal) == legal[:3]


def test_plays_is_empty_when_no_card_plays() -> None:
    assert plays([DRAW]) == []


def test_first_of_a_play_calls_uno_when_it_can() -> None:
    assert first_of(TWO_LEFT, ActionKind.PLAY) == play_of(R5, uno=True)


def test_first_of_a_play_without_a_calling_twin_is_that_play() -> None:
    legal = [play_of(B5), DRAW]
    assert first_of(legal, ActionKind.PLAY) is legal[0]


def test_call_or_catch_calls_late_as_the_offender() -> None:
    legal = [Action(ActionKind.CALL_UNO), Action(ActionKind.PASS)]
    assert call_or_catch(legal) is legal[0]


def test_call_or_catch_catches_the_offender_as_anyone_else() -> None:
    legal = [Action(ActionKind.CATCH, target=1), Action(ActionKind.PASS)]
    assert call_or_catch(legal) is legal[0]


def test_call_or_catch_is_none_outside_a_catch_window() -> None:
    assert call_or_catch(TWO_LEFT) is None


def readme_style(view: object, legal: list[Action]) -> Action:
    """The README's bot, written with the helpers."""
    options = plays(legal)
    if options:
        return max(options, key=lambda a: a.points)
    return call_or_catch(legal) or passive(legal)


def test_a_bot_built_on_plays_sends_the_uno_call_over_the_wire() -> None:
    answers = ask_bot(readme_style, [
        game_start("g", 0, ["me", "them"]),
        request("r1", "g", 0, hand="R5 R7", top="R2",
                legal=[play("R5"), play("R5", uno=True), play("R7"), play("R7", uno=True),
                       simple("draw")]),
    ])
    assert answers[0].is_legal and str(answers[0].action) == "play R7 UNO!"


DOWN_TO_ONE = stacked("R5 R7 R9", "B1 B2 B3 B4", starter="R2")
"""Seat 0 plays R9, then R7 down to one card, then goes out; seat 1 cannot follow red."""


def caught(events: list[ev.Event]) -> int:
    return sum(isinstance(event, ev.UnoCaught) for event in events)


def test_a_bot_built_on_the_helpers_goes_out_without_being_caught() -> None:
    result = play_offline(readme_style, [readme_style], deal=DOWN_TO_ONE,
                          rules={"target_score": None})
    assert [str(d.action) for d in result.decisions] == ["play R9", "play R7 UNO!", "play R5"]
    assert result.won
    assert caught(result.game.events) == 0


def test_a_bot_that_picks_among_all_plays_by_points_is_caught() -> None:
    def silent(view: object, legal: list[Action]) -> Action:
        return max((a for a in legal if a.is_play), key=lambda a: a.points, default=legal[-1])

    result = play_offline(silent, [readme_style], deal=DOWN_TO_ONE,
                          rules={"target_score": None})
    assert str(result.decisions[1].action) == "play R7"
    events = result.game.events
    seven = next(i for i, e in enumerate(events) if isinstance(e, ev.CardPlayed)
                 and str(e.card) == "R7" and e.seat == 0)
    assert ev.UnoCaught(catcher=1, seat=0) in events[seven:seven + 4]
