"""Which bots sit at the ladder's next table.

The ladder plays *blocks*: one table of `size` bots and one duplicate deal in
all its seat rotations. `choose_table` picks the bots of the next block by what
the block would teach the leaderboard (`arena.stats.leaderboard`), not at
random. The leaderboard sorts bots by mean score and is separated when every
pair next to each other on it is told apart; so the table is chosen for the
pairs next to each other in the ratings' order (by μ), in three steps:

1. **Nobody starves.** A bot that has waited more than `⌈2n / size⌉` blocks
   sits at the next table, the longest-waiting first when there are more than
   it holds. A new version comes with a large `waited`, so it sits at the very
   next one.
2. **Everyone meets everyone.** Among the tables that could fill the other
   seats, those holding pairs that have not met for more than `OVERDUE` times
   the blocks a balanced schedule needs to bring every pair together once
   (C(n, 2) / C(size, 2)) come first, the most overdue first. A pair that
   never met counts from when the later of the two joined, as its blocks
   played tell (a bot sits at about one block in n / size).
3. **Information.** Among the rest, the table that brings the adjacent pairs
   closest to separation. The leaderboard tests the difference of two bots'
   mean scores; for an adjacent pair (a, b) the ratings predict its error as

       MSE = v·(1/Ba + 1/Bb + 2·Bab / ((size − 1)·Ba·Bb)) + bias²

   with B the blocks each played (one more as a prior), Bab the blocks they
   played together and v the variance of a bot's block score (a coin toss
   per opponent per game: 1 / (4·size·(size − 1))). At one table the two
   scores are negatively correlated (the game between them counts for one
   and against the other), hence the third term. `bias` is how much the
   difference owes to the opponents each met: the slope of the score in μ,
   φ(0) / (√2·β), times the gap between the mean μ of a's other opponents and
   of b's. The gap to tell apart is what the ratings expect, the same slope
   times √((μa − μb)² + σa² + σb²) (the expected squared gap, the ratings
   being uncertain by σ). With ρ = MSE / gap², the table chosen is the one
   that lowers Σ ρ³ the most (cubed, so the pair furthest from separation
   counts most: on the benchmark's 12-bot field ρ, ρ², ρ³ and ρ⁴ needed 0.88x,
   0.69x, 0.57x and 0.64x the games of random tables; on 6 bots they differ
   by no more than noise). That is mostly the pair that limits separation,
   seated together (both get data, their opponents are shared), with bots
   whose rating is unsure (few blocks, large σ), and the others' opponents
   kept balanced, so that mean scores stay comparable.

What was measured and not kept (`python -m benchmarks ladder`'s fields):
seating together the bots the ratings cannot order (what TrueSkill's match
quality rewards; at β = 14.5 the quality itself hardly tells one pair from
another) needs 1.25x and 1.09x the games of random tables on the two 6-bot
fields, because mean scores earned among neighbours add the game between them
to both bots' variance and the bots far from them are starved of games; and
letting the opponent mix widen the expected gap (giving the upper bot weaker
opponents) separates sooner but manufactures the gap, and would lock in an
early error of the ratings, so the bias enters squared, in whichever direction.

With few possible tables (C(n, size) ≤ `ENUMERATION_LIMIT`) every one is
valued; otherwise the table is built greedily, seat by seat, each going to the
best of a shortlist of the bots worth most on their own. `rng` breaks ties and
orders the seats.
"""

from __future__ import annotations

import heapq
import itertools
import math
import operator
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.rating import RatingParameters

ENUMERATION_LIMIT = 1000
"""The most tables `choose_table` values one by one; above it the table is built greedily."""
SHORTLIST = 16
"""How many bots the greedy build values in full for each seat."""
OVERDUE = 4.0
"""A pair is overdue after this many times the blocks a balanced schedule brings it together in."""
POWER = 3.0
"""How much more the pair furthest from separation counts than the others (see `_Separation`)."""
STARVATION_FACTOR = 2.0
"""A bot that has waited more than this many times n / size blocks sits at the next table."""


