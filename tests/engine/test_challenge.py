"""RULES.md section 5: challenging a Wild Draw Four.

By default (`draw_four_bluffing = true`) a player may play a Wild Draw Four while
holding a card of the active colour, a bluff, and only a challenge enforces
section 3's colour condition: the bluff is guilty. A Wild Draw Four the
condition allows is not guilty. With bluffing off, only those are ever played.
"""

from __future__ import annotations

import pytest

from arena.engine import (
    ACCEPT,
    CALL_UNO,
    CHALLENGE,
    DRAW,
    PASS,
    Phase,
    catch,
    events,
    play,
)
from tests.engine.helpers import (
    BLUE,
    FILL,
    GREEN,
    RED,
    SEAT1,
    SEAT2,
    card,
    hand,
    of_type,
    rules,
    table,
)

DRAWS = "B1 B2 B3 B4 B5 B6 B7 B8"


def test_only_the_player_who_would_draw_the_four_may_challenge() -> None:
    game = table("W+4 G1 G2", FILL, FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), BLUE))
    assert game.phase is Phase.CHALLENGE and game.decider == 1
    assert game.legal_actions() == [CHALLENGE, ACCEPT]


def test_a_legal_wild_draw_four_challenged_is_not_guilty_and_the_challenger_draws_six() -> None:
    game = table("W+4 G1 G2", FILL, FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(1, 0, False)]
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(1, 6, events.DrawReason.CHALLENGE_FAILED)
    ]
    assert of_type(evs, events.TurnSkipped) == [events.TurnSkipped(1)]
    assert len(game.hands[1]) == 9 and game.decider == 2 and game.active_color is BLUE


def test_the_challenge_penalty_beyond_the_four_is_a_setting() -> None:
    game = table("W+4 G1 G2", FILL, FILL, starter="R7", draw=DRAWS,
                 rule_set=rules(challenge_extra_penalty=0))
    game.apply(play(card("W+4"), BLUE))
    game.apply(CHALLENGE)
    assert len(game.hands[1]) == 7


def test_a_challenge_shows_the_accused_hand_to_the_challenger_alone() -> None:
    game = table("W+4 G1 G2", FILL, FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(CHALLENGE)
    revealed = of_type(evs, events.HandRevealed)
    assert revealed == [events.HandRevealed(0, 1, tuple(game.hands[0]))]
    assert revealed[0].audience == frozenset({1})
    assert game.view(1).revealed == ((0, tuple(game.hands[0])),)
    assert game.view(0).revealed == () and game.view(2).revealed == ()


def test_guilt_asks_about_the_colour_active_before_the_draw_four_not_the_declared_one() -> None:
    # Seat 0 holds blue and declares blue: legal, since red was active.
    game = table("W+4 B1 B2", FILL, FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved)[0].guilty is False


def test_cards_matching_only_by_number_or_wilds_do_not_make_a_draw_four_guilty() -> None:
    game = table("W+4 G7 W", FILL, FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), GREEN))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved)[0].guilty is False


def test_a_bluffed_wild_draw_four_challenged_is_guilty_and_its_player_draws_four() -> None:
    # Seat 0 holds R1, a card of the active colour: the Wild Draw Four is a bluff.
    game = table("W+4 R1 G2", "B9 R9 Y9", FILL, starter="R7", draw=DRAWS)
    assert play(card("W+4"), BLUE) in game.legal_actions()
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.HandRevealed) == [
        events.HandRevealed(0, 1, (card("R1"), card("G2")))
    ]
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(1, 0, True)]
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(0, 4, events.DrawReason.CHALLENGE_GUILTY)
    ]
    assert hand(game, 0) == "R1 G2 B1 B2 B3 B4"
    # The challenger draws nothing and takes the turn, under the declared colour.
    assert hand(game, 1) == "B9 R9 Y9" and not of_type(evs, events.TurnSkipped)
    assert game.decider == 1 and game.phase is Phase.PLAY and game.active_color is BLUE


