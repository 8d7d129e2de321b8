"""Rule sets are data (RULES.md preamble, DESIGN.md decision 7): a frozen value
with the official defaults, loaded from a mapping, JSON or TOML, every bad
value refused with a `RuleSetError` that names the key."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from arena.engine import OFFICIAL, RuleSet, RuleSetError, Scoring
from arena.engine.rules import (
    DeckKind,
    ReverseFirstCard,
    ShuffleHandsCard,
    WildDrawFourRule,
)


def test_the_defaults_are_the_official_rules_and_decisions() -> None:
    r = RuleSet()
    assert r == OFFICIAL
    assert r.deck is DeckKind.CLASSIC and r.hand_size == 7
    assert r.uno_penalty == 2                                  # section 6 decision
    assert r.challenge_extra_penalty == 2                      # section 5: 4 plus 2
    assert r.wild_draw_four_rule is WildDrawFourRule.NO_ACTIVE_COLOR   # section 3
    assert r.reverse_first_card is ReverseFirstCard.DEALER     # section 2
    assert r.going_out_draw_four_challengeable is False        # section 7
    assert r.draw_four_bluffing is True                        # sections 3 and 5
    assert r.scoring is Scoring.STANDARD and r.target_score == 500
    assert r.shuffle_hands_card is ShuffleHandsCard.SHUFFLE
    assert r.house_rules() == []


def test_a_rule_set_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        OFFICIAL.hand_size = 5  # type: ignore[misc]


def test_to_dict_and_from_dict_round_trip() -> None:
    r = RuleSet(deck=DeckKind.EDITION_2018, target_score=None, progressive=True,
                scoring=Scoring.LOW_SCORE)
    data = r.to_dict()
    assert data["deck"] == "2018" and data["target_score"] is None
    assert RuleSet.from_dict(data) == r


def test_json_round_trip_and_null_target() -> None:
    r = RuleSet(target_score=None, jump_in=True)
    assert RuleSet.from_json(r.to_json()) == r
    assert RuleSet.from_json('{"target_score": null}').target_score is None


def test_toml_round_trip_with_top_level_keys_or_a_rules_table() -> None:
    r = RuleSet(target_score=None, uno_penalty=4, deck=DeckKind.EDITION_2018)
    assert RuleSet.from_toml(r.to_toml()) == r
    text = '[rules]\nuno_penalty = 4\nscoring = "low_score"\ntarget_score = "none"\n'
    loaded = RuleSet.from_toml(text)
    assert loaded.uno_penalty == 4 and loaded.scoring is Scoring.LOW_SCORE
    assert loaded.target_score is None


def test_missing_keys_take_their_defaults() -> None:
    assert RuleSet.from_dict({}) == OFFICIAL
    assert RuleSet.from_json("{}") == OFFICIAL
    assert RuleSet.from_toml("") == OFFICIAL


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("deck", "2019"), ("deck", 7), ("scoring", "high"), ("scoring", None),
        ("wild_draw_four_rule", "whenever"), ("reverse_first_card", True),
        ("hand_size", 0), ("hand_size", 21), ("hand_size", "7"), ("hand_size", 7.0),
        ("hand_size", True), ("uno_penalty", -1), ("uno_penalty", 21),
        ("challenge_extra_penalty", 99), ("target_score", 0), ("target_score", "500"),
        ("individual_hands", 0), ("max_turns_per_hand", 0), ("max_hands", -3),
        ("target_score", 2**32), ("max_hands", 2**32), ("individual_hands", 10**12),
        ("max_turns_per_hand", 2**64),
        ("progressive", 1), ("seven_o", "yes"), ("jump_in", None),
        ("choose_first_dealer", [True]),
    ],
)
def test_a_bad_value_raises_rule_set_error_naming_the_key(key: str, value: object) -> None:
    with pytest.raises(RuleSetError, match=f"^{key}:"):
        RuleSet.from_dict({key: value})
    with pytest.raises(RuleSetError, match=f"^{key}:"):
        OFFICIAL.with_changes(**{key: value})


def test_an_unknown_key_raises_rule_set_error_naming_it() -> None:
    with pytest.raises(RuleSetError, match="^stacking: unknown rule setting"):
        RuleSet.from_dict({"stacking": True})
    with pytest.raises(RuleSetError, match="^bogus: unknown"):
        OFFICIAL.with_changes(bogus=1)
    with pytest.raises(RuleSetError, match="^1: unknown"):
        RuleSet.from_dict({1: 2, "a": 3})  # type: ignore[dict-item]


def test_elimination_needs_a_target_score() -> None:
    with pytest.raises(RuleSetError, match="^target_score:"):
        RuleSet(scoring=Scoring.ELIMINATION, target_score=None)


@pytest.mark.parametrize("text", ["", "[1, 2]", "{", '"rules"', "{'a': 1}", "[" * 5000])
def test_text_that_is_not_a_json_object_raises_rule_set_error(text: str) -> None:
    with pytest.raises(RuleSetError):
        RuleSet.from_json(text)


@pytest.mark.parametrize("text", ["= 1", "a = ", "uno_penalty = 2.5", "[rules]\nx = 1",
                                  "a = " + "[" * 5000])
def test_bad_toml_raises_rule_set_error(text: str) -> None:
    with pytest.raises(RuleSetError):
        RuleSet.from_toml(text)


def test_a_mapping_is_required() -> None:
    with pytest.raises(RuleSetError, match="table of settings"):
        RuleSet.from_dict([("hand_size", 7)])  # type: ignore[arg-type]


def test_enum_values_may_be_given_as_their_names_in_text() -> None:
    r = RuleSet.from_dict({"deck": "2018", "wild_draw_four_rule": "no_color_or_number",
                           "reverse_first_card": "right_of_dealer"})
    assert r.deck is DeckKind.EDITION_2018
    assert r.wild_draw_four_rule is WildDrawFourRule.NO_COLOR_OR_NUMBER
    assert r.reverse_first_card is ReverseFirstCard.RIGHT_OF_DEALER


def test_a_single_hand_rule_set_has_no_target() -> None:
    assert RuleSet(target_score=None).single_hand
    assert not OFFICIAL.single_hand
    assert not RuleSet(target_score=None, scoring=Scoring.INDIVIDUAL).single_hand


def test_the_deal_must_fit_the_deck() -> None:
    RuleSet(hand_size=10).check_players(10)
    with pytest.raises(RuleSetError, match="^hand_size:"):
        RuleSet(hand_size=11).check_players(10)
    with pytest.raises(RuleSetError, match="^hand_size:"):
        RuleSet(hand_size=20).check_players(6)


def test_a_single_hand_written_as_toml_none_loads_from_a_mapping_too() -> None:
    single = RuleSet(target_score=None)
    assert RuleSet.from_dict({"target_score": "none"}) == single
    assert RuleSet.from_dict(dict(tomllib.loads(single.to_toml()))) == single
