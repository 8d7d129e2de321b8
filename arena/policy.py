"""What a bot's mistakes cost: the per-table bot policy and how a seat's game ended."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from arena.engine.actions import Action, ActionKind
from arena.record import SeatTermination as SeatTermination

OnViolation = Literal["fallback", "forfeit"]

Violation = Literal[
    SeatTermination.TIMEOUT, SeatTermination.ILLEGAL, SeatTermination.DISCONNECT,
    SeatTermination.CRASH, SeatTermination.MALFORMED,
]
"""The seat terminations that a bot's own mistake causes."""


MAX_DECISION_TIMEOUT = (2**32 - 1) / 1000
"""The longest decision timeout a policy may set, in seconds: its milliseconds go to
bots as an unsigned 32-bit count (some 49 days)."""
MAX_TIME_BANK = MAX_DECISION_TIMEOUT
"""The largest time bank a policy may set, in seconds (as `MAX_DECISION_TIMEOUT`)."""


@dataclass(frozen=True, slots=True)
class BotPolicy:
    """How a table treats a bot that answers late, illegally, garbled or not at all.

    - `decision_timeout`: seconds a bot has for each decision (at most
      `MAX_DECISION_TIMEOUT`).
    - `time_bank`: extra seconds per seat and game; a slow decision spends it
      before it times out (at most `MAX_TIME_BANK`).
    - `on_violation`: "fallback" plays the most passive legal action (draw,
      keep, accept or pass) and records a strike; "forfeit" ends the game at once
      with the offending seat last.
    - `max_strikes`: under "fallback", the strike that forfeits the game (None:
      never).
    """

    decision_timeout: float = 1.0
    time_bank: float = 0.0
    on_violation: OnViolation = "fallback"
    max_strikes: int | None = 3

    def __post_init__(self) -> None:
        for name in ("decision_timeout", "time_bank"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{name}: must be a number of seconds, got {value!r}")
        if self.max_strikes is not None and (isinstance(self.max_strikes, bool)
                                             or not isinstance(self.max_strikes, int)):
            raise ValueError(f"max_strikes: must be a whole number or None, "
                             f"got {self.max_strikes!r}")
        if not 0 < self.decision_timeout <= MAX_DECISION_TIMEOUT:
            raise ValueError(f"decision_timeout: must be more than 0 and at most "
                             f"{MAX_DECISION_TIMEOUT:,.0f} seconds, got {self.decision_timeout}")
        if not 0 <= self.time_bank <= MAX_TIME_BANK:
            raise ValueError(f"time_bank: must be between 0 and {MAX_TIME_BANK:,.0f} seconds, "
                             f"got {self.time_bank}")
        if self.on_violation not in ("fallback", "forfeit"):
            raise ValueError(
                f"on_violation: must be 'fallback' or 'forfeit', got {self.on_violation!r}")
        if self.max_strikes is not None and self.max_strikes < 1:
            raise ValueError(f"max_strikes: must be at least 1 or None, got {self.max_strikes}")

    @property
    def decision_timeout_ms(self) -> int:
        """The per-decision deadline in whole milliseconds (as bots are told)."""
        return round(self.decision_timeout * 1000)

    @property
    def time_bank_ms(self) -> int:
        """The time bank in whole milliseconds (as bots are told)."""
        return round(self.time_bank * 1000)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-friendly values, the inverse of `from_dict`."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BotPolicy:
        """Build a policy from a mapping; unknown keys and bad values raise `ValueError`."""
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"{unknown[0]}: unknown bot policy setting")
        return cls(**dict(data))


_PASSIVE_KINDS = (ActionKind.DRAW, ActionKind.KEEP, ActionKind.ACCEPT, ActionKind.PASS)


def passive_action(legal_actions: Sequence[Action]) -> Action:
    """The fallback for a bot that did not decide: draw, keep, accept or pass, else the first."""
    for kind in _PASSIVE_KINDS:
        for action in legal_actions:
            if action.kind is kind:
                return action
    return legal_actions[0]
