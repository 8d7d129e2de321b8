"""RULES.md section 1: cards, points, the classic and 2018 decks, 2 to 10 players."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.engine import (
    COLORS,
    Card,
    CardParseError,
    Color,
    Game,
    Rank,
    cards,
    classic_deck,
    deck_2018,
    events,
    play,
)
from tests.engine.helpers import BLUE, GREEN, RED, YELLOW, card, of_type, rules, table


def test_there_are_four_colours_red_yellow_green_blue() -> None:
    assert set(COLORS) == {Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE}


def test_classic_deck_has_108_cards_in_the_official_counts() -> None:
    deck = classic_deck()
    counts = Counter(deck)
    assert len(deck) == 108
    for color in COLORS:
        assert counts[Card(Rank.ZERO, color)] == 1
        for n in range(1, 10):
            assert counts[Card(Rank(str(n)), color)] == 2
        for rank in (Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO):
            assert counts[Card(rank, color)] == 2
    assert counts[Card(Rank.WILD)] == 4
    assert counts[Card(Rank.WILD_DRAW_FOUR)] == 4
    assert sum(1 for c in deck if c.is_number) == 4 + 72


def test_card_points_follow_the_table() -> None:
    assert [c.points for c in cards("R0 Y1 G5 B9")] == [0, 1, 5, 9]
    assert [c.points for c in cards("RS YR G+2")] == [20, 20, 20]
    assert [c.points for c in cards("W W+4")] == [50, 50]
    assert sum(c.points for c in classic_deck()) == 4 * (2 * 45 + 3 * 40) + 8 * 50


def test_2018_deck_adds_one_shuffle_hands_and_three_customizable_worth_40_each() -> None:
    deck = deck_2018()
    extra = Counter(deck) - Counter(classic_deck())
    assert len(deck) == 112
    assert extra == Counter({Card(Rank.WILD_SHUFFLE_HANDS): 1, Card(Rank.WILD_CUSTOMIZABLE): 3})
    assert card("WSH").points == 40 and card("WC").points == 40


def test_a_game_uses_the_deck_its_rule_set_names() -> None:
    assert Game.new(rules(), 4, seed=1).card_count() == 108
    assert Game.new(rules(deck="2018"), 4, seed=1).card_count() == 112
    assert Card(Rank.WILD_SHUFFLE_HANDS) not in [
        c for h in Game.new(rules(), 10, seed=2).hands for c in h
    ]


def test_wild_cards_have_no_colour_and_every_other_card_has_one() -> None:
    assert all(c.is_wild == (c.color is None) for c in deck_2018())
    with pytest.raises(ValueError):
        Card(Rank.WILD, Color.RED)
    with pytest.raises(ValueError):
        Card(Rank.FIVE)


def test_card_notation_reads_back_every_card() -> None:
    for c in set(deck_2018()):
        assert Card.parse(c.short()) == c
    assert cards("R5 Y+2 GS BR W W+4 WSH WC") == [
        Card(Rank.FIVE, RED), Card(Rank.DRAW_TWO, YELLOW), Card(Rank.SKIP, GREEN),
        Card(Rank.REVERSE, BLUE), Card(Rank.WILD), Card(Rank.WILD_DRAW_FOUR),
        Card(Rank.WILD_SHUFFLE_HANDS), Card(Rank.WILD_CUSTOMIZABLE),
    ]


@pytest.mark.parametrize("text", ["", "X5", "R10", "RW", "R+4", "W+2", "5"])
def test_bad_card_notation_raises_card_parse_error(text: str) -> None:
    with pytest.raises(CardParseError):
        Card.parse(text)


def test_shuffle_hands_deals_every_hand_from_the_players_left_clockwise() -> None:
    # Seat 0 plays Shuffle Hands with 2 cards left; 2 + 3 + 2 + 2 = 9 cards go round
    # from seat 1, so seat 1 gets the extra card.
    game = table("WSH R1 R2", "G1 G2 G3", "B1 B2", "Y1 Y2", starter="R9",
                 rule_set=rules(deck="2018"))
    before = Counter(c for h in game.hands for c in h) - Counter([card("WSH")])
    evs = game.apply(play(card("WSH"), BLUE))
    shuffled = of_type(evs, events.HandsShuffled)
    assert shuffled == [events.HandsShuffled(0, (2, 3, 2, 2))]
    assert Counter(c for h in game.hands for c in h) == before
    assert game.active_color is BLUE and game.decider == 1
    assert {e.seat for e in of_type(evs, events.HandReplaced)} == {0, 1, 2, 3}


def test_shuffle_hands_leaves_the_direction_and_deals_from_the_left_when_play_goes_right() -> None:
    game = table("RR G5 G6", "G1 G2 G3", "B1 B2", "WSH R4 Y2", starter="R9",
                 rule_set=rules(deck="2018"))
    game.apply(play(card("RR")))              # play now goes right: seat 3 is next
    assert game.decider == 3
    evs = game.apply(play(card("WSH"), GREEN))
    # 2 + 3 + 2 + 2 = 9 cards dealt from seat 0 (left of seat 3), clockwise.
    assert of_type(evs, events.HandsShuffled) == [events.HandsShuffled(3, (3, 2, 2, 2))]
    assert game.direction == -1 and game.decider == 2
