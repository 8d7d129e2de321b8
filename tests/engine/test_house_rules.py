"""RULES.md section 10: the house rules, each off by default and opt-in."""

from __future__ import annotations

import pytest

from arena.engine import (
    ACCEPT,
    CHALLENGE,
    DRAW,
    KEEP,
    PASS,
    IllegalActionError,
    Phase,
    events,
    play,
)
from tests.engine.helpers import (
    BLUE,
    FILL,
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

DRAWS = "B1 B2 B3 B4 B5 B6 B7 B8 B9 B1 B2 B3"


def test_every_house_rule_is_off_by_default() -> None:
    assert rules().house_rules() == []
    on = rules(progressive=True, seven_o=True, jump_in=True, draw_to_match=True,
               force_play=True, last_card_no_action=True)
    assert on.house_rules() == ["progressive", "seven_o", "jump_in", "draw_to_match",
                                "force_play", "last_card_no_action"]


# ------------------------------------------------------------------ progressive

PROGRESSIVE = rules(progressive=True)


def test_progressive_a_player_hit_by_a_draw_two_may_answer_with_a_draw_two() -> None:
    game = table("R+2 R1 R2", "B+2 G1 G2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("R+2")))
    assert game.phase is Phase.STACK and game.decider == 1
    assert game.legal_actions() == [play(card("B+2")), ACCEPT]
    assert game.view(1).pending_draw == 2


def test_progressive_the_total_grows_and_the_first_who_does_not_stack_draws_it_all() -> None:
    game = table("R+2 R1 R2", "B+2 G1 G2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("R+2")))
    evs = game.apply(play(card("B+2")))          # seat 2 holds no Draw Two
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(2, 4, events.DrawReason.DRAW_TWO)
    ]
    assert of_type(evs, events.TurnSkipped) == [events.TurnSkipped(2)]
    assert len(game.hands[2]) == 7 and game.decider == 0


def test_progressive_a_player_who_could_stack_may_accept_and_draw_the_total() -> None:
    game = table("R+2 R1 R2", "B+2 G1 G2", "G+2 Y1 Y2", starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("R+2")))
    game.apply(play(card("B+2")))
    assert game.phase is Phase.STACK and game.decider == 2
    evs = game.apply(ACCEPT)
    assert of_type(evs, events.CardsDrawn) == [events.CardsDrawn(2, 4, events.DrawReason.STACK)]
    assert game.decider == 0 and game.view(0).pending_draw == 0


def test_progressive_a_wild_draw_four_may_be_answered_with_a_wild_draw_four() -> None:
    game = table("W+4 G1 G2", "W+4 Y1 Y2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("W+4"), BLUE))
    legal = game.legal_actions()
    assert legal[:2] == [CHALLENGE, ACCEPT]
    assert {a.color for a in legal[2:]} == {RED, YELLOW, GREEN, BLUE}
    game.apply(play(card("W+4"), GREEN))
    assert game.phase is Phase.CHALLENGE and game.decider == 2
    evs = game.apply(ACCEPT)
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(2, 8, events.DrawReason.DRAW_FOUR)
    ]
    assert game.decider == 0 and game.active_color is GREEN


def test_progressive_never_mixes_a_draw_two_on_a_wild_draw_four() -> None:
    game = table("W+4 G1 G2", "B+2 Y1 Y2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("W+4"), BLUE))
    assert game.legal_actions() == [CHALLENGE, ACCEPT]


def test_progressive_never_mixes_a_wild_draw_four_on_a_draw_two() -> None:
    game = table("R+2 R1 R2", "W+4 G1 G2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("R+2")))
    assert len(game.hands[1]) == 5 and game.decider == 2   # drew 2 at once


def test_progressive_a_stacked_wild_draw_four_must_itself_be_legal_when_bluffing_is_off() -> None:
    # Seat 1 holds blue, the colour the first Wild Draw Four declared.
    game = table("W+4 G1 G2", "W+4 B1 Y2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE.with_changes(draw_four_bluffing=False))
    game.apply(play(card("W+4"), BLUE))
    assert game.legal_actions() == [CHALLENGE, ACCEPT]
    before = snapshot(game)
    with pytest.raises(IllegalActionError):
        game.apply(play(card("W+4"), RED))
    assert snapshot(game) == before


def test_progressive_a_stacked_wild_draw_four_may_be_bluffed() -> None:
    # Seat 1 holds blue, the colour the first Wild Draw Four declared: by default
    # it may stack anyway, and only a challenge judges it.
    game = table("W+4 G1 G2", "W+4 B1 Y2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("W+4"), BLUE))
    legal = game.legal_actions()
    assert legal[:2] == [CHALLENGE, ACCEPT]
    assert {a.color for a in legal[2:]} == {RED, YELLOW, GREEN, BLUE}
    game.apply(play(card("W+4"), RED))
    assert game.phase is Phase.CHALLENGE and game.decider == 2
    assert game.view(2).pending_draw == 8


def test_progressive_a_player_may_stack_or_challenge_but_not_both() -> None:
    game = table("W+4 G1 G2", "W+4 Y1 Y2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("W+4"), BLUE))
    game.apply(play(card("W+4"), GREEN))
    assert game.decider == 2                   # seat 1's decision is over
    game = table("W+4 G1 G2", "W+4 Y1 Y2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("W+4"), BLUE))
    game.apply(CHALLENGE)
    assert game.phase is Phase.PLAY and game.decider == 2
    assert card("W+4") in game.hands[1]       # no stacking after the challenge


def test_progressive_a_failed_challenge_costs_the_stacked_total_plus_two() -> None:
    game = table("W+4 G1 G2", "W+4 Y1 Y2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("W+4"), BLUE))
    game.apply(play(card("W+4"), GREEN))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(2, 1, False)]
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(2, 10, events.DrawReason.CHALLENGE_FAILED)
    ]
    assert game.decider == 0


def test_progressive_a_stacked_wild_draw_four_bluff_challenged_is_guilty_of_the_total() -> None:
    # Seat 1 stacks while holding green, the colour seat 0 declared: a bluff. The
    # accused draws the whole pending total; the challenger draws nothing and plays.
    game = table("W+4 G1 G2", "W+4 G3 Y2", "B9 R9 Y9", starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("W+4"), GREEN))
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.HandRevealed) == [
        events.HandRevealed(1, 2, (card("G3"), card("Y2")))
    ]
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(2, 1, True)]
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(1, 8, events.DrawReason.CHALLENGE_GUILTY)
    ]
    assert hand(game, 2) == "B9 R9 Y9" and game.view(2).pending_draw == 0
    assert game.decider == 2 and game.phase is Phase.PLAY and game.active_color is BLUE


def test_progressive_a_stacked_wild_draw_four_is_judged_on_the_colour_declared_before_it() -> None:
    # Seat 1 holds red, the colour active before seat 0's Wild Draw Four, but not
    # green, the colour seat 0 declared: its stacked Wild Draw Four is not guilty.
    game = table("W+4 G1 G2", "W+4 R3 Y2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE)
    game.apply(play(card("W+4"), GREEN))
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(2, 1, False)]
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(2, 10, events.DrawReason.CHALLENGE_FAILED)
    ]


def test_progressive_going_out_on_a_stacked_draw_two_the_next_player_draws_the_total() -> None:
    game = table("R+2 R1 R2", "B+2", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE.with_changes(target_score=None))
    game.apply(play(card("R+2")))
    evs = game.apply(play(card("B+2")))
    assert of_type(evs, events.CardsDrawn)[0] == events.CardsDrawn(
        2, 4, events.DrawReason.DRAW_TWO
    )
    assert of_type(evs, events.HandEnded)[0].winner == 1


def test_without_progressive_a_draw_two_is_never_stacked() -> None:
    game = table("R+2 R1 R2", "B+2 G1 G2", FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("R+2")))
    assert game.decider == 2 and len(game.hands[1]) == 5


