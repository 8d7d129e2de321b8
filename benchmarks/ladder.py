"""Ladder benchmark: games to a separated leaderboard, matchmaking against random pairing.

A field of bots of known strength plays the synthetic game of
`arena.stats.simulate` (a Thurstone model with seat luck per deal, so the
rotations of one duplicate deal are correlated as real UNO's are) at tables of
four. Each block is one table and one deal in its four rotations. One arm picks
every table with `arena.ladder.matchmaking.choose_table`, fed TrueSkill ratings
updated after every game under `pool_parameters(4)`; the other draws every
table with `random_table`. After every block the leaderboard of the complete
blocks so far (`arena.stats.leaderboard`: mean scores, every adjacent pair
tested at Bonferroni-corrected 95 %) is checked, and a replicate ends at the
first block that separates every adjacent pair (one bot per tier). The row
gives, over seeded replicates, each arm's median games to that point, their
ratio (the goal: matchmaking at most 0.7x random), and the error rate: the
share of replicates separated in an order other than the bots' true strengths.

The fixed-sample test is checked at every block, which a test meant for one
look does not allow for: it separates sooner, and could err more often, than
its 95 % says, in both arms alike. The sequential monitor of
`arena.stats.sequential` (a confidence sequence, valid however often one
looks, which pairs two bots only over the blocks they played together) is
reported beside it for the 6-bot fields: its median games and its errors.

A replicate that is not separated within `MAX_BLOCKS` counts at that many games
(the median is unaffected while fewer than half are cut off; "cut off" says how
many were).

Measured (`python -m benchmarks ladder`, 2 cores): matchmaking needs 0.89x the
games of random tables for 6 evenly spaced bots, 0.78x for 6 bots with random
gaps and 0.57x for 12 bots, with no ordering errors in either arm (the
sequential monitor: 1.02x and 0.97x on the 6-bot fields). How much a table
chosen by information can save is bounded by the field. The pair that limits
separation is best seated at every table, and the variance of its mean-score
difference, per block, is 1/fa + 1/fb + (2/3)·fab/(fa·fb) times a bot's block
variance (f: the share of blocks each plays, fab: the share they play
together). With 6 bots at tables of four, random tables already seat each bot
in 2/3 of the blocks and a pair in 2/5, which gives 3.6 against 2.67 at every
table: about 0.74x at best when one pair limits separation, and close to 1
when every pair is as close. With 12 bots random tables seat a bot in 1/3 of
the blocks and a pair in 1/11 (6.55): about 0.41x. The larger the field, the
more the choice of tables pays.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.ladder.matchmaking import Contender, Meetings, choose_table, random_table
from arena.rating import RatingParameters, rate_game
from arena.rating.pools import pool_parameters
from arena.stats.estimate import Estimate
from arena.stats.games import RankedGame
from arena.stats.leaderboard import CONFIDENCE
from arena.stats.sequential import SeparationMonitor
from arena.stats.simulate import ranks_of

MEDIAN = False
"""Each row is one run; its figures are medians over the replicates it plays."""
SIZE = 4
"""Seats at every table."""
LUCK = 1.0
"""The spread of a seat's luck in a deal (shared by the deal's rotations)."""
NOISE = 1.0
"""The spread of a bot's own performance in one game."""
MAX_BLOCKS = 3000
"""Blocks after which a replicate that is still not separated is cut off."""
NEW = 10**6
"""The `waited` of a bot that has not sat at a table yet."""


@dataclass(frozen=True, slots=True)
class Field:
    """A field of bots: a name for the row and how each replicate's strengths are drawn."""

    name: str
    strengths: Callable[[random.Random], dict[str, float]]
    replicates: int
    """Replicates at scale 1."""
    sequential: bool = True
    """Whether to play on until the sequential monitor separates the board too (for a large
    field that takes many times the games)."""


def even_field(bots: int, gap: float) -> Callable[[random.Random], dict[str, float]]:
    """`bots` strengths `gap` apart, assigned to the names in a random order."""
    def draw(rng: random.Random) -> dict[str, float]:
        values = [gap * (bots - 1 - k) for k in range(bots)]
        rng.shuffle(values)
        return {f"bot{k:02d}": value for k, value in enumerate(values)}
    return draw


