"""Play whole games offline: a bot built on the SDK against the real rules engine, no server.

`play_offline` seats the bot and its opponents (each a `arena.client.Bot` or a
``decide(view, legal)`` function) at one game, refereed by `arena.engine`, and
returns the outcome and every decision the bot made. The deal can come from a
seed, a stacked deck, or be laid out card by card (`stacked`), so that a test
can set up the position where one play is right and check that the bot finds
it::

    from arena.testing import play_offline, stacked

    result = play_offline(MyBot(), deal=stacked("RS R5", "R1", starter="R2"),
                          rules={"target_score": None})
    assert [str(d.action) for d in result.decisions] == ["play RS UNO!", "play R5"]
    assert result.won

Each seat is played by the SDK's own `Client`, fed the very messages the arena
server would send it (built by `arena.wire` from the engine's state: the
GameStart, the seat's own events, its decision requests, the GameEnd), so
the bot's hooks, its `Table` and its `View` are exactly those of a live match,
without a socket or a thread.

Why here and not in `arena.client.testing`: the referee is the engine, and the
SDK must not import it (bots ship without the engine and the server). This
module sits beside the SDK, imports the engine, `arena.wire` and the SDK, and
is imported by nobody in `arena.client`; a bot that only has the SDK can still
use `arena.client.testing`'s fake server.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from arena import wire
from arena.client.bot import Bot, Choice, DecideFn, as_bot, resolve_choice
from arena.client.connection import Client
from arena.client.events import Event as ClientEvent
from arena.client.model import Action as ClientAction
from arena.client.model import Outcome as ClientOutcome
from arena.client.model import ServerError
from arena.client.table import Table
from arena.client.testing import first_legal
from arena.client.view import View
from arena.engine import OFFICIAL, Card, Game, RuleSet, cards
from arena.engine import events as ev
from arena.engine.actions import Action
from arena.v1 import bot_pb2

__all__ = ["BotFailure", "Deal", "Decision", "OfflineGame", "play_offline", "stacked"]

GAME_ID = "offline"
"""The game id the bots see unless `play_offline` is given another."""


class BotFailure(AssertionError):
    """A bot's decide or hook raised, or its decide answered something that is not legal.

    A live client logs such a failure and plays on (with the passive action for a
    bad decision); `play_offline` raises it instead, unless told not to be strict.
    """


@dataclass(frozen=True)
class Deal:
    """A first hand laid out card by card: each seat's hand, the first face-up card, the
    draw pile (top card first) and the dealer (None: the last seat, so that seat 0
    plays first after a number card)."""

    hands: tuple[tuple[Card, ...], ...]
    starter: Card
    draw_pile: tuple[Card, ...] = ()
    dealer: int | None = None


def stacked(*hands: str, starter: str, draw: str = "", dealer: int | None = None) -> Deal:
    """A `Deal` in short notation: ``stacked("R5 R7", "Y1 Y2", starter="R2", draw="G3")``."""
    return Deal(tuple(tuple(cards(hand)) for hand in hands), Card.parse(starter),
                tuple(cards(draw)), dealer)


@dataclass(frozen=True)
class Decision:
    """One decision a seat made: what it saw, what it answered, and how long it took."""

    seat: int
    view: View
    """The view the bot's decide was given."""
    legal: list[ClientAction]
    """The legal actions it was given, in order."""
    choice: object
    """What decide returned (None if it raised)."""
    error: Exception | None
    """What decide raised, if it did."""
    index: int
    """The index in `legal` the SDK answered."""
    seconds: float
    """How long decide took."""

    @property
    def action(self) -> ClientAction:
        """The action the SDK answered (and the engine applied)."""
        return self.legal[self.index]

    @property
    def fell_back(self) -> bool:
        """True when decide raised or returned something not legal, so the SDK answered
        the passive action instead."""
        return self.error is not None or resolve_choice(self.choice, self.legal) is None


@dataclass
class OfflineGame:
    """A finished offline game, seen from the seat of the bot under test."""

    seat: int
    """The bot's seat."""
    outcome: ClientOutcome
    """The outcome, as the bot was told it in its GameEnd."""
    table: Table
    """The bot's table: players, rules and every event it saw."""
    game: Game
    """The engine's game: every event and action, every hand, as the referee saw them."""
    decisions_by_seat: list[list[Decision]] = field(default_factory=list)
    """Every seat's decisions, in order."""

    @property
    def decisions(self) -> list[Decision]:
        """The bot's decisions, in order."""
        return self.decisions_by_seat[self.seat]

    @property
    def won(self) -> bool:
        """True when the bot's seat is among the winners."""
        return self.seat in self.outcome.winners