class MatchmakingError(ValueError):
    """A table cannot be chosen from what was given; the message says why."""


@dataclass(frozen=True, slots=True)
class Contender:
    """A bot the ladder may seat: its TrueSkill rating in the ladder's pool (a new version:
    the pool's initial skill, or the rating it inherits), its blocks played, and how many
    blocks the ladder has made since it last sat at one (0 = it sat at the last one; a new
    bot: a large number)."""

    name: str
    mu: float
    sigma: float
    blocks: int = 0
    waited: int = 0


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


class Meetings:
    """How often each pair of bots has sat at one table, and when last (in blocks made)."""

    def __init__(self) -> None:
        self._made = 0
        self._count: dict[tuple[str, str], int] = {}
        self._last: dict[tuple[str, str], int] = {}
        self._opponents: dict[str, dict[str, int]] = {}

    @classmethod
    def from_tables(cls, tables: Iterable[Sequence[str]]) -> Meetings:
        """The meetings of past tables, given oldest first."""
        meetings = cls()
        for table in tables:
            meetings.add(table)
        return meetings

    def add(self, table: Sequence[str]) -> None:
        """Count one more block made with these bots."""
        if len(set(table)) != len(table):
            raise MatchmakingError(f"a bot sits at most once at a table: {tuple(table)}")
        self._made += 1
        for a, b in itertools.combinations(table, 2):
            key = _pair(a, b)
            self._count[key] = self._count.get(key, 0) + 1
            self._last[key] = self._made
            for bot, other in ((a, b), (b, a)):
                met = self._opponents.setdefault(bot, {})
                met[other] = met.get(other, 0) + 1

    def count(self, a: str, b: str) -> int:
        """How many blocks `a` and `b` have sat at together."""
        return self._count.get(_pair(a, b), 0)

    def since(self, a: str, b: str) -> int | None:
        """Blocks made since `a` and `b` last met (0: at the last one); None if never."""
        last = self._last.get(_pair(a, b))
        return None if last is None else self._made - last

    def opponents(self, bot: str) -> Mapping[str, int]:
        """Every bot `bot` has sat with, and in how many blocks."""
        return self._opponents.get(bot, {})

    @property
    def made(self) -> int:
        """Blocks made so far."""
        return self._made


def starvation_bound(bots: int, size: int) -> int:
    """The most blocks a bot may wait: one that has waited longer sits at the next table."""
    return max(1, math.ceil(STARVATION_FACTOR * bots / size))


def meeting_period(bots: int, size: int) -> float:
    """The blocks a balanced schedule of `bots` at tables of `size` needs for every pair to
    meet once: C(bots, 2) / C(size, 2)."""
    return max(1.0, math.comb(bots, 2) / math.comb(size, 2))


@dataclass(slots=True, eq=False)
class _Pair:
    """An adjacent pair of the rating order as it stands: `upper` (the higher μ) and
    `lower` are indices into the contenders."""

    upper: int
    lower: int
    together: int
    """Blocks the two have played together."""
    spread: float
    """The squared gap between the two bots' mean scores the ratings expect."""
    faced: tuple[tuple[float, int], tuple[float, int]] | None = None
    """For upper and for lower: the summed μ of its other opponents (one per block, the
    partner left out) and their number; worked out when first needed."""
    now: float | None = None
    """ρ^POWER as it stands; worked out when first needed."""


