"""Protobuf messages become the SDK's typed view, actions, events and outcomes."""

from __future__ import annotations

import pytest

from arena.client import (
    COLORS,
    Action,
    ActionKind,
    Card,
    CardPlayed,
    CardsDrawn,
    Color,
    DealerChosen,
    DrawReason,
    HandEnded,
    HandEndReason,
    Phase,
    Rank,
    Table,
    UnknownEvent,
    View,
)
from arena.client import events as ev
from arena.client.convert import (
    action_from_proto,
    action_to_proto,
    card_from_proto,
    card_to_proto,
    decision_to_proto,
    error_from_proto,
    event_from_proto,
    legal_from_proto,
    outcome_from_proto,
    rules_from_proto,
    table_from_proto,
)
from arena.client.testing import pb_card, pb_cards, play, request, simple
from arena.v1 import bot_pb2, uno_pb2

ALL_CARDS = [Card(rank) for rank in Rank if rank.value.startswith("wild")] + [
    Card(rank, color) for rank in Rank if not rank.value.startswith("wild") for color in COLORS
]


@pytest.mark.parametrize("card", ALL_CARDS, ids=lambda c: c.short())
def test_every_card_survives_the_round_trip(card: Card) -> None:
    assert card_from_proto(card_to_proto(card)) == card
    assert Card.parse(card.short()) == card


def test_wild_cards_have_no_colour_on_the_wire() -> None:
    assert card_to_proto(Card.parse("W+4")).color == uno_pb2.COLOR_UNSPECIFIED
    assert card_from_proto(uno_pb2.Card()) is None


@pytest.mark.parametrize("action", [
    Action(ActionKind.PLAY, card=Card.parse("W"), color=Color.GREEN),
    Action(ActionKind.PLAY, card=Card.parse("B7"), target=3, uno=True),
    Action(ActionKind.CATCH, target=0),
    Action(ActionKind.CHOOSE_COLOR, color=Color.YELLOW),
    Action(ActionKind.DRAW),
], ids=str)
def test_actions_survive_the_round_trip(action: Action) -> None:
    back = action_from_proto(action_to_proto(action))
    assert back == action
    assert back.raw is not None


def test_a_catch_of_seat_zero_keeps_its_target() -> None:
    # `target` is optional on the wire: seat 0 must not read as "no target"
    assert action_from_proto(simple("catch", target=0)).target == 0
    assert action_from_proto(simple("pass")).target is None


def test_the_view_is_converted_field_by_field() -> None:
    message = request(
        "r9", "g", 2, "R5 W+4 G1", "B3", [play("R5"), simple("draw")],
        hand_sizes=[4, 1, 3], active="blue", dealer=1, hand_number=2, draw_pile_size=50,
        pending_draw=4, uno_offender=0, teams=[0, 1, 0], scores=[10, 0, 5],
        revealed=[uno_pb2.RevealedHand(seat=1, cards=pb_cards("Y2"))],
        drawn_card=pb_card("G1"),
    )
    message.view.direction = -1
    message.view.phase = uno_pb2.PHASE_PLAY_DRAWN
    message.time_bank_ms = 7000
    table = Table(game_id="g", seat=2)
    view = View(message, table)
    assert view.seat == 2 and view.num_players == 3 and view.phase is Phase.PLAY_DRAWN
    assert view.hand == (Card.parse("R5"), Card.parse("W+4"), Card.parse("G1"))
    assert view.top_card == Card.parse("B3") and view.active_color is Color.BLUE
    assert view.hand_sizes == (4, 1, 3) and view.direction == -1
    assert (view.dealer, view.hand_number, view.draw_pile_size) == (1, 2, 50)
    assert view.pending_draw == 4 and view.uno_offender == 0
    assert view.teams == (0, 1, 0) and view.scores == (10, 0, 5)
    assert view.revealed_hand(1) == (Card.parse("Y2"),) and view.revealed_hand(0) is None
    assert view.drawn_card == Card.parse("G1")
    assert (view.time_left_ms, view.time_bank_ms, view.request_id) == (1000, 7000, "r9")
    assert view.table is table and view.raw is message.view and view.request is message
    assert view.next_seat == 1 and view.opponents == (1, 0)
    assert view.count(Color.RED) == 1


def test_absent_optional_fields_read_as_none() -> None:
    message = request("r", "g", 0, "R5", "B3", [simple("draw")])
    message.view.ClearField("decider")
    message.view.ClearField("top_card")
    view = View(message, Table(game_id="g", seat=0))
    assert view.decider is None and view.uno_offender is None
    assert view.top_card is None and view.drawn_card is None
    assert view.teams is None and view.revealed == ()


