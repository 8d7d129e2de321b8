"""The game record format: JSON round trips, named errors for bad input, and replays."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from arena import wire
from arena.engine import (
    OFFICIAL,
    PARTNER_TEAMS,
    Game,
    RuleSet,
    Scoring,
    Termination,
    catch,
    replay,
)
from arena.record import (
    RECORD_VERSION,
    GameRecord,
    GameRecordError,
    MissingFieldError,
    RecordActionError,
    RecordFieldError,
    RecordVersionError,
    ReplayMismatchError,
    SeatTermination,
    decode_actions,
)

ONE_HAND = RuleSet(target_score=None)
NORMAL = SeatTermination.NORMAL


def played(rules: RuleSet = ONE_HAND, players: int = 3, seed: int = 7,
           forfeit_after: int | None = None) -> tuple[GameRecord, Game]:
    """A game played with the first legal action to its end (or forfeited by the seat
    due after `forfeit_after` actions), and its record."""
    game = Game.new(rules, players, seed)
    forfeited = None
    while not game.is_over:
        if forfeit_after is not None and len(game.actions) == forfeit_after:
            forfeited = game.decider
            assert forfeited is not None
            game.forfeit(forfeited)
            break
        game.apply(game.legal_actions()[0])
    assert game.outcome is not None
    terminations = tuple(SeatTermination.TIMEOUT if seat == forfeited else NORMAL
                         for seat in range(players))
    record = GameRecord(rules=rules, seed=seed, seats=tuple(f"bot{s}" for s in range(players)),
                        actions=tuple(game.actions), outcome=game.outcome,
                        seat_terminations=terminations, forfeited_seat=forfeited,
                        teams=PARTNER_TEAMS if game.teams is not None else None)
    return record, game


RECORD, GAME = played()
FORFEITED, FORFEITED_GAME = played(forfeit_after=12)
PARTNERS, _ = played(RuleSet(scoring=Scoring.PARTNERS, target_score=None), players=4)


def document(**changes: Any) -> str:
    """RECORD's JSON document with some top-level values changed (None deletes)."""
    data = RECORD.to_dict()
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return json.dumps(data)


# ----------------------------------------------------------------- round trip


@pytest.mark.parametrize("record", [RECORD, FORFEITED, PARTNERS],
                         ids=["one_hand", "forfeit", "partners"])
def test_loads_of_dumps_gives_the_same_record(record: GameRecord) -> None:
    assert GameRecord.loads(record.dumps()) == record


def test_an_indented_document_loads_to_the_same_record() -> None:
    assert GameRecord.loads(RECORD.dumps(indent=2)) == RECORD


def test_dumps_writes_one_json_object_with_the_format_and_its_version() -> None:
    data = json.loads(RECORD.dumps())
    assert data["format"] == "arena-game-record"
    assert data["version"] == RECORD_VERSION


def test_the_record_keeps_its_actions_in_the_wire_json_codec() -> None:
    data = json.loads(RECORD.dumps())
    assert data["actions"] == [wire.action_to_dict(a) for a in GAME.actions]


def test_the_record_keeps_the_rules_as_the_rule_set_writes_them() -> None:
    data = json.loads(RECORD.dumps())
    assert data["rules"] == ONE_HAND.to_dict()


# ------------------------------------------------------------------ bad input


def test_every_record_error_is_a_value_error() -> None:
    for error in (GameRecordError, RecordVersionError, RecordFieldError, MissingFieldError,
                  RecordActionError, ReplayMismatchError):
        assert issubclass(error, ValueError)


def test_text_that_is_not_json_is_a_record_error() -> None:
    with pytest.raises(GameRecordError, match="must be JSON"):
        GameRecord.loads("{not json")


def test_json_that_is_not_an_object_is_a_record_error() -> None:
    with pytest.raises(GameRecordError, match="JSON object"):
        GameRecord.loads("[1, 2]")


def test_another_version_is_a_version_error() -> None:
    with pytest.raises(RecordVersionError, match="version 2 is not supported"):
        GameRecord.loads(document(version=RECORD_VERSION + 1))


def test_a_version_that_is_not_a_number_is_a_version_error() -> None:
    with pytest.raises(RecordVersionError):
        GameRecord.loads(document(version=True))


def test_a_missing_version_is_a_missing_field() -> None:
    with pytest.raises(MissingFieldError) as caught:
        GameRecord.loads(document(version=None))
    assert caught.value.field == "version"


def test_a_document_of_another_format_is_a_version_error() -> None:
    with pytest.raises(RecordVersionError, match="not a game record"):
        GameRecord.loads(document(format="something-else"))


@pytest.mark.parametrize("field", ["rules", "seed", "seats", "teams", "actions",
                                   "forfeited_seat", "seat_terminations", "outcome"])
def test_a_missing_field_is_named(field: str) -> None:
    with pytest.raises(MissingFieldError) as caught:
        GameRecord.loads(document(**{field: None}))
    assert caught.value.field == field


def test_a_missing_outcome_field_is_named() -> None:
    outcome = RECORD.to_dict()["outcome"]
    del outcome["ranks"]
    with pytest.raises(MissingFieldError) as caught:
        GameRecord.loads(document(outcome=outcome))
    assert caught.value.field == "outcome.ranks"


def test_an_unknown_field_is_a_field_error() -> None:
    with pytest.raises(RecordFieldError) as caught:
        GameRecord.loads(document(comment="hello"))
    assert caught.value.field == "comment"


