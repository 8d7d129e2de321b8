"""The shared narration of public events: its default words and what callers choose."""

from __future__ import annotations

from arena.engine import Card, Color
from arena.engine import events as ev
from arena.narration import describe

NAMES = ("ann", "bob", "cy")


def _hand_ended(winner: int | None, reason: ev.HandEndReason) -> ev.HandEnded:
    return ev.HandEnded(hand_number=1, winner=winner, reason=reason, points=(0, 0, 25),
                        totals=(10, 0, 25), cards_left=((), (), ()))


def test_a_wild_played_shows_its_short_name_and_the_colour_named_by_default() -> None:
    event = ev.CardPlayed(seat=0, card=Card.parse("W+4"), color=Color.BLUE, uno=True)
    assert describe(event, NAMES) == "ann plays W+4 and names blue — UNO!"


def test_cards_and_colours_are_shown_the_way_the_caller_asks() -> None:
    event = ev.CardPlayed(seat=0, card=Card.parse("W"), color=Color.RED, uno=False)
    line = describe(event, NAMES, card=lambda card: f"<{card.short()}>", colour=str.upper)
    assert line == "ann plays <W> and names RED"


def test_a_colour_chosen_for_a_wild_turned_up_uses_the_colour_function() -> None:
    event = ev.ColorChosen(seat=1, color=Color.GREEN)
    assert describe(event, NAMES, colour=lambda colour: f"*{colour.value}*") == "bob names *green*"


def test_a_card_played_on_a_target_names_the_target() -> None:
    event = ev.CardPlayed(seat=1, card=Card.parse("R7"), color=Color.RED, uno=False, target=2)
    assert describe(event, NAMES) == "bob plays R7 (with cy)"


def test_a_jump_in_says_so() -> None:
    event = ev.CardPlayed(seat=2, card=Card.parse("G5"), color=Color.GREEN, uno=False,
                          jump_in=True)
    assert describe(event, NAMES) == "cy jumps in with G5"


def test_a_hand_opens_with_the_default_heading() -> None:
    event = ev.HandStarted(hand_number=2, dealer=1, hand_sizes=(7, 7, 7), active_seats=(0, 1, 2))
    assert describe(event, NAMES) == "hand 2: bob deals"


def test_a_hand_opens_with_the_heading_the_caller_gives() -> None:
    event = ev.HandStarted(hand_number=3, dealer=0, hand_sizes=(7, 7, 7), active_seats=(0, 1, 2))
    assert describe(event, NAMES, hand_heading="== {number} / {dealer} ==") == "== 3 / ann =="


def test_keeping_a_drawn_card_has_default_words() -> None:
    assert describe(ev.CardKept(seat=2), NAMES) == "cy keeps the card drawn"


def test_keeping_a_drawn_card_uses_the_callers_words() -> None:
    assert describe(ev.CardKept(seat=2), NAMES, card_kept="keeps it") == "cy keeps it"


def test_a_penalty_draw_gives_its_reason() -> None:
    event = ev.CardsDrawn(seat=0, count=2, reason=ev.DrawReason.UNO_PENALTY)
    assert describe(event, NAMES) == "ann draws 2 cards (uno penalty)"


def test_a_draw_by_choice_gives_no_reason() -> None:
    event = ev.CardsDrawn(seat=0, count=1, reason=ev.DrawReason.CHOICE)
    assert describe(event, NAMES) == "ann draws 1 card"


def test_a_hand_end_gives_the_points_scored_and_no_totals_by_default() -> None:
    line = describe(_hand_ended(2, ev.HandEndReason.WENT_OUT), NAMES)
    assert line == "cy goes out; cy +25"


def test_a_hand_end_gives_every_seats_total_when_asked() -> None:
    line = describe(_hand_ended(2, ev.HandEndReason.WENT_OUT), NAMES, totals=True)
    assert line == "cy goes out; cy +25 — totals: ann 10, bob 0, cy 25"


def test_a_hand_without_a_winner_says_why_it_ended() -> None:
    line = describe(_hand_ended(None, ev.HandEndReason.TURN_LIMIT), NAMES)
    assert line == "the hand ends with no winner (turn limit); cy +25"


def test_a_game_end_names_the_winners_and_how_it_ended() -> None:
    event = ev.GameEnded(winners=(0, 2), scores=(0, 0, 0), ranks=(1, 3, 1),
                         termination="target_score")
    assert describe(event, NAMES) == "game over (target score): ann, cy wins"


def test_a_seat_past_the_names_is_called_by_its_number() -> None:
    assert describe(ev.TurnSkipped(seat=3), NAMES) == "seat 3 loses the turn"


def test_a_negative_seat_is_called_by_its_number_not_taken_from_the_end_of_the_names() -> None:
    assert describe(ev.TurnSkipped(seat=-1), NAMES) == "seat -1 loses the turn"


def test_an_event_without_a_seat_names_nobody() -> None:
    event = ev.TurnSkipped(seat=None)  # type: ignore[arg-type]
    assert describe(event, NAMES) == "nobody loses the turn"


def test_private_events_have_no_line() -> None:
    private = [ev.CardsReceived(seat=0, cards=(Card.parse("R1"),)),
               ev.HandReplaced(seat=1, cards=()),
               ev.HandRevealed(seat=0, to_seat=1, cards=())]
    assert [describe(event, NAMES) for event in private] == [None, None, None]