def test_a_view_converts_each_field_once_and_is_read_only() -> None:
    message = request("r", "g", 0, "R5 G1", "B3", [simple("draw")])
    view = View(message, Table(game_id="g", seat=0))
    assert view.hand is view.hand and view.discard_pile is view.discard_pile
    assert view == View(bot_pb2.DecisionRequest.FromString(message.SerializeToString()),
                        Table(game_id="other", seat=0))
    with pytest.raises(AttributeError):
        view.hand = ()
    with pytest.raises(AttributeError):
        view.seat = 1  # type: ignore[misc]
    assert "seat 0" in repr(view) and "R5 G1" in repr(view)


def test_legal_actions_keep_the_servers_order() -> None:
    message = request("r", "g", 0, "W", "B3",
                      [play("W", c) for c in ("red", "yellow", "green", "blue")]
                      + [simple("draw")])
    legal = legal_from_proto(message)
    assert [a.color for a in legal] == [*COLORS, None]
    assert legal[-1].kind is ActionKind.DRAW


def test_decisions_carry_an_index_or_a_full_action() -> None:
    by_index = decision_to_proto("r1", 0)
    assert by_index.decision.WhichOneof("choice") == "action_index"
    full = decision_to_proto("r2", Action(ActionKind.PLAY, card=Card.parse("W"), color=Color.RED))
    assert full.decision.action.card.rank == uno_pb2.RANK_WILD
    assert full.decision.action.color == uno_pb2.COLOR_RED


def test_every_event_kind_of_the_protocol_has_a_typed_event() -> None:
    kinds = uno_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields
    for field in kinds:
        assert field.message_type is not None
        message = uno_pb2.Event()
        getattr(message, field.name).SetInParent()
        if field.message_type.fields_by_name.get("card") is not None:
            getattr(message, field.name).card.CopyFrom(pb_card("R1"))
        typed = event_from_proto(message)
        assert not isinstance(typed, UnknownEvent), field.name
        assert type(typed).__name__ == field.message_type.name
        assert typed.raw == message


def test_a_card_from_a_newer_server_reads_as_none_and_its_event_as_unknown() -> None:
    unknown_rank = uno_pb2.Card(rank=99, color=uno_pb2.COLOR_RED)  # type: ignore[arg-type]
    unfitting_colour = uno_pb2.Card(rank=uno_pb2.RANK_FIVE, color=9)  # type: ignore[arg-type]
    assert card_from_proto(unknown_rank) is None and card_from_proto(unfitting_colour) is None
    for card in (unknown_rank, unfitting_colour):
        message = uno_pb2.Event(card_played=uno_pb2.CardPlayed(seat=1, card=card))
        typed = event_from_proto(message)
        assert typed == UnknownEvent("card_played") and typed.raw == message


def test_a_converted_event_keeps_a_copy_of_its_message_not_the_request() -> None:
    message = request("r", "g", 0, "R5", "B3", [simple("draw")])
    message.events.add().turn_skipped.seat = 2
    typed = event_from_proto(message.events[0])
    assert typed.raw == message.events[0] and typed.raw is not message.events[0]


def test_events_read_their_fields() -> None:
    played = event_from_proto(uno_pb2.Event(card_played=uno_pb2.CardPlayed(
        seat=2, card=pb_card("W+4"), color=uno_pb2.COLOR_GREEN, uno=True, target=0)))
    assert played == CardPlayed(2, Card.parse("W+4"), Color.GREEN, True, False, 0)
    drawn = event_from_proto(uno_pb2.Event(cards_drawn=uno_pb2.CardsDrawn(
        seat=1, count=4, reason=uno_pb2.DRAW_REASON_DRAW_FOUR)))
    assert drawn == CardsDrawn(1, 4, DrawReason.DRAW_FOUR)
    ended = event_from_proto(uno_pb2.Event(hand_ended=uno_pb2.HandEnded(
        hand_number=1, reason=uno_pb2.HAND_END_REASON_DEAD, points=[0, 0], totals=[3, 4],
        cards_left=[uno_pb2.CardList(cards=pb_cards("R1")), uno_pb2.CardList()])))
    assert ended == HandEnded(1, None, HandEndReason.DEAD, (0, 0), (3, 4),
                              ((Card.parse("R1"),), ()))
    dealer = event_from_proto(uno_pb2.Event(dealer_chosen=uno_pb2.DealerChosen(
        dealer=1, rounds=[uno_pb2.DrawRound(draws=[
            uno_pb2.SeatCard(seat=0, card=pb_card("R3")),
            uno_pb2.SeatCard(seat=1, card=pb_card("B9"))])])))
    assert dealer == DealerChosen((((0, Card.parse("R3")), (1, Card.parse("B9"))),), 1)
    assert event_from_proto(uno_pb2.Event()) == UnknownEvent("")
    assert isinstance(event_from_proto(uno_pb2.Event(uno_caught=uno_pb2.UnoCaught(
        catcher=0, seat=1))), ev.UnoCaught)