def gapped_field(bots: int, low: float, high: float) -> Callable[[random.Random],
                                                                  dict[str, float]]:
    """`bots` strengths whose gaps are drawn uniformly from [low, high] for every replicate,
    assigned to the names in a random order."""
    def draw(rng: random.Random) -> dict[str, float]:
        values = [0.0]
        for _ in range(bots - 1):
            values.append(values[-1] - rng.uniform(low, high))
        rng.shuffle(values)
        return {f"bot{k:02d}": value for k, value in enumerate(values)}
    return draw


FIELDS = (
    Field("6 bots, gaps 0.3", even_field(6, 0.3), 40),
    Field("6 bots, gaps 0.2–0.6", gapped_field(6, 0.2, 0.6), 40),
    Field("12 bots, gaps 0.3–0.8", gapped_field(12, 0.3, 0.8), 16, sequential=False),
)
"""The fields of the rows (strengths on the performance scale of one game, whose luck and
noise are 1 each). Evenly spaced bots are the hardest case for matchmaking (every adjacent
pair is as close as the closest); with gaps drawn at random one pair limits separation."""


def play_block(table: Sequence[str], strengths: Mapping[str, float], block: Hashable,
               rng: random.Random) -> list[RankedGame]:
    """One duplicate deal at `table` in every rotation: the seat luck is the deal's."""
    seat_luck = [rng.gauss(0.0, LUCK) for _ in table]
    games = []
    for turn in range(len(table)):
        seats = tuple(table[turn:]) + tuple(table[:turn])
        performance = [strengths[bot] + seat_luck[seat] + rng.gauss(0.0, NOISE)
                       for seat, bot in enumerate(seats)]
        games.append(RankedGame(block, seats, ranks_of(performance)))
    return games


@dataclass(slots=True)
class _Sums:
    """Sums over blocks of one bot's (score total y, games n): Σy, Σn, Σy², Σyn, Σn²."""

    blocks: int = 0
    y: float = 0.0
    n: float = 0.0
    yy: float = 0.0
    yn: float = 0.0
    nn: float = 0.0

    def add(self, y: float, n: float) -> None:
        self.blocks += 1
        self.y += y
        self.n += n
        self.yy += y * y
        self.yn += y * n
        self.nn += n * n


@dataclass(slots=True)
class _Cross:
    """Sums over the blocks two bots both played: Σ y₁y₂, Σ y₁n₂, Σ n₁y₂, Σ n₁n₂."""

    blocks: int = 0
    yy: float = 0.0
    yn: float = 0.0
    ny: float = 0.0
    nn: float = 0.0


