"""What a played game leaves behind: how each seat's part in it ended, each decision a
seat owed (its time and what came of it), and the game record, a JSON document from
which the engine replays the game exactly.

A record holds the rule set, the seed, the seats, every action and the forfeit, if
any: by the engine's determinism that is the whole game. It also keeps how each
seat's game ended and the outcome, so a replay can be checked against it.
Actions are written with the wire layer's JSON codec, as the store writes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from arena import wire
from arena.engine import events as ev
from arena.engine.actions import Action, IllegalActionError
from arena.engine.game import Game
from arena.engine.outcome import Outcome, Termination
from arena.engine.rules import RuleSet, RuleSetError
from arena.v1 import uno_pb2


class SeatTermination(StrEnum):
    """How one seat's participation in a game ended.

    The values are the protocol's `SeatTermination` names in lower case, so a
    server result is stored as it is. Every value but NORMAL and ABORTED is a
    forfeit the bot's own mistake caused.
    """

    NORMAL = "normal"
    """The seat played to the end of the game."""
    TIMEOUT = "timeout"
    """Forfeited after missing decision deadlines."""
    ILLEGAL = "illegal"
    """Forfeited after answering with actions that were not legal."""
    DISCONNECT = "disconnect"
    """Forfeited after its bot's connection closed mid-game."""
    CRASH = "crash"
    """Forfeited after its managed bot's process died."""
    MALFORMED = "malformed"
    """Forfeited after sending decisions that could not be understood."""
    ABORTED = "aborted"
    """The server stopped the game before it ended."""


class DecisionOutcome(StrEnum):
    """What came of one decision a seat owed: its bot answered, the server played the
    only legal action without asking, or the bot committed a violation (the values of
    `SeatTermination`'s faults)."""

    ANSWERED = "answered"
    """The bot answered with a legal action in time."""
    AUTO = "auto"
    """The only legal action was played without asking the bot."""
    TIMEOUT = "timeout"
    ILLEGAL = "illegal"
    MALFORMED = "malformed"
    DISCONNECT = "disconnect"
    CRASH = "crash"


class Penalty(StrEnum):
    """What a violation cost the seat under the table's bot policy."""

    FALLBACK = "fallback"
    """The most passive legal action was played for it, and it took a strike."""
    FORFEIT = "forfeit"
    """It forfeited the game."""


class Decision(NamedTuple):
    """One decision a seat owed during a game, as the server saw it (a named tuple: a
    table makes one per decision, so it must be cheap to make).

    `number` counts the game's decisions from 0: it is the index in the game's
    actions of the action the decision produced (a forfeit, which produces none,
    is the game's last decision). `events_before` is how many of the game's events
    came before it was asked (where it falls in the event log). `elapsed_ms` is the
    time the bot took (0 for an auto-played one), `strikes` the seat's strike count
    after the decision, and `penalty` what a violation cost it (None for an answer).
    """

    seat: int
    number: int
    events_before: int
    elapsed_ms: int
    outcome: DecisionOutcome
    strikes: int
    penalty: Penalty | None = None

    @property
    def auto(self) -> bool:
        """True when the server played the only legal action without asking."""
        return self.outcome is DecisionOutcome.AUTO

    def to_json(self) -> list[Any]:
        """The decision as a compact JSON array (the stored form; `from_json` reads it):
        [seat, number, events_before, elapsed_ms, outcome, strikes, penalty or null]."""
        return [self.seat, self.number, self.events_before, self.elapsed_ms,
                self.outcome.value, self.strikes,
                None if self.penalty is None else self.penalty.value]

    @classmethod
    def from_json(cls, value: Any) -> Decision:
        """The decision an array written by `to_json` describes; `ValueError` for
        anything else."""
        if not isinstance(value, list) or len(value) != 7:
            raise ValueError(f"a stored decision is an array of 7 values, got {value!r}")
        seat, number, events_before, elapsed_ms, outcome, strikes, penalty = value
        for name, count in (("seat", seat), ("number", number),
                            ("events_before", events_before), ("elapsed_ms", elapsed_ms),
                            ("strikes", strikes)):
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ValueError(f"a stored decision's {name} must be a whole number "
                                 f"of at least 0, got {count!r}")
        return cls(seat, number, events_before, elapsed_ms, DecisionOutcome(outcome), strikes,
                   None if penalty is None else Penalty(penalty))


