"""Random: picks uniformly among the legal actions the server lists.

Run: ``ARENA_SERVER=host:port ARENA_TOKEN=... python sample_bots/python/random_bot.py``
"""

from __future__ import annotations

import random

from arena.client import Action, View, run


def decide(view: View, legal: list[Action]) -> int:
    """Any legal action, each as likely as any other."""
    return random.randrange(len(legal))


if __name__ == "__main__":
    raise SystemExit(run(decide, name="random", max_tables=8).exit_code)
