"""The match server: bot connections, auth, deadlines, tables and admin RPCs.

The tournament layer uses `ArenaServer` (start, wait for bots, `play_game`,
stop) and never talks gRPC itself; `run_server` serves until a signal.
"""

from arena.policy import BotPolicy, SeatTermination, passive_action
from arena.result import GameAbortedError, GameResult
from arena.server.app import DEFAULT_PORT, run_server, serve, serve_until_stopped
from arena.server.auth import Authenticator, TokenError, TokenTable, bearer_token
from arena.server.server import MAX_MESSAGE_BYTES, ArenaServer

__all__ = [
    "DEFAULT_PORT", "MAX_MESSAGE_BYTES", "ArenaServer", "Authenticator", "BotPolicy",
    "GameAbortedError", "GameResult", "SeatTermination", "TokenError", "TokenTable", "bearer_token",
    "passive_action", "run_server", "serve", "serve_until_stopped",
]