def decisions_to_json(decisions: Sequence[Decision]) -> str:
    """Decisions as one compact JSON document, as the store keeps them."""
    return json.dumps([d.to_json() for d in decisions], separators=(",", ":"))


def decisions_from_json(text: str) -> tuple[Decision, ...]:
    """The decisions a document written by `decisions_to_json` holds; `ValueError` for
    a document that is not one."""
    entries = json.loads(text)
    if not isinstance(entries, list):
        raise ValueError("stored decisions are a JSON array")
    return tuple(Decision.from_json(entry) for entry in entries)


RECORD_FORMAT = "arena-game-record"
"""The value of a record document's "format" key."""
RECORD_VERSION = 1
"""The version of the record document this module writes and reads."""


class GameRecordError(ValueError):
    """A game record is not valid; the message says what is wrong and where."""


class RecordVersionError(GameRecordError):
    """The document is not a game record of a version this module reads."""


class RecordFieldError(GameRecordError):
    """A field of the record is missing or holds a bad value; `field` names it."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field


class MissingFieldError(RecordFieldError):
    """A field the record must have is absent."""

    def __init__(self, field: str) -> None:
        super().__init__(field, "missing")


class RecordActionError(GameRecordError):
    """An entry of the record's actions does not decode to an engine action."""

    def __init__(self, index: int, problem: str) -> None:
        super().__init__(f"actions[{index}]: {problem}")
        self.index = index


