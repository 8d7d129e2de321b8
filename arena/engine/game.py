"""One game of UNO in progress: whose decision is due, its legal actions, and applying them.

A game is a pure function of (rule set, number of players, seed, actions): every
shuffle draws from the game's own `random.Random(seed)`, and nothing reads a
clock or does I/O. `apply` returns the events an action caused; the same events
are appended to `events`, which together with `actions` is the replay log.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from arena.engine import events as ev
from arena.engine.actions import (
    ACCEPT,
    CALL_UNO,
    CHALLENGE,
    DRAW,
    KEEP,
    PASS,
    Action,
    ActionKind,
    IllegalActionError,
    Phase,
)
from arena.engine.cards import COLORS, Card, Color, Rank, classic_deck, deck_2018
from arena.engine.outcome import Outcome, Termination, ranks_from_keys
from arena.engine.rules import (
    PARTNER_TEAMS,
    DeckKind,
    ReverseFirstCard,
    RuleSet,
    Scoring,
    ShuffleHandsCard,
    WildDrawFourRule,
)
from arena.engine.view import SeatView

_COLORED_PLAYS: dict[tuple[Card, Color | None, int | None, bool], Action] = {}


def _play(card: Card, color: Color | None, target: int | None, uno: bool) -> Action:
    key = (card, color, target, uno)
    action = _COLORED_PLAYS.get(key)
    if action is None:
        action = Action(ActionKind.PLAY, card=card, color=color, target=target, uno=uno)
        _COLORED_PLAYS[key] = action
    return action


_VARIANTS: dict[tuple[Card, bool], list[Action]] = {}


def _variants(card: Card, targets: Sequence[int | None], two_left: bool) -> list[Action]:
    unos = (False, True) if two_left else (False,)
    colors: tuple[Color | None, ...] = COLORS if card.is_wild else (None,)
    return [_play(card, color, target, uno)
            for color in colors for target in targets for uno in unos]


def _team_of_seat(num_players: int) -> tuple[int, ...]:
    return tuple(next(team for team, seats in enumerate(PARTNER_TEAMS) if seat in seats)
                 for seat in range(num_players))


def _target_ranks(rules: RuleSet) -> frozenset[Rank]:
    """Ranks whose play names a target seat under `rules`."""
    ranks = {Rank.WILD_CUSTOMIZABLE}
    if rules.shuffle_hands_card is ShuffleHandsCard.SWAP:
        ranks.add(Rank.WILD_SHUFFLE_HANDS)
    if rules.seven_o:
        ranks.add(Rank.SEVEN)
    return frozenset(ranks)


_CHOOSE_COLOR = tuple(Action(ActionKind.CHOOSE_COLOR, color=c) for c in COLORS)
_NOTHING_REVEALED: Mapping[int, tuple[Card, ...]] = MappingProxyType({})


@dataclass(slots=True)
class _Played:
    """A card on its way through the windows that follow a play, before its effect."""

    seat: int
    card: Card
    color: Color
    target: int | None


class Game:
    """A game of UNO: one or more hands under one rule set.

    Create one with `Game.new` (seeded shuffles), `Game.from_deck` (a stacked deck
    for the first hand) or `Game.stacked` (hands, starter and draw pile given).
    Then loop: `phase` and `decider` say which decision is due, `legal_actions()`
    lists it, `apply(action)` plays it.
    """

    def __init__(self, rules: RuleSet, num_players: int, seed: int) -> None:
        rules.check_players(num_players)
        self.rules = rules
        self.num_players = num_players
        self.seed = seed
        self.rng = random.Random(seed)
        self.events: list[ev.Event] = []
        self.actions: list[Action] = []
        self.hands: list[list[Card]] = [[] for _ in range(num_players)]
        self.draw_pile: list[Card] = []  # the top of the pile is the end of the list
        self.discard_pile: list[Card] = []
        self.active_color: Color | None = None
        self.direction = 1
        self.dealer = 0
        self.hand_number = 0
        self.totals = [0] * num_players
        self.active_seats: list[int] = list(range(num_players))
        self.eliminated: dict[int, int] = {}
        self.phase = Phase.GAME_OVER
        self.decider: int | None = None
        self.turn = 0
        self.outcome: Outcome | None = None
        self.pair_points = [[0] * num_players for _ in range(num_players)]
        self._turns_in_hand = 0
        self._idle_turns = 0
        self._drawn: Card | None = None
        self._pending_draw = 0
        self._accused: int | None = None
        self._accused_hand: tuple[Card, ...] = ()
        self._color_before_draw_four: Color | None = None
        self._top_before_draw_four: Card | None = None
        self._going_out: int | None = None
        self._played: _Played | None = None
        self._queue: list[int] = []
        self._uno_offender: int | None = None
        self._revealed: dict[int, dict[int, tuple[Card, ...]]] = {}
        self._legal: list[Action] | None = None
        self._out: list[ev.Event] = []
        self._target_ranks = _target_ranks(rules)
        self._last_hand_left = [0] * num_players
        self._last_winner: int | None = None
        self._teams = (_team_of_seat(num_players)
                       if rules.scoring is Scoring.PARTNERS else None)

    # ----------------------------------------------------------------- creation

    @classmethod
    def new(cls, rules: RuleSet, num_players: int, seed: int) -> Game:
        """A game whose every shuffle comes from `random.Random(seed)`."""
        game = cls(rules, num_players, seed)
        game._start_game()
        return game

    @classmethod
    def from_deck(cls, rules: RuleSet, num_players: int, deck: Sequence[Card],
                  dealer: int = 0, seed: int = 0) -> Game:
        """A game whose first hand is dealt from `deck` (top card first) by `dealer`."""
        game = cls(rules, num_players, seed)
        game._emit_start(dealer)
        game._deal(list(reversed(deck)))
        return game._flush_start()

    @classmethod
    def stacked(cls, rules: RuleSet, hands: Sequence[Sequence[Card]], starter: Card,
                draw_pile: Sequence[Card] = (), dealer: int = 0, seed: int = 0) -> Game:
        """A game whose first hand is laid out exactly: each seat's hand, the first
        face-up card, and the draw pile (top card first). For rule examples."""
        game = cls(rules, len(hands), seed)
        game._emit_start(dealer)
        for seat, hand in enumerate(hands):
            game.hands[seat] = list(hand)
            game._emit(ev.CardsReceived(seat, tuple(hand)))
        game.draw_pile = list(reversed(draw_pile))
        game.draw_pile.append(starter)
        game._turn_up_first_card()
        return game._flush_start()

    def _flush_start(self) -> Game:
        self._out = []
        return self

    # ------------------------------------------------------------- public API

    @property
    def is_over(self) -> bool:
        """True once the game has an outcome."""
        return self.outcome is not None

    @property
    def top_card(self) -> Card | None:
        """The top card of the discard pile."""
        return self.discard_pile[-1] if self.discard_pile else None

    def legal_actions(self) -> list[Action]:
        """Every legal action of the decision that is due (empty when the game is over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def is_legal(self, action: Action) -> bool:
        """Whether `action` is legal now."""
        return self._normalise(action) in self.legal_actions()

    def verify(self, action: Action) -> None:
        """Raise `IllegalActionError` unless `action` is legal now."""
        if not self.is_legal(action):
            raise IllegalActionError(self._illegal_reason(action))

    def apply(self, action: Action) -> list[ev.Event]:
        """Apply a legal action for the seat whose decision is due; return its events.

        An illegal action raises `IllegalActionError` and changes nothing.
        """
        action = self._normalise(action)
        if action not in self.legal_actions():
            raise IllegalActionError(self._illegal_reason(action))
        self._out = []
        self._legal = None
        self.actions.append(action)
        self._dispatch(action)
        out, self._out = self._out, []
        return out

    def forfeit(self, seat: int) -> list[ev.Event]:
        """End the game at once with `seat` last (the server's bot policy, not a rule)."""
        if self.outcome is not None:
            return []
        self._out = []
        self._legal = None
        keys = [(s == seat, self._rank_key(s)) for s in range(self.num_players)]
        self._finish(Termination.FORFEIT, ranks_from_keys(keys))
        out, self._out = self._out, []
        return out

    def view(self, seat: int) -> SeatView:
        """Exactly what `seat` may know now."""
        revealed = self._revealed.get(seat)
        discard = self.discard_pile
        return SeatView(
            seat=seat,
            num_players=self.num_players,
            phase=self.phase,
            decider=self.decider,
            turn=self.turn,
            hand=tuple(self.hands[seat]),
            hand_sizes=tuple([len(h) for h in self.hands]),
            top_card=discard[-1] if discard else None,
            active_color=self.active_color,
            direction=self.direction,
            dealer=self.dealer,
            hand_number=self.hand_number,
            draw_pile_size=len(self.draw_pile),
            discard_pile=tuple(discard),
            scores=tuple(self.totals),
            active_seats=tuple(self.active_seats),
            pending_draw=self._pending_draw,
            drawn_card=self._drawn if self.decider == seat else None,
            uno_offender=self._uno_offender,
            revealed=tuple(sorted(revealed.items())) if revealed else (),
            teams=self._teams,
        )

    @property
    def teams(self) -> tuple[int, ...] | None:
        """Team of each seat under partner scoring (seats 0 and 2 are team 0), else None."""
        return self._teams

    @property
    def pending_draw(self) -> int:
        """Cards a Draw Two or Wild Draw Four (stacked, or awaiting a challenge) still
        makes someone draw."""
        return self._pending_draw

    @property
    def drawn_card(self) -> Card | None:
        """The card the deciding seat has just drawn and may still play, if any."""
        return self._drawn

    @property
    def uno_offender(self) -> int | None:
        """The seat that may be caught for not calling UNO now, if any."""
        return self._uno_offender

    def revealed_to(self, seat: int) -> Mapping[int, tuple[Card, ...]]:
        """The hands shown to `seat` this hand by a challenge it made, by seat."""
        return self._revealed.get(seat, _NOTHING_REVEALED)

    def card_count(self) -> int:
        """Cards in hands, draw pile and discard pile (the deck size, at any moment)."""
        return sum(len(h) for h in self.hands) + len(self.draw_pile) + len(self.discard_pile)

    # ------------------------------------------------------------ game set-up

    def _deck(self) -> list[Card]:
        return deck_2018() if self.rules.deck is DeckKind.EDITION_2018 else classic_deck()

    def _start_game(self) -> None:
        dealer = self._choose_dealer() if self.rules.choose_first_dealer else 0
        self._start_hand(dealer)
        self._out = []

    def _choose_dealer(self) -> int:
        deck = self._deck()
        self.rng.shuffle(deck)
        contenders = list(self.active_seats)
        rounds: list[tuple[tuple[int, Card], ...]] = []
        while True:
            draws = tuple((seat, deck.pop()) for seat in contenders)
            rounds.append(draws)
            best = max(card.number or 0 for _, card in draws)
            contenders = [seat for seat, card in draws if (card.number or 0) == best]
            if len(contenders) == 1 or len(deck) < len(contenders):
                break
        dealer = contenders[0]
        self._emit(ev.DealerChosen(tuple(rounds), dealer))
        return dealer

    def _start_hand(self, dealer: int) -> None:
        deck = self._deck()
        self.rng.shuffle(deck)
        self._emit_start(dealer)
        self._deal(deck)

    def _emit_start(self, dealer: int) -> None:
        self.hand_number += 1
        self.dealer = dealer
        self.direction = 1
        self.hands = [[] for _ in range(self.num_players)]
        self.discard_pile = []
        self._turns_in_hand = 0
        self._idle_turns = 0
        self._revealed = {}
        self._pending_draw = 0
        self._emit(ev.HandStarted(
            self.hand_number, dealer,
            tuple(self.rules.hand_size if s in self.active_seats else 0
                  for s in range(self.num_players)),
            tuple(self.active_seats),
        ))

    def _deal(self, pile: list[Card]) -> None:
        """Deal from `pile` (top card last), one card at a time starting left of the dealer."""
        order = self._seats_from(self._next_active(self.dealer, 1))
        for _ in range(self.rules.hand_size):
            for seat in order:
                if pile:
                    self.hands[seat].append(pile.pop())
        for seat in order:
            self._emit(ev.CardsReceived(seat, tuple(self.hands[seat])))
        self.draw_pile = pile
        self._turn_up_first_card()

    def _turn_up_first_card(self) -> None:
        if not self.draw_pile:
            raise ValueError("no card is left after the deal to start the discard pile")
        card = self.draw_pile.pop()
        while card.rank is Rank.WILD_DRAW_FOUR:
            # Back into the deck at a random place below the top, so another card is turned.
            if all(c.rank is Rank.WILD_DRAW_FOUR for c in self.draw_pile):
                raise ValueError("the draw pile has no card but Wild Draw Fours to turn up")
            self.draw_pile.insert(self.rng.randrange(len(self.draw_pile)), card)
            self._emit(ev.StarterReturned(card))
            card = self.draw_pile.pop()
        self.discard_pile.append(card)
        self.active_color = card.color
        left = self._next_active(self.dealer, 1)
        first, direction = left, 1
        two = len(self.active_seats) == 2
        if card.rank is Rank.SKIP or card.rank is Rank.DRAW_TWO:
            first = self._next_active(left, 1)
        elif card.rank is Rank.REVERSE:
            direction = -1
            if self.rules.reverse_first_card is ReverseFirstCard.DEALER or two:
                first = self.dealer
            else:
                first = self._next_active(self.dealer, 1, direction=-1)
        self.direction = direction
        self._emit(ev.FirstCard(card, first, direction))
        if card.rank is Rank.SKIP:
            self._emit(ev.TurnSkipped(left))
        elif card.rank is Rank.DRAW_TWO:
            self._draw(left, 2, ev.DrawReason.DRAW_TWO)
            self._emit(ev.TurnSkipped(left))
        if card.is_wild:
            self._await(Phase.CHOOSE_COLOR, left)
            self.turn = left
        else:
            self._begin_turn(first)

    # ----------------------------------------------------------- seat helpers

    def _next_active(self, seat: int, steps: int, direction: int | None = None) -> int:
        d = self.direction if direction is None else direction
        n = self.num_players
        s = seat
        for _ in range(steps):
            s = (s + d) % n
            while s not in self.active_seats:
                s = (s + d) % n
        return s

    def _seats_from(self, start: int) -> list[int]:
        """Active seats clockwise (increasing seat order) starting at `start`."""
        seats = sorted(self.active_seats)
        i = seats.index(start)
        return seats[i:] + seats[:i]

    def _play_order_after(self, seat: int) -> list[int]:
        """Active seats other than `seat`, in the direction of play, starting after it."""
        order = []
        s = self._next_active(seat, 1)
        while s != seat:
            order.append(s)
            s = self._next_active(s, 1)
        return order

    @property
    def _two_players(self) -> bool:
        return len(self.active_seats) == 2

    # ---------------------------------------------------------------- events

    def _emit(self, event: ev.Event) -> None:
        self.events.append(event)
        self._out.append(event)

    def _await(self, phase: Phase, seat: int) -> None:
        self.phase = phase
        self.decider = seat
        self._legal = None

    def _draw(self, seat: int, count: int, reason: ev.DrawReason) -> int:
        """Move up to `count` cards from the draw pile into `seat`'s hand; return how many."""
        got: list[Card] = []
        for _ in range(count):
            if not self.draw_pile:
                self._reshuffle()
                if not self.draw_pile:
                    break
            got.append(self.draw_pile.pop())
        self.hands[seat].extend(got)
        self._emit(ev.CardsDrawn(seat, len(got), reason))
        if got:
            self._emit(ev.CardsReceived(seat, tuple(got)))
        return len(got)

    def _reshuffle(self) -> None:
        if len(self.discard_pile) <= 1:
            return
        top = self.discard_pile.pop()
        pile, self.discard_pile = self.discard_pile, [top]
        self.rng.shuffle(pile)
        self.draw_pile = pile
        self._emit(ev.DeckReshuffled(len(pile)))

    # --------------------------------------------------------- legal actions

    def _compute_legal(self) -> list[Action]:
        seat = self.decider
        if seat is None:
            return []
        phase = self.phase
        if phase is Phase.PLAY:
            return self._turn_actions(seat)
        if phase is Phase.PLAY_DRAWN:
            assert self._drawn is not None
            plays = self._play_variants(seat, self._drawn)
            if self.rules.force_play and self._playable(seat, self._drawn, strict=True):
                return list(plays)
            return plays + [KEEP]
        if phase is Phase.CHOOSE_COLOR:
            return list(_CHOOSE_COLOR)
        if phase is Phase.CHALLENGE:
            actions = [CHALLENGE, ACCEPT]
            if self.rules.progressive and self._going_out is None:
                actions += self._stack_plays(seat, Rank.WILD_DRAW_FOUR)
            return actions
        if phase is Phase.STACK:
            return self._stack_plays(seat, Rank.DRAW_TWO) + [ACCEPT]
        if phase is Phase.CATCH_WINDOW:
            if seat == self._uno_offender:
                return [CALL_UNO, PASS]
            assert self._uno_offender is not None
            return [Action(ActionKind.CATCH, target=self._uno_offender), PASS]
        if phase is Phase.JUMP_IN:
            top = self.top_card
            assert top is not None
            if not self._may_end_with(seat, top):
                return [PASS]
            return self._play_variants(seat, top) + [PASS]
        return []

    def _turn_actions(self, seat: int) -> list[Action]:
        hand = self.hands[seat]
        active = self.active_color
        top = self.discard_pile[-1]
        top_rank = top.rank if top.color is not None else None
        last_card_rule = self.rules.last_card_no_action and len(hand) == 1
        actions: list[Action] = []
        seen: set[Card] = set()
        draw_four_ok: bool | None = None
        for card in hand:
            if card in seen:
                continue
            seen.add(card)
            if card.color is None:
                if card.rank is Rank.WILD_DRAW_FOUR:
                    if draw_four_ok is None:
                        draw_four_ok = self._may_play_draw_four(seat)
                    if not draw_four_ok:
                        continue
            elif card.color is not active and card.rank is not top_rank:
                continue
            if last_card_rule and card.is_action:
                continue
            actions += self._play_variants(seat, card)
        # A seat may draw while it can play (reneging), but only while there is a card
        # to draw: when every other card is in a hand, DRAW is the pass of a seat that
        # cannot play, so a dead hand is one in which nobody could play (RULES.md 8).
        if not actions or self.draw_pile or len(self.discard_pile) > 1:
            actions.append(DRAW)
        return actions

    def _stack_plays(self, seat: int, rank: Rank) -> list[Action]:
        hand = self.hands[seat]
        plays: list[Action] = []
        seen: set[Card] = set()
        for card in hand:
            if card.rank is rank and card not in seen:
                seen.add(card)
                if not self._may_end_with(seat, card):
                    continue
                if rank is Rank.DRAW_TWO or self._may_play_draw_four(seat):
                    plays.extend(self._play_variants(seat, card))
        return plays

    def _may_end_with(self, seat: int, card: Card) -> bool:
        """False when the 'last card' house rule forbids going out on `card`."""
        return not (self.rules.last_card_no_action and len(self.hands[seat]) == 1
                    and card.is_action)

    def _playable(self, seat: int, card: Card, strict: bool = False) -> bool:
        """Whether `card` may be played now; `strict` leaves out a bluffed Wild Draw Four
        (what draw-to-match stops at and force play forces must really be playable)."""
        if not self._may_end_with(seat, card):
            return False
        if card.rank is Rank.WILD_DRAW_FOUR:
            if strict:
                return self._draw_four_allowed(self.hands[seat], self.active_color,
                                               self.top_card)
            return self._may_play_draw_four(seat)
        if card.color is None or card.color is self.active_color:
            return True
        top = self.top_card
        return top is not None and top.color is not None and card.rank is top.rank

    def _may_play_draw_four(self, seat: int) -> bool:
        """Whether a Wild Draw Four is offered: always when bluffing is allowed (only a
        challenge enforces the colour condition), else only when the condition holds."""
        if self.rules.draw_four_bluffing:
            return True
        return self._draw_four_allowed(self.hands[seat], self.active_color, self.top_card)

    def _draw_four_allowed(self, hand: Sequence[Card], color: Color | None,
                           top: Card | None) -> bool:
        """RULES.md section 3: no card of the active colour (and, under the
        no_color_or_number decision, none of the top card's number)."""
        if any(c.color is color for c in hand):
            return False
        return not (self.rules.wild_draw_four_rule is WildDrawFourRule.NO_COLOR_OR_NUMBER
                    and top is not None and top.is_number
                    and any(c.rank is top.rank for c in hand))

    def _play_variants(self, seat: int, card: Card) -> list[Action]:
        """Every way to play `card`: declared colours, targets, and the UNO call."""
        two = len(self.hands[seat]) == 2
        if card.rank not in self._target_ranks:
            variants = _VARIANTS.get((card, two))
            if variants is None:
                variants = _VARIANTS[(card, two)] = _variants(card, (None,), two)
            return variants
        targets = [s for s in self.active_seats if s != seat]
        return _variants(card, targets, two)

    def _normalise(self, action: Action) -> Action:
        """Drop an UNO call that cannot matter (a play that does not leave one card)."""
        if (action.kind is ActionKind.PLAY and action.uno and self.decider is not None
                and len(self.hands[self.decider]) != 2):
            return _play(action.card, action.color, action.target, False) \
                if action.card is not None else action
        return action

    def _illegal_reason(self, action: Action) -> str:
        if self.outcome is not None:
            return f"the game is over; {action} is not possible"
        kinds = sorted({a.kind.value for a in self.legal_actions()})
        return (f"{action} is not legal for seat {self.decider} in phase "
                f"{self.phase.value} (legal kinds: {', '.join(kinds)})")

    # -------------------------------------------------------------- dispatch

    def _dispatch(self, action: Action) -> None:
        seat = self.decider
        assert seat is not None
        kind = action.kind
        phase = self.phase
        if phase is Phase.CATCH_WINDOW:
            self._catch_window_answer(seat, action)
        elif phase is Phase.JUMP_IN:
            if kind is ActionKind.PLAY:
                self._jump_in(seat, action)
            else:
                self._next_in_jump_window()
        elif phase is Phase.CHOOSE_COLOR:
            assert action.color is not None
            self.active_color = action.color
            self._emit(ev.ColorChosen(seat, action.color))
            self._begin_turn(seat)
        elif phase is Phase.CHALLENGE:
            self._challenge_answer(seat, action)
        elif phase is Phase.STACK:
            if kind is ActionKind.ACCEPT:
                self._take_stack(seat, ev.DrawReason.STACK)
            else:
                self._play_card(seat, action)
        elif kind is ActionKind.DRAW:
            self._draw_for_turn(seat)
        elif kind is ActionKind.KEEP:
            self._emit(ev.CardKept(seat))
            self._drawn = None
            self._end_turn(seat)
        else:
            self._drawn = None
            self._play_card(seat, action)

    # -------------------------------------------------------------- turns

    def _begin_turn(self, seat: int) -> None:
        self._turns_in_hand += 1
        if self._turns_in_hand > self.rules.max_turns_per_hand:
            self._end_hand(None, ev.HandEndReason.TURN_LIMIT)
            return
        self.turn = seat
        self._await(Phase.PLAY, seat)

    def _end_turn(self, seat: int, progressed: bool = True) -> None:
        """The turn of `seat` is over with no card played; the next seat plays."""
        if progressed:
            self._idle_turns = 0
        else:
            self._idle_turns += 1
            if self._idle_turns >= len(self.active_seats):
                self._end_hand(None, ev.HandEndReason.DEAD)
                return
        self._begin_turn(self._next_active(seat, 1))

    def _draw_for_turn(self, seat: int) -> None:
        drawn: Card | None = None
        total = 0
        while True:
            got = self._draw(seat, 1, ev.DrawReason.CHOICE)
            total += got
            if not got:
                break
            drawn = self.hands[seat][-1]
            if self._playable(seat, drawn, strict=True) or not self.rules.draw_to_match:
                break
        if drawn is not None and self._playable(seat, drawn):
            self._drawn = drawn
            self._await(Phase.PLAY_DRAWN, seat)
        else:
            self._end_turn(seat, progressed=total > 0)

    # ----------------------------------------------------------- playing a card

    def _play_card(self, seat: int, action: Action, jump_in: bool = False) -> None:
        card = action.card
        assert card is not None
        self._idle_turns = 0
        hand = self.hands[seat]
        hand.remove(card)
        color = action.color if card.is_wild else card.color
        assert color is not None
        if card.rank is Rank.WILD_DRAW_FOUR:
            self._color_before_draw_four = self.active_color
            self._top_before_draw_four = self.discard_pile[-1] if self.discard_pile else None
            self._accused_hand = tuple(hand)
        self.discard_pile.append(card)
        self.active_color = color
        self._emit(ev.CardPlayed(seat, card, color, action.uno, jump_in, action.target))
        self._played = _Played(seat, card, color, action.target)
        if not hand:
            self._go_out(seat, card)
        elif len(hand) == 1 and not action.uno:
            self._uno_offender = seat
            self._queue = [seat] + self._play_order_after(seat)
            self._await(Phase.CATCH_WINDOW, self._queue.pop(0))
        else:
            self._open_jump_window()

    def _catch_window_answer(self, seat: int, action: Action) -> None:
        offender = self._uno_offender
        assert offender is not None
        if action.kind is ActionKind.CALL_UNO:
            self._emit(ev.UnoCalled(seat))
        elif action.kind is ActionKind.CATCH:
            self._emit(ev.UnoCaught(seat, offender))
            self._draw(offender, self.rules.uno_penalty, ev.DrawReason.UNO_PENALTY)
        elif self._queue:
            self._await(Phase.CATCH_WINDOW, self._queue.pop(0))
            return
        self._uno_offender = None
        self._queue = []
        self._open_jump_window()

    def _open_jump_window(self) -> None:
        played = self._played
        assert played is not None
        self._queue = []
        if self.rules.jump_in and not played.card.is_wild:
            self._queue = [s for s in self._play_order_after(played.seat)
                           if played.card in self.hands[s]]
        self._next_in_jump_window()

    def _next_in_jump_window(self) -> None:
        if self._queue:
            self._await(Phase.JUMP_IN, self._queue.pop(0))
        else:
            self._apply_effect()

    def _jump_in(self, seat: int, action: Action) -> None:
        self._queue = []
        self._play_card(seat, action, jump_in=True)

    # -------------------------------------------------------------- effects

    def _apply_effect(self) -> None:
        played = self._played
        assert played is not None
        self._played = None
        seat, card = played.seat, played.card
        rank = card.rank
        if rank is Rank.SKIP:
            self._skip_next(seat)
        elif rank is Rank.REVERSE:
            if self._two_players:
                self._skip_next(seat)
            else:
                self.direction = -self.direction
                self._emit(ev.DirectionChanged(self.direction))
                self._begin_turn(self._next_active(seat, 1))
        elif rank is Rank.DRAW_TWO:
            self._hit_with_draw_two(seat)
        elif rank is Rank.WILD_DRAW_FOUR:
            self._pending_draw += 4
            self._accused = seat
            self._await(Phase.CHALLENGE, self._next_active(seat, 1))
        else:
            self._move_hands(played)
            self._begin_turn(self._next_active(seat, 1))

    def _skip_next(self, seat: int) -> None:
        victim = self._next_active(seat, 1)
        self._emit(ev.TurnSkipped(victim))
        self._begin_turn(self._next_active(victim, 1))

    def _hit_with_draw_two(self, seat: int) -> None:
        victim = self._next_active(seat, 1)
        self._pending_draw += 2
        if self.rules.progressive and self._stack_plays(victim, Rank.DRAW_TWO):
            self._await(Phase.STACK, victim)
        else:
            self._take_stack(victim, ev.DrawReason.DRAW_TWO)

    def _take_stack(self, victim: int, reason: ev.DrawReason) -> None:
        """`victim` draws the pending total and loses the turn."""
        total, self._pending_draw = self._pending_draw, 0
        self._draw(victim, total, reason)
        self._emit(ev.TurnSkipped(victim))
        self._begin_turn(self._next_active(victim, 1))

    def _challenge_answer(self, seat: int, action: Action) -> None:
        accused = self._accused
        assert accused is not None
        if action.kind is ActionKind.PLAY:
            self._play_card(seat, action)
            return
        if action.kind is ActionKind.ACCEPT:
            self._emit(ev.ChallengeDeclined(seat))
            if self._going_out is not None:
                total, self._pending_draw = self._pending_draw, 0
                self._draw(seat, total, ev.DrawReason.DRAW_FOUR)
                winner, self._going_out = self._going_out, None
                self._end_hand(winner, ev.HandEndReason.WENT_OUT)
            else:
                self._take_stack(seat, ev.DrawReason.DRAW_FOUR)
            return
        # The hand shown is the one judged: as it was when the Wild Draw Four was played
        # (cards drawn since, such as an UNO penalty, are not part of the question).
        shown = self._accused_hand
        guilty = not self._draw_four_allowed(
            shown, self._color_before_draw_four, self._top_before_draw_four)
        self._revealed.setdefault(seat, {})[accused] = shown
        self._emit(ev.HandRevealed(accused, seat, shown))
        self._emit(ev.ChallengeResolved(seat, accused, guilty))
        total, self._pending_draw = self._pending_draw, 0
        if guilty:
            self._draw(accused, total, ev.DrawReason.CHALLENGE_GUILTY)
            if self._going_out is None:
                self._begin_turn(seat)
        else:
            total += self.rules.challenge_extra_penalty
            self._draw(seat, total, ev.DrawReason.CHALLENGE_FAILED)
            self._emit(ev.TurnSkipped(seat))
            if self._going_out is None:
                self._begin_turn(self._next_active(seat, 1))
        if self._going_out is not None:
            winner, self._going_out = self._going_out, None
            self._end_hand(winner, ev.HandEndReason.WENT_OUT)

    def _move_hands(self, played: _Played) -> None:
        seat, card = played.seat, played.card
        if card.rank in self._target_ranks:
            other = played.target
            assert other is not None
            self.hands[seat], self.hands[other] = self.hands[other], self.hands[seat]
            self._emit(ev.HandsSwapped(seat, other))
            self._announce_hands((seat, other))
        elif card.rank is Rank.ZERO and self.rules.seven_o:
            seats = self.active_seats
            old = {s: self.hands[s] for s in seats}
            for s in seats:
                self.hands[self._next_active(s, 1)] = old[s]
            self._emit(ev.HandsRotated(self.direction))
            self._announce_hands(seats)
        elif card.rank is Rank.WILD_SHUFFLE_HANDS:
            self._shuffle_hands(seat)

    def _shuffle_hands(self, seat: int) -> None:
        seats = self.active_seats
        pool = [c for s in seats for c in self.hands[s]]
        self.rng.shuffle(pool)
        for s in seats:
            self.hands[s] = []
        order = self._seats_from(self._next_active(seat, 1, direction=1))
        for i, card in enumerate(pool):
            self.hands[order[i % len(order)]].append(card)
        self._emit(ev.HandsShuffled(seat, tuple(len(h) for h in self.hands)))
        self._announce_hands(seats)

    def _announce_hands(self, seats: Sequence[int]) -> None:
        for s in seats:
            self._emit(ev.HandReplaced(s, tuple(self.hands[s])))

    # ------------------------------------------------------------ going out

    def _go_out(self, seat: int, card: Card) -> None:
        self._played = None
        victim = self._next_active(seat, 1)
        if card.rank is Rank.DRAW_TWO:
            self._pending_draw += 2
            total, self._pending_draw = self._pending_draw, 0
            self._draw(victim, total, ev.DrawReason.DRAW_TWO)
        elif card.rank is Rank.WILD_DRAW_FOUR:
            self._pending_draw += 4
            if self.rules.going_out_draw_four_challengeable:
                self._accused = seat
                self._going_out = seat
                self._await(Phase.CHALLENGE, victim)
                return
            total, self._pending_draw = self._pending_draw, 0
            self._draw(victim, total, ev.DrawReason.DRAW_FOUR)
        self._end_hand(seat, ev.HandEndReason.WENT_OUT)

    # ------------------------------------------------------------- scoring

    def _end_hand(self, winner: int | None, reason: ev.HandEndReason) -> None:
        self._pending_draw = 0
        self._uno_offender = None
        self._drawn = None
        self._queue = []
        left = [sum(c.points for c in self.hands[s]) for s in range(self.num_players)]
        self._last_hand_left = left
        self._last_winner = winner
        points = self._score_hand(winner, left)
        for seat in range(self.num_players):
            self.totals[seat] += points[seat]
        self._emit(ev.HandEnded(
            self.hand_number, winner, reason, tuple(points), tuple(self.totals),
            tuple(tuple(h) for h in self.hands),
        ))
        termination = self._game_end()
        if termination is not None:
            self._finish(termination, self._ranks())
            return
        self._start_hand(self._next_active(self.dealer, 1, direction=1))

    def _score_hand(self, winner: int | None, left: list[int]) -> list[int]:
        n = self.num_players
        points = [0] * n
        if winner is None:
            return points
        scoring = self.rules.scoring
        if scoring is Scoring.STANDARD:
            points[winner] = sum(left[s] for s in self.active_seats if s != winner)
        elif scoring in (Scoring.LOW_SCORE, Scoring.ELIMINATION):
            for s in self.active_seats:
                points[s] = left[s]
        elif scoring is Scoring.PARTNERS:
            gained = sum(left[s] for s in range(n) if s % 2 != winner % 2)
            for s in range(n):
                if s % 2 == winner % 2:
                    points[s] = gained
        else:
            for s in range(n):
                if s != winner:
                    self.pair_points[winner][s] += left[s]
            points[winner] = sum(left[s] for s in range(n) if s != winner)
        return points

    def _game_end(self) -> Termination | None:
        rules = self.rules
        target = rules.target_score
        if rules.scoring is Scoring.INDIVIDUAL:
            if self.hand_number >= rules.individual_hands:
                return Termination.HANDS_COMPLETED
        elif rules.scoring is Scoring.ELIMINATION:
            assert target is not None
            for seat in list(self.active_seats):
                if self.totals[seat] >= target:
                    self.active_seats.remove(seat)
                    self.eliminated[seat] = self.hand_number
                    self._emit(ev.PlayerEliminated(seat))
            if len(self.active_seats) <= 1:
                return Termination.LAST_STANDING
        elif target is None:
            return Termination.SINGLE_HAND
        elif max(self.totals) >= target:
            return Termination.TARGET_REACHED
        if self.hand_number >= rules.max_hands:
            return Termination.HAND_LIMIT
        return None

    def _rank_key(self, seat: int) -> tuple[int, ...]:
        scoring = self.rules.scoring
        total = self.totals[seat]
        if scoring is Scoring.LOW_SCORE:
            return (total,)
        if scoring is Scoring.ELIMINATION:
            if seat in self.eliminated:
                return (1, -self.eliminated[seat], total)
            return (0, total)
        if scoring is Scoring.INDIVIDUAL:
            return (-self._contests_won(seat), -total)
        if scoring is Scoring.PARTNERS:
            return (-total,)
        # Equal totals (every player of a single hand can have 0) are ordered by the last
        # hand: its winner first, then fewer points left in hand.
        if seat == self._last_winner:
            return (-total, 0, 0)
        return (-total, 1, self._last_hand_left[seat])

    def _contests_won(self, seat: int) -> int:
        pp = self.pair_points
        return sum(1 for other in range(self.num_players)
                   if other != seat and pp[seat][other] > pp[other][seat])

    def _ranks(self) -> tuple[int, ...]:
        return ranks_from_keys([self._rank_key(s) for s in range(self.num_players)])

    def _final_scores(self) -> tuple[int, ...]:
        if self.rules.scoring is Scoring.INDIVIDUAL:
            return tuple(self._contests_won(s) for s in range(self.num_players))
        return tuple(self.totals)

    def _finish(self, termination: Termination, ranks: tuple[int, ...]) -> None:
        self.outcome = Outcome(termination, self._final_scores(), ranks, self.hand_number)
        self.phase = Phase.GAME_OVER
        self.decider = None
        self._legal = None
        self._emit(ev.GameEnded(self.outcome.winners, self.outcome.scores, ranks,
                                termination.value))


def replay(rules: RuleSet, num_players: int, seed: int, actions: Sequence[Action]) -> Game:
    """Replay a game from its seed and actions; the result equals the original."""
    game = Game.new(rules, num_players, seed)
    for action in actions:
        game.apply(action)
    return game
