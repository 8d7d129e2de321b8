"""The UNO rules engine: pure, deterministic, standard library only.

Everything a caller needs is re-exported here: cards, the rule set, actions and
phases, events, the per-seat view, outcomes and the `Game` itself.
"""

from arena.engine import events
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
    catch,
    choose_color,
    play,
)
from arena.engine.cards import (
    COLORS,
    Card,
    CardParseError,
    Color,
    Rank,
    cards,
    classic_deck,
    deck_2018,
)
from arena.engine.game import Game, replay
from arena.engine.outcome import Outcome, Termination
from arena.engine.rules import OFFICIAL, PARTNER_TEAMS, RuleSet, RuleSetError, Scoring
from arena.engine.view import SeatView

__all__ = [
    "ACCEPT", "CALL_UNO", "CHALLENGE", "COLORS", "DRAW", "KEEP", "OFFICIAL", "PASS",
    "Action", "ActionKind", "Card", "CardParseError", "Color", "Game", "IllegalActionError",
    "Outcome", "PARTNER_TEAMS", "Phase", "Rank", "RuleSet", "RuleSetError", "Scoring", "SeatView",
    "Termination", "cards", "catch", "choose_color", "classic_deck", "deck_2018", "events",
    "play", "replay",
]
