"""The engine as a reinforcement-learning environment, and the in-process lane's game loop.

`env()` and `raw_env()` make the PettingZoo AEC environment (`arena.env.aec`);
`arena.env.single.SingleSeatEnv` is the Gymnasium single-agent wrapper. Both need
the ``env`` extra (``pip install 'arena[env]'``): they are imported on first use,
so the in-process lane (`arena.env.game`, `arena.env.seat`) works without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.env.aec import UnoEnv


def raw_env(**options: Any) -> UnoEnv:
    """The PettingZoo AEC environment itself (see `arena.env.aec.UnoEnv` for `options`)."""
    from arena.env.aec import UnoEnv

    return UnoEnv(**options)


def env(**options: Any) -> Any:
    """The AEC environment in PettingZoo's order-enforcing wrapper (an action that is not
    legal now raises `ValueError`)."""
    from arena.env.aec import wrapped

    return wrapped(raw_env(**options))


__all__ = ["env", "raw_env"]
