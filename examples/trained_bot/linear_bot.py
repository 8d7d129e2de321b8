"""Linear: a bot trained in arena's environment, playing through the SDK like any other.

It encodes the View it is sent with `arena.env.encoding.encode`, numbers its legal
actions with `arena.env.actions`, and plays the legal action its trained linear
policy (`policy.npz`, written by ``train.py``) scores highest. Those are the very
functions the environment used during training, so what was trained is what plays.

Run: ``ARENA_SERVER=host:port ARENA_TOKEN=... python linear_bot.py``, or submit the
folder: ``arena bot submit examples/trained_bot``.
"""

from __future__ import annotations

from pathlib import Path

from policy import LinearPolicy

from arena.client import Action, View, run
from arena.env.actions import legal_indices
from arena.env.encoding import encode

POLICY = LinearPolicy.load(Path(__file__).resolve().parent / "policy.npz")


def decide(view: View, legal: list[Action]) -> int:
    """The legal action the policy scores highest."""
    return POLICY.best(encode(view), legal_indices(legal, view.seat, view.num_players))


if __name__ == "__main__":
    raise SystemExit(run(decide, name="linear", max_tables=8).exit_code)
