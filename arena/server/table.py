"""One table: drives one game between bots, asking each decision of the seat it is due.

The loop is: whose decision is due → ask that seat's proxy (or decide for it,
when no one plays the seat) → apply the action → hand each seat's proxy the
events it may see, and the watchers the public ones. The table speaks to seats
only through `SeatProxy` (`arena.server.seat`) and never builds a protocol
message; what a late, illegal, garbled or missing answer costs is the table's
`BotPolicy`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from arena import wire
from arena.engine import events as ev
from arena.engine.actions import Action
from arena.engine.game import Game
from arena.engine.rules import RuleSet
from arena.policy import BotPolicy, SeatTermination, Violation, passive_action
from arena.record import Decision, DecisionOutcome, Penalty
from arena.result import GameAbortedError, GameResult
from arena.server.seat import WITHDRAWN, Departed, SeatProxy, SeatSetup

if TYPE_CHECKING:
    from arena.v1 import admin_pb2, uno_pb2

REPLAY_BYTES = 256 * 1024
"""The most event bytes in one message of the replay a reconnected bot is sent."""
YIELD_EVERY = 64
"""Decisions taken without a round trip before the table lets other tasks run."""

WatchQueue = asyncio.Queue["admin_pb2.WatchGameUpdate | None"]
"""A watcher's updates: the public events so far, then live ones, the outcome, None."""


@dataclass(eq=False, slots=True)
class Seat:
    """One seat at a table: its bot, the proxy playing it now, and its record."""

    number: int
    bot_name: str
    bank_left: float = 0.0
    proxy: SeatProxy | None = None
    strikes: int = 0
    termination: SeatTermination = SeatTermination.NORMAL
    absent_cause: Violation = SeatTermination.DISCONNECT
    absence_checked: bool = False
    """Whether the crash check has run since the seat lost its proxy."""


