"""A linear softmax policy over arena's fixed encoding and action space, with numpy only.

The score of a legal action `a` in a view encoded as `x` is ``weights[a] @ x +
bias[a]``: one row of weights per action of `arena.env.actions`' space (1379), one
weight per value of `arena.env.encoding`'s vector (366). Only the legal actions'
rows are ever computed. `LinearPolicy.save` and `load` keep it in a compressed
``.npz`` (rows never trained are zeros, and compress to nothing).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from arena.env.actions import ACTION_COUNT
from arena.env.encoding import OBS_SIZE

Vector = npt.NDArray[np.float32]


class LinearPolicy:
    """Weights and biases of the linear softmax policy."""

    def __init__(self, weights: Vector | None = None, bias: Vector | None = None) -> None:
        self.weights = (np.zeros((ACTION_COUNT, OBS_SIZE), np.float32)
                        if weights is None else weights)
        self.bias = np.zeros(ACTION_COUNT, np.float32) if bias is None else bias

    def scores(self, x: Vector, legal: list[int]) -> Vector:
        """The score of each legal action (indices into the action space), in order."""
        return self.weights[legal] @ x + self.bias[legal]

    def probabilities(self, x: Vector, legal: list[int]) -> Vector:
        """The softmax of `scores`: the chance of each legal action."""
        scores = self.scores(x, legal)
        scores = np.exp(scores - scores.max())
        return scores / scores.sum()

    def best(self, x: Vector, legal: list[int]) -> int:
        """The position in `legal` of the highest-scoring action (the first, on a tie)."""
        return int(np.argmax(self.scores(x, legal)))

    def save(self, path: Path) -> None:
        """Write the policy to `path` (a compressed .npz)."""
        np.savez_compressed(path, weights=self.weights.astype(np.float16),
                            bias=self.bias.astype(np.float16))

    @classmethod
    def load(cls, path: Path) -> LinearPolicy:
        """Read a policy written by `save`."""
        with np.load(path) as data:
            return cls(data["weights"].astype(np.float32), data["bias"].astype(np.float32))
