"""The encoding and the action space read the engine and the SDK alike: what a bot computes
from the `View` it is sent is what the environment computed from the engine."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the env extra is not installed")

from arena.client.convert import legal_from_proto  # noqa: E402
from arena.client.table import Table  # noqa: E402
from arena.client.view import View  # noqa: E402
from arena.engine import Game, RuleSet  # noqa: E402
from arena.engine.rules import DeckKind, Scoring, ShuffleHandsCard  # noqa: E402
from arena.env.actions import ACTION_COUNT, action_index, describe  # noqa: E402
from arena.env.encoding import OBS_SIZE, OFFSETS, SECTIONS, encode, encode_seat  # noqa: E402
from arena.env.seat import decision_request  # noqa: E402

RULE_SETS = [
    pytest.param(RuleSet(target_score=None), id="official"),
    pytest.param(RuleSet(target_score=None, seven_o=True, jump_in=True, progressive=True,
                         deck=DeckKind.EDITION_2018, shuffle_hands_card=ShuffleHandsCard.SWAP),
                 id="house-rules"),
    pytest.param(RuleSet(scoring=Scoring.PARTNERS, target_score=None), id="partners"),
]


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_bot_encodes_its_view_and_numbers_its_actions_as_the_environment_does(
        rules: RuleSet) -> None:
    rng = random.Random(11)
    for seed in range(3):
        players = 4 if rules.scoring == "partners" else rng.randint(2, 10)
        game = Game.new(rules, players, seed)
        for _ in range(300):  # into the game far enough to see every phase the rules have
            if game.is_over:
                break
            seat = game.decider
            assert seat is not None
            legal, view = game.legal_actions(), game.view(seat)
            request = decision_request("1", "g", view, legal, 1000, 0)
            sent, sent_legal = View(request, Table("g", seat)), legal_from_proto(request)
            assert np.array_equal(encode(view), encode(sent))
            numbers = [action_index(a, seat, players) for a in legal]
            assert numbers == [action_index(a, seat, players) for a in sent_legal]
            assert len(set(numbers)) == len(numbers)
            assert all(0 <= n < ACTION_COUNT for n in numbers)
            game.apply(rng.choice(legal))


def test_the_sections_tile_the_vector_and_show_the_hand_and_the_top_card() -> None:
    assert OBS_SIZE == 366 and ACTION_COUNT == 1379
    assert sum(size for _, size in SECTIONS) == OBS_SIZE
    game = Game.new(RuleSet(), 3, 4)
    assert game.decider is not None
    view = game.view(game.decider)
    vector = encode(view)
    hand = vector[OFFSETS["hand"]:OFFSETS["hand"] + 56]
    assert hand.sum() == len(view.hand)
    assert vector[OFFSETS["top"]:OFFSETS["top"] + 57].sum() == 1
    assert vector[OFFSETS["players"] + 1] == 1  # three seats
    assert vector[OFFSETS["hand_sizes"]] == len(view.hand) / 10  # offset 0 is the viewer


def test_every_index_has_a_description_and_targets_are_relative() -> None:
    assert describe(0) == "play red 0"
    assert describe(ACTION_COUNT - 1) == "catch +9"
    assert len({describe(i) for i in range(ACTION_COUNT)}) == ACTION_COUNT
    from arena.engine import catch

    assert action_index(catch(0), 3, 4) == action_index(catch(2), 1, 4)  # one seat on


def _plain_encoding(view: Any) -> Any:
    """The module's table read literally, one section at a time (what `encode` must give)."""
    from arena.env.actions import face_index

    seat, players = view.seat, view.num_players
    sections = {name: np.zeros(size, np.float32) for name, size in SECTIONS}
    for card in view.hand:
        sections["hand"][face_index(card)] += 1
    sections["top"][56 if view.top_card is None else face_index(view.top_card)] = 1
    colors = ("red", "yellow", "green", "blue")
    color = view.active_color
    sections["active_color"][colors.index(color) if color in colors else 4] = 1
    phases = ("play", "play_drawn", "choose_color", "challenge", "stack", "catch_window",
              "jump_in")
    if view.phase in phases:
        sections["phase"][phases.index(view.phase)] = 1
    if view.drawn_card is not None:
        sections["drawn"][face_index(view.drawn_card)] = 1
    for card in view.discard_pile:
        sections["discard"][face_index(card)] += 1
    for _, cards in view.revealed:
        for card in cards:
            sections["revealed"][face_index(card)] += 1
    for offset in range(players):
        other = (seat + offset) % players
        sections["hand_sizes"][offset] = view.hand_sizes[other] / 10
        sections["active"][offset] = other in view.active_seats
        sections["partner"][offset] = bool(view.teams) and view.teams[other] == view.teams[seat]
        if view.scores:
            sections["scores"][offset] = view.scores[other] / 500
        sections["uno_offender"][offset] = other == view.uno_offender
        sections["turn"][offset] = other == view.turn
    sections["direction"][0] = 1 if view.direction >= 0 else -1
    sections["pending_draw"][0] = view.pending_draw / 10
    sections["draw_pile"][0] = view.draw_pile_size / 108
    sections["players"][players - 2] = 1
    sections["hand_number"][0] = view.hand_number / 100
    return np.concatenate([sections[name] for name, _ in SECTIONS])


@pytest.mark.parametrize("rules", RULE_SETS)
def test_every_seat_at_every_step_is_encoded_as_the_table_says(rules: RuleSet) -> None:
    rng = random.Random(5)
    for seed in range(4):
        players = 4 if rules.scoring == "partners" else rng.randint(2, 10)
        game = Game.new(rules, players, seed)
        for step in range(400):  # long enough for a reshuffled pile and revealed hands
            if game.is_over:
                break
            for seat in range(players):
                view = game.view(seat)
                vector = encode(view)
                assert vector.dtype == np.float32 and vector.shape == (OBS_SIZE,)
                assert np.array_equal(vector, _plain_encoding(view)), (seed, step, seat)
            legal = game.legal_actions()
            game.apply(rng.choice(legal))


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_seat_encoded_from_the_game_is_its_view_encoded(rules: RuleSet) -> None:
    rng = random.Random(8)
    seen_revealed = seen_reshuffle = False
    for seed in range(4):
        players = 4 if rules.scoring == "partners" else rng.randint(2, 10)
        game = Game.new(rules, players, seed)
        for step in range(500):  # long enough for a reshuffled pile and revealed hands
            if game.is_over:
                break
            for seat in range(players):
                view = game.view(seat)
                seen_revealed = seen_revealed or bool(view.revealed)
                assert np.array_equal(encode_seat(game, seat), encode(view)), (seed, step)
            before = len(game.discard_pile)
            game.apply(rng.choice(game.legal_actions()))
            seen_reshuffle = seen_reshuffle or len(game.discard_pile) < before
    assert seen_revealed and seen_reshuffle