def test_a_bad_rule_set_is_a_field_error_on_rules() -> None:
    rules = dict(ONE_HAND.to_dict(), hand_size=0)
    with pytest.raises(RecordFieldError, match="hand_size") as caught:
        GameRecord.loads(document(rules=rules))
    assert caught.value.field == "rules"


def test_a_seed_that_is_not_a_whole_number_is_a_field_error() -> None:
    with pytest.raises(RecordFieldError) as caught:
        GameRecord.loads(document(seed="7"))
    assert caught.value.field == "seed"


def test_an_unknown_seat_termination_is_a_field_error() -> None:
    with pytest.raises(RecordFieldError, match="'resigned' is not one of") as caught:
        GameRecord.loads(document(seat_terminations=["normal", "resigned", "normal"]))
    assert caught.value.field == "seat_terminations[1]"


def test_an_unknown_termination_is_a_field_error() -> None:
    outcome = dict(RECORD.to_dict()["outcome"], termination="boredom")
    with pytest.raises(RecordFieldError) as caught:
        GameRecord.loads(document(outcome=outcome))
    assert caught.value.field == "outcome.termination"


def test_seat_terminations_for_another_number_of_seats_are_a_field_error() -> None:
    with pytest.raises(RecordFieldError) as caught:
        GameRecord.loads(document(seat_terminations=["normal", "normal"]))
    assert caught.value.field == "seat_terminations"


def test_a_forfeited_seat_that_is_not_seated_is_a_field_error() -> None:
    with pytest.raises(RecordFieldError) as caught:
        GameRecord.loads(document(forfeited_seat=3))
    assert caught.value.field == "forfeited_seat"


def test_teams_that_do_not_seat_everyone_once_are_a_field_error() -> None:
    with pytest.raises(RecordFieldError) as caught:
        GameRecord.loads(document(teams=[[0, 1], [1, 2]]))
    assert caught.value.field == "teams"


def _with_action(entry: Any, index: int = 3) -> str:
    actions = RECORD.to_dict()["actions"]
    actions[index] = entry
    return document(actions=actions)


@pytest.mark.parametrize("entry", [
    {"kind": "ACTION_KIND_JUGGLE"},
    {"kind": "ACTION_KIND_PLAY", "card": {"rank": "RANK_ELEVEN", "color": "COLOR_RED"}},
    {"kind": "ACTION_KIND_PLAY", "card": {"rank": "RANK_WILD", "color": "COLOR_RED"}},
    {},
    {"forfeit": 1},
    "draw",
], ids=["unknown_kind", "unknown_rank", "impossible_card", "no_kind", "forfeit_marker",
        "not_an_object"])
def test_an_action_that_does_not_decode_is_an_action_error_naming_its_index(entry: Any) -> None:
    with pytest.raises(RecordActionError, match=r"actions\[3\]") as caught:
        GameRecord.loads(_with_action(entry))
    assert caught.value.index == 3


# ------------------------------------------------------------------- replays


def test_a_replay_reproduces_the_recorded_outcome() -> None:
    assert RECORD.verify_replay().outcome == GAME.outcome


def test_a_replay_gives_the_same_events_as_the_game_it_recorded() -> None:
    assert RECORD.replay_events() == GAME.events


def test_the_public_events_of_a_replay_leave_out_every_private_event() -> None:
    assert RECORD.replay_events(public=True) == wire.public_events(GAME.events)
    assert len(RECORD.replay_events(public=True)) < len(GAME.events)


def test_a_replay_of_a_forfeited_game_ends_it_by_forfeit_with_the_seat_last() -> None:
    game = FORFEITED.verify_replay()
    assert game.outcome == FORFEITED_GAME.outcome
    assert game.outcome is not None and game.outcome.termination is Termination.FORFEIT
    assert FORFEITED.forfeited_seat is not None
    assert game.outcome.ranks[FORFEITED.forfeited_seat] == max(game.outcome.ranks)


def test_a_forfeited_game_replayed_without_its_forfeit_does_not_verify() -> None:
    with pytest.raises(ReplayMismatchError, match="not over"):
        replace(FORFEITED, forfeited_seat=None).verify_replay()


def test_a_record_whose_outcome_was_changed_does_not_verify() -> None:
    assert RECORD.outcome.hands_played == 1
    changed = replace(RECORD, outcome=replace(RECORD.outcome, hands_played=2))
    with pytest.raises(ReplayMismatchError, match="hands_played=2"):
        changed.verify_replay()


def test_a_record_with_an_action_that_is_not_legal_names_it_on_replay() -> None:
    before = replay(RECORD.rules, len(RECORD.seats), RECORD.seed, RECORD.actions[:5])
    assert before.decider is not None
    actions = list(RECORD.actions)
    actions[5] = catch(before.decider)  # a seat never catches itself
    with pytest.raises(ReplayMismatchError, match=r"actions\[5\]"):
        replace(RECORD, actions=tuple(actions)).replay()


def test_a_partner_record_keeps_its_teams() -> None:
    assert GameRecord.loads(PARTNERS.dumps()).teams == PARTNER_TEAMS


# ---------------------------------------------------------- action logs


def test_decode_actions_names_the_entry_that_does_not_decode() -> None:
    with pytest.raises(RecordActionError) as caught:
        decode_actions([wire.action_to_dict(RECORD.actions[0]), {"kind": 99}])
    assert caught.value.index == 1


def test_a_record_may_be_built_for_the_official_rules_with_default_forfeit_and_teams() -> None:
    record, _ = played(OFFICIAL, players=2, seed=3)
    assert record.forfeited_seat is None and record.teams is None
    assert GameRecord.loads(record.dumps()) == record
