"""The rule set: every choice RULES.md leaves open, as one frozen value."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from enum import StrEnum
from typing import Any


class RuleSetError(ValueError):
    """A rule set could not be built; the message names the bad key or value."""


class DeckKind(StrEnum):
    """Which deck the game uses (RULES.md section 1)."""

    CLASSIC = "classic"
    EDITION_2018 = "2018"


class ShuffleHandsCard(StrEnum):
    """How the 2018 deck's Shuffle Hands card is printed: shuffle all hands, or swap with one."""

    SHUFFLE = "shuffle"
    SWAP = "swap"


class CustomizableEffect(StrEnum):
    """The effect written on the 2018 deck's Customizable cards."""

    SWAP_HANDS = "swap_hands"


class Scoring(StrEnum):
    """How hands are scored and when the game ends (RULES.md sections 7 and 9)."""

    STANDARD = "standard"
    LOW_SCORE = "low_score"
    ELIMINATION = "elimination"
    PARTNERS = "partners"
    INDIVIDUAL = "individual"


PARTNER_TEAMS: tuple[tuple[int, ...], ...] = ((0, 2), (1, 3))
"""The seats of each team in a four-seat partner game (RULES.md section 9)."""


class WildDrawFourRule(StrEnum):
    """When a Wild Draw Four may be played (RULES.md section 3, Decision)."""

    NO_ACTIVE_COLOR = "no_active_color"
    NO_COLOR_OR_NUMBER = "no_color_or_number"


class ReverseFirstCard(StrEnum):
    """Who starts when the first face-up card is a Reverse (RULES.md section 2, Decision)."""

    DEALER = "dealer"
    RIGHT_OF_DEALER = "right_of_dealer"


