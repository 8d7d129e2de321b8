"""Counter: counts the cards from the events and plays to starve the next player.

It keeps, per table and hand, what each opponent is known to hold (hands moved
by Seven-O or Swap Hands, hands shown by a challenge) and which colours they
are believed to lack (they drew instead of playing it; they played a Wild Draw
Four on it), and knows which cards it has not seen (deck less its hand and the
discard pile). From that it scores every legal play:

- going out first; then shedding points;
- the chance that the seat which acts next can follow the resulting colour and
  rank (it prefers colours the next player likely lacks), weighted by how close
  that player is to going out;
- Skip, Reverse, Draw Two and Wild Draw Four aimed at a player near UNO; Draw
  cards are held back while the next player still has many cards;
- keeping a colour it can follow up, saving wilds for need, swapping hands with
  the smallest hand;
- always calling UNO, catching every missed call, and challenging a Wild Draw
  Four only when the odds (the accused's hand against the unseen cards, times the
  guilty rate of the challenges seen so far) beat the cost of a failed challenge.

Run: ``ARENA_SERVER=host:port ARENA_TOKEN=... python sample_bots/python/counter_bot.py``
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from arena.client import (
    COLORS,
    Action,
    ActionKind,
    Bot,
    Card,
    CardKept,
    CardPlayed,
    CardsDrawn,
    CardsReceived,
    Color,
    ColorChosen,
    DrawReason,
    Event,
    FirstCard,
    HandReplaced,
    HandRevealed,
    HandsRotated,
    HandsShuffled,
    HandsSwapped,
    HandStarted,
    Phase,
    Rank,
    Table,
    View,
    first_of,
    passive,
    run,
)
from arena.client.counting import ChallengeRecord, chance_of_any, unseen

FOLLOW_WEIGHT = 4.0
"""How much counter fears the next player being able to follow its card."""

CONTROL_WEIGHT = 1.0
"""How much counter likes keeping cards of the colour it leaves on the pile."""

DREW_INSTEAD = 0.85
"""How sure counter is that a seat which drew by choice had nothing playable."""

NAMED_DOUBT = 0.4
"""How much doubt is left that a seat holds the colour it named with its last wild."""


Trait = Color | Rank | str
"""What a seat may lack: a colour, a rank (in other colours), or WILD."""

WILD = "wild"


def has_trait(card: Card, trait: Trait, besides: Color | None = None) -> bool:
    """Whether `card` shows `trait` (a rank counts only in colours other than `besides`)."""
    if isinstance(trait, Color):
        return card.color is trait
    if isinstance(trait, Rank):
        return card.rank is trait and card.color is not besides
    return card.is_wild


@dataclass
class Seen:
    """What counter knows about one opponent's hand this hand."""

    known: Counter[Card] = field(default_factory=Counter)
    lacks: dict[Trait, tuple[float, int]] = field(default_factory=dict)
    """trait -> (confidence the seat had none, unseen cards it has taken since)."""
    named: Color | None = None
    """The colour it last declared with a wild: probably the one it holds most."""

    @classmethod
    def exactly(cls, cards: Iterable[Card]) -> Seen:
        """A hand known card for card."""
        known = Counter(cards)
        held = {card.color for card in known}
        return cls(known, {color: (1.0, 0) for color in COLORS if color not in held})

    def drew(self, count: int) -> None:
        """The seat took `count` unseen cards."""
        self.lacks = {t: (conf, since + count) for t, (conf, since) in self.lacks.items()}

    def kept(self, traits: Iterable[Trait]) -> None:
        """The seat kept the card it drew: it shows none of `traits` (it would have played it)."""
        for trait in traits:
            if trait in self.lacks:
                conf, since = self.lacks[trait]
                self.lacks[trait] = (conf, max(0, since - 1))