class GameTable:
    """Drives one game. Create it, `seat` the claimed seats' proxies, then `await run()`."""

    def __init__(self, game_id: str, players: Sequence[str], rules: RuleSet, seed: int,
                 policy: BotPolicy,
                 crash_check: Callable[[str], Awaitable[bool]] | None = None) -> None:
        self.game_id = game_id
        self.crash_check = crash_check
        """Asked whether a bot whose connection dropped crashed (see `server.CrashCheck`)."""
        self.players = tuple(players)
        self.rules = rules
        self.seed = seed
        self.policy = policy
        self.game = Game.new(rules, len(players), seed)
        self.seats = [Seat(n, name, policy.time_bank) for n, name in enumerate(players)]
        self.decisions = 0
        self.decision_log: list[Decision] = []
        """Every decision owed so far, in order: who, how long, what came of it."""
        self.forfeited_seat: int | None = None
        self.started = datetime.now(UTC)
        self.finished: datetime | None = None
        self.aborted = False
        self.closed = asyncio.Event()
        self._unawaited = 0
        self._seating = asyncio.Event()
        """Set (and replaced) whenever a seat is taken over, a bot is marked crashed or
        the table is aborted: what a decision waiting for an absent bot waits on."""
        self._watchers: list[WatchQueue] = []
        self._final_update: admin_pb2.WatchGameUpdate | None = None

    # ------------------------------------------------------------- seating

    @property
    def is_over(self) -> bool:
        """True once the game has ended (or was aborted)."""
        return self.finished is not None

    def seat(self, number: int, proxy: SeatProxy) -> None:
        """Give seat `number` to `proxy`, which is told its place at the table."""
        self.seats[number].proxy = proxy
        proxy.join(self._setup(number))

    def take_over(self, number: int, proxy: SeatProxy) -> None:
        """A reconnected bot takes back its seat: its place again, then the events so far."""
        self.seats[number].proxy = proxy
        proxy.join(self._setup(number), self._replay(number))
        self._seating_changed()

    def _seating_changed(self) -> None:
        self._seating.set()
        self._seating = asyncio.Event()

    def _replay(self, number: int) -> Iterator[list[bytes]]:
        """The encoded events seat `number` may see so far, in batches of at most
        `REPLAY_BYTES` (or one event, if larger)."""
        batch: list[bytes] = []
        size = 0
        for event in wire.events_for_seat(self.game.events, number):
            message = wire.event_to_bytes(event)
            if size + len(message) > REPLAY_BYTES and batch:
                yield batch
                batch, size = [], 0
            batch.append(message)
            size += len(message) + 8  # its key and length
        if batch:
            yield batch

    def orphan_seats(self, bot_name: str) -> list[int]:
        """Seats of `bot_name` that no proxy plays now."""
        if self.is_over:
            return []
        return [s.number for s in self.seats if s.bot_name == bot_name and s.proxy is None]

    def detach(self, gone: Callable[[SeatProxy], bool], cause: Violation) -> None:
        """The seats whose proxy is `gone` (a connection that closed) play on without it
        until their bot reconnects, and their violations meanwhile are called `cause`.
        Seats the same bot plays over other connections are not touched."""
        for seat in self.seats:
            if seat.proxy is not None and gone(seat.proxy):
                self._detach(seat, cause)

    def _detach(self, seat: Seat, cause: Violation) -> None:
        assert seat.proxy is not None
        seat.proxy.leave()
        seat.proxy = None
        seat.absent_cause = cause
        seat.absence_checked = False

    def mark_crashed(self, bot_name: str) -> None:
        """The bot's process died: violations of its absent seats count as crashes."""
        for seat in self.seats:
            if seat.bot_name == bot_name and seat.proxy is None:
                seat.absent_cause = SeatTermination.CRASH
        self._seating_changed()

    def _setup(self, number: int) -> SeatSetup:
        return SeatSetup(self.game_id, number, self.players, self.rules, self.policy,
                         wire.bot_seed(self.seed, number, self.players))

    # ---------------------------------------------------------------- play

    async def run(self) -> GameResult:
        """Play the game to its end; raise `GameAbortedError` if it is aborted first."""
        try:
            # The deal's events; nothing can watch the table before this first step.
            self._publish(self.game.events)
            while not self.game.is_over:
                if self.aborted:
                    raise GameAbortedError(f"game {self.game_id} was aborted")
                await self._step()
        except GameAbortedError:
            self._end_aborted("aborted: the server stopped the game")
            raise
        except BaseException as exc:  # cancelled by the caller, or a bug: free the seats
            self._end_aborted(f"aborted: {type(exc).__name__}")
            raise
        self._end()
        return self.result()

    def abort(self) -> None:
        """Stop the game at the next decision (an open request is withdrawn now)."""
        self.aborted = True
        for seat in self.seats:
            if seat.proxy is not None:
                seat.proxy.withdraw()
        self._seating_changed()

    async def _step(self) -> None:
        game = self.game
        assert game.decider is not None
        seat = self.seats[game.decider]
        legal = game.legal_actions()
        action = await self._decide(seat, legal)
        events = game.forfeit(seat.number) if action is None else game.apply(action)
        self.decisions += 1
        self._publish(events)
        if self._unawaited >= YIELD_EVERY:
            self._unawaited = 0
            await asyncio.sleep(0)

    async def _decide(self, seat: Seat, legal: list[Action]) -> Action | None:
        """The action for the decision due to `seat`; None when the seat forfeits instead.

        A seat whose bot is not connected is waited for like any answer: until the
        bot reconnects and takes the seat back (then it is asked, in the time left),
        or until the deadline and the time bank have passed; only then does its
        absence cost it. A bot known to have crashed is not waited for.
        """
        waited = 0.0
        if seat.proxy is None:
            self._unawaited += 1
            began = asyncio.get_running_loop().time()
            back = await self._await_return(seat)
            if back is None or seat.proxy is None:
                return self._penalise(seat, seat.absent_cause, legal,
                                      asyncio.get_running_loop().time() - began)
            waited = back
        proxy = seat.proxy
        if len(legal) == 1 and proxy.auto_single_action:
            self._unawaited += 1
            self._note(seat, DecisionOutcome.AUTO, 0.0)
            return legal[0]
        self._unawaited = 0
        timeout = self.policy.decision_timeout
        answer, elapsed = await proxy.decide(self.game.view(seat.number), legal,
                                             timeout + seat.bank_left - waited,
                                             seat.bank_left - max(0.0, waited - timeout))
        elapsed += waited
        if answer is SeatTermination.TIMEOUT:
            seat.bank_left = 0.0
        elif elapsed > timeout:
            seat.bank_left = max(0.0, seat.bank_left - (elapsed - timeout))
        if isinstance(answer, Action):
            self._note(seat, DecisionOutcome.ANSWERED, elapsed)
            return answer
        if answer is WITHDRAWN:
            raise GameAbortedError(f"game {self.game_id} was aborted")
        if isinstance(answer, Departed):
            if seat.proxy is proxy:
                self._detach(seat, answer.cause)
            await self._check_absence(seat)
            return self._penalise(seat, seat.absent_cause, legal, elapsed)
        return self._penalise(seat, answer, legal, elapsed)

    def _note(self, seat: Seat, outcome: DecisionOutcome, elapsed: float,
              penalty: Penalty | None = None) -> None:
        """Log the decision due now (`elapsed` seconds; the seat's strikes after it)."""
        self.decision_log.append(Decision(seat.number, self.decisions, len(self.game.events),
                                          round(elapsed * 1000), outcome, seat.strikes,
                                          penalty))

    async def _await_return(self, seat: Seat) -> float | None:
        """Wait for the absent seat's bot to take it back, at most the decision's deadline
        plus the seat's time bank. Return the seconds waited if the bot is back with
        time left, else None; a wait that runs out empties the bank, as a timeout does."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        await self._check_absence(seat)
        deadline = began + self.policy.decision_timeout + seat.bank_left
        while seat.proxy is None and seat.absent_cause is not SeatTermination.CRASH:
            if self.aborted:
                raise GameAbortedError(f"game {self.game_id} was aborted")
            left = deadline - loop.time()
            if left <= 0:
                break
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await self._seating.wait()
        now = loop.time()
        if seat.proxy is not None and now < deadline:
            return now - began
        if seat.absent_cause is not SeatTermination.CRASH:
            seat.bank_left = 0.0
        return None

    async def _check_absence(self, seat: Seat) -> None:
        """Before the first violation of a seat whose connection dropped, learn whether
        the bot's process crashed: the drop is often seen before the process exit."""
        if seat.absence_checked:
            return
        seat.absence_checked = True
        if (seat.absent_cause is SeatTermination.DISCONNECT and self.crash_check is not None
                and await self.crash_check(seat.bot_name)):
            self.mark_crashed(seat.bot_name)

    def _penalise(self, seat: Seat, violation: Violation, legal: list[Action],
                  elapsed: float) -> Action | None:
        """Apply the bot policy: the fallback action plus a strike, or None to forfeit;
        the decision (`elapsed` seconds) is logged with what it cost."""
        policy = self.policy
        outcome = DecisionOutcome(violation.value)
        if policy.on_violation == "forfeit":
            self._forfeit(seat, violation)
            self._note(seat, outcome, elapsed, Penalty.FORFEIT)
            return None
        seat.strikes += 1
        if seat.proxy is not None:
            seat.proxy.strike(seat.strikes, policy.max_strikes, violation)
        if policy.max_strikes is not None and seat.strikes >= policy.max_strikes:
            self._forfeit(seat, violation)
            self._note(seat, outcome, elapsed, Penalty.FORFEIT)
            return None
        self._note(seat, outcome, elapsed, Penalty.FALLBACK)
        return passive_action(legal)

    def _forfeit(self, seat: Seat, violation: Violation) -> None:
        seat.termination = violation
        self.forfeited_seat = seat.number
        if seat.proxy is not None:
            seat.proxy.forfeit(violation)

    # -------------------------------------------------------------- events

    def _publish(self, events: Sequence[ev.Event]) -> None:
        """Hand each event to the seats that may see it (and to the watchers, if public).

        The rule is `wire.events_for_seat`'s, applied by routing each event to its
        `audience` (every seat when None) rather than by filtering per seat; each
        event is encoded once for all.
        """
        if not events:
            return
        messages = [wire.event_to_bytes(event) for event in events]
        if all(event.audience is None for event in events):
            for seat in self.seats:
                if seat.proxy is not None:
                    seat.proxy.events(messages)
            public = messages
        else:
            public = self._route(events, messages)
        if public and self._watchers:
            update = wire.watch_update_to_proto(self.game_id, public)
            for watcher in self._watchers:
                watcher.put_nowait(update)

    def _route(self, events: Sequence[ev.Event], messages: list[bytes]) -> list[bytes]:
        """Hand each encoded event to its audience's proxies; return the public ones."""
        seats = self.seats
        routed: list[list[bytes]] = [[] for _ in seats]
        public: list[bytes] = []
        for event, message in zip(events, messages, strict=True):
            audience = event.audience
            if audience is None:
                public.append(message)
                for queue in routed:
                    queue.append(message)
            else:
                for number in audience:
                    routed[number].append(message)
        for seat, queue in zip(seats, routed, strict=True):
            if queue and seat.proxy is not None:
                seat.proxy.events(queue)
        return public

    # ----------------------------------------------------------------- end

    def _end(self) -> None:
        outcome = self.game.outcome
        assert outcome is not None
        terminations = [seat.termination for seat in self.seats]
        reason = outcome.termination.value
        if self.forfeited_seat is not None:
            forfeiter = self.seats[self.forfeited_seat]
            reason = (f"forfeit: seat {forfeiter.number} ({forfeiter.bot_name}), "
                      f"{forfeiter.termination.value}")
        self._close(wire.outcome_to_proto(outcome, terminations), reason)

    def _end_aborted(self, reason: str) -> None:
        if self.is_over:
            return
        for seat in self.seats:
            seat.termination = SeatTermination.ABORTED
        self._close(wire.unfinished_outcome_to_proto(
            "aborted", self.game.totals, self.game.hand_number,
            [seat.termination for seat in self.seats]), reason)

    def _close(self, outcome: uno_pb2.Outcome, reason: str) -> None:
        """Tell every seat the end and let it go, then tell the watchers."""
        self.finished = datetime.now(UTC)
        for seat in self.seats:
            if seat.proxy is not None:
                seat.proxy.end(outcome, reason)
                seat.proxy = None
        self._final_update = wire.watch_update_to_proto(self.game_id, (), self.players, outcome)
        for watcher in self._watchers:
            watcher.put_nowait(self._final_update)
            watcher.put_nowait(None)
        self._watchers.clear()
        self.closed.set()

    def result(self) -> GameResult:
        """The record of the finished game."""
        game = self.game
        assert game.outcome is not None and self.finished is not None
        return GameResult(
            game_id=self.game_id,
            players=self.players,
            rules=self.rules,
            seed=self.seed,
            outcome=game.outcome,
            seat_terminations=tuple(seat.termination for seat in self.seats),
            actions=tuple(game.actions),
            events=tuple(game.events),
            forfeited_seat=self.forfeited_seat,
            strikes=tuple(seat.strikes for seat in self.seats),
            started=self.started,
            finished=self.finished,
            decisions=tuple(self.decision_log),
        )

    # ------------------------------------------------------------- watching

    def info(self) -> admin_pb2.TableInfo:
        """A line for `ListTables`."""
        return wire.table_info_to_proto(self.game_id, self.players, self.game.hand_number,
                                        self.decisions)

    def watch(self) -> WatchQueue:
        """A queue of updates: the public events so far, then live ones, the outcome, None."""
        queue: WatchQueue = asyncio.Queue()
        history = [wire.event_to_bytes(e) for e in wire.public_events(self.game.events)]
        queue.put_nowait(wire.watch_update_to_proto(self.game_id, history, self.players))
        if self._final_update is not None:
            queue.put_nowait(self._final_update)
            queue.put_nowait(None)
        else:
            self._watchers.append(queue)
        return queue

    def unwatch(self, queue: WatchQueue) -> None:
        """Stop feeding a queue from `watch`."""
        if queue in self._watchers:
            self._watchers.remove(queue)