def test_rules_outcome_table_and_errors() -> None:
    start = bot_pb2.GameStart(
        game_id="g", seat=1, decision_timeout_ms=500, time_bank_ms=3000,
        players=[bot_pb2.Player(seat=1, name="b"), bot_pb2.Player(seat=0, name="a")],
        rules=uno_pb2.RuleSet(deck="2018", progressive=True, hand_size=5, scoring="partners",
                              draw_four_bluffing=True),
    )
    table = table_from_proto(start)
    assert [p.name for p in table.players] == ["a", "b"] and table.name_of(1) == "b"
    assert table.rules.deck == "2018" and table.rules.progressive
    assert table.rules.draw_four_bluffing
    assert not rules_from_proto(uno_pb2.RuleSet()).draw_four_bluffing
    assert table.rules.target_score is None  # absent on the wire: a single hand
    assert (table.decision_timeout_ms, table.time_bank_ms) == (500, 3000)
    assert rules_from_proto(uno_pb2.RuleSet(target_score=0)).target_score == 0
    outcome = outcome_from_proto(uno_pb2.Outcome(
        termination="forfeit", scores=[0, 9], ranks=[1, 0], winners=[1], hands_played=2,
        seat_terminations=[uno_pb2.SEAT_TERMINATION_TIMEOUT, uno_pb2.SEAT_TERMINATION_NORMAL],
    ), "bot timed out")
    assert outcome.seat_terminations == ("timeout", "normal")
    assert (outcome.winners, outcome.reason) == ((1,), "bot timed out")
    error = error_from_proto(bot_pb2.Error(code=bot_pb2.ERROR_CODE_ILLEGAL_ACTION, message="m"))
    assert error.code == "illegal_action"


def test_every_rule_reads_the_protocol_field_of_its_name() -> None:
    from dataclasses import fields

    from arena import wire
    from arena.engine import RuleSet

    engine = RuleSet.from_dict(dict(
        deck="2018", shuffle_hands_card="swap", hand_size=5,
        uno_penalty=4, challenge_extra_penalty=3, wild_draw_four_rule="no_color_or_number",
        reverse_first_card="right_of_dealer", going_out_draw_four_challengeable=True,
        scoring="low_score", target_score=300, individual_hands=8, max_turns_per_hand=400,
        max_hands=50, choose_first_dealer=False, progressive=True, seven_o=True, jump_in=True,
        draw_to_match=True, force_play=True, last_card_no_action=True,
        draw_four_bluffing=False))
    rules = rules_from_proto(wire.rules_to_proto(engine))
    read = {f.name: getattr(rules, f.name) for f in fields(rules) if f.name != "raw"}
    assert read == engine.to_dict()


def test_enum_numbers_from_a_newer_server_read_as_unspecified_or_none() -> None:
    newer = 99
    drawn = event_from_proto(uno_pb2.Event(cards_drawn=uno_pb2.CardsDrawn(
        seat=1, count=2, reason=newer)))  # type: ignore[arg-type]
    assert drawn == CardsDrawn(1, 2, DrawReason.UNSPECIFIED)
    ended = event_from_proto(uno_pb2.Event(hand_ended=uno_pb2.HandEnded(
        hand_number=1, reason=newer)))  # type: ignore[arg-type]
    assert isinstance(ended, HandEnded) and ended.reason is HandEndReason.UNSPECIFIED
    played = event_from_proto(uno_pb2.Event(card_played=uno_pb2.CardPlayed(
        seat=0, card=pb_card("W"), color=newer)))  # type: ignore[arg-type]
    assert isinstance(played, CardPlayed) and played.color is None
    action = action_from_proto(uno_pb2.Action(kind=newer, color=newer))  # type: ignore[arg-type]
    assert (action.kind, action.color) == (ActionKind.UNSPECIFIED, None)
    message = request("r", "g", 0, "R5", "B3", [simple("draw")])
    message.view.phase = newer  # type: ignore[assignment]
    assert View(message, Table(game_id="g", seat=0)).phase is Phase.UNSPECIFIED


def test_every_event_class_has_its_messages_fields_in_order() -> None:
    from dataclasses import fields

    for kind in uno_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields:
        assert kind.message_type is not None
        event_class = getattr(ev, kind.message_type.name)
        assert [f.name for f in fields(event_class) if f.name != "raw"] == [
            f.name for f in kind.message_type.fields]
