"""The Python bot SDK: write ``decide(view, legal)``, call `run`, play UNO on an arena server.

A complete bot::

    from arena.client import Action, View, call_or_catch, passive, plays, run


    def decide(view: View, legal: list[Action]) -> Action:
        options = plays(legal)  # each play once, calling UNO when it leaves one card
        if options:
            return max(options, key=lambda action: action.points)
        return call_or_catch(legal) or passive(legal)  # a late UNO call or a catch; else draw


    if __name__ == "__main__":
        raise SystemExit(run(decide, name="my-bot").exit_code)

`decide` returns one of `legal` or its index. A play that leaves one card is
listed with and without an UNO call: `plays` keeps the call, and a play without
it can be caught (see protos/README.md). `run` reads ARENA_SERVER and
ARENA_TOKEN, says Hello, answers every decision by its request id, keeps one
`Table` per game, reconnects with backoff and stops cleanly on a bad token; it
returns why it stopped, whose `exit_code` is the process's status (0 stopped, 1
gave up reconnecting, 2 token or stream refused).
Subclass `Bot` instead for per-game hooks (`on_game_start`, `on_events`,
`on_game_end`). The SDK speaks only the wire protocol (`arena.v1`).
"""

from arena.client.bot import Bot, Choice, DecideFn, FunctionBot, run
from arena.client.connection import (
    DEFAULT_SERVER,
    Backoff,
    Client,
    ClientConfigError,
    ExitReason,
)
from arena.client.events import (
    CardKept,
    CardPlayed,
    CardsDrawn,
    CardsReceived,
    ChallengeDeclined,
    ChallengeResolved,
    ColorChosen,
    DealerChosen,
    DeckReshuffled,
    DirectionChanged,
    DrawReason,
    Event,
    FirstCard,
    GameEnded,
    HandEnded,
    HandEndReason,
    HandReplaced,
    HandRevealed,
    HandsRotated,
    HandsShuffled,
    HandsSwapped,
    HandStarted,
    PlayerEliminated,
    StarterReturned,
    TurnSkipped,
    UnknownEvent,
    UnoCalled,
    UnoCaught,
)
from arena.client.model import (
    COLORS,
    WILD_RANKS,
    Action,
    ActionKind,
    Card,
    Color,
    Outcome,
    Phase,
    Player,
    Rank,
    Rules,
    ServerError,
    call_or_catch,
    cards,
    first_of,
    passive,
    plays,
)
from arena.client.table import Table
from arena.client.view import View

__all__ = [
    "COLORS",
    "DEFAULT_SERVER",
    "WILD_RANKS",
    "Action",
    "ActionKind",
    "Backoff",
    "Bot",
    "Card",
    "CardKept",
    "CardPlayed",
    "CardsDrawn",
    "CardsReceived",
    "ChallengeDeclined",
    "ChallengeResolved",
    "Choice",
    "Client",
    "ClientConfigError",
    "Color",
    "ColorChosen",
    "DealerChosen",
    "DecideFn",
    "DeckReshuffled",
    "DirectionChanged",
    "DrawReason",
    "Event",
    "ExitReason",
    "FirstCard",
    "FunctionBot",
    "GameEnded",
    "HandEndReason",
    "HandEnded",
    "HandReplaced",
    "HandRevealed",
    "HandStarted",
    "HandsRotated",
    "HandsShuffled",
    "HandsSwapped",
    "Outcome",
    "Phase",
    "Player",
    "PlayerEliminated",
    "Rank",
    "Rules",
    "ServerError",
    "StarterReturned",
    "Table",
    "TurnSkipped",
    "UnknownEvent",
    "UnoCalled",
    "UnoCaught",
    "View",
    "call_or_catch",
    "cards",
    "first_of",
    "passive",
    "plays",
    "run",
]
