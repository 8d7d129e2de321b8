"""Hypothesis properties: rule sets load and round-trip, bad input only ever
raises `RuleSetError` naming the key, and a game replays identically."""

from __future__ import annotations

import contextlib
import json
import random
from dataclasses import fields
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import Game, RuleSet, RuleSetError, Scoring, replay
from arena.engine.rules import (
    MAX_LIMIT,
    CustomizableEffect,
    DeckKind,
    ReverseFirstCard,
    ShuffleHandsCard,
    WildDrawFourRule,
)

FIELDS = {f.name: str(f.type) for f in fields(RuleSet)}
ENUMS: dict[str, list[str]] = {
    "deck": [m.value for m in DeckKind],
    "shuffle_hands_card": [m.value for m in ShuffleHandsCard],
    "customizable_effect": [m.value for m in CustomizableEffect],
    "scoring": [m.value for m in Scoring],
    "wild_draw_four_rule": [m.value for m in WildDrawFourRule],
    "reverse_first_card": [m.value for m in ReverseFirstCard],
}
BOOLS = [name for name, t in FIELDS.items() if t == "bool"]


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    """Any valid rule set."""
    data: dict[str, Any] = {name: draw(st.sampled_from(values)) for name, values in ENUMS.items()}
    data |= {name: draw(st.booleans()) for name in BOOLS}
    data["hand_size"] = draw(st.integers(1, 20))
    data["uno_penalty"] = draw(st.integers(0, 20))
    data["challenge_extra_penalty"] = draw(st.integers(0, 20))
    data["individual_hands"] = draw(st.integers(1, MAX_LIMIT))
    data["max_turns_per_hand"] = draw(st.integers(1, MAX_LIMIT))
    data["max_hands"] = draw(st.integers(1, MAX_LIMIT))
    target = draw(st.none() | st.integers(1, MAX_LIMIT))
    if data["scoring"] == "elimination" and target is None:
        target = 500
    data["target_score"] = target
    return RuleSet.from_dict(data)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)


@given(rule_sets())
def test_every_valid_rule_set_round_trips_through_dict_json_and_toml(r: RuleSet) -> None:
    assert RuleSet.from_dict(r.to_dict()) == r
    assert RuleSet.from_json(r.to_json()) == r
    assert RuleSet.from_json(json.dumps(r.to_dict())) == r
    assert RuleSet.from_toml(r.to_toml()) == r
    assert RuleSet.from_toml("[rules]\n" + r.to_toml()) == r
    assert hash(r) == hash(RuleSet.from_dict(r.to_dict()))


@given(st.sampled_from(sorted(FIELDS)), JSONISH)
def test_any_value_for_a_key_loads_or_raises_rule_set_error_naming_that_key(
    key: str, value: object
) -> None:
    try:
        r = RuleSet.from_dict({key: value})
    except RuleSetError as exc:
        assert str(exc).startswith(f"{key}:"), str(exc)
    else:
        assert getattr(r, key) == value or str(getattr(r, key)) == str(value)


@given(st.dictionaries(st.text() | st.integers() | st.sampled_from(sorted(FIELDS)),
                       JSONISH, max_size=5))
def test_any_mapping_loads_or_raises_rule_set_error(data: dict[Any, Any]) -> None:
    try:
        RuleSet.from_dict(data)
    except RuleSetError as exc:
        assert any(str(exc).startswith(f"{key}:") for key in data), str(exc)


@given(st.text())
def test_any_text_loads_or_raises_rule_set_error(text: str) -> None:
    for load in (RuleSet.from_json, RuleSet.from_toml):
        with contextlib.suppress(RuleSetError):
            load(text)


@given(JSONISH)
def test_any_json_document_loads_or_raises_rule_set_error(value: object) -> None:
    with contextlib.suppress(RuleSetError):
        RuleSet.from_json(json.dumps(value))


@given(rule_sets(), st.integers(2, 10))
def test_a_rule_set_either_seats_the_players_or_says_why(r: RuleSet, players: int) -> None:
    try:
        r.check_players(players)
    except RuleSetError as exc:
        assert str(exc).split(":")[0] in {"players", "scoring", "hand_size"}


# ------------------------------------------------------------------ replay

REPLAY_RULES = st.sampled_from([
    RuleSet(target_score=None),
    RuleSet(target_score=120),
    RuleSet(target_score=None, deck=DeckKind.EDITION_2018),
    RuleSet(target_score=None, progressive=True, seven_o=True, jump_in=True),
    RuleSet(target_score=None, draw_to_match=True, force_play=True, last_card_no_action=True),
    RuleSet(target_score=60, scoring=Scoring.ELIMINATION),
])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REPLAY_RULES, st.integers(2, 10), st.integers(0, 2**32), st.integers(0, 2**32))
def test_replay_gives_identical_events_and_outcome(
    r: RuleSet, players: int, seed: int, choices: int
) -> None:
    game = Game.new(r, players, seed)
    rng = random.Random(choices)
    for _ in range(3000):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    again = replay(r, players, seed, game.actions)
    assert again.events == game.events
    assert again.outcome == game.outcome
    assert again.hands == game.hands and again.draw_pile == game.draw_pile
    assert [again.view(s) for s in range(players)] == [game.view(s) for s in range(players)]
    assert again.legal_actions() == game.legal_actions()


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32))
def test_the_same_seed_deals_the_same_game_and_another_seed_usually_does_not(
    players: int, seed: int
) -> None:
    a, b = Game.new(RuleSet(), players, seed), Game.new(RuleSet(), players, seed)
    assert a.events == b.events and a.hands == b.hands and a.draw_pile == b.draw_pile
    # among a few other seeds, some deal different hands
    others = [Game.new(RuleSet(), players, other) for other in (seed + 1, seed + 2, seed + 3)]
    assert any(other.hands != a.hands for other in others)