def play_offline(bot: Bot | DecideFn, opponents: Sequence[Bot | DecideFn] = (first_legal,), *,
                 rules: RuleSet | Mapping[str, object] = OFFICIAL, seed: int = 0,
                 deal: Deal | None = None, deck: str | Sequence[Card] | None = None,
                 seat: int = 0, game_id: str = GAME_ID, events_in_requests: bool = True,
                 auto_single_action: bool = False, decision_timeout_ms: int = 1000,
                 strict: bool = True) -> OfflineGame:
    """Play one whole game of `bot` (in `seat`) against `opponents` and return how it went.

    `rules` is a `RuleSet` or changes to the official rules
    (``{"target_score": None}`` plays one hand). The first hand is dealt from
    `seed`, from `deck` (every card, top first, dealt by seat 0), or laid out by
    `deal`; later hands are shuffled from `seed`. The game is a pure function of
    these and of the bots' answers; every seat's GameStart carries the `bot_seed`
    a server would send with `seed`, so bots that follow it repeat themselves.
    Give every seat its own bot object: a bot keeps per-game state by game id,
    and all seats share one. With `strict`, a failing decide or hook, or a
    decide that answers an illegal action, raises `BotFailure` at once;
    otherwise the game goes on as it would live.
    `events_in_requests` and `auto_single_action` are the client options of the
    same names.
    """
    players = list(opponents)
    if not 0 <= seat <= len(players):
        raise ValueError(f"seat {seat} does not exist at a table of {len(players) + 1}")
    players.insert(seat, bot)
    rule_set = rules if isinstance(rules, RuleSet) else OFFICIAL.with_changes(**rules)
    game = _new_game(rule_set, len(players), seed, deal, deck)
    referee = _Referee(game, game_id, [as_bot(p) for p in players], strict,
                       events_in_requests, auto_single_action, decision_timeout_ms)
    referee.play()
    table = referee.tables[seat]
    assert table.outcome is not None
    return OfflineGame(seat, table.outcome, table, game, referee.decisions)


def _new_game(rules: RuleSet, num_players: int, seed: int, deal: Deal | None,
              deck: str | Sequence[Card] | None) -> Game:
    if deal is not None and deck is not None:
        raise ValueError("give a deal or a deck, not both")
    if deal is not None:
        if len(deal.hands) != num_players:
            raise ValueError(f"the deal has {len(deal.hands)} hands for {num_players} seats")
        dealer = num_players - 1 if deal.dealer is None else deal.dealer
        return Game.stacked(rules, deal.hands, deal.starter, deal.draw_pile, dealer, seed)
    if deck is not None:
        return Game.from_deck(rules, num_players, cards(deck) if isinstance(deck, str) else deck,
                              seed=seed)
    return Game.new(rules, num_players, seed)


