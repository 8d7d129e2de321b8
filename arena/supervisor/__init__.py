"""Bot processes: launching, watching and restarting the bots arena runs itself.

`BotSupervisor` starts each managed bot through `arena.supervisor.launch`, so
a bot dies with the arena process that launched it, keeps its log, and
restarts it when it exits; with a `BotIsolation` asking for one, each runs in a
sandbox (`arena.sandbox`). It knows nothing of the rules or of the server
beyond the address and token it hands a bot in its environment.
"""

from arena.supervisor.process import (
    BotIsolation,
    BotSupervisor,
    ManagedBot,
    ManagedBotError,
    command_words,
)

__all__ = ["BotIsolation", "BotSupervisor", "ManagedBot", "ManagedBotError", "command_words"]