# ------------------------------------------------------------------ seven-o

SEVEN_O = rules(seven_o=True)


def test_seven_o_playing_a_seven_swaps_hands_with_a_player_of_your_choice() -> None:
    game = table("R7 R1 R2", "G1 G2", "B1 B2 B3 B4", starter="R5", rule_set=SEVEN_O)
    assert {a.target for a in game.legal_actions() if a.card == card("R7")} == {1, 2}
    with pytest.raises(IllegalActionError):
        game.apply(play(card("R7")))          # a seven needs a target
    evs = game.apply(play(card("R7"), target=2))
    assert of_type(evs, events.HandsSwapped) == [events.HandsSwapped(0, 2)]
    assert hand(game, 0) == "B1 B2 B3 B4" and hand(game, 2) == "R1 R2"
    replaced = of_type(evs, events.HandReplaced)
    assert [(e.seat, e.audience) for e in replaced] == [(0, frozenset({0})),
                                                        (2, frozenset({2}))]
    assert game.decider == 1


def test_seven_o_playing_a_zero_passes_every_hand_to_the_next_player() -> None:
    game = table("R0 R1 R2", "G1 G2", "B1 B2 B3 B4", starter="R5", rule_set=SEVEN_O)
    evs = game.apply(play(card("R0")))
    assert of_type(evs, events.HandsRotated) == [events.HandsRotated(1)]
    assert hand(game, 1) == "R1 R2" and hand(game, 2) == "G1 G2"
    assert hand(game, 0) == "B1 B2 B3 B4"
    assert game.decider == 1