class Tracker:
    """Counts one table's cards from its events."""

    def __init__(self, seat: int, trust_draw_four: Callable[[], float]) -> None:
        self.seat = seat
        self.trust_draw_four = trust_draw_four
        self.my_hand: Counter[Card] = Counter()
        self.others: dict[int, Seen] = {}
        self.active: Color | None = None
        self.top: Card | None = None
        self.active_seats: tuple[int, ...] = ()
        self.last_draw_four: tuple[int, Color | None, tuple[float, int] | None] | None = None

    def of(self, seat: int) -> Seen:
        """What is known of `seat`'s hand."""
        return self.others.setdefault(seat, Seen())

    def playable_traits(self) -> list[Trait]:
        """What a card must show to be played now: the active colour, the top rank, a wild."""
        traits: list[Trait] = [WILD]
        if self.active is not None:
            traits.append(self.active)
        if self.top is not None and not self.top.is_wild:
            traits.append(self.top.rank)
        return traits

    def see(self, event: Event) -> None:
        """Update the count with one event."""
        me = self.seat
        if isinstance(event, HandStarted):
            self.my_hand, self.others, self.active, self.top = Counter(), {}, None, None
            self.active_seats = event.active_seats
        elif isinstance(event, CardsReceived) and event.seat == me:
            self.my_hand.update(event.cards)
        elif isinstance(event, HandReplaced) and event.seat == me:
            self.my_hand = Counter(event.cards)
        elif isinstance(event, FirstCard):
            self.active, self.top = event.card.color, event.card
        elif isinstance(event, ColorChosen):
            self.active = event.color
        elif isinstance(event, CardPlayed):
            self._played(event)
        elif isinstance(event, CardsDrawn) and event.seat != me:
            seen = self.of(event.seat)
            seen.drew(event.count)
            if event.reason is DrawReason.CHOICE:  # it had nothing to play
                for trait in self.playable_traits():
                    seen.lacks[trait] = (DREW_INSTEAD, 0)
        elif isinstance(event, CardKept) and event.seat != me:
            self.of(event.seat).kept(self.playable_traits())
        elif isinstance(event, HandsSwapped):
            self._swapped(event.seat, event.other)
        elif isinstance(event, HandsRotated):
            self._rotated(event.direction)
        elif isinstance(event, HandsShuffled):
            self.others = {}
        elif isinstance(event, HandRevealed) and event.to_seat == me:
            self.others[event.seat] = Seen.exactly(event.cards)

    def _played(self, event: CardPlayed) -> None:
        if event.seat == self.seat:
            self.my_hand[event.card] -= 1
            self.my_hand = +self.my_hand
        else:
            seen = self.of(event.seat)
            if seen.known[event.card] > 0:
                seen.known[event.card] -= 1
            if event.card.is_wild:
                seen.named = event.color
            if event.card.rank is Rank.WILD_DRAW_FOUR:
                old = self.active
                previous = seen.lacks.get(old) if old is not None else None
                self.last_draw_four = (event.seat, old, previous)
                if old is not None:  # unless it was a bluff, they had none of it
                    seen.lacks[old] = (self.trust_draw_four(), 0)
        self.active, self.top = event.color, event.card

    def _swapped(self, a: int, b: int) -> None:
        if self.seat in (a, b):
            other = b if a == self.seat else a
            self.others[other] = Seen.exactly(self.my_hand.elements())
        else:
            self.others[a], self.others[b] = self.of(b), self.of(a)

    def _rotated(self, direction: int) -> None:
        seats = sorted(self.active_seats)
        if not seats:
            self.others = {}
            return
        step = 1 if direction >= 0 else -1
        moved: dict[int, Seen] = {}
        for index, seat in enumerate(seats):
            receiver = seats[(index + step) % len(seats)]
            moved[receiver] = (Seen.exactly(self.my_hand.elements()) if seat == self.seat
                               else self.of(seat))
        moved.pop(self.seat, None)
        self.others = moved


