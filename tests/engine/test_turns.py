"""RULES.md section 3: a turn is one play or one draw."""

from __future__ import annotations

import pytest

from arena.engine import (
    CHALLENGE,
    DRAW,
    KEEP,
    Game,
    IllegalActionError,
    Phase,
    events,
    play,
)
from tests.engine.helpers import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    card,
    hand,
    of_type,
    rules,
    snapshot,
    table,
)


def playable(game: Game) -> set[str]:
    """The cards the seat to play may play now."""
    return {a.card.short() for a in game.legal_actions() if a.card is not None}


def test_a_card_matching_the_top_cards_colour_may_be_played() -> None:
    game = table("R2 G3 B4", "Y1", starter="R7")
    assert playable(game) == {"R2"}


def test_a_card_matching_the_top_cards_number_may_be_played() -> None:
    game = table("G7 B4", "Y1", starter="R7")
    assert playable(game) == {"G7"}


@pytest.mark.parametrize("symbol", ["S", "R", "+2"])
def test_a_card_matching_the_top_cards_symbol_may_be_played(symbol: str) -> None:
    # Seat 0 deals; after a Skip or a Draw Two turned up, seat 2 plays first,
    # after a Reverse the dealer does.
    first = 0 if symbol == "R" else 2
    hands = ["Y1 Y2 Y3", "Y4 Y5 Y6", "Y7 Y8 Y9"]
    hands[first] = f"G{symbol} B4 B5"
    game = table(*hands, starter=f"R{symbol}", draw="Y0 Y0", dealer=0)
    assert game.decider == first
    assert playable(game) == {f"G{symbol}"}


def test_a_card_matching_neither_colour_number_nor_symbol_may_not_be_played() -> None:
    game = table("G3 B4 YS", "Y1", starter="R7")
    before = snapshot(game)
    for c in ("G3", "B4", "YS"):
        with pytest.raises(IllegalActionError):
            game.apply(play(card(c)))
    assert snapshot(game) == before
    assert game.legal_actions() == [DRAW]


def test_a_wild_may_always_be_played() -> None:
    game = table("W R2", "Y1", starter="R7")
    assert playable(game) == {"W", "R2"}
    game = table("W G2", "Y1", starter="R7")
    assert playable(game) == {"W"}


def test_after_a_wild_the_declared_colour_is_matched_not_the_wild() -> None:
    game = table("W G2 G3", "B5 R5 W", "Y1", starter="R7")
    game.apply(play(card("W"), BLUE))
    assert game.active_color is BLUE
    assert playable(game) == {"B5", "W"}  # R5 matches neither blue nor a wild's symbol


def test_playing_a_wild_declares_any_colour_even_the_active_one() -> None:
    game = table("W G2", "Y1", starter="R7")
    colours = {a.color for a in game.legal_actions() if a.card == card("W")}
    assert colours == {RED, YELLOW, GREEN, BLUE}
    game.apply(play(card("W"), RED))
    assert game.active_color is RED


def test_a_wild_played_without_a_colour_is_illegal() -> None:
    game = table("W G2", "Y1", starter="R7")
    with pytest.raises(IllegalActionError):
        game.apply(play(card("W")))


def test_a_coloured_card_played_with_a_colour_is_illegal() -> None:
    game = table("R2 G2", "Y1", starter="R7")
    with pytest.raises(IllegalActionError):
        game.apply(play(card("R2"), BLUE))


# RULES.md section 3's colour condition. By default a Wild Draw Four may be
# bluffed: every one held is offered and only a challenge enforces the condition
# (test_challenge.py). With `draw_four_bluffing = false` the condition is a
# condition of legality, as these tests show.

NO_BLUFFING = rules(draw_four_bluffing=False)


def test_a_wild_draw_four_may_be_bluffed_while_holding_the_active_colour() -> None:
    game = table("W+4 R3 G5", "Y1", starter="R7")
    assert playable(game) == {"W+4", "R3"}
    assert {a.color for a in game.legal_actions() if a.card == card("W+4")} == {
        RED, YELLOW, GREEN, BLUE
    }
    game.apply(play(card("W+4"), BLUE))
    assert game.phase is Phase.CHALLENGE and game.decider == 1 and game.active_color is BLUE