def test_seven_o_a_zero_passes_hands_in_the_direction_of_play() -> None:
    game = table("RR R1 R2", "G1 G2", "B1 B2 B3 B4", "R0 Y1 Y2", starter="R5",
                 rule_set=SEVEN_O)
    game.apply(play(card("RR")))              # play goes right: seat 3 is next
    game.apply(play(card("R0")))
    assert hand(game, 2) == "Y1 Y2"           # seat 3's hand went to seat 2
    assert hand(game, 3) == "R1 R2"           # seat 0's hand went to seat 3
    assert hand(game, 1) == "B1 B2 B3 B4" and hand(game, 0) == "G1 G2"


def test_without_seven_o_sevens_and_zeros_are_plain_numbers() -> None:
    game = table("R7 R0 R1", "G1 G2", "B1 B2", starter="R5")
    assert play(card("R7")) in game.legal_actions()
    evs = game.apply(play(card("R7")))
    assert not of_type(evs, events.HandsSwapped) and hand(game, 0) == "R0 R1"


# ------------------------------------------------------------------ jump-in

JUMP_IN = rules(jump_in=True)


def test_jump_in_a_player_holding_the_identical_card_may_play_it_out_of_turn() -> None:
    game = table("R5 R1 R2", FILL, "R5 G1 G2", FILL, starter="R7", rule_set=JUMP_IN)
    game.apply(play(card("R5")))
    assert game.phase is Phase.JUMP_IN and game.decider == 2
    assert game.legal_actions() == [play(card("R5")), PASS]
    evs = game.apply(play(card("R5")))
    played = of_type(evs, events.CardPlayed)
    assert played == [events.CardPlayed(2, card("R5"), RED, False, True)]


def test_jump_in_play_continues_from_the_jumper() -> None:
    game = table("R5 R1 R2", FILL, "R5 G1 G2", FILL, starter="R7", rule_set=JUMP_IN)
    game.apply(play(card("R5")))
    game.apply(play(card("R5")))
    assert game.phase is Phase.PLAY and game.decider == 3   # seat 1 lost its turn


def test_jump_in_only_the_jumped_in_cards_effect_applies() -> None:
    game = table("RS R1 R2", FILL, "RS G1 G2", FILL, starter="R7", rule_set=JUMP_IN)
    game.apply(play(card("RS")))
    evs = game.apply(play(card("RS")))
    assert of_type(evs, events.TurnSkipped) == [events.TurnSkipped(3)]
    assert game.decider == 0


def test_jump_in_when_nobody_jumps_the_card_takes_effect_as_usual() -> None:
    game = table("RS R1 R2", FILL, "RS G1 G2", FILL, starter="R7", rule_set=JUMP_IN)
    game.apply(play(card("RS")))
    evs = game.apply(PASS)
    assert of_type(evs, events.TurnSkipped) == [events.TurnSkipped(1)]
    assert game.decider == 2