class _Separation:
    """How far each adjacent pair of the rating order is from separation, and what a table
    would change (the module docstring says why)."""

    def __init__(self, contenders: Sequence[Contender], size: int, meetings: Meetings,
                 parameters: RatingParameters) -> None:
        self.contenders, self.meetings = contenders, meetings
        self.mu = [c.mu for c in contenders]
        self.mu_of = {c.name: c.mu for c in contenders}
        self.blocks = [c.blocks + 1 for c in contenders]  # one prior block each
        self.field_mu = sum(self.mu) / len(self.mu)
        self.slope = 1.0 / (2.0 * math.sqrt(math.pi) * parameters.beta)  # φ(0) / (√2·β)
        self.block_variance = 1.0 / (4.0 * size * (size - 1))
        self.shared = 2.0 / (size - 1)
        self.pairs_of: list[list[_Pair]] = [[] for _ in contenders]
        self._faced: dict[int, tuple[float, int]] = {}
        order = sorted(range(len(contenders)),
                       key=lambda i: (-contenders[i].mu, contenders[i].name))
        for upper, lower in itertools.pairwise(order):
            u, low = contenders[upper], contenders[lower]
            pair = _Pair(upper, lower, meetings.count(u.name, low.name),
                         self.slope * self.slope * ((u.mu - low.mu) ** 2 + u.sigma ** 2
                                                    + low.sigma ** 2) + 1e-300)
            self.pairs_of[upper].append(pair)
            self.pairs_of[lower].append(pair)

    def _bot_faced(self, bot: int) -> tuple[float, int]:
        known = self._faced.get(bot)
        if known is None:
            met = self.meetings.opponents(self.contenders[bot].name)
            strengths = map(self.mu_of.get, met.keys(), itertools.repeat(self.field_mu))
            known = self._faced[bot] = (sum(map(operator.mul, met.values(), strengths)),
                                        sum(met.values()))
        return known

    def _pair_faced(self, pair: _Pair) -> tuple[tuple[float, int], tuple[float, int]]:
        if pair.faced is None:
            (total_u, count_u), (total_l, count_l) = (self._bot_faced(pair.upper),
                                                      self._bot_faced(pair.lower))
            pair.faced = ((total_u - pair.together * self.mu[pair.lower],
                           count_u - pair.together),
                          (total_l - pair.together * self.mu[pair.upper],
                           count_l - pair.together))
        return pair.faced

    def ratio(self, pair: _Pair, upper_plays: bool, lower_plays: bool, table_mu: float,
              table_size: int, bias: bool = True) -> float:
        """ρ^POWER of `pair` after one more block at a table of `table_size` bots whose μ sum
        to `table_mu` (neither playing: as it stands); without `bias`, the variance alone."""
        both = upper_plays and lower_plays
        blocks_u = self.blocks[pair.upper] + upper_plays
        blocks_l = self.blocks[pair.lower] + lower_plays
        error = self.block_variance * (
            1.0 / blocks_u + 1.0 / blocks_l
            + self.shared * (pair.together + both) / (blocks_u * blocks_l))
        if bias:
            (total_u, count_u), (total_l, count_l) = self._pair_faced(pair)
            if upper_plays:
                total_u += table_mu - self.mu[pair.upper] - (
                    self.mu[pair.lower] if both else 0.0)
                count_u += table_size - 1 - both
            if lower_plays:
                total_l += table_mu - self.mu[pair.lower] - (
                    self.mu[pair.upper] if both else 0.0)
                count_l += table_size - 1 - both
            difference = self.slope * ((total_u / count_u if count_u else self.field_mu)
                                       - (total_l / count_l if count_l else self.field_mu))
            error += difference * difference
        return math.pow(error / pair.spread, POWER)

    def gain(self, table: Sequence[int], bias: bool = True) -> float:
        """The fall in Σ ρ^POWER over the adjacent pairs if the contenders at `table`
        (indices) play one block; without `bias`, of the variances alone."""
        table_mu = sum(self.mu[i] for i in table)
        size = len(table)
        counted: set[_Pair] = set()
        total = 0.0
        for bot in table:
            for pair in self.pairs_of[bot]:
                if pair not in counted:
                    counted.add(pair)
                    if bias:
                        if pair.now is None:
                            pair.now = self.ratio(pair, False, False, 0.0, 0)
                        now = pair.now
                    else:
                        now = self.ratio(pair, False, False, 0.0, 0, bias=False)
                    total += now - self.ratio(pair, pair.upper in table, pair.lower in table,
                                              table_mu, size, bias)
        return total