class Odds:
    """Chances about the opponents' hands at one decision."""

    def __init__(self, view: View, tracker: Tracker) -> None:
        self.view = view
        self.tracker = tracker
        known: Counter[Card] = Counter()
        for seat, seen in tracker.others.items():
            if seat != view.seat:
                known.update(seen.known)
        self.pool = unseen(view, known.elements())
        self.total = sum(self.pool.values())

    def _unknown(self, seat: int) -> int:
        known = sum(self.tracker.of(seat).known.values())
        return max(0, self.view.hand_sizes[seat] - known)

    def has(self, seat: int, trait: Trait, besides: Color | None = None,
            lack: tuple[float, int] | None = None, use_lacks: bool = True) -> float:
        """Chance that `seat` holds a card showing `trait`: what it is known to hold, what
        it showed it lacks (or `lack` instead), and the odds of the unseen cards."""
        seen = self.tracker.of(seat)
        if any(has_trait(card, trait, besides) for card in seen.known):
            return 1.0
        matching = sum(n for card, n in self.pool.items() if has_trait(card, trait, besides))
        unknown = self._unknown(seat)
        chance = chance_of_any(matching, self.total, unknown)
        lack = seen.lacks.get(trait) if use_lacks else lack
        if lack is not None:
            confidence, since = lack
            after = chance_of_any(matching, self.total, min(since, unknown))
            chance = (1 - confidence) * chance + confidence * after
        if seen.named is not None and trait is seen.named:
            chance = 1 - (1 - chance) * NAMED_DOUBT
        return chance

    def can_follow(self, seat: int, color: Color, rank: Rank) -> float:
        """Chance that `seat` can play on a `color` card of `rank`."""
        none = (1 - self.has(seat, color)) * (1 - self.has(seat, WILD))
        if not rank.value.startswith("wild"):
            none *= 1 - self.has(seat, rank, besides=color)
        return 1 - none


def danger(view: View, seat: int) -> float:
    """How much it matters what `seat` does next: a lot when it is about to go out."""
    return {0: 0.0, 1: 8.0, 2: 4.0, 3: 2.0}.get(view.hand_sizes[seat], 1.0)


_DRAWS = {Rank.DRAW_TWO: 2, Rank.WILD_DRAW_FOUR: 4}


def score_play(view: View, odds: Odds, action: Action, others_play: bool) -> float:
    """How good `action` (a PLAY) looks; higher is better."""
    assert action.card is not None
    card = action.card
    rest = view.hand_without(card)
    if not rest:
        return 1000.0  # going out
    color = action.color or card.color
    assert color is not None
    me, nxt = view.seat, view.next_seat
    two = len(view.active_seats) == 2
    score = card.points / 10 + (50.0 if action.uno else 0.0)
    hit: int | None = None
    actor = nxt
    if card.rank in (Rank.SKIP, Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR) or (
            card.rank is Rank.REVERSE and two):
        hit, actor = nxt, (me if two else view.seat_after(nxt))
    elif card.rank is Rank.REVERSE:
        actor = view.seat_after(me, direction=-view.direction)
    if hit is not None:
        drawn = _DRAWS.get(card.rank, 0)
        score += danger(view, hit) * (1 + drawn / 2)
        if drawn and not two and view.hand_sizes[hit] > 3 and len(rest) > 2:
            score -= 2.5  # hold the Draw card for a player near UNO
    if actor == me:
        follows = any(c.is_wild or c.color is color or c.rank is card.rank for c in rest)
        score += 1.5 if follows else 0.5
    else:
        score -= FOLLOW_WEIGHT * danger(view, actor) * odds.can_follow(actor, color, card.rank)
    score += CONTROL_WEIGHT * sum(1 for c in rest if c.color is color)
    if card.is_wild and others_play:
        score -= 100.0  # keep wilds for need
    if action.target is not None:
        theirs = view.hand_sizes[action.target]
        score += 0.8 * (len(rest) - theirs)
        if len(rest) > theirs:
            score += danger(view, action.target)
    return score