def test_a_wild_draw_four_may_be_bluffed_holding_the_colour_a_wild_declared() -> None:
    game = table("W B1 B2", "W+4 B2 R3", "Y1", starter="R7")
    game.apply(play(card("W"), BLUE))
    assert playable(game) == {"W+4", "B2"}


def test_a_wild_draw_four_may_be_bluffed_under_the_colour_or_number_decision() -> None:
    game = table("W+4 G7 B5", "Y1", starter="R7",
                 rule_set=rules(wild_draw_four_rule="no_color_or_number"))
    assert playable(game) == {"W+4", "G7"}


def test_wild_draw_four_is_illegal_while_holding_the_active_colour_when_bluffing_is_off() -> None:
    game = table("W+4 R3 G5", "Y1", starter="R7", rule_set=NO_BLUFFING)
    assert playable(game) == {"R3"}
    before = snapshot(game)
    with pytest.raises(IllegalActionError):
        game.apply(play(card("W+4"), BLUE))
    assert snapshot(game) == before


def test_number_or_symbol_matches_allow_a_wild_draw_four_when_bluffing_is_off() -> None:
    game = table("W+4 G7 YR", "Y1", starter="RR", dealer=0,  # a Reverse: the dealer starts
                 rule_set=NO_BLUFFING)
    assert playable(game) == {"W+4", "YR"}
    game = table("W+4 G7 B5", "Y1", starter="R7", rule_set=NO_BLUFFING)
    assert playable(game) == {"W+4", "G7"}


def test_wild_cards_do_not_count_as_the_active_colour_when_bluffing_is_off() -> None:
    game = table("W+4 W G5", "Y1", starter="R7", rule_set=NO_BLUFFING)
    assert playable(game) == {"W+4", "W"}


def test_wild_draw_four_checks_the_colour_a_wild_declared_when_bluffing_is_off() -> None:
    game = table("W B1 B2", "W+4 B2 R3", "Y1", starter="R7", rule_set=NO_BLUFFING)
    game.apply(play(card("W"), BLUE))
    assert "W+4" not in playable(game)
    game = table("W B1 B2", "W+4 G2 R3", "Y1", starter="R7", rule_set=NO_BLUFFING)
    game.apply(play(card("W"), BLUE))
    assert "W+4" in playable(game)


def test_colour_or_number_decision_also_needs_no_number_match_when_bluffing_is_off() -> None:
    rule_set = rules(wild_draw_four_rule="no_color_or_number", draw_four_bluffing=False)
    game = table("W+4 G7 B5", "Y1", starter="R7", rule_set=rule_set)
    assert playable(game) == {"G7"}
    game = table("W+4 G6 B5", "Y1", starter="R7", rule_set=rule_set)
    assert playable(game) == {"W+4"}


def test_a_player_may_draw_while_holding_a_playable_card() -> None:
    game = table("R2 G3", "Y1", starter="R7", draw="B9")
    assert DRAW in game.legal_actions()
    game.apply(DRAW)
    assert hand(game, 0) == "R2 G3 B9"
    assert game.decider == 1  # B9 could not be played: the turn is over


def test_a_drawn_playable_card_may_be_played_at_once() -> None:
    game = table("G3 G4", "Y1", starter="R7", draw="R9")
    evs = game.apply(DRAW)
    assert of_type(evs, events.CardsDrawn) == [events.CardsDrawn(0, 1, events.DrawReason.CHOICE)]
    assert game.phase is Phase.PLAY_DRAWN and game.decider == 0
    assert game.drawn_card == game.view(0).drawn_card == card("R9")
    assert game.legal_actions() == [play(card("R9")), KEEP]
    game.apply(play(card("R9")))  # leaves two cards: no UNO to call
    assert game.top_card == card("R9") and game.decider == 1
    assert game.drawn_card is None


def test_a_drawn_playable_card_may_be_kept_and_the_turn_ends() -> None:
    game = table("G3", "Y1", starter="R7", draw="R9")
    game.apply(DRAW)
    evs = game.apply(KEEP)
    assert of_type(evs, events.CardKept) == [events.CardKept(0)]
    assert hand(game, 0) == "G3 R9" and game.decider == 1 and game.phase is Phase.PLAY


def test_a_drawn_unplayable_card_ends_the_turn() -> None:
    game = table("G3", "Y1", starter="R7", draw="B9")
    game.apply(DRAW)
    assert game.decider == 1 and game.phase is Phase.PLAY