@dataclass
class Board:
    """The leaderboard of `arena.stats.leaderboard` kept up block by block.

    The block-clustered variances of `arena.stats.estimate` are sums over blocks of
    squares, so running sums give the same estimates (pseudo-blocks included) at the
    same cost however many blocks were played; `tests/ladder` checks it against
    `leaderboard`.
    """

    confidence: float = CONFIDENCE
    sums: dict[str, _Sums] = field(default_factory=dict)
    cross: dict[tuple[str, str], _Cross] = field(default_factory=dict)

    def add_block(self, games: Sequence[RankedGame]) -> None:
        """Count one complete block."""
        totals: dict[str, list[float]] = {}
        for game in games:
            for _, bot, score in game.scores():
                total = totals.setdefault(bot, [0.0, 0.0])
                total[0] += score
                total[1] += 1.0
        for bot, (y, n) in totals.items():
            self.sums.setdefault(bot, _Sums()).add(y, n)
        for first in totals:
            for second in totals:
                if first < second:
                    cross = self.cross.setdefault((first, second), _Cross())
                    (y1, n1), (y2, n2) = totals[first], totals[second]
                    cross.blocks += 1
                    cross.yy += y1 * y2
                    cross.yn += y1 * n2
                    cross.ny += n1 * y2
                    cross.nn += n1 * n2

    def order(self) -> list[str]:
        """Bots by mean score, best first (ties by name), as the leaderboard sorts them."""
        return sorted(self.sums, key=lambda bot: (-self.sums[bot].y / self.sums[bot].n, bot))

    def separated(self) -> list[str] | None:
        """The order when every adjacent pair is separated, else None."""
        order = self.order()
        pairs = len(order) - 1
        if pairs < 1:
            return None
        corrected = 1.0 - (1.0 - self.confidence) / pairs
        for upper, lower in zip(order, order[1:], strict=False):
            low, high = self.difference(upper, lower).interval(corrected, -1.0, 1.0)
            if not (low > 0.0 or high < 0.0):
                return None
        return order

    def difference(self, first: str, second: str) -> Estimate:
        """`estimate_difference` of the two bots' block totals."""
        a, b = self.sums[first], self.sums[second]
        key, swapped = ((first, second), False) if first < second else ((second, first), True)
        shared = self.cross.get(key, _Cross())
        # Each bot's sums with the pseudo-blocks: one (1, 1) and one (0, 1).
        ya, na = a.y + 1.0, a.n + 2.0
        yb, nb = b.y + 1.0, b.n + 2.0
        ma, mb = ya / na, yb / nb
        own_a = (a.yy + 1.0) - 2.0 * ma * (a.yn + 1.0) + ma * ma * (a.nn + 2.0)
        own_b = (b.yy + 1.0) - 2.0 * mb * (b.yn + 1.0) + mb * mb * (b.nn + 2.0)
        y1n2, n1y2 = (shared.ny, shared.yn) if swapped else (shared.yn, shared.ny)
        cross = shared.yy - mb * y1n2 - ma * n1y2 + ma * mb * shared.nn
        # The pseudo-blocks pair first's best with second's worst and the other way round.
        cross += (1.0 - ma) * (0.0 - mb) + (0.0 - ma) * (1.0 - mb)
        squares = own_a / (na * na) + own_b / (nb * nb) - 2.0 * cross / (na * nb)
        real = a.blocks + b.blocks - shared.blocks
        size = real + 2
        variance = max(0.0, squares) * size / (size - 1)
        return Estimate(a.y / a.n - b.y / b.n, ma - mb, math.sqrt(variance), real - 1)


@dataclass(frozen=True, slots=True)
class Replicate:
    """One replicate's outcome for one arm: games to separation (the leaderboard's and the
    sequential monitor's; None when cut off) and whether each order was right."""

    games: int | None
    correct: bool
    sequential_games: int | None
    sequential_correct: bool


Chooser = Callable[[list[Contender], Meetings, random.Random], tuple[str, ...]]


def matchmaking_chooser(parameters: RatingParameters) -> Chooser:
    """Tables from `choose_table`."""
    def choose(contenders: list[Contender], meetings: Meetings,
               rng: random.Random) -> tuple[str, ...]:
        return choose_table(contenders, SIZE, meetings, parameters, rng)
    return choose


def random_chooser(contenders: list[Contender], meetings: Meetings,
                   rng: random.Random) -> tuple[str, ...]:
    """Tables from `random_table`."""
    return random_table(contenders, SIZE, rng)