class ReplayMismatchError(GameRecordError):
    """Replaying the record does not give back the game it stored: an action is not
    legal where the record plays it, or the outcome differs."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One played game, complete enough to replay it and check the replay.

    `seats[seat]` is the name of the bot in that seat; `teams` the seats of each
    team in a partner game, else None. `actions` are every decision in order; a
    game ended by the server's bot policy names `forfeited_seat`, forfeited after
    the last action. `seat_terminations[seat]` says how each seat's game ended
    (a server fact, not replayed); `outcome` is the game's result.

    The shape is checked when a record is built (a bad one raises
    `RecordFieldError`); whether the actions really lead to the outcome is what
    `verify_replay` checks. `dumps` and `loads` are inverses.
    """

    rules: RuleSet
    seed: int
    seats: tuple[str, ...]
    actions: tuple[Action, ...]
    outcome: Outcome
    seat_terminations: tuple[SeatTermination, ...]
    forfeited_seat: int | None = None
    teams: tuple[tuple[int, ...], ...] | None = None

    def __post_init__(self) -> None:
        players = len(self.seats)
        if not 2 <= players <= 10:
            raise RecordFieldError("seats", f"a game has 2 to 10 seats, got {players}")
        for name, length in (("seat_terminations", len(self.seat_terminations)),
                             ("outcome.scores", len(self.outcome.scores)),
                             ("outcome.ranks", len(self.outcome.ranks))):
            if length != players:
                raise RecordFieldError(name, f"{length} entries for {players} seats")
        if self.forfeited_seat is not None and not 0 <= self.forfeited_seat < players:
            raise RecordFieldError("forfeited_seat",
                                   f"no seat {self.forfeited_seat} among {players}")
        if self.teams is not None:
            seated = sorted(seat for team in self.teams for seat in team)
            if seated != list(range(players)):
                raise RecordFieldError("teams", "each seat must be in exactly one team")

    # ------------------------------------------------------------------ JSON

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON object (the document `dumps` writes)."""
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "seats": list(self.seats),
            "teams": None if self.teams is None else [list(team) for team in self.teams],
            "actions": wire.actions_to_dicts(self.actions),
            "forfeited_seat": self.forfeited_seat,
            "seat_terminations": [t.value for t in self.seat_terminations],
            "outcome": {
                "termination": self.outcome.termination.value,
                "scores": list(self.outcome.scores),
                "ranks": list(self.outcome.ranks),
                "hands_played": self.outcome.hands_played,
            },
        }

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """The record a JSON object written by `to_dict` describes.

        Raises `RecordVersionError` for another format or version,
        `MissingFieldError` for an absent field, `RecordFieldError` for a bad or
        unknown one, and `RecordActionError` for an action that does not decode.
        """
        if not isinstance(data, Mapping):
            raise GameRecordError(f"a game record is a JSON object, got {_json_type(data)}")
        if data.get("format") != RECORD_FORMAT:
            raise RecordVersionError(
                f"not a game record: format is {data.get('format')!r}, not {RECORD_FORMAT!r}")
        if "version" not in data:
            raise MissingFieldError("version")
        if type(data["version"]) is not int or data["version"] != RECORD_VERSION:
            raise RecordVersionError(
                f"game record version {data.get('version')!r} is not supported "
                f"(this version of arena reads version {RECORD_VERSION})")
        unknown = sorted(set(data) - _FIELDS)
        if unknown:
            raise RecordFieldError(unknown[0], "unknown field")
        missing = [name for name in _REQUIRED if name not in data]
        if missing:
            raise MissingFieldError(missing[0])
        return cls(
            rules=_rules(data["rules"]),
            seed=_int(data["seed"], "seed"),
            seats=tuple(_str(name, f"seats[{i}]")
                        for i, name in enumerate(_list(data["seats"], "seats"))),
            teams=_teams(data["teams"]),
            actions=decode_actions(_list(data["actions"], "actions")),
            forfeited_seat=_optional_int(data["forfeited_seat"], "forfeited_seat"),
            seat_terminations=_terminations(data["seat_terminations"]),
            outcome=_outcome(data["outcome"]),
        )

    def dumps(self, *, indent: int | None = None) -> str:
        """The record as one JSON document (compact unless `indent` is given)."""
        separators = (",", ":") if indent is None else None
        return json.dumps(self.to_dict(), indent=indent, separators=separators)

    @classmethod
    def loads(cls, text: str | bytes) -> GameRecord:
        """The record a JSON document written by `dumps` holds.

        Raises `GameRecordError` for text that is not JSON, and the errors of
        `from_dict` for a document that is not a valid record.
        """
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise GameRecordError(f"a game record must be JSON: {exc}") from None
        return cls.from_dict(data)

    # ---------------------------------------------------------------- replay

    def replay(self) -> Game:
        """The game rebuilt through the engine from its seed, actions and forfeit.

        Raises `ReplayMismatchError` when an action is not legal where it is played.
        """
        game = Game.new(self.rules, len(self.seats), self.seed)
        for index, action in enumerate(self.actions):
            try:
                game.apply(action)
            except IllegalActionError as exc:
                raise ReplayMismatchError(f"actions[{index}] ({action}): {exc}") from None
        if self.forfeited_seat is not None:
            game.forfeit(self.forfeited_seat)
        return game

    def replay_events(self, *, public: bool = False) -> list[ev.Event]:
        """Every event of the replayed game in order, private ones too unless `public`."""
        events = self.replay().events
        return wire.public_events(events) if public else list(events)

    def verify_replay(self) -> Game:
        """Replay the game and return it; raise `ReplayMismatchError` unless it ends
        with exactly the stored outcome."""
        game = self.replay()
        if game.outcome != self.outcome:
            got = "no outcome (the game is not over)" if game.outcome is None else game.outcome
            raise ReplayMismatchError(
                f"the replay ends with {got}, but the record stores {self.outcome}")
        return game


def decode_actions(entries: Sequence[Any]) -> tuple[Action, ...]:
    """Actions from their JSON objects (as `wire.action_to_dict` writes them); an entry
    that does not decode raises `RecordActionError` naming its index."""
    return tuple(_action(entry, index) for index, entry in enumerate(entries))


_REQUIRED = ("rules", "seed", "seats", "teams", "actions", "forfeited_seat",
             "seat_terminations", "outcome")
_FIELDS = frozenset(_REQUIRED) | {"format", "version"}
_OUTCOME_FIELDS = ("termination", "scores", "ranks", "hands_played")


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordFieldError(field, f"must be a whole number, got {_json_type(value)}")
    return value


def _optional_int(value: Any, field: str) -> int | None:
    return None if value is None else _int(value, field)


def _str(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise RecordFieldError(field, f"must be a string, got {_json_type(value)}")
    return value


def _list(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordFieldError(field, f"must be an array, got {_json_type(value)}")
    return value


def _ints(value: Any, field: str) -> tuple[int, ...]:
    return tuple(_int(item, f"{field}[{i}]") for i, item in enumerate(_list(value, field)))


def _rules(value: Any) -> RuleSet:
    try:
        return RuleSet.from_dict(value)
    except RuleSetError as exc:
        raise RecordFieldError("rules", str(exc)) from None


def _teams(value: Any) -> tuple[tuple[int, ...], ...] | None:
    if value is None:
        return None
    return tuple(_ints(team, f"teams[{i}]") for i, team in enumerate(_list(value, "teams")))


def _terminations(value: Any) -> tuple[SeatTermination, ...]:
    terminations = []
    for i, item in enumerate(_list(value, "seat_terminations")):
        try:
            terminations.append(SeatTermination(_str(item, f"seat_terminations[{i}]")))
        except ValueError:
            choices = ", ".join(t.value for t in SeatTermination)
            raise RecordFieldError(f"seat_terminations[{i}]",
                                   f"{item!r} is not one of {choices}") from None
    return tuple(terminations)


def _outcome(value: Any) -> Outcome:
    if not isinstance(value, Mapping):
        raise RecordFieldError("outcome", f"must be an object, got {_json_type(value)}")
    for name in _OUTCOME_FIELDS:
        if name not in value:
            raise MissingFieldError(f"outcome.{name}")
    unknown = sorted(set(value) - set(_OUTCOME_FIELDS))
    if unknown:
        raise RecordFieldError(f"outcome.{unknown[0]}", "unknown field")
    try:
        termination = Termination(_str(value["termination"], "outcome.termination"))
    except ValueError:
        choices = ", ".join(t.value for t in Termination)
        raise RecordFieldError("outcome.termination",
                               f"{value['termination']!r} is not one of {choices}") from None
    return Outcome(termination, _ints(value["scores"], "outcome.scores"),
                   _ints(value["ranks"], "outcome.ranks"),
                   _int(value["hands_played"], "outcome.hands_played"))


def _action(entry: Any, index: int) -> Action:
    if not isinstance(entry, Mapping):
        raise RecordActionError(index, f"an action is a JSON object, got {_json_type(entry)}")
    try:
        return wire.action_from_proto(wire.dict_into(entry, uno_pb2.Action()))
    except wire.WireError as exc:
        raise RecordActionError(index, str(exc)) from None


FAULTS = (SeatTermination.TIMEOUT, SeatTermination.CRASH, SeatTermination.ILLEGAL,
          SeatTermination.DISCONNECT, SeatTermination.MALFORMED)
"""The seat terminations a bot's own mistake causes, in the order they are reported."""


def count_faults(games: Iterable[tuple[Sequence[str], Sequence[SeatTermination]]]
                 ) -> dict[str, dict[SeatTermination, int]]:
    """For each bot with a faulty seat among `games` (each its seats and their
    terminations), how many of its games ended with each fault; bots without any are
    left out, and so are faults a bot never had."""
    counts: dict[str, dict[SeatTermination, int]] = {}
    for seats, terminations in games:
        for bot, termination in zip(seats, terminations, strict=True):
            if termination in FAULTS:
                per_bot = counts.setdefault(bot, {})
                per_bot[termination] = per_bot.get(termination, 0) + 1
    return counts
