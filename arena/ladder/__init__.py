"""The always-on ladder: games played continuously among the latest version of every bot.

`arena.ladder.matchmaking` picks each next table (a block: one duplicate deal in
all its seat rotations) by what it would teach, and `random_table` is the
baseline it is measured against (`python -m benchmarks ladder`).
"""

from __future__ import annotations

from arena.ladder.matchmaking import (
    Contender,
    MatchmakingError,
    Meetings,
    choose_table,
    random_table,
)

__all__ = ["Contender", "MatchmakingError", "Meetings", "choose_table", "random_table"]