def replicate(strengths: Mapping[str, float], choose: Chooser, seed: int,
              max_blocks: int = MAX_BLOCKS, rated: bool = True,
              sequential: bool = True) -> Replicate:
    """Play blocks chosen by `choose` until the leaderboard (and, with `sequential`, the
    sequential monitor) is separated or `max_blocks` blocks are played."""
    parameters = pool_parameters(SIZE)
    play_rng, choose_rng = random.Random(seed), random.Random(seed ^ 0x5EED)
    truth = sorted(strengths, key=lambda bot: (-strengths[bot], bot))
    skills = {bot: parameters.initial_skill for bot in strengths}
    last_sat = dict.fromkeys(strengths, -NEW)
    blocks_of = dict.fromkeys(strengths, 0)
    meetings, board = Meetings(), Board()
    monitor = SeparationMonitor(plan_blocks=max_blocks // 2)
    games: int | None = None
    correct = sequential_correct = False
    sequential_games: int | None = None if sequential else 0
    for block in range(max_blocks):
        contenders = [Contender(bot, skills[bot].mu, skills[bot].sigma, blocks_of[bot],
                                block - 1 - last_sat[bot]) for bot in strengths]
        table = choose(contenders, meetings, choose_rng)
        meetings.add(table)
        for bot in table:
            last_sat[bot], blocks_of[bot] = block, blocks_of[bot] + 1
        played = play_block(table, strengths, block, play_rng)
        if rated:
            for game in played:
                skills.update(rate_game(skills, game.seats, game.ranks, parameters=parameters))
        board.add_block(played)
        if games is None:
            order = board.separated()
            if order is not None:
                games, correct = 4 * (block + 1), order == truth
        if sequential_games is None:
            monitor.add_block(_block_scores(played))
            report = monitor.report()
            if report.separated:
                sequential_games = 4 * (block + 1)
                sequential_correct = list(report.order) == truth
        if games is not None and sequential_games is not None:
            break
    return Replicate(games, correct, sequential_games if sequential else None,
                     sequential_correct)


def _block_scores(games: Sequence[RankedGame]) -> dict[str, float]:
    totals: dict[str, float] = {}
    for game in games:
        for _, bot, score in game.scores():
            totals[bot] = totals.get(bot, 0.0) + score / len(games)
    return totals


def _median_games(values: Sequence[int | None], max_blocks: int) -> int:
    return round(statistics.median(v if v is not None else SIZE * max_blocks for v in values))


def _error_rate(outcomes: Sequence[tuple[int | None, bool]]) -> float:
    decided = [correct for games, correct in outcomes if games is not None]
    return round(sum(not correct for correct in decided) / len(decided), 3) if decided else 0.0


def compare(fld: Field, replicates: int, seed: int = 0, max_blocks: int = MAX_BLOCKS,
            sequential: bool = True) -> dict[str, object]:
    """One row: both arms over the same `replicates` seeded fields and deals."""
    arms: dict[str, list[Replicate]] = {"matchmaking": [], "random": []}
    for index in range(replicates):
        strengths = fld.strengths(random.Random(f"{seed}:{index}:field"))
        arms["matchmaking"].append(replicate(
            strengths, matchmaking_chooser(pool_parameters(SIZE)), seed * 100_003 + index,
            max_blocks, sequential=sequential))
        arms["random"].append(replicate(strengths, random_chooser, seed * 100_003 + index,
                                        max_blocks, rated=False, sequential=sequential))
    matched = _median_games([r.games for r in arms["matchmaking"]], max_blocks)
    baseline = _median_games([r.games for r in arms["random"]], max_blocks)
    row: dict[str, object] = {
        "field": fld.name, "replicates": replicates,
        "matchmaking games": matched, "random games": baseline,
        "ratio": round(matched / baseline, 2),
        "matchmaking errors": _error_rate([(r.games, r.correct) for r in arms["matchmaking"]]),
        "random errors": _error_rate([(r.games, r.correct) for r in arms["random"]]),
        "cut off": sum(r.games is None for rs in arms.values() for r in rs),
    }
    if sequential:
        seq_matched = _median_games([r.sequential_games for r in arms["matchmaking"]],
                                    max_blocks)
        seq_baseline = _median_games([r.sequential_games for r in arms["random"]], max_blocks)
        row.update({
            "sequential: matchmaking": seq_matched, "sequential: random": seq_baseline,
            "sequential ratio": round(seq_matched / seq_baseline, 2),
            "sequential errors (mm/random)": "{:.3f}/{:.3f}".format(
                _error_rate([(r.sequential_games, r.sequential_correct)
                             for r in arms["matchmaking"]]),
                _error_rate([(r.sequential_games, r.sequential_correct)
                             for r in arms["random"]])),
            "sequential cut off": sum(r.sequential_games is None
                                      for rs in arms.values() for r in rs),
        })
    else:
        row.update(dict.fromkeys(("sequential: matchmaking", "sequential: random",
                                  "sequential ratio", "sequential errors (mm/random)",
                                  "sequential cut off"), "–"))
    return row


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """One row per field, each over its replicates times `scale` (at least 2). `repeats` is
    not used: every figure is already a median over replicates."""
    max_blocks = max(50, round(MAX_BLOCKS * min(1.0, scale)))
    return [compare(fld, max(2, round(fld.replicates * scale)), max_blocks=max_blocks,
                    sequential=fld.sequential) for fld in FIELDS]