MAX_LIMIT = 2**32 - 1
"""The largest target score, hand count or turn limit a rule set may set (an unsigned
32-bit count, as the wire carries it)."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A complete rule set. The defaults are the official rules; house rules are off.

    Build one with keyword arguments, or load it with `from_dict`, `from_json` or
    `from_toml`; every value is checked and a bad one raises `RuleSetError`.
    """

    deck: DeckKind = DeckKind.CLASSIC
    shuffle_hands_card: ShuffleHandsCard = ShuffleHandsCard.SHUFFLE
    customizable_effect: CustomizableEffect = CustomizableEffect.SWAP_HANDS
    hand_size: int = 7
    uno_penalty: int = 2
    challenge_extra_penalty: int = 2
    wild_draw_four_rule: WildDrawFourRule = WildDrawFourRule.NO_ACTIVE_COLOR
    reverse_first_card: ReverseFirstCard = ReverseFirstCard.DEALER
    going_out_draw_four_challengeable: bool = False
    draw_four_bluffing: bool = True
    scoring: Scoring = Scoring.STANDARD
    target_score: int | None = 500
    individual_hands: int = 12
    max_turns_per_hand: int = 1000
    max_hands: int = 200
    choose_first_dealer: bool = True
    progressive: bool = False
    seven_o: bool = False
    jump_in: bool = False
    draw_to_match: bool = False
    force_play: bool = False
    last_card_no_action: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, _coerce(f.name, f.type, getattr(self, f.name)))
        if not 1 <= self.hand_size <= 20:
            raise RuleSetError(f"hand_size: must be between 1 and 20, got {self.hand_size}")
        for name in ("uno_penalty", "challenge_extra_penalty"):
            if not 0 <= getattr(self, name) <= 20:
                raise RuleSetError(f"{name}: must be between 0 and 20, got {getattr(self, name)}")
        if self.target_score is not None and not 1 <= self.target_score <= MAX_LIMIT:
            raise RuleSetError(f"target_score: must be between 1 and {MAX_LIMIT:,} or null, "
                               f"got {self.target_score}")
        for name in ("individual_hands", "max_turns_per_hand", "max_hands"):
            if not 1 <= getattr(self, name) <= MAX_LIMIT:
                raise RuleSetError(f"{name}: must be between 1 and {MAX_LIMIT:,}, "
                                   f"got {getattr(self, name)}")
        if self.scoring is Scoring.ELIMINATION and self.target_score is None:
            raise RuleSetError("target_score: elimination scoring needs a target score")

    @property
    def single_hand(self) -> bool:
        """True when the game is one hand (no target score)."""
        return self.target_score is None and self.scoring is not Scoring.INDIVIDUAL

    def house_rules(self) -> list[str]:
        """Names of the house rules switched on."""
        names = ("progressive", "seven_o", "jump_in", "draw_to_match", "force_play",
                 "last_card_no_action")
        return [name for name in names if getattr(self, name)]

    def check_players(self, num_players: int) -> None:
        """Raise `RuleSetError` unless this rule set can seat `num_players`."""
        if not 2 <= num_players <= 10:
            raise RuleSetError(f"players: UNO needs 2 to 10 players, got {num_players}")
        if self.scoring in (Scoring.PARTNERS, Scoring.INDIVIDUAL) and num_players != 4:
            raise RuleSetError(
                f"scoring: {self.scoring} needs exactly 4 players, got {num_players}"
            )
        # The deal must leave a draw pile that holds a first card other than the
        # four Wild Draw Fours.
        spare = (112 if self.deck is DeckKind.EDITION_2018 else 108) - 5
        if self.hand_size * num_players > spare:
            raise RuleSetError(
                f"hand_size: {self.hand_size} cards for each of {num_players} players "
                f"leaves too few cards to start the discard pile (at most {spare} may be dealt)"
            )

    def with_changes(self, **changes: Any) -> RuleSet:
        """A copy with some values changed (checked like any other rule set)."""
        _check_known(changes)
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-friendly values, the inverse of `from_dict`."""
        return {k: (v.value if isinstance(v, StrEnum) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Build a rule set from a mapping; unknown keys and bad values raise `RuleSetError`.
        A `target_score` of ``"none"`` (the form `to_toml` writes) means none."""
        if not isinstance(data, Mapping):
            raise RuleSetError(f"a rule set must be a table of settings, got {type(data).__name__}")
        _check_known(data)
        values = dict(data)
        if values.get("target_score") == "none":
            values["target_score"] = None
        return cls(**values)

    def to_json(self) -> str:
        """The rule set as a JSON object, the inverse of `from_json`."""
        return json.dumps(self.to_dict(), sort_keys=True)

    def to_toml(self) -> str:
        """The rule set as TOML top-level keys, the inverse of `from_toml`.

        TOML has no null: a missing target score is written ``target_score = "none"``.
        """
        lines = []
        for key, value in self.to_dict().items():
            if value is None:
                value = "none"
            lines.append(f"{key} = {json.dumps(value)}")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_json(cls, text: str) -> RuleSet:
        """Build a rule set from a JSON object."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise RuleSetError(f"rule set is not valid JSON: {exc}") from None
        return cls.from_dict(data)

    @classmethod
    def from_toml(cls, text: str) -> RuleSet:
        """Build a rule set from TOML (top-level keys, or a ``[rules]`` table)."""
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            raise RuleSetError(f"rule set is not valid TOML: {exc}") from None
        if set(data) == {"rules"} and isinstance(data["rules"], dict):
            data = data["rules"]
        return cls.from_dict(data)


def _check_known(data: Mapping[Any, Any]) -> None:
    known = {f.name for f in fields(RuleSet)}
    unknown = sorted((key for key in data if key not in known), key=str)
    if unknown:
        raise RuleSetError(
            f"{unknown[0]}: unknown rule setting (known: {', '.join(sorted(known))})"
        )


_ENUMS: dict[str, type[StrEnum]] = {
    "DeckKind": DeckKind,
    "ShuffleHandsCard": ShuffleHandsCard,
    "CustomizableEffect": CustomizableEffect,
    "Scoring": Scoring,
    "WildDrawFourRule": WildDrawFourRule,
    "ReverseFirstCard": ReverseFirstCard,
}


def _coerce(name: str, type_name: object, value: object) -> object:
    type_text = str(type_name)
    if type_text in _ENUMS:
        enum_type = _ENUMS[type_text]
        try:
            return enum_type(str(value))
        except ValueError:
            choices = ", ".join(repr(m.value) for m in enum_type)
            raise RuleSetError(f"{name}: {value!r} is not one of {choices}") from None
    if type_text == "bool":
        if not isinstance(value, bool):
            raise RuleSetError(f"{name}: must be true or false, got {value!r}")
        return value
    if type_text in ("int", "int | None"):
        if value is None and type_text == "int | None":
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise RuleSetError(f"{name}: must be a whole number, got {value!r}")
        return value
    raise AssertionError(f"unhandled rule field type {type_text}")  # pragma: no cover


OFFICIAL = RuleSet()
"""The official rules with every default."""