def _check(contenders: Sequence[Contender], size: int) -> None:
    if size < 2:
        raise MatchmakingError(f"a table seats at least 2 bots, got size {size}")
    if len(contenders) < size:
        raise MatchmakingError(f"a table of {size} needs at least {size} contenders, "
                               f"got {len(contenders)}")
    names = [c.name for c in contenders]
    if len(set(names)) != len(names):
        duplicates = sorted({name for name in names if names.count(name) > 1})
        raise MatchmakingError(f"contenders must have distinct names: {', '.join(duplicates)}")


def starved(contenders: Sequence[Contender], size: int) -> list[Contender]:
    """The bots that must sit at the next table (waited beyond the bound), longest-waiting
    first (then the least certain), at most `size` of them."""
    bound = starvation_bound(len(contenders), size)
    waiting = [c for c in contenders if c.waited > bound]
    waiting.sort(key=lambda c: (-c.waited, -c.sigma))
    return waiting[:size]


def overdue(meetings: Meetings, a: Contender, b: Contender, size: int, bots: int) -> float:
    """How many meeting periods past `OVERDUE` the pair is (0 when it is not overdue). A
    pair that never met counts from when the later of the two joined, which the blocks it
    played tell: a bot sits at about one block in bots / size."""
    since = meetings.since(a.name, b.name)
    if since is None:
        since = min(meetings.made, math.ceil(min(a.blocks, b.blocks) * bots / size))
    return max(0.0, since / meeting_period(bots, size) - OVERDUE)


def choose_table(contenders: Sequence[Contender], size: int, meetings: Meetings,
                 parameters: RatingParameters, rng: random.Random) -> tuple[str, ...]:
    """The bots of the next table, in seat order (the rotations play every order's shift)."""
    _check(contenders, size)
    shuffled = list(contenders)
    rng.shuffle(shuffled)  # ties go to whoever comes first, so rng breaks them
    index = {c.name: i for i, c in enumerate(shuffled)}
    table = [index[c.name] for c in starved(shuffled, size)]
    separation = _Separation(shuffled, size, meetings, parameters)
    period = meeting_period(len(shuffled), size)
    lateness: dict[tuple[int, int], float] = {}

    anyone_late = meetings.made > OVERDUE * period

    def late(a: int, b: int) -> float:
        if not anyone_late:
            return 0.0
        key = (a, b) if a < b else (b, a)
        known = lateness.get(key)
        if known is None:
            known = lateness[key] = overdue(meetings, shuffled[a], shuffled[b], size,
                                            len(shuffled))
        return known

    def value(bots: Sequence[int]) -> tuple[float, float]:
        return (sum(late(a, b) for a, b in itertools.combinations(bots, 2)),
                separation.gain(bots))

    rest = [i for i in range(len(shuffled)) if i not in table]
    missing = size - len(table)
    if missing and math.comb(len(rest), missing) <= ENUMERATION_LIMIT:
        best = max(itertools.combinations(rest, missing),
                   key=lambda extra: value([*table, *extra]))
        table.extend(best)
    elif missing:
        # Greedy: each seat goes to the best of a shortlist, the bots that would add the
        # most on their own (variances only, and lateness with the bots already seated).
        alone = {i: separation.gain([i], bias=False) for i in rest}
        while len(table) < size:
            shortlist = heapq.nlargest(
                SHORTLIST, rest, key=lambda i: (sum(late(i, j) for j in table), alone[i]))
            best_bot = max(shortlist, key=lambda i: value([*table, i]))
            table.append(best_bot)
            rest.remove(best_bot)
    names = [shuffled[i].name for i in table]
    rng.shuffle(names)
    return tuple(names)


def random_table(contenders: Sequence[Contender], size: int,
                 rng: random.Random) -> tuple[str, ...]:
    """The bots of the next table drawn uniformly at random (the baseline matchmaking is
    measured against)."""
    _check(contenders, size)
    return tuple(c.name for c in rng.sample(list(contenders), size))
