"""What duplicate deals buy: the correlation between rotations and the games saved.

Under duplicate deals every rotation of a table plays the same deal, so a
bot's k games in a deal block take the deal's hands from every seat in turn and
much of the deal's luck cancels in the block's mean. Measured on the blocks
in which a bot played k > 1 games (k the most common such count):

- s² — the variance of single-game scores, and s_b² — the variance of a bot's
  block means, both around the mean of the same bot at the same table (the
  same set of bots), so that who sits at a table is not counted as luck;
  pooled over bots and tables with their degrees of freedom (games − cells,
  blocks − cells).
- design effect = k · s_b² / s²: the variance of a block mean relative to the
  mean of k games on independent deals (about 1 when rotations are
  independent). Below 1 is the point of duplicate deals.
- intraclass correlation = (design effect − 1) / (k − 1): the correlation of a
  bot's scores between two rotations of one deal (negative when the deal's luck
  cancels; it cannot be below −1/(k − 1)).
- games saved = 1 − design effect: the fraction of the games independent deals
  need that duplicate deals save for the same precision (0.4: 60 duplicate games
  tell as much as 100 independent ones; negative: duplicate deals cost games).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from arena.stats.games import RankedGame


@dataclass(frozen=True, slots=True)
class DuplicateEffect:
    """The duplicate design measured over `blocks` (bot, deal block) groups of `block_size`
    games each, `games` games in all."""

    block_size: int
    blocks: int
    games: int
    intraclass_correlation: float
    design_effect: float
    games_saved: float


def duplicate_effect(games: Iterable[RankedGame]) -> DuplicateEffect | None:
    """The design measured on `games` (None without enough blocks of k > 1 games)."""
    groups = _groups(games)
    sizes = Counter(len(scores) for scores in groups.values() if len(scores) > 1)
    if not sizes:
        return None
    k = max(sizes, key=lambda size: (sizes[size], size))
    cells: dict[Hashable, list[list[float]]] = defaultdict(list)
    for (bot, table, _), scores in groups.items():
        if len(scores) == k:
            cells[bot, table].append(scores)
    blocks = sum(len(cell) for cell in cells.values())
    games_counted = blocks * k
    if blocks <= len(cells) or games_counted <= len(cells):
        return None
    single, means = 0.0, 0.0
    for cell in cells.values():
        centre = sum(map(sum, cell)) / (len(cell) * k)
        single += sum((score - centre) ** 2 for scores in cell for score in scores)
        means += sum((sum(scores) / k - centre) ** 2 for scores in cell)
    single_variance = single / (games_counted - len(cells))
    if single_variance == 0.0:
        return None
    effect = k * (means / (blocks - len(cells))) / single_variance
    return DuplicateEffect(k, blocks, games_counted, (effect - 1.0) / (k - 1), effect,
                           1.0 - effect)


def _groups(games: Iterable[RankedGame]) -> dict[tuple[str, tuple[str, ...], Hashable],
                                                  list[float]]:
    by_block: dict[Hashable, list[RankedGame]] = defaultdict(list)
    for game in games:
        by_block[game.block].append(game)
    groups: dict[tuple[str, tuple[str, ...], Hashable], list[float]] = defaultdict(list)
    for block, block_games in by_block.items():
        table = tuple(sorted({bot for game in block_games for bot in game.seats}))
        for game in block_games:
            for _, bot, score in game.scores():
                groups[bot, table, block].append(score)
    return groups