class CounterBot(Bot):
    """The card-counting strategy, one `Tracker` per table."""

    name = "counter"

    def __init__(self) -> None:
        self.trackers: dict[str, Tracker] = {}
        self.record = ChallengeRecord()

    def bluff_rate(self) -> float:
        """The share of challenges seen that were guilty, starting from 1 in 2."""
        return self.record.guilty_rate

    def draw_four_trust(self, table: Table) -> float:
        """How sure counter is that a Wild Draw Four's player had none of the old colour."""
        return 1 - self.bluff_rate() if table.rules.draw_four_bluffing else 1.0

    def tracker(self, table: Table) -> Tracker:
        """The table's tracker (made on first use)."""
        tracker = self.trackers.get(table.game_id)
        if tracker is None:
            tracker = Tracker(table.seat, lambda: self.draw_four_trust(table))
            self.trackers[table.game_id] = tracker
        return tracker

    def on_game_start(self, table: Table) -> None:
        """Start counting (afresh, when a reconnect replays the game's events)."""
        self.trackers.pop(table.game_id, None)
        self.tracker(table)

    def on_events(self, table: Table, events: list[Event]) -> None:
        """Count every event; learn from every challenge."""
        tracker = self.tracker(table)
        for event in events:
            tracker.see(event)
        self.record.see(events)

    def on_game_end(self, table: Table, outcome: object) -> None:
        """Forget the table."""
        self.trackers.pop(table.game_id, None)

    def decide(self, view: View, legal: list[Action]) -> Action:
        """Pick an action for any phase."""
        tracker = self.tracker(view.table)
        odds = Odds(view, tracker)
        plays = [a for a in legal if a.is_play]
        phase = view.phase
        choice: Action | None = None
        if phase is Phase.CATCH_WINDOW:
            choice = first_of(legal, ActionKind.CALL_UNO, ActionKind.CATCH)
        elif phase is Phase.CHOOSE_COLOR:
            choice = max(legal, key=lambda a: self._color_score(view, odds, a.color))
        elif phase is Phase.CHALLENGE and not plays:
            kind = ActionKind.CHALLENGE if self._challenge(view, odds) else ActionKind.ACCEPT
            choice = first_of(legal, kind)
        elif phase is Phase.PLAY_DRAWN and plays and self._hold(view, plays[0]):
            choice = first_of(legal, ActionKind.KEEP)
        elif plays:
            others = any(a.card is not None and not a.card.is_wild for a in plays)
            choice = max(plays, key=lambda a: score_play(view, odds, a, others))
        return choice or passive(legal)

    def _color_score(self, view: View, odds: Odds, color: Color | None) -> float:
        if color is None:
            return -1.0
        held = sum(1 for card in view.hand if card.color is color)
        return held - 2 * danger(view, view.next_seat) * odds.has(view.next_seat, color)

    def _hold(self, view: View, play: Action) -> bool:
        """Keep a drawn Draw card while the next player is far from UNO."""
        card = play.card
        return (card is not None and card.rank in _DRAWS and len(view.hand) > 4
                and view.hand_sizes[view.next_seat] > 4)

    def _challenge(self, view: View, odds: Odds) -> bool:
        if not view.table.rules.draw_four_bluffing:
            return False  # every Wild Draw Four is legal: a challenge always fails
        last = self.tracker(view.table).last_draw_four
        held = 0.5
        if last is not None:
            accused, old, lack_before = last
            if old is not None:
                held = odds.has(accused, old, lack=lack_before, use_lacks=False)
        extra = view.table.rules.challenge_extra_penalty
        pending = view.pending_draw or 4
        return held * self.bluff_rate() > extra / (1.5 * pending + extra)


if __name__ == "__main__":
    raise SystemExit(run(CounterBot(), max_tables=8).exit_code)
