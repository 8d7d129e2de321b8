"""Which bots sit at the ladder's next table.

The ladder plays *blocks*: one table of `size` bots and one duplicate deal in
all its seat rotations. `choose_table` picks the bots of the next block by what
the block would teach, not at random:

- **The order of close bots.** The leaderboard is separated when every bot
  next to another on it is told apart, so the pair that limits separation is
  the closest one. For two bots the ratings say `z = |μa − μb| / √(σa² + σb²)`
  (how many standard deviations their order is from a coin toss); a pair at a
  table is worth `2·Φ(−z)`, 1 when the ratings cannot order them at all, and
  next to nothing for two bots whose order is settled. This is what TrueSkill's
  match quality measures for a pair (a table is of high quality when its
  outcome is least predictable) with the game's luck β taken out: with UNO's
  β = 14.5 at four seats the quality of any two bots of one field is above
  0.95, so it cannot tell the close pairs from the others, while `z` keeps
  sharpening as σ shrinks. Seating the closest pair together is also what pays
  in the leaderboard's test, which pairs two bots' scores over the deals they
  played at one table.
- **Uncertain bots.** Each bot adds `(σ / σ₀)²`, its share of the pool's
  initial variance: a new version (σ = σ₀) is worth a whole pair of
  indistinguishable bots, and its pairs with everyone are near 1 too.
- **Everyone meets everyone.** A pair that has not met for longer than
  `OVERDUE` times the blocks a balanced schedule needs to bring every pair
  together once (C(n, 2) / C(size, 2)) gains `STALE_WEIGHT` per such period
  it is overdue, so the order of the field keeps resting on games between all
  its bots (a bot's mean score depends on whom it met) and no pair is left out.
- **Nobody starves.** A bot is worth `waited / bound` more the longer it has
  not played, and a bot that has waited more than `bound = ⌈2n / size⌉` blocks
  sits at the next table whatever the table's value (the longest-waiting first
  when there are more than the table holds). A new version comes with a large
  `waited`, so it sits at the very next table.

With few possible tables (C(n, size) ≤ `ENUMERATION_LIMIT`) every one is
valued; otherwise the table is built greedily: the bot most in need first,
then each time the bot that adds the most value. Ties are broken by `rng`.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.rating import RatingParameters

ENUMERATION_LIMIT = 2000
"""The most tables `choose_table` values one by one; above it the table is built greedily."""
OVERDUE = 2.0
"""A pair is overdue after this many times the blocks a balanced schedule brings it together in."""
STALE_WEIGHT = 1.0
"""What an overdue pair adds to a table per balanced meeting period it is overdue."""
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

    def count(self, a: str, b: str) -> int:
        """How many blocks `a` and `b` have sat at together."""
        return self._count.get(_pair(a, b), 0)

    def since(self, a: str, b: str) -> int | None:
        """Blocks made since `a` and `b` last met (0: at the last one); None if never."""
        last = self._last.get(_pair(a, b))
        return None if last is None else self._made - last

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


def order_uncertainty(a: Contender, b: Contender) -> float:
    """2·Φ(−z), z = |μa − μb| / √(σa² + σb²): 1 when the ratings cannot order the two bots,
    towards 0 as their order becomes certain."""
    spread = math.sqrt(a.sigma * a.sigma + b.sigma * b.sigma)
    if spread == 0.0:
        return 1.0 if a.mu == b.mu else 0.0
    return math.erfc(abs(a.mu - b.mu) / spread / math.sqrt(2.0))


class _Valuation:
    """The value of tables among `contenders`: what each bot and each pair adds."""

    def __init__(self, contenders: Sequence[Contender], size: int, meetings: Meetings,
                 parameters: RatingParameters) -> None:
        self.meetings = meetings
        self.bound = starvation_bound(len(contenders), size)
        self.period = meeting_period(len(contenders), size)
        self.initial_variance = parameters.sigma * parameters.sigma
        self._pairs: dict[tuple[str, str], float] = {}

    def bot(self, c: Contender) -> float:
        """What `c` adds to any table: its uncertainty and how long it has waited."""
        return (c.sigma * c.sigma / self.initial_variance
                + min(c.waited, self.bound) / self.bound)

    def pair(self, a: Contender, b: Contender) -> float:
        """What seating `a` with `b` adds: the uncertainty of their order, and more when
        they are overdue to meet."""
        key = _pair(a.name, b.name)
        value = self._pairs.get(key)
        if value is None:
            since = self.meetings.since(a.name, b.name)
            waited = self.meetings.made + 1 if since is None else since
            overdue = max(0.0, waited / self.period - OVERDUE)
            value = order_uncertainty(a, b) + STALE_WEIGHT * overdue
            self._pairs[key] = value
        return value

    def table(self, bots: Sequence[Contender]) -> float:
        """The value of one table."""
        return (sum(self.bot(c) for c in bots)
                + sum(self.pair(a, b) for a, b in itertools.combinations(bots, 2)))


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
    first, at most `size` of them."""
    bound = starvation_bound(len(contenders), size)
    waiting = [c for c in contenders if c.waited > bound]
    waiting.sort(key=lambda c: (-c.waited, -c.sigma, c.name))
    return waiting[:size]


def choose_table(contenders: Sequence[Contender], size: int, meetings: Meetings,
                 parameters: RatingParameters, rng: random.Random) -> tuple[str, ...]:
    """The bots of the next table, in seat order (the rotations play every order's shift)."""
    _check(contenders, size)
    valuation = _Valuation(contenders, size, meetings, parameters)
    table = starved(contenders, size)
    seated = {c.name for c in table}
    rest = [c for c in contenders if c.name not in seated]
    rng.shuffle(rest)  # ties go to whoever comes first, so rng breaks them
    missing = size - len(table)
    if missing and math.comb(len(rest), missing) <= ENUMERATION_LIMIT:
        best = max(itertools.combinations(rest, missing),
                   key=lambda extra: valuation.table([*table, *extra]))
        table.extend(best)
    elif missing:
        if not table:
            seed = max(rest, key=valuation.bot)
            table.append(seed)
            rest.remove(seed)
        while len(table) < size:
            best_bot = max(rest, key=lambda c: valuation.bot(c)
                           + sum(valuation.pair(c, other) for other in table))
            table.append(best_bot)
            rest.remove(best_bot)
    names = [c.name for c in table]
    rng.shuffle(names)
    return tuple(names)


def random_table(contenders: Sequence[Contender], size: int,
                 rng: random.Random) -> tuple[str, ...]:
    """The bots of the next table drawn uniformly at random (the baseline matchmaking is
    measured against)."""
    _check(contenders, size)
    return tuple(c.name for c in rng.sample(list(contenders), size))
