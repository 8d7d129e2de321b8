"""Random: picks uniformly among the legal actions the server lists.

Its choices come from each game's own generator (`Table.rng`), seeded with the
GameStart's `bot_seed`: the same game is played the same way whenever the
tournament is run again with the same seed, however many tables it plays at once.

Run: ``ARENA_SERVER=host:port ARENA_TOKEN=... python sample_bots/python/random_bot.py``

``ARENA_AUTO_SINGLE_ACTION=1`` lets the server answer decisions with one legal
action by itself; ``ARENA_EVENTS_IN_REQUESTS=0`` has events sent in messages of
their own instead of inside the next request (the benchmarks measure both).
"""

from __future__ import annotations

import os

from arena.client import Action, View, run


def decide(view: View, legal: list[Action]) -> int:
    """Any legal action, each as likely as any other, drawn from this game's generator."""
    return view.table.rng.randrange(len(legal))


def _flag(name: str, default: bool) -> bool:
    value = os.environ.get(name, "").strip().lower()
    return default if not value else value not in ("0", "false", "no", "off")


if __name__ == "__main__":
    raise SystemExit(run(decide, name="random", max_tables=8,
                         auto_single_action=_flag("ARENA_AUTO_SINGLE_ACTION", False),
                         events_in_requests=_flag("ARENA_EVENTS_IN_REQUESTS", True)).exit_code)
