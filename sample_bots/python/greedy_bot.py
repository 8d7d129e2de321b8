"""Greedy: sheds its highest-scoring cards first and keeps its wilds for when nothing else plays.

- Plays the matching card worth the most points (action cards, then high
  numbers); a wild only when no coloured card plays, a Wild Draw Four before a
  plain Wild; always the card it just drew.
- Names the colour it holds most (then the one worth most).
- Always calls UNO (a late call too), catches every missed call, stacks when
  progressive rules allow, jumps in whenever it can.
- Challenges a Wild Draw Four when the odds favour it: how likely the accused
  held the old colour (their hand size against the unseen cards, what they did
  the last time that colour was up) times how often challenges at this server
  have turned out guilty; never when the rules forbid bluffing.

Run: ``ARENA_SERVER=host:port ARENA_TOKEN=... python sample_bots/python/greedy_bot.py``
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.client import (
    COLORS,
    Action,
    ActionKind,
    Bot,
    Card,
    CardPlayed,
    CardsDrawn,
    Color,
    ColorChosen,
    DrawReason,
    Event,
    FirstCard,
    Phase,
    Rank,
    Table,
    View,
    first_of,
    passive,
    run,
)
from arena.client.counting import ChallengeRecord, chance_of_any, unseen


def best_color(hand: Sequence[Card]) -> Color:
    """The colour held most, then the one whose cards are worth most."""
    count = Counter(card.color for card in hand if card.color is not None)
    points: Counter[Color] = Counter()
    for card in hand:
        if card.color is not None:
            points[card.color] += card.points
    return max(COLORS, key=lambda c: (count[c], points[c]))


def play_key(view: View, action: Action) -> tuple[bool, bool, bool, int, int, int]:
    """How much greedy likes a play: UNO call, coloured card, Draw Four, points, colour, target."""
    assert action.card is not None
    card = action.card
    rest = view.hand_without(card)
    if card.is_wild:  # a wild names the colour held most
        held = int(action.color is best_color(rest))
    else:  # of equal cards, the one whose colour greedy holds more of
        held = sum(1 for c in rest if c.color is card.color)
    target = -view.hand_sizes[action.target] if action.target is not None else 0
    return (action.uno, not card.is_wild, card.rank is Rank.WILD_DRAW_FOUR, card.points,
            held, target)


def best_play(view: View, legal: Sequence[Action]) -> Action | None:
    """The play greedy likes most, or None when no card can be played."""
    plays = [action for action in legal if action.is_play]
    return max(plays, key=lambda a: play_key(view, a)) if plays else None


def draw_four_context(events: Sequence[Event]) -> tuple[int | None, Color | None, str]:
    """For the last Wild Draw Four of the hand: the accused, the colour active before it,
    and what the accused did the last time that colour was up ("drew", "played" or "")."""
    active: Color | None = None
    accused: int | None = None
    old: Color | None = None
    last_seen: dict[tuple[int, Color], str] = {}
    for event in events:
        if isinstance(event, FirstCard):
            active = event.card.color
        elif isinstance(event, ColorChosen):
            active = event.color
        elif isinstance(event, CardsDrawn) and event.reason is DrawReason.CHOICE and active:
            last_seen[(event.seat, active)] = "drew"
        elif isinstance(event, CardPlayed):
            if active is not None and event.card.color is active:
                last_seen[(event.seat, active)] = "played"
            if event.card.rank is Rank.WILD_DRAW_FOUR:
                accused, old = event.seat, active
            active = event.color
    habit = last_seen.get((accused, old), "") if accused is not None and old else ""
    return accused, old, habit


class GreedyBot(Bot):
    """The greedy strategy; it remembers how challenges have gone at this server."""

    name = "greedy"

    def __init__(self) -> None:
        self.record = ChallengeRecord()

    def on_events(self, table: Table, events: list[Event]) -> None:
        """Learn from every challenge at every table how often a Draw Four is a bluff."""
        self.record.see(events)

    def bluff_rate(self) -> float:
        """The share of challenges seen that were guilty, starting from 1 in 2."""
        return self.record.guilty_rate

    def guilty_odds(self, view: View) -> float:
        """The chance that a challenge of the Wild Draw Four now pending succeeds."""
        accused, old, habit = draw_four_context(view.table.hand_events())
        if accused is None or old is None:
            return 0.5 * self.bluff_rate()
        pool = unseen(view)
        of_old = sum(n for card, n in pool.items() if card.color is old)
        held = chance_of_any(of_old, sum(pool.values()), view.hand_sizes[accused])
        if habit == "drew":
            held *= 0.3  # they drew rather than play that colour last time it was up
        elif habit == "played":
            held += (1 - held) * 0.3
        return held * self.bluff_rate()

    def should_challenge(self, view: View) -> bool:
        """Challenge when the expected cards saved beat the risk of drawing the extra ones."""
        if not view.table.rules.draw_four_bluffing:
            return False  # every Wild Draw Four is legal: a challenge always fails
        extra = view.table.rules.challenge_extra_penalty
        pending = view.pending_draw or 4
        # challenge costs (1-g)(pending+extra), gains g*pending/2 (they draw); accept costs pending
        return self.guilty_odds(view) > extra / (1.5 * pending + extra)

    def decide(self, view: View, legal: list[Action]) -> Action:
        """Pick an action for any phase."""
        if view.phase is Phase.CATCH_WINDOW:
            choice = first_of(legal, ActionKind.CALL_UNO, ActionKind.CATCH, ActionKind.PASS)
        elif view.phase is Phase.CHOOSE_COLOR:
            color = best_color(view.hand)
            choice = next((a for a in legal if a.color is color), None)
        elif view.phase is Phase.CHALLENGE:
            choice = best_play(view, legal)  # progressive: pass the Draw Four on
            if choice is None:
                kind = ActionKind.CHALLENGE if self.should_challenge(view) else ActionKind.ACCEPT
                choice = first_of(legal, kind)
        else:  # PLAY, PLAY_DRAWN, STACK, JUMP_IN: play whenever a card plays
            choice = best_play(view, legal)
        return choice or passive(legal)


if __name__ == "__main__":
    raise SystemExit(run(GreedyBot(), max_tables=8).exit_code)