def test_jump_in_needs_the_same_colour_and_the_same_number_or_symbol() -> None:
    game = table("R5 R1 R2", "G5 Y5", "R6 RS", starter="R7", rule_set=JUMP_IN)
    game.apply(play(card("R5")))
    assert game.phase is Phase.PLAY and game.decider == 1


def test_jump_in_holders_are_asked_in_play_order_from_the_next_player() -> None:
    game = table("R5 R1 R2", FILL, "R5 G1 G2", "R5 B1 B2", starter="R7", rule_set=JUMP_IN)
    game.apply(play(card("R5")))
    assert game.decider == 2
    game.apply(PASS)
    assert game.decider == 3 and game.phase is Phase.JUMP_IN
    game.apply(play(card("R5")))                 # seat 3 jumps in
    assert game.decider == 2 and game.phase is Phase.JUMP_IN  # a jump-in may be jumped
    game.apply(PASS)
    assert (game.phase, game.decider) == (Phase.PLAY, 0)   # play goes on from seat 3


def test_jump_in_is_not_offered_on_wild_cards() -> None:
    game = table("W R1 R2", "W G1 G2", FILL, starter="R7", rule_set=JUMP_IN)
    game.apply(play(card("W"), BLUE))
    assert game.phase is Phase.PLAY and game.decider == 1


def test_jump_in_with_the_last_card_goes_out() -> None:
    game = table("R5 R1 R2", FILL, "R5", starter="R7",
                 rule_set=JUMP_IN.with_changes(target_score=None))
    game.apply(play(card("R5")))
    evs = game.apply(play(card("R5")))
    assert of_type(evs, events.HandEnded)[0].winner == 2


def test_without_jump_in_nobody_plays_out_of_turn() -> None:
    game = table("R5 R1 R2", FILL, "R5 G1 G2", starter="R7")
    game.apply(play(card("R5")))
    assert game.phase is Phase.PLAY and game.decider == 1


# ------------------------------------------------------------------ draw to match

DRAW_TO_MATCH = rules(draw_to_match=True)


def test_draw_to_match_a_player_who_draws_keeps_drawing_until_a_playable_card() -> None:
    game = table("G1 G2", FILL, starter="R7", draw="B1 B2 R9 B3", rule_set=DRAW_TO_MATCH)
    evs = game.apply(DRAW)
    assert [e.count for e in of_type(evs, events.CardsDrawn)] == [1, 1, 1]
    assert hand(game, 0) == "G1 G2 B1 B2 R9"
    assert game.phase is Phase.PLAY_DRAWN and game.legal_actions() == [play(card("R9")), KEEP]


def test_draw_to_match_stops_when_nothing_is_left_to_draw() -> None:
    game = table("G1 G2", FILL, starter="R7", draw="B1 B2", rule_set=DRAW_TO_MATCH)
    game.apply(DRAW)
    assert hand(game, 0) == "G1 G2 B1 B2" and game.decider == 1


def test_without_draw_to_match_a_player_draws_one_card() -> None:
    game = table("G1 G2", FILL, starter="R7", draw="B1 B2 R9")
    game.apply(DRAW)
    assert hand(game, 0) == "G1 G2 B1" and game.decider == 1


def test_draw_to_match_does_not_stop_at_a_wild_draw_four_that_would_be_a_bluff() -> None:
    game = table("R1 G2", FILL, starter="R7", draw="W+4 B2 R9", rule_set=DRAW_TO_MATCH)
    game.apply(DRAW)
    assert hand(game, 0) == "R1 G2 W+4 B2 R9"
    assert game.phase is Phase.PLAY_DRAWN and game.view(0).drawn_card == card("R9")


# ------------------------------------------------------------------ force play

FORCE_PLAY = rules(force_play=True)


def test_force_play_a_drawn_playable_card_must_be_played() -> None:
    game = table("G1 G2", FILL, starter="R7", draw="R9", rule_set=FORCE_PLAY)
    game.apply(DRAW)
    assert game.legal_actions() == [play(card("R9"))]
    with pytest.raises(IllegalActionError):
        game.apply(KEEP)


def test_force_play_a_drawn_unplayable_card_just_ends_the_turn() -> None:
    game = table("G1 G2", FILL, starter="R7", draw="B9", rule_set=FORCE_PLAY)
    game.apply(DRAW)
    assert game.decider == 1


