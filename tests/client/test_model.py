"""The SDK's dataclasses: card notation, actions, the seat view's helpers, choosing an answer."""

from __future__ import annotations

import dataclasses

import pytest

from arena.client import (
    Action,
    ActionKind,
    Card,
    CardKept,
    ChallengeResolved,
    Color,
    Rank,
    Table,
    View,
    cards,
    first_of,
    passive,
)
from arena.client.bot import as_bot, resolve_choice
from arena.client.counting import ChallengeRecord
from arena.client.model import passive_index
from arena.client.testing import request
from arena.v1 import uno_pb2


def test_card_short_notation() -> None:
    assert [c.short() for c in cards("r5 Y+2 GS BR W W+4 WSH WC b0")] == \
        ["R5", "Y+2", "GS", "BR", "W", "W+4", "WSH", "WC", "B0"]
    assert str(Card(Rank.DRAW_TWO, Color.BLUE)) == "B+2"


@pytest.mark.parametrize("text", ["", "X5", "R", "RW", "W5", "R10"])
def test_unreadable_cards_raise(text: str) -> None:
    with pytest.raises(ValueError):
        Card.parse(text)


def test_a_wild_has_no_colour_and_a_number_card_has_one() -> None:
    with pytest.raises(ValueError):
        Card(Rank.WILD, Color.RED)
    with pytest.raises(ValueError):
        Card(Rank.FIVE)


def test_card_facts() -> None:
    r5, wd4, bs = cards("R5 W+4 BS")
    assert (r5.number, r5.points, r5.is_number, r5.is_wild) == (5, 5, True, False)
    assert (wd4.points, wd4.is_wild, wd4.is_action, wd4.number) == (50, True, True, None)
    assert (bs.points, bs.is_action) == (20, True)
    assert Color.GREEN.letter == "G" and Color.GREEN.value == "green"


def test_cards_and_actions_are_frozen_and_hashable() -> None:
    card = Card.parse("R5")
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.rank = Rank.SIX  # type: ignore[misc]
    play = Action(ActionKind.PLAY, card=card)
    assert len({play, Action(ActionKind.PLAY, card=Card.parse("R5"))}) == 1
    assert play.points == 5 and Action(ActionKind.DRAW).points == 0


def test_the_raw_proto_takes_no_part_in_equality() -> None:
    raw = uno_pb2.Action(kind=uno_pb2.ACTION_KIND_DRAW)
    assert Action(ActionKind.DRAW, raw=raw) == Action(ActionKind.DRAW)


def test_action_text() -> None:
    action = Action(ActionKind.PLAY, card=Card.parse("W"), color=Color.RED, target=2, uno=True)
    assert str(action) == "play W as red -> seat 2 UNO!"


def _view(direction: int, sizes: list[int], active: list[int], seat: int = 0) -> View:
    message = request("r", "g", seat, "R1", "R2", [], hand_sizes=sizes)
    message.view.direction = direction
    del message.view.active_seats[:]
    message.view.active_seats.extend(active)
    return View(message, Table(game_id="g", seat=seat))


def test_next_seat_follows_the_direction_and_skips_eliminated_seats() -> None:
    assert _view(1, [7, 7, 7, 7], [0, 1, 2, 3]).next_seat == 1
    assert _view(-1, [7, 7, 7, 7], [0, 1, 2, 3]).next_seat == 3
    assert _view(1, [7, 0, 7, 7], [0, 2, 3]).next_seat == 2
    assert _view(-1, [7, 7, 7, 7], [0, 1, 2, 3], seat=2).opponents == (1, 0, 3)
    assert _view(1, [7, 7, 7, 7], [0, 1, 2, 3]).seat_after(3, 2) == 1


def test_the_passive_fallback_is_draw_keep_accept_or_pass() -> None:
    play = Action(ActionKind.PLAY, card=Card.parse("R1"))
    assert passive_index([play, Action(ActionKind.DRAW)]) == 1
    assert passive_index([Action(ActionKind.CATCH, target=1), Action(ActionKind.PASS)]) == 1
    assert passive_index([Action(ActionKind.CHOOSE_COLOR, color=Color.RED)]) == 0


def test_resolve_choice() -> None:
    legal = [Action(ActionKind.PLAY, card=Card.parse("R1")),
             Action(ActionKind.PLAY, card=Card.parse("R1"), uno=True),
             Action(ActionKind.DRAW)]
    assert resolve_choice(2, legal) == 2
    assert resolve_choice(legal[1], legal) == 1
    assert resolve_choice(uno_pb2.Action(kind=uno_pb2.ACTION_KIND_DRAW), legal) == 2
    assert resolve_choice(3, legal) is None
    assert resolve_choice(False, legal) is None
    assert resolve_choice(Action(ActionKind.KEEP), legal) is None


def test_as_bot_refuses_hooks_for_a_bot_object() -> None:
    bot = as_bot(lambda view, legal: 0, name="f")
    assert bot.name == "f"
    with pytest.raises(TypeError):
        as_bot(bot, on_game_start=lambda table: None)


def test_the_example_bot_in_the_sdk_docstring_plays() -> None:
    import arena.client

    doc = arena.client.__doc__ or ""
    code = doc.split("::\n", 1)[1].split("\n\n`decide`", 1)[0]
    lines = [line[4:] for line in code.splitlines()]
    assert 0 < len([line for line in lines if line.strip()]) <= 15
    namespace: dict[str, object] = {"__name__": "example"}
    exec("\n".join(lines), namespace)
    decide = namespace["decide"]
    message = request("r", "g", 0, "R5 RS W", "R2", [])
    legal = [Action(ActionKind.PLAY, card=Card.parse(text)) for text in ("R5", "RS")]
    legal.append(Action(ActionKind.DRAW))
    view = View(message, Table(game_id="g", seat=0))
    assert decide(view, legal) == legal[1]  # type: ignore[operator]
    assert decide(view, legal[2:]) == legal[2]  # type: ignore[operator]


def test_first_of_and_passive_pick_by_kind_in_order() -> None:
    legal = [Action(ActionKind.CATCH, target=2), Action(ActionKind.PASS),
             Action(ActionKind.CALL_UNO)]
    assert first_of(legal, ActionKind.CALL_UNO, ActionKind.CATCH) is legal[2]
    assert first_of(legal, ActionKind.DRAW) is None
    assert passive(legal) is legal[1]
    assert passive([Action(ActionKind.CHOOSE_COLOR, color=Color.RED)]).color is Color.RED


def test_a_hand_without_a_card_loses_one_copy() -> None:
    message = request("r", "g", 0, "R5 R5 G1", "B3", [])
    view = View(message, Table(game_id="g", seat=0))
    assert view.hand_without(Card.parse("R5")) == list(cards("R5 G1"))
    assert view.hand_without(Card.parse("B9")) == list(cards("R5 R5 G1"))


def test_a_challenge_record_learns_the_guilty_rate_from_events() -> None:
    record = ChallengeRecord()
    assert record.guilty_rate == 0.5
    record.see([ChallengeResolved(1, 2, True), CardKept(0), ChallengeResolved(2, 1, True),
                ChallengeResolved(0, 1, False)])
    assert (record.challenges, record.guilty) == (3, 2)
    assert record.guilty_rate == 3 / 5