def test_guilty_the_challenger_draws_nothing_and_plays_under_the_declared_colour() -> None:
    game = table("W+4 R1 G2", "B9 R9 Y9", FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), BLUE))
    game.apply(CHALLENGE)
    assert hand(game, 1) == "B9 R9 Y9"
    assert game.decider == 1 and game.phase is Phase.PLAY and game.active_color is BLUE
    assert {a.card.short() for a in game.legal_actions() if a.card} == {"B9"}


def test_guilt_counts_a_bluff_that_declares_the_colour_already_active() -> None:
    game = table("W+4 R1 G2", FILL, FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), RED))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved)[0].guilty is True
    assert game.decider == 1 and game.active_color is RED


def test_a_bluff_is_guilty_of_the_colour_a_wild_declared_not_the_wilds_own() -> None:
    # Blue was declared by seat 0's Wild; seat 1 bluffs holding blue.
    game = table("W G1 G2", "W+4 B3 Y4", FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W"), BLUE))
    game.apply(play(card("W+4"), GREEN))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(2, 1, True)]
    assert len(game.hands[1]) == 6 and game.decider == 2


@pytest.mark.parametrize(("rule", "guilty"), [("no_active_color", False),
                                              ("no_color_or_number", True)])
def test_holding_the_top_cards_number_is_guilty_only_under_the_colour_or_number_decision(
        rule: str, guilty: bool) -> None:
    # Seat 0 holds no red, but holds G7, the number of the R7 the Wild Draw Four went on.
    game = table("W+4 G7 B5", FILL, FILL, starter="R7", draw=DRAWS,
                 rule_set=rules(wild_draw_four_rule=rule))
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(1, 0, guilty)]
    drawer = 0 if guilty else 1
    assert of_type(evs, events.CardsDrawn)[0].seat == drawer


def test_the_colour_or_number_decision_counts_the_number_not_a_symbol() -> None:
    # A Skip on a Skip matches by symbol, not number: not guilty under either decision.
    game = table("W+4 GS B5", FILL, FILL, starter="RS", draw=DRAWS, dealer=1,
                 rule_set=rules(wild_draw_four_rule="no_color_or_number"))
    assert game.decider == 0
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved)[0].guilty is False


def test_a_bluffed_drawn_wild_draw_four_challenged_is_guilty() -> None:
    game = table("R2 G3", FILL, FILL, starter="R7", draw="W+4 " + DRAWS)
    game.apply(DRAW)
    assert game.phase is Phase.PLAY_DRAWN
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.HandRevealed) == [
        events.HandRevealed(0, 1, (card("R2"), card("G3")))
    ]
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(1, 0, True)]
    assert hand(game, 0) == "R2 G3 B1 B2 B3 B4" and game.decider == 1


def test_a_bluff_accepted_stands_and_the_next_player_draws_four() -> None:
    game = table("W+4 R1 G2", FILL, FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(ACCEPT)
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(1, 4, events.DrawReason.DRAW_FOUR)
    ]
    assert not of_type(evs, events.HandRevealed)
    assert game.decider == 2 and game.active_color is BLUE


def test_without_bluffing_no_challenge_can_be_guilty() -> None:
    # Seat 0 holds red: the Wild Draw Four is not offered, so it cannot be played.
    rule_set = rules(draw_four_bluffing=False)
    game = table("W+4 R1 G2", FILL, FILL, starter="R7", draw=DRAWS, rule_set=rule_set)
    assert all(a.card != card("W+4") for a in game.legal_actions())
    game = table("W+4 G1 G2", FILL, FILL, starter="R7", draw=DRAWS, rule_set=rule_set)
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(1, 0, False)]


def test_two_players_a_failed_challenge_lets_the_player_of_the_draw_four_play_again() -> None:
    game = table("W+4 G1 G2", FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), BLUE))
    game.apply(CHALLENGE)
    assert len(game.hands[1]) == 9 and game.decider == 0