def test_force_play_never_forces_a_bluffed_wild_draw_four() -> None:
    game = table("R1 G2", FILL, starter="R7", draw="W+4", rule_set=FORCE_PLAY)
    game.apply(DRAW)
    assert game.phase is Phase.PLAY_DRAWN
    assert KEEP in game.legal_actions()
    assert {a.card for a in game.legal_actions() if a.card} == {card("W+4")}


def test_force_play_with_draw_to_match_plays_the_card_drawn_at_last() -> None:
    game = table("G1 G2", FILL, starter="R7", draw="B1 W",
                 rule_set=rules(force_play=True, draw_to_match=True))
    game.apply(DRAW)
    assert {a.card for a in game.legal_actions()} == {card("W")}


# ------------------------------------------------------------------ last card

LAST_CARD = rules(last_card_no_action=True)


@pytest.mark.parametrize("last", ["RS", "RR", "R+2", "W+4"])
def test_last_card_a_player_may_not_go_out_on_an_action_card(last: str) -> None:
    game = table(last, FILL, FILL, starter="R7", draw="B1", rule_set=LAST_CARD)
    assert game.legal_actions() == [DRAW]


@pytest.mark.parametrize("last", ["R1", "W"])
def test_last_card_a_player_may_go_out_on_a_number_or_a_wild(last: str) -> None:
    game = table(last, FILL, FILL, starter="R7", rule_set=LAST_CARD.with_changes(
        target_score=None))
    action = next(a for a in game.legal_actions() if a.card == card(last))
    game.apply(action)
    assert game.is_over


def test_last_card_an_action_card_may_still_be_played_before_the_last() -> None:
    game = table("RS R1", FILL, FILL, starter="R7", rule_set=LAST_CARD)
    assert play(card("RS"), uno=True) in game.legal_actions()


def test_last_card_forbids_going_out_by_stacking_or_jumping_in_on_an_action() -> None:
    game = table("R+2 R1 R2", "B+2", FILL, starter="R7", draw=DRAWS,
                 rule_set=rules(last_card_no_action=True, progressive=True))
    game.apply(play(card("R+2")))
    assert len(game.hands[1]) == 3 and game.decider == 2   # could not stack: drew 2
    game = table("RS R1 R2", FILL, "RS", starter="R7",
                 rule_set=rules(last_card_no_action=True, jump_in=True))
    game.apply(play(card("RS")))
    assert game.phase is Phase.JUMP_IN and game.legal_actions() == [PASS]


# ------------------------------------------------------------------ illegal play penalty


def test_an_illegal_action_costs_nothing_in_the_engine_it_is_refused_unchanged() -> None:
    # The cost of an invalid action is the tournament's bot policy, not a rule.
    game = table("R1 G2 G3", FILL, starter="R7", draw=DRAWS)
    before = snapshot(game)
    with pytest.raises(IllegalActionError, match="not legal"):
        game.apply(play(card("G2")))
    assert snapshot(game) == before


def test_progressive_going_out_on_a_stacked_wild_draw_four_the_next_player_draws_it_all() -> None:
    game = table("W+4 G1 G2", "W+4", FILL, starter="R7", draw=DRAWS,
                 rule_set=PROGRESSIVE.with_changes(target_score=None))
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(play(card("W+4"), GREEN))
    assert not of_type(evs, events.ChallengeResolved)
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(2, 8, events.DrawReason.DRAW_FOUR)
    ]
    assert of_type(evs, events.HandEnded)[0].winner == 1


def test_a_forfeit_ends_the_game_with_the_forfeiting_seat_last() -> None:
    # Forfeit is the server's bot policy for invalid actions, not a rule of play.
    game = table("R1 G2 G3", FILL, FILL, starter="R7", draw=DRAWS)
    evs = game.forfeit(1)
    assert game.outcome is not None and game.outcome.termination.value == "forfeit"
    assert game.outcome.ranks[1] == 2 and game.outcome.winners == (0, 2)
    assert of_type(evs, events.GameEnded) and game.legal_actions() == []
    assert game.forfeit(0) == []