def test_after_drawing_no_other_card_may_be_played_that_turn() -> None:
    game = table("R2 R3", "Y1", starter="R7", draw="G7")
    game.apply(DRAW)
    assert game.legal_actions() == [play(card("G7")), KEEP]
    with pytest.raises(IllegalActionError):
        game.apply(play(card("R2")))


def test_a_drawn_wild_draw_four_may_be_bluffed() -> None:
    game = table("R2", "Y1", starter="R7", draw="W+4 B1 B2 B3 B4")
    game.apply(DRAW)
    assert (game.phase, game.decider) == (Phase.PLAY_DRAWN, 0)   # holds red: a bluff
    assert {a.color for a in game.legal_actions() if a.card == card("W+4")} == {
        RED, YELLOW, GREEN, BLUE
    }
    assert KEEP in game.legal_actions()
    game.apply(play(card("W+4"), GREEN, uno=True))
    assert game.phase is Phase.CHALLENGE and game.decider == 1
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(1, 0, True)]


def test_a_drawn_wild_draw_four_obeys_the_colour_condition_when_bluffing_is_off() -> None:
    game = table("R2", "Y1", starter="R7", draw="W+4", rule_set=NO_BLUFFING)
    game.apply(DRAW)
    assert game.phase is Phase.PLAY and game.decider == 1  # held red: not playable
    game = table("G2", "Y1", starter="R7", draw="W+4", rule_set=NO_BLUFFING)
    game.apply(DRAW)
    assert game.phase is Phase.PLAY_DRAWN
    assert {a.color for a in game.legal_actions() if a.card == card("W+4")} == {
        RED, YELLOW, GREEN, BLUE
    }


def test_a_player_made_to_draw_never_plays_those_cards_and_loses_the_turn() -> None:
    game = table("R+2 R1 G1", "R5 G5", "B5 B6", starter="R7", draw="R8 R9")
    game.apply(play(card("R+2")))
    assert hand(game, 1) == "R5 G5 R8 R9"
    assert game.decider == 2 and game.phase is Phase.PLAY


def test_only_the_seat_whose_turn_it_is_decides() -> None:
    game = table("R2", "R3", "R4", starter="R7")
    assert game.decider == 0
    assert all(a.card != card("R3") for a in game.legal_actions())


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    game = table("R2 G3", "Y1", starter="R7", draw="B9")
    before = snapshot(game)
    for action in (play(card("G3")), play(card("Y1")), KEEP, play(card("W"), RED)):
        with pytest.raises(IllegalActionError):
            game.apply(action)
        assert not game.is_legal(action)
    assert snapshot(game) == before


def test_an_action_is_verified_legal_or_not_without_being_applied() -> None:
    game = table("R2 G3", "Y1", starter="R7", draw="B9")
    before = snapshot(game)
    game.verify(play(card("R2")))
    game.verify(DRAW)
    for action in (play(card("G3")), KEEP, CHALLENGE):
        with pytest.raises(IllegalActionError, match="not legal for seat 0"):
            game.verify(action)
    assert snapshot(game) == before


def test_a_seat_sees_its_own_hand_and_only_the_sizes_of_the_others() -> None:
    game = table("G3 G4", "Y1 Y2 Y3", starter="R7", draw="R9")
    game.apply(DRAW)
    mine, theirs = game.view(0), game.view(1)
    assert mine.hand == tuple(game.hands[0]) and theirs.hand == tuple(game.hands[1])
    assert mine.hand_sizes == theirs.hand_sizes == (3, 3)
    assert mine.drawn_card == card("R9") and theirs.drawn_card is None
    received = of_type(game.events, events.CardsReceived)[-1]
    assert received.cards == (card("R9"),) and received.audience == frozenset({0})
    assert of_type(game.events, events.CardsDrawn)[-1].audience is None


def test_a_skip_plays_on_any_card_of_its_colour_not_only_on_a_reverse() -> None:
    # RULES.md section 11: a Skip that only goes on a Reverse is a typo in one guide.
    game = table("RS G1 G2", "Y1", starter="R7")
    assert playable(game) == {"RS"}


def test_every_seat_sees_the_card_just_played_on_top_of_the_discard_pile() -> None:
    game = table("R1 R2", "B9 R3", starter="R7")
    game.apply(play(card("R1")))
    assert [game.view(seat).top_card for seat in (0, 1)] == [card("R1"), card("R1")]
