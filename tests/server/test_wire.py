"""arena.wire: every conversion is a faithful, symmetric pair, and information hiding is
decided by each event's audience alone."""

from __future__ import annotations

import json
import random
from dataclasses import fields

import pytest

from arena import wire
from arena.engine import (
    DRAW,
    Action,
    ActionKind,
    Card,
    Color,
    Game,
    Outcome,
    Rank,
    RuleSet,
    Termination,
    cards,
    classic_deck,
    deck_2018,
    events,
    play,
)
from arena.engine.rules import DeckKind, Scoring, WildDrawFourRule
from arena.engine.view import SeatView
from arena.v1 import bot_pb2, uno_pb2

HOUSE = RuleSet(deck=DeckKind.EDITION_2018, seven_o=True, jump_in=True, progressive=True,
                target_score=None, going_out_draw_four_challengeable=True)


def random_games(rules: RuleSet, players: int, seeds: range) -> list[Game]:
    """Games played to the end by uniformly random choices."""
    games = []
    for seed in seeds:
        rng = random.Random(seed)
        game = Game.new(rules, players, seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        games.append(game)
    return games


def test_every_card_of_both_decks_round_trips() -> None:
    for card in set(classic_deck()) | set(deck_2018()):
        message = wire.card_to_proto(card)
        assert wire.card_from_proto(message) == card
        assert (message.color == uno_pb2.COLOR_UNSPECIFIED) == card.is_wild


def test_a_card_message_that_cannot_be_a_card_is_a_wire_error() -> None:
    for message in (uno_pb2.Card(rank=uno_pb2.RANK_WILD, color=uno_pb2.COLOR_RED),
                    uno_pb2.Card(rank=uno_pb2.RANK_FIVE),
                    uno_pb2.Card(),
                    uno_pb2.Card(rank=99, color=1)):  # type: ignore[arg-type]
        with pytest.raises(wire.WireError):
            wire.card_from_proto(message)


def test_every_action_offered_in_random_games_round_trips_through_proto_and_json() -> None:
    seen: set[ActionKind] = set()
    for seed in range(8):
        rng = random.Random(seed)
        game = Game.new(HOUSE, 4, seed)
        while not game.is_over:
            for action in game.legal_actions():
                seen.add(action.kind)
                assert wire.action_from_proto(wire.action_to_proto(action)) == action
                stored = json.loads(json.dumps(wire.action_to_dict(action)))
                assert wire.action_from_proto(wire.dict_into(stored, uno_pb2.Action())) == action
            game.apply(rng.choice(game.legal_actions()))
    assert seen >= {ActionKind.PLAY, ActionKind.DRAW, ActionKind.KEEP, ActionKind.CATCH,
                    ActionKind.PASS}


def test_action_fields_map_one_to_one() -> None:
    action = play(Card(Rank.SEVEN, Color.RED), target=2, uno=True)
    message = wire.action_to_proto(action)
    assert message.kind == uno_pb2.ACTION_KIND_PLAY
    assert message.HasField("target") and message.target == 2 and message.uno
    assert not wire.action_to_proto(DRAW).HasField("card")
    assert not wire.action_to_proto(DRAW).HasField("target")
    with pytest.raises(wire.WireError, match="action kind"):
        wire.action_from_proto(uno_pb2.Action())
    with pytest.raises(wire.WireError):
        wire.dict_into({"kind": "NOT_A_KIND"}, uno_pb2.Action())


@pytest.mark.parametrize("rules", [
    RuleSet(), HOUSE, RuleSet(target_score=None),
    RuleSet(scoring=Scoring.ELIMINATION, target_score=300),
    RuleSet(scoring=Scoring.INDIVIDUAL, individual_hands=4,
            wild_draw_four_rule=WildDrawFourRule.NO_COLOR_OR_NUMBER),
])
def test_rule_sets_round_trip(rules: RuleSet) -> None:
    message = wire.rules_to_proto(rules)
    assert wire.rules_from_proto(message) == rules
    assert message.HasField("target_score") == (rules.target_score is not None)


def test_a_rule_set_message_with_a_bad_value_is_a_wire_error() -> None:
    message = wire.rules_to_proto(RuleSet())
    message.deck = "tarot"
    with pytest.raises(wire.WireError, match="deck"):
        wire.rules_from_proto(message)


def test_every_event_class_has_a_message_and_round_trips() -> None:
    seen: set[type[events.Event]] = set()
    for game in random_games(HOUSE, 4, range(12)) + random_games(RuleSet(target_score=100), 3,
                                                                   range(2)):
        for event in game.events:
            seen.add(type(event))
            message = wire.event_to_proto(event)
            assert message.WhichOneof("kind") is not None
            assert wire.event_from_proto(message) == event
            as_text = json.loads(json.dumps(wire.event_to_dict(event)))
            assert wire.event_from_proto(wire.dict_into(as_text, uno_pb2.Event())) == event
            stored = wire.event_to_dict(event)
            assert wire.event_from_proto(wire.dict_into(stored, uno_pb2.Event())) == event
    every_class = set(wire.EVENT_CLASSES)
    assert len(every_class) == 24
    assert set(uno_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields) == set(
        uno_pb2.Event.DESCRIPTOR.fields)
    missing = every_class - seen
    # the rarer ones, built by hand
    hand_built = [events.HandsRotated(-1), events.PlayerEliminated(2), events.UnoCalled(1),
                  events.ColorChosen(1, Color.YELLOW),
                  events.UnoCaught(0, 1), events.DeckReshuffled(40), events.CardKept(3),
                  events.StarterReturned(Card(Rank.WILD_DRAW_FOUR)),
                  events.HandEnded(2, None, events.HandEndReason.DEAD, (0, 0), (5, 7),
                                   ((), ())),
                  events.DealerChosen((((0, Card(Rank.ONE, Color.RED)),
                                        (1, Card(Rank.ONE, Color.BLUE))),
                                       ((0, Card(Rank.NINE, Color.RED)),
                                        (1, Card(Rank.WILD)))), 0)]
    for event in hand_built:
        assert wire.event_from_proto(wire.event_to_proto(event)) == event
    assert missing <= {type(e) for e in hand_built}


def test_stored_events_and_actions_are_the_json_mapping_and_a_new_object_each_time() -> None:
    for game in random_games(HOUSE, 4, range(3)):
        for event in game.events:
            expected = wire.message_to_dict(wire.event_to_proto(event))
            first = wire.event_to_dict(event)
            assert first == expected
            for body in first.values():
                body.clear()
            assert wire.event_to_dict(event) == expected
        for action in game.actions:
            expected = wire.message_to_dict(wire.action_to_proto(action))
            first = wire.action_to_dict(action)
            assert first == expected
            first["kind"] = "changed"
            assert wire.action_to_dict(action) == expected


def test_stored_events_and_actions_read_back_as_the_json_mapping_parses_them() -> None:
    for game in random_games(HOUSE, 4, range(3)):
        for _ in range(2):  # the second time from what the first kept
            for event in game.events:
                stored = json.loads(json.dumps(wire.event_to_dict(event)))
                read = wire.stored_event_into(stored, uno_pb2.Event())
                assert read == wire.dict_into(stored, uno_pb2.Event())
                assert wire.stored_event_audience(stored) == event.audience
            for action in game.actions:
                stored = json.loads(json.dumps(wire.action_to_dict(action)))
                read_action = wire.stored_action_into(stored, uno_pb2.Action())
                assert wire.action_from_proto(read_action) == action


def test_a_stored_object_that_is_no_event_is_a_wire_error_every_time() -> None:
    for _ in range(2):
        with pytest.raises(wire.WireError):
            wire.stored_event_into({"card_played": {"seat": "north"}}, uno_pb2.Event())
        with pytest.raises(wire.WireError):
            wire.stored_event_audience({"hand_dealt": {"seat": "north"}})
        with pytest.raises(wire.WireError):
            wire.stored_action_into({"kind": "dance"}, uno_pb2.Action())


def test_a_game_s_events_and_actions_in_one_go_are_each_one_s_mapping_and_new_objects(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "EVENT_CACHE_SIZE", 50)  # starts afresh midway, several times
    for game in random_games(HOUSE, 4, range(3)):
        events = wire.events_to_dicts(game.events)
        assert events == [wire.message_to_dict(wire.event_to_proto(e)) for e in game.events]
        actions = wire.actions_to_dicts(game.actions)
        assert actions == [wire.message_to_dict(wire.action_to_proto(a)) for a in game.actions]
        assert len({id(e) for e in events}) == len(events)
        for body in events[0].values():
            body.clear()
        actions[0]["kind"] = "changed"
        assert wire.events_to_dicts(game.events[:1]) == [wire.event_to_dict(game.events[0])]
        assert wire.actions_to_dicts(game.actions[:1])[0]["kind"] != "changed"
    assert wire.events_to_dicts([]) == [] and wire.actions_to_dicts(()) == []


def test_event_messages_use_the_engine_field_names() -> None:
    played = events.CardPlayed(1, Card(Rank.WILD), Color.GREEN, uno=True, target=None)
    message = wire.event_to_proto(played).card_played
    assert (message.seat, message.color, message.uno) == (1, uno_pb2.COLOR_GREEN, True)
    assert not message.HasField("target")
    for cls in wire.EVENT_CLASSES:
        body = getattr(uno_pb2, cls.__name__).DESCRIPTOR
        names = {f.name for f in body.fields}
        assert {f.name for f in fields(cls)} - {"draws"} <= names


def test_an_empty_event_message_is_a_wire_error() -> None:
    with pytest.raises(wire.WireError):
        wire.event_from_proto(uno_pb2.Event())


def test_events_for_seat_keeps_public_events_and_the_seat_s_own_private_ones() -> None:
    game = random_games(HOUSE, 4, range(1))[0]
    for seat in range(4):
        visible = wire.events_for_seat(game.events, seat)
        assert visible == [e for e in game.events
                           if e.audience is None or e.audience == frozenset((seat,))]
        for event in visible:
            if isinstance(event, (events.CardsReceived, events.HandReplaced)):
                assert event.seat == seat
            if isinstance(event, events.HandRevealed):
                assert event.to_seat == seat
    assert wire.public_events(game.events) == [e for e in game.events if e.audience is None]


def test_a_view_message_holds_exactly_the_seat_view() -> None:
    rng = random.Random(3)
    game = Game.new(HOUSE, 3, 3)
    while not game.is_over:
        seat = game.decider
        assert seat is not None
        view = game.view(seat)
        message = uno_pb2.SeatView.FromString(wire.view_to_bytes(view))
        assert message.seat == view.seat and message.num_players == 3
        assert [wire.card_from_proto(c) for c in message.hand] == list(view.hand)
        assert [wire.card_from_proto(c) for c in message.discard_pile] == list(view.discard_pile)
        assert list(message.hand_sizes) == list(view.hand_sizes)
        assert list(message.scores) == list(view.scores)
        assert message.direction == view.direction
        assert message.HasField("decider") and message.decider == seat
        assert wire.card_from_proto(message.top_card) == view.top_card
        assert message.HasField("drawn_card") == (view.drawn_card is not None)
        assert message.HasField("uno_offender") == (view.uno_offender is not None)
        assert [(r.seat, tuple(wire.card_from_proto(c) for c in r.cards))
                for r in message.revealed] == list(view.revealed)
        assert uno_pb2.Phase.Name(message.phase) == "PHASE_" + view.phase.name
        game.apply(rng.choice(game.legal_actions()))


def _view_built_by_protobuf(view: SeatView) -> uno_pb2.SeatView:
    """The SeatView message of `view`, built field by field by the protobuf library."""
    def card(c: Card | None) -> uno_pb2.Card | None:
        return None if c is None else wire.card_to_proto(c)

    return uno_pb2.SeatView(
        seat=view.seat, num_players=view.num_players,
        phase=uno_pb2.Phase.Value("PHASE_" + view.phase.name),  # type: ignore[arg-type]
        decider=view.decider, turn=view.turn, hand=[wire.card_to_proto(c) for c in view.hand],
        hand_sizes=view.hand_sizes, top_card=card(view.top_card),
        active_color=(0 if view.active_color is None  # type: ignore[arg-type]
                      else uno_pb2.Color.Value("COLOR_" + view.active_color.name)),
        direction=view.direction, dealer=view.dealer, hand_number=view.hand_number,
        draw_pile_size=view.draw_pile_size,
        discard_pile=[wire.card_to_proto(c) for c in view.discard_pile],
        scores=view.scores, active_seats=view.active_seats, pending_draw=view.pending_draw,
        drawn_card=card(view.drawn_card), uno_offender=view.uno_offender,
        revealed=[uno_pb2.RevealedHand(seat=s, cards=[wire.card_to_proto(c) for c in cards])
                  for s, cards in view.revealed],
        teams=view.teams or (),
    )


@pytest.mark.parametrize("rules, players", [
    (RuleSet(target_score=200), 4),
    (HOUSE, 3),
    (RuleSet(scoring=Scoring.PARTNERS, target_score=150), 4),
    (RuleSet(scoring=Scoring.ELIMINATION, target_score=60), 5),
    (RuleSet(scoring=Scoring.LOW_SCORE, target_score=80), 2),
], ids=["standard", "house", "partners", "elimination", "low-score"])
def test_view_and_request_bytes_equal_what_protobuf_writes(rules: RuleSet, players: int) -> None:
    rng = random.Random(7)
    game = Game.new(rules, players, 7)
    seen = {"revealed": False, "teams": False, "drawn": False, "offender": False}
    while not game.is_over:
        seat = game.decider
        assert seat is not None
        view = game.view(seat)
        legal = game.legal_actions()
        expected = _view_built_by_protobuf(view)
        assert wire.view_to_bytes(view) == expected.SerializeToString()
        event_bytes = [wire.event_to_bytes(e) for e in game.events[-3:]]
        request = bot_pb2.ServerMessage(decision_request=bot_pb2.DecisionRequest(
            request_id=f"r{game.turn}", game_id="g-1", view=expected,
            legal_actions=[wire.action_to_proto(a) for a in legal],
            time_left_ms=rng.choice((0, 900, 5000)), time_bank_ms=rng.choice((0, 300)),
            events=[wire.event_to_proto(e) for e in game.events[-3:]]))
        body = request.decision_request
        assert wire.decision_request_to_bytes(
            body.request_id, "g-1", view, legal, body.time_left_ms, body.time_bank_ms,
            event_bytes) == request.SerializeToString()
        seen["revealed"] |= bool(view.revealed)
        seen["teams"] |= view.teams is not None
        seen["drawn"] |= view.drawn_card is not None
        seen["offender"] |= view.uno_offender is not None
        game.apply(rng.choice(legal))
    assert seen["drawn"] and seen["offender"]
    assert seen["teams"] == (rules.scoring is Scoring.PARTNERS)


def test_a_revealed_hand_and_a_negative_score_are_written_as_protobuf_writes_them() -> None:
    game = Game.new(HOUSE, 3, 3)
    assert game.decider is not None
    view = game.view(game.decider)._replace(
        revealed=((0, tuple(cards("R5 W+4"))), (2, ())), scores=(-5, 0, 1 << 40),
        teams=(0, 1, 0))
    assert wire.view_to_bytes(view) == _view_built_by_protobuf(view).SerializeToString()


def test_a_decision_request_lists_the_legal_actions_in_order() -> None:
    game = Game.new(HOUSE, 2, 11)
    legal = game.legal_actions()
    assert game.decider is not None
    skipped = events.TurnSkipped(1)
    request = bot_pb2.ServerMessage.FromString(wire.decision_request_to_bytes(
        "r1", "g1", game.view(game.decider), legal, time_left_ms=900, time_bank_ms=50,
        events=[wire.event_to_bytes(skipped)] * 2)).decision_request
    assert [wire.action_from_proto(a) for a in request.legal_actions] == legal
    assert (request.request_id, request.game_id) == ("r1", "g1")
    assert (request.time_left_ms, request.time_bank_ms) == (900, 50)
    assert [wire.event_from_proto(e) for e in request.events] == [skipped, skipped]
    assert request.view == uno_pb2.SeatView.FromString(wire.view_to_bytes(game.view(game.decider)))


def test_framed_event_messages_equal_the_converted_ones() -> None:
    game = random_games(HOUSE, 3, range(1))[0]
    encoded = [wire.event_to_bytes(e) for e in game.events]
    assert encoded == [wire.event_to_proto(e).SerializeToString() for e in game.events]
    batch = wire.game_events_to_proto("g", encoded).events
    assert batch.game_id == "g"
    assert [wire.event_from_proto(e) for e in batch.events] == game.events
    update = wire.watch_update_to_proto("g", encoded[:3], ["a", "b", "c"])
    assert list(update.events) == list(batch.events)[:3] and list(update.players) == ["a", "b", "c"]
    big = events.CardsReceived(0, tuple(deck_2018()))  # longer than 127 bytes
    assert wire.game_events_to_proto("g", [wire.event_to_bytes(big)]).events.events[0] == \
        wire.event_to_proto(big)


def test_outcomes_round_trip_and_carry_seat_terminations() -> None:
    outcome = Outcome(Termination.TARGET_REACHED, (510, 120, 3), (0, 1, 2), 4)
    message = wire.outcome_to_proto(outcome, ["normal", "timeout", "crash"])
    assert list(message.winners) == [0]
    assert list(message.seat_terminations) == [uno_pb2.SEAT_TERMINATION_NORMAL,
                                               uno_pb2.SEAT_TERMINATION_TIMEOUT,
                                               uno_pb2.SEAT_TERMINATION_CRASH]
    assert wire.outcome_from_proto(message) == outcome
    with pytest.raises(wire.WireError):
        wire.seat_termination_to_proto("bored")
    aborted = wire.unfinished_outcome_to_proto("aborted", [3, 4], 2, ["aborted", "aborted"])
    assert aborted.termination == "aborted" and not aborted.ranks
    with pytest.raises(wire.WireError):
        wire.outcome_from_proto(aborted)


def test_an_action_is_stored_as_one_line_of_json() -> None:
    text = json.dumps(wire.action_to_dict(Action(ActionKind.CATCH, target=2)))
    assert "\n" not in text and '"target": 2' in text