def test_two_players_a_guilty_challenge_gives_the_challenger_the_turn() -> None:
    game = table("W+4 R1 G2", FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), BLUE))
    game.apply(CHALLENGE)
    assert len(game.hands[0]) == 6 and game.decider == 1


def test_the_hand_shown_is_the_one_judged_without_cards_drawn_since() -> None:
    # Seat 0 forgets UNO with the Wild Draw Four and is caught before the challenge:
    # the red penalty cards are not shown, and do not make the play guilty.
    game = table("W+4 G1", FILL, FILL, starter="R7", draw="R2 R3 " + DRAWS)
    game.apply(play(card("W+4"), BLUE))
    game.apply(PASS)            # seat 0 does not call late
    game.apply(catch(0))        # seat 1 catches
    assert hand(game, 0) == "G1 R2 R3"
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.HandRevealed) == [events.HandRevealed(0, 1, (card("G1"),))]
    assert of_type(evs, events.ChallengeResolved)[0].guilty is False


def test_a_late_uno_call_comes_before_the_challenge() -> None:
    game = table("W+4 G1", FILL, FILL, starter="R7", draw=DRAWS)
    game.apply(play(card("W+4"), BLUE))
    assert game.phase is Phase.CATCH_WINDOW and game.decider == 0
    game.apply(CALL_UNO)
    assert (game.phase, game.decider) == (Phase.CHALLENGE, 1)


def test_what_a_challenge_revealed_is_forgotten_when_the_next_hand_starts() -> None:
    game = table("W+4 G1", FILL, FILL, starter="R7", draw=DRAWS,
                 rule_set=rules(target_score=10_000))
    game.apply(play(card("W+4"), GREEN, uno=True))
    game.apply(CHALLENGE)           # fails: seat 1 draws B1-B6 and loses the turn
    assert game.view(1).revealed
    game.apply(DRAW)                # seat 2 draws B7, which is not green
    game.apply(play(card("G1")))    # seat 0 goes out
    assert game.hand_number == 2 and game.view(1).revealed == ()


def test_a_going_out_wild_draw_four_cannot_be_challenged() -> None:
    game = table("W+4", SEAT1, SEAT2, starter="R7", draw="B1 B2 B3 B4",
                 rule_set=rules(target_score=None))
    evs = game.apply(play(card("W+4"), BLUE))
    assert not of_type(evs, events.ChallengeResolved) and game.is_over


def test_a_going_out_wild_draw_four_challenged_when_configured_is_never_guilty() -> None:
    # Even with bluffing, the hand judged is the one kept after the play, and a
    # going-out Wild Draw Four keeps none: it cannot be a bluff, so the challenge fails.
    rule_set = rules(target_score=None, going_out_draw_four_challengeable=True)
    assert rule_set.draw_four_bluffing
    game = table("W+4", SEAT1, SEAT2, starter="R7", draw="B1 B2 B3 B4 B5 B6",
                 rule_set=rule_set)
    game.apply(play(card("W+4"), BLUE))
    assert game.phase is Phase.CHALLENGE and game.legal_actions() == [CHALLENGE, ACCEPT]
    evs = game.apply(CHALLENGE)
    assert of_type(evs, events.HandRevealed) == [events.HandRevealed(0, 1, ())]
    assert of_type(evs, events.ChallengeResolved) == [events.ChallengeResolved(1, 0, False)]
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(1, 6, events.DrawReason.CHALLENGE_FAILED)
    ]
    ended = of_type(evs, events.HandEnded)[0]
    assert ended.winner == 0 and ended.points == (71 + 21 + 79, 0, 0)


def test_a_challengeable_going_out_wild_draw_four_accepted_draws_four_and_ends_the_hand() -> None:
    rule_set = rules(target_score=None, going_out_draw_four_challengeable=True)
    game = table("W+4", SEAT1, SEAT2, starter="R7", draw="B1 B2 B3 B4", rule_set=rule_set)
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(ACCEPT)
    assert of_type(evs, events.HandEnded)[0].points == (71 + 10 + 79, 0, 0) and game.is_over