class _Referee:
    """Runs the game loop of a server table, delivering each seat's messages to its client."""

    def __init__(self, game: Game, game_id: str, bots: list[Bot], strict: bool,
                 events_in_requests: bool, auto_single_action: bool,
                 decision_timeout_ms: int) -> None:
        self.game = game
        self.game_id = game_id
        self.strict = strict
        self.auto_single_action = auto_single_action
        self.decision_timeout_ms = decision_timeout_ms
        self.decisions: list[list[Decision]] = [[] for _ in bots]
        self.recorders = [_Recorder(bot, seat, self.decisions[seat])
                          for seat, bot in enumerate(bots)]
        self.clients = [Client(recorder, server="offline", token="offline", tls=False,
                               events_in_requests=events_in_requests,
                               auto_single_action=auto_single_action, give_up_after=None)
                        for recorder in self.recorders]
        self.unsent: list[list[bytes]] = [[] for _ in bots]
        self.tables: list[Table] = []
        self._request_ids = itertools.count(1)

    def play(self) -> None:
        """Welcome every seat, start the game, play it to its end, send the GameEnd."""
        game = self.game
        names = [client.bot.name for client in self.clients]
        for seat, client in enumerate(self.clients):
            self._deliver(seat, bot_pb2.ServerMessage(welcome=bot_pb2.Welcome(
                bot_name=names[seat], server_version="offline", max_tables=1)))
            self._deliver(seat, bot_pb2.ServerMessage(game_start=self._game_start(seat, names)))
            self.tables.append(client.tables[self.game_id])
        self._publish(game.events)
        while not game.is_over:
            assert game.decider is not None
            seat = game.decider
            self._publish(game.apply(self._decide(seat, game.legal_actions())))
        self._end()

    def _game_start(self, seat: int, names: Sequence[str]) -> bot_pb2.GameStart:
        return bot_pb2.GameStart(
            game_id=self.game_id, seat=seat, rules=wire.rules_to_proto(self.game.rules),
            players=[bot_pb2.Player(seat=n, name=name) for n, name in enumerate(names)],
            decision_timeout_ms=self.decision_timeout_ms,
            bot_seed=wire.bot_seed(self.game.seed, seat, names))

    def _decide(self, seat: int, legal: list[Action]) -> Action:
        if self.auto_single_action and len(legal) == 1:
            return legal[0]
        client = self.clients[seat]
        events: list[bytes] = []
        if client.events_in_requests:
            events, self.unsent[seat] = self.unsent[seat], []
        else:
            self._flush(seat)
        request = bot_pb2.ServerMessage.FromString(wire.decision_request_to_bytes(
            f"r{next(self._request_ids)}", self.game_id, self.game.view(seat), legal,
            self.decision_timeout_ms, 0, events))
        answer = self._deliver(seat, request)
        if answer is None or answer.WhichOneof("kind") != "decision":
            raise RuntimeError(f"the SDK sent no decision for seat {seat}: {answer}")
        index = answer.decision.action_index
        if not 0 <= index < len(legal):
            raise RuntimeError(f"the SDK answered index {index} of {len(legal)} for seat {seat}")
        decision = dataclasses.replace(self.decisions[seat][-1], index=index)
        self.decisions[seat][-1] = decision
        if self.strict and decision.fell_back:
            self._fail(seat, decision, legal)
        return legal[index]

    def _fail(self, seat: int, decision: Decision, legal: list[Action]) -> None:
        what = (f"raised {decision.error!r}" if decision.error is not None
                else f"returned {decision.choice!r}, which is not one of the {len(legal)} "
                     "legal actions")
        raise BotFailure(f"seat {seat} ({self.clients[seat].bot.name}): decide {what} "
                         f"in {decision.view!r}") from decision.error

    def _deliver(self, seat: int, message: bot_pb2.ServerMessage) -> bot_pb2.BotMessage | None:
        """Hand `message` to the seat's client as if it came down its stream."""
        recorder = self.recorders[seat]
        # The client's own handler, as its stream loop calls it for every message.
        answer = self.clients[seat]._handle(message)
        if self.strict and recorder.hook_errors:
            hook, error = recorder.hook_errors[0]
            raise BotFailure(f"seat {seat} ({recorder.name}): {hook} raised {error!r}") from error
        return answer

    def _publish(self, events: Iterable[ev.Event]) -> None:
        for event in events:
            message = wire.event_to_bytes(event)
            for seat in range(len(self.clients)) if event.audience is None else event.audience:
                self.unsent[seat].append(message)

    def _flush(self, seat: int) -> None:
        if self.unsent[seat]:
            self._deliver(seat, wire.game_events_to_proto(self.game_id, self.unsent[seat]))
        self.unsent[seat] = []

    def _end(self) -> None:
        outcome = self.game.outcome
        assert outcome is not None
        end = bot_pb2.ServerMessage(game_end=bot_pb2.GameEnd(
            game_id=self.game_id, reason=outcome.termination.value,
            outcome=wire.outcome_to_proto(outcome, ["normal"] * len(self.clients))))
        for seat in range(len(self.clients)):
            self._flush(seat)
            self._deliver(seat, end)


class _Recorder(Bot):
    """Passes every call on to `bot`, recording its decisions and the failures of its hooks."""

    def __init__(self, bot: Bot, seat: int, decisions: list[Decision]) -> None:
        self.bot = bot
        self.name = bot.name
        self.seat = seat
        self.decisions = decisions
        self.hook_errors: list[tuple[str, Exception]] = []

    def decide(self, view: View, legal: list[ClientAction]) -> Choice:
        """The bot's choice, recorded (with its index filled in once the SDK answered)."""
        start = time.perf_counter()
        try:
            choice = self.bot.decide(view, legal)
        except Exception as error:
            self.decisions.append(Decision(self.seat, view, legal, None, error, -1,
                                           time.perf_counter() - start))
            raise
        self.decisions.append(Decision(self.seat, view, legal, choice, None, -1,
                                       time.perf_counter() - start))
        return choice

    def on_game_start(self, table: Table) -> None:
        """The bot's hook."""
        self._hook("on_game_start", self.bot.on_game_start, table)

    def on_events(self, table: Table, events: list[ClientEvent]) -> None:
        """The bot's hook."""
        self._hook("on_events", self.bot.on_events, table, events)

    def on_game_end(self, table: Table, outcome: ClientOutcome) -> None:
        """The bot's hook."""
        self._hook("on_game_end", self.bot.on_game_end, table, outcome)

    def on_error(self, error: ServerError, table: Table | None) -> None:
        """The bot's hook."""
        self._hook("on_error", self.bot.on_error, error, table)

    def _hook(self, name: str, hook: Callable[..., object], *args: object) -> None:
        try:
            hook(*args)
        except Exception as error:
            self.hook_errors.append((name, error))
            raise
