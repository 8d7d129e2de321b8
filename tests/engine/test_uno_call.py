"""RULES.md section 6: calling UNO, and catching a player who did not.

The engine's catch window (the documented order): right after the play, the
offender is asked first (call late, or pass); then every other seat in play
order from the next player (catch, or pass). The first late call or catch
closes the window; so does the last pass. The card's effect follows.
"""

from __future__ import annotations

import pytest

from arena.engine import (
    CALL_UNO,
    DRAW,
    PASS,
    IllegalActionError,
    Phase,
    catch,
    events,
    play,
)
from tests.engine.helpers import FILL, card, hand, of_type, rules, table

PENALTY = "B1 B2 B3 B4 B5 B6"


def test_calling_uno_with_the_play_that_leaves_one_card_is_safe() -> None:
    game = table("R1 R2", FILL, FILL, starter="R7")
    evs = game.apply(play(card("R1"), uno=True))
    assert of_type(evs, events.CardPlayed)[0].uno is True
    assert game.phase is Phase.PLAY and game.decider == 1


def test_uno_is_offered_with_a_play_only_when_the_play_leaves_one_card() -> None:
    game = table("R1 R2", FILL, starter="R7", draw="B9")
    assert set(game.legal_actions()) == {
        play(card("R1")), play(card("R1"), uno=True),
        play(card("R2")), play(card("R2"), uno=True), DRAW,
    }
    game = table("R1 R2 R3", FILL, starter="R7")
    assert not any(a.uno for a in game.legal_actions())


def test_a_call_of_uno_on_a_play_that_does_not_leave_one_card_has_no_effect() -> None:
    game = table("R1 R2 R3", FILL, starter="R7")
    evs = game.apply(play(card("R1"), uno=True))
    assert of_type(evs, events.CardPlayed)[0].uno is False
    assert game.phase is Phase.PLAY and game.decider == 1


def test_forgetting_uno_opens_a_catch_window_that_asks_the_offender_first() -> None:
    game = table("R1 R2", FILL, FILL, starter="R7")
    game.apply(play(card("R1")))
    assert game.phase is Phase.CATCH_WINDOW and game.decider == 0
    assert game.legal_actions() == [CALL_UNO, PASS]
    assert game.uno_offender == game.view(2).uno_offender == 0


def test_a_late_uno_call_before_anyone_catches_is_safe() -> None:
    game = table("R1 R2", FILL, FILL, starter="R7")
    game.apply(play(card("R1")))
    evs = game.apply(CALL_UNO)
    assert of_type(evs, events.UnoCalled) == [events.UnoCalled(0)]
    assert game.phase is Phase.PLAY and game.decider == 1 and hand(game, 0) == "R2"


def test_after_the_offender_every_other_seat_may_catch_in_play_order_from_the_next() -> None:
    game = table("R1 R2", FILL, FILL, FILL, starter="R7")
    game.apply(play(card("R1")))
    asked = []
    game.apply(PASS)
    while game.phase is Phase.CATCH_WINDOW:
        asked.append(game.decider)
        assert game.legal_actions() == [catch(0), PASS]
        game.apply(PASS)
    assert asked == [1, 2, 3]


def test_the_catch_order_follows_the_direction_of_play() -> None:
    # A Reverse turned up: the dealer (seat 0) starts and play goes right.
    game = table("R1 R2", FILL, FILL, FILL, starter="RR", dealer=0)
    game.apply(play(card("R1")))
    game.apply(PASS)
    asked = []
    while game.phase is Phase.CATCH_WINDOW:
        asked.append(game.decider)
        game.apply(PASS)
    assert asked == [3, 2, 1]


def test_a_caught_player_draws_the_uno_penalty_of_two_cards() -> None:
    game = table("R1 R2", FILL, FILL, starter="R7", draw=PENALTY)
    game.apply(play(card("R1")))
    game.apply(PASS)
    evs = game.apply(catch(0))
    assert of_type(evs, events.UnoCaught) == [events.UnoCaught(1, 0)]
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(0, 2, events.DrawReason.UNO_PENALTY)
    ]
    assert hand(game, 0) == "R2 B1 B2"
    assert game.phase is Phase.PLAY and game.decider == 1  # play goes on as usual


def test_uno_penalty_is_four_when_configured() -> None:
    game = table("R1 R2", FILL, FILL, starter="R7", draw=PENALTY,
                 rule_set=rules(uno_penalty=4))
    game.apply(play(card("R1")))
    game.apply(PASS)
    game.apply(catch(0))
    assert hand(game, 0) == "R2 B1 B2 B3 B4"


def test_a_later_seat_may_catch_when_earlier_ones_pass() -> None:
    game = table("R1 R2", FILL, FILL, starter="R7", draw=PENALTY)
    game.apply(play(card("R1")))
    game.apply(PASS)   # offender
    game.apply(PASS)   # seat 1
    evs = game.apply(catch(0))
    assert of_type(evs, events.UnoCaught) == [events.UnoCaught(2, 0)]


def test_once_the_next_turn_has_begun_no_one_can_catch_the_offender() -> None:
    game = table("R1 R2", FILL, FILL, starter="R7", draw=PENALTY)
    game.apply(play(card("R1")))
    for _ in range(3):
        game.apply(PASS)
    assert game.phase is Phase.PLAY and game.decider == 1
    with pytest.raises(IllegalActionError):
        game.apply(catch(0))
    assert hand(game, 0) == "R2"


def test_a_player_who_called_uno_cannot_be_caught() -> None:
    game = table("R1 R2", FILL, FILL, starter="R7")
    game.apply(play(card("R1"), uno=True))
    assert game.is_legal(catch(0)) is False
    with pytest.raises(IllegalActionError):
        game.apply(catch(0))


def test_a_player_who_does_not_hold_one_card_cannot_be_caught() -> None:
    game = table("R1 R2 R3", FILL, FILL, starter="R7")
    game.apply(play(card("R1")))
    assert game.phase is Phase.PLAY and not game.is_legal(catch(0))


def test_going_out_needs_no_uno_call() -> None:
    game = table("R1", FILL, FILL, starter="R7", rule_set=rules(target_score=None))
    game.apply(play(card("R1")))
    assert game.is_over and of_type(game.events, events.HandEnded)[0].winner == 0


def test_the_catch_window_comes_before_the_cards_effect() -> None:
    # Seat 0 forgets UNO on a Skip: seat 1, about to be skipped, may still catch.
    game = table("RS R2", FILL, FILL, starter="R7", draw=PENALTY)
    game.apply(play(card("RS")))
    game.apply(PASS)
    assert game.decider == 1 and game.phase is Phase.CATCH_WINDOW
    evs = game.apply(catch(0))
    assert of_type(evs, events.TurnSkipped) == [events.TurnSkipped(1)]
    assert game.decider == 2


def test_uno_may_be_called_when_playing_a_drawn_card() -> None:
    game = table("G1", FILL, starter="R7", draw="R9")
    game.apply(DRAW)
    assert play(card("R9"), uno=True) in game.legal_actions()
    game.apply(play(card("R9"), uno=True))
    assert game.phase is Phase.PLAY and game.decider == 1
