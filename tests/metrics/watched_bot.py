"""A managed bot for the metrics tests: `watched_bot.py steady SECONDS` plays a random
legal action after sleeping SECONDS per decision (a run that lasts a few scrapes);
`watched_bot.py sloppy` answers every fifth decision with an index no action has (an
illegal answer: a fault); `watched_bot.py doomed N` is killed by SIGKILL at its Nth
decision, as a sandbox's limit kills a bot (its supervisor starts it again)."""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Any

import arena.client.connection as connection
from arena.client import Action, View, run
from arena.client.choice import resolve_choice

MODE = sys.argv[1] if len(sys.argv) > 1 else "steady"
DELAY = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
_asked = 0
_resolve = resolve_choice


def _sloppy(choice: Any, legal: Any) -> Any:
    """Every fifth answer an index past the legal actions; the others as the SDK sends them."""
    global _asked
    _asked += 1
    return len(legal) + 7 if _asked % 5 == 0 else _resolve(choice, legal)


_decided = 0


def decide(view: View, legal: list[Action]) -> int:
    """A random legal action, late by DELAY; a doomed bot's last is its Nth."""
    global _decided
    _decided += 1
    if MODE == "doomed" and _decided == int(DELAY):
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(DELAY if MODE == "steady" else 0)
    return view.table.rng.randrange(len(legal))


if MODE == "sloppy":
    vars(connection)["resolve_choice"] = _sloppy  # what the connection sends, not the SDK


if __name__ == "__main__":
    raise SystemExit(run(decide, name=f"watched-{MODE}", max_tables=1).exit_code)
