"""Tournament schedules: who sits where, at which table of which round, with which deal.

Everything here is pure and deterministic: the same settings and bots give the
same schedule. A format first decides the *tables* (which bots play together,
in which seat order), grouped into rounds; `build_schedule` then expands every
table into games, one per seat rotation and deal.

What each format guarantees:

- **round robin**: every bot sits at the same number of tables. If every
  combination of bots fits within `max_tables`, every combination is played,
  so every pair meets equally often. Otherwise tables are whole orbits of the
  cyclic group acting on the bots, chosen greedily so that every pair meets at
  least once and the numbers of meetings are as even as the search finds
  (pairs at the same cyclic distance always meet equally often). A field small
  enough (`MAX_ORBIT_SEARCH_WORK`) compares every orbit at each pick; a bigger
  one builds each orbit's first table seat by seat, its orbits filling at most
  the tables the game limit leaves room for. Tables that cannot fit the game
  limit, or too few of them for every pair to meet, are refused at once.
- **partners**: four seats, seats 0 and 2 against 1 and 3. For 4n and 4n+1 bots
  a whist tournament: every pair partners exactly once and opposes exactly
  twice, every bot plays every round (4n) or sits out exactly one (4n+1). For
  other counts, whose pairs cannot split evenly into tables, every pair
  partners exactly once except the last two bots, who never do, and no pair
  opposes more than three times; bots not seated in a round sit it out.
- **teams**: fixed partner pairs, every team meets every other team once.
- **gauntlet**: one challenger, every table the challenger and a rotating window
  of the field, so every other bot faces it equally often.

With `rotations` on, each table is played in every cyclic rotation of its
seats, so every bot takes every seat of the table once (partners stay
partners). With `duplicate` on, the rotations of a table share one deal seed.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, NoReturn, TypeVar

from arena.engine import PARTNER_TEAMS
from arena.engine.rules import RuleSet, RuleSetError, Scoring
from arena.store import ScheduleEntry

MIN_TABLE_SIZE = 2
MAX_TABLE_SIZE = 10
PARTNER_TABLE_SIZE = 4
MAX_PARTNER_BOTS = 24
"""The largest field the partner format schedules."""
MAX_ORBIT_SEARCH_WORK = 3_000_000
"""Round robin over `max_tables` compares every orbit of combinations at each pick when
that takes at most about this many steps; a bigger field builds its orbits one by one."""
MAX_GAMES = 100_000
"""The most games one tournament may schedule."""

MAX_WORKERS = 1024
"""The most worker processes one run may use."""

MAX_SEED = 2**64 - 1
"""The largest tournament seed: an unsigned 64-bit number, as `--seed` and the admin
protocol carry it."""

Seating = tuple[str, ...]
Seat = TypeVar("Seat", str, int)


class ScheduleError(ValueError):
    """A schedule cannot be built as asked; the message says why."""


class SettingsError(ScheduleError):
    """Tournament settings are malformed; the message names the bad key."""


class Format(StrEnum):
    """How a tournament seats its bots."""

    ROUND_ROBIN = "round_robin"
    PARTNERS = "partners"
    TEAMS = "teams"
    GAUNTLET = "gauntlet"


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    """Everything that decides a tournament's schedule and rules.

    - `table_size`: seats per table (4 for the partner formats).
    - `rotations`: play every cyclic rotation of each table's seats.
    - `deals_per_table`: how many deals each table (with its rotations) plays.
    - `duplicate`: the rotations of a table share their deal.
    - `seed`: the tournament seed every deal seed derives from.
    - `max_tables`: round robin plays every combination of bots only up to this
      many tables, and a balanced subset beyond.
    - `teams`: the fixed pairs of the teams format.
    - `challenger`: the bot every gauntlet table includes.
    - `concurrency`: how many tables play at once (it does not change the schedule);
      with several workers, how many each worker plays at once.
    - `workers`: how many worker processes play the games, each with its own match
      server and managed bots (1: the run's own server; it does not change the
      schedule, nor, with deterministic bots, the games and ratings).
    - `policy`: the bot policy every table applies (timeouts, strikes, forfeit),
      as a plain table the server checks; it does not change the schedule.
    - `rules`: the rule set of every game.
    """

    format: Format = Format.ROUND_ROBIN
    table_size: int = 4
    rotations: bool = True
    deals_per_table: int = 1
    duplicate: bool = True
    seed: int = 0
    max_tables: int = 200
    teams: tuple[tuple[str, str], ...] = ()
    challenger: str | None = None
    concurrency: int = 4
    workers: int = 1
    policy: Mapping[str, Any] = field(default_factory=dict)
    rules: RuleSet = field(default_factory=RuleSet)

    def __post_init__(self) -> None:
        if not MIN_TABLE_SIZE <= self.table_size <= MAX_TABLE_SIZE:
            raise SettingsError(
                f"table_size: must be between {MIN_TABLE_SIZE} and {MAX_TABLE_SIZE}, "
                f"got {self.table_size}"
            )
        if not 0 <= self.seed <= MAX_SEED:
            raise SettingsError(f"seed: must be between 0 and {MAX_SEED:,}, got {self.seed:,}")
        if not 1 <= self.workers <= MAX_WORKERS:
            raise SettingsError(f"workers: must be between 1 and {MAX_WORKERS}, "
                                f"got {self.workers}")
        for name in ("deals_per_table", "max_tables", "concurrency"):
            if getattr(self, name) < 1:
                raise SettingsError(f"{name}: must be at least 1, got {getattr(self, name)}")
            if getattr(self, name) > MAX_GAMES:
                raise SettingsError(f"{name}: must be at most {MAX_GAMES:,}, "
                                    f"got {getattr(self, name):,}")
        if self.partnered:
            self._check_partner_format()
        if self.format is Format.GAUNTLET and not self.challenger:
            raise SettingsError("challenger: a gauntlet needs the name of its challenger")
        if self.format is Format.TEAMS:
            _check_teams(self.teams)
        try:
            self.rules.check_players(self.table_size)
        except RuleSetError as exc:
            raise SettingsError(f"rules: {exc}") from None

    def _check_partner_format(self) -> None:
        if self.table_size != PARTNER_TABLE_SIZE:
            raise SettingsError(
                f"table_size: the {self.format} format seats {PARTNER_TABLE_SIZE}, "
                f"got {self.table_size}"
            )
        if self.rules.scoring is not Scoring.PARTNERS:
            raise SettingsError(
                f"rules: the {self.format} format needs scoring = 'partners', "
                f"got {self.rules.scoring.value!r}"
            )

    @property
    def partnered(self) -> bool:
        """True for the formats whose tables are two teams of two."""
        return self.format in (Format.PARTNERS, Format.TEAMS)

    @property
    def table_teams(self) -> tuple[tuple[int, ...], ...] | None:
        """The seats of each team at every table, or None when every seat plays alone."""
        return PARTNER_TEAMS if self.rules.scoring is Scoring.PARTNERS else None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-friendly values, the inverse of `from_dict`."""
        return {
            "format": self.format.value,
            "table_size": self.table_size,
            "rotations": self.rotations,
            "deals_per_table": self.deals_per_table,
            "duplicate": self.duplicate,
            "seed": self.seed,
            "max_tables": self.max_tables,
            "teams": [list(team) for team in self.teams],
            "challenger": self.challenger,
            "concurrency": self.concurrency,
            "workers": self.workers,
            "policy": dict(self.policy),
            "rules": self.rules.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentSettings:
        """Settings from a mapping; unknown keys and bad values raise `SettingsError`.

        The partner formats default the rule set's scoring to 'partners'.
        """
        check_settings_keys(data, {f.name for f in fields(cls)}, "setting")
        values: dict[str, Any] = {}
        for name, value in data.items():
            if name in _PARSERS:
                values[name] = _PARSERS[name](name, value)
        values["rules"] = _parse_rules(data.get("rules", {}), values.get("format"))
        return cls(**values)


def check_settings_keys(data: object, known: set[str], what: str) -> None:
    """Refuse (`SettingsError`) `data` unless it is a table whose keys are all `known`,
    naming the first other one as an unknown `what`."""
    if not isinstance(data, Mapping):
        raise SettingsError(f"settings must be a table of values, got {type(data).__name__}")
    unknown = sorted(set(data) - known)
    if unknown:
        raise SettingsError(f"{unknown[0]}: unknown {what} (known: {', '.join(sorted(known))})")


def _parse_table(name: str, value: object) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise SettingsError(f"{name}: must be a table of settings, got {value!r}")
    return dict(value)


def _parse_format(name: str, value: object) -> Format:
    try:
        return Format(str(value))
    except ValueError:
        choices = ", ".join(repr(f.value) for f in Format)
        raise SettingsError(f"{name}: {value!r} is not one of {choices}") from None


def _parse_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingsError(f"{name}: must be a whole number, got {value!r}")
    return value


def _parse_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(f"{name}: must be true or false, got {value!r}")
    return value


def _parse_challenger(name: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise SettingsError(f"{name}: must be a bot name, got {value!r}")
    return value


def _parse_teams(name: str, value: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise SettingsError(f"{name}: must be a list of [bot, bot] pairs, got {value!r}")
    teams: list[tuple[str, str]] = []
    for team in value:
        is_pair = isinstance(team, Sequence) and not isinstance(team, str) and len(team) == 2
        if not is_pair or not all(isinstance(bot, str) for bot in team):
            raise SettingsError(f"{name}: each team is a pair of bot names, got {team!r}")
        teams.append((team[0], team[1]))
    return tuple(teams)


def _parse_rules(value: object, format: Format | None) -> RuleSet:
    if isinstance(value, RuleSet):
        return value
    if not isinstance(value, Mapping):
        raise SettingsError(f"rules: must be a table of rule settings, got {value!r}")
    rules = dict(value)
    if format in (Format.PARTNERS, Format.TEAMS):
        rules.setdefault("scoring", Scoring.PARTNERS.value)
    try:
        return RuleSet.from_dict(rules)
    except RuleSetError as exc:
        raise SettingsError(f"rules: {exc}") from None


_PARSERS: dict[str, Callable[[str, Any], Any]] = {
    "format": _parse_format,
    "table_size": _parse_int,
    "rotations": _parse_bool,
    "deals_per_table": _parse_int,
    "duplicate": _parse_bool,
    "seed": _parse_int,
    "max_tables": _parse_int,
    "teams": _parse_teams,
    "challenger": _parse_challenger,
    "concurrency": _parse_int,
    "workers": _parse_int,
    "policy": _parse_table,
}


def _check_teams(teams: Sequence[tuple[str, str]]) -> None:
    if len(teams) < 2:
        raise SettingsError(f"teams: the teams format needs at least 2 teams, got {len(teams)}")
    seen: set[str] = set()
    for team in teams:
        if team[0] == team[1]:
            raise SettingsError(f"teams: {team[0]!r} can't partner itself")
        for bot in team:
            if bot in seen:
                raise SettingsError(f"teams: {bot!r} is on two teams")
            seen.add(bot)


@dataclass(frozen=True, slots=True)
class ScheduledTable:
    """One game of a schedule.

    `round` and `table` count from 1; `game_index` is the game's position in
    the whole schedule, from 0. `seats` are bot names in seat order; `teams`
    lists the seats of each team (None when every seat plays for itself).
    """

    round: int
    table: int
    game_index: int
    seats: tuple[str, ...]
    seed: int
    teams: tuple[tuple[int, ...], ...] | None = None


Schedule = tuple[ScheduledTable, ...]


def build_schedule(settings: TournamentSettings, bots: Sequence[str]) -> Schedule:
    """Every game of a tournament between `bots`, in playing order (at most `MAX_GAMES`)."""
    _check_bots(bots)
    rounds = _FORMATS[settings.format](settings, list(bots))
    _check_size(sum(len(seats) if settings.rotations else 1
                    for tables in rounds for seats in tables) * settings.deals_per_table)
    return tuple(_expand(rounds, settings))


def more_deals(settings: TournamentSettings, schedule: Sequence[ScheduleEntry],
               deals: int) -> Schedule:
    """The games `deals` more deals per table add to `schedule`, a schedule of `settings`:
    at every table of every round, the deals numbered after its `deals_per_table`, in
    the seat orders its first deal was played in, numbered after its last game.

    A duplicate deal's seed depends only on its round, table and number, so with
    duplicate deals the schedule so extended plays the very deals one built with
    the larger `deals_per_table` at once would.
    """
    per_table = Counter((game.round, game.table) for game in schedule)
    seatings: dict[tuple[int, int], list[Seating]] = {}
    for game in sorted(schedule, key=lambda game: game.game_index):
        placed = seatings.setdefault((game.round, game.table), [])
        if len(placed) < per_table[game.round, game.table] // settings.deals_per_table:
            placed.append(tuple(game.seats))
    _check_size(len(schedule) + sum(map(len, seatings.values())) * deals)
    index = itertools.count(max((game.game_index for game in schedule), default=-1) + 1)
    done = settings.deals_per_table
    return tuple(
        ScheduledTable(round=round_number, table=table_number, game_index=game_index,
                       seats=seating,
                       seed=(derive_seed(settings.seed, "deal", round_number, table_number, deal)
                             if settings.duplicate
                             else derive_seed(settings.seed, "game", game_index)),
                       teams=settings.table_teams)
        for (round_number, table_number), table_seatings in sorted(seatings.items())
        for deal in range(done, done + deals)
        for seating in table_seatings
        for game_index in (next(index),))


def _check_size(games: int) -> None:
    if games > MAX_GAMES:
        _refuse_games(games)


def _check_bots(bots: Sequence[str]) -> None:
    if len(bots) < 2:
        raise ScheduleError(f"a tournament needs at least 2 bots, got {len(bots)}")
    repeated = sorted({bot for bot in bots if list(bots).count(bot) > 1})
    if repeated:
        raise ScheduleError(f"bots listed more than once: {', '.join(repeated)}")


def _expand(rounds: list[list[Seating]], settings: TournamentSettings) -> Iterator[ScheduledTable]:
    index = itertools.count()
    for round_number, tables in enumerate(rounds, start=1):
        for table_number, seats in enumerate(tables, start=1):
            seatings = seat_rotations(seats) if settings.rotations else [seats]
            for deal in range(settings.deals_per_table):
                deal_seed = derive_seed(settings.seed, "deal", round_number, table_number, deal)
                for seating in seatings:
                    game_index = next(index)
                    yield ScheduledTable(
                        round=round_number,
                        table=table_number,
                        game_index=game_index,
                        seats=seating,
                        seed=(deal_seed if settings.duplicate
                              else derive_seed(settings.seed, "game", game_index)),
                        teams=settings.table_teams,
                    )


def seat_rotations(seats: Seating) -> list[Seating]:
    """Every cyclic rotation of a seat order, starting with the order itself."""
    return [seats[shift:] + seats[:shift] for shift in range(len(seats))]


def derive_seed(tournament_seed: int, *parts: object) -> int:
    """A deal seed (0 ≤ seed < 2**63) derived from the tournament seed and a game's place."""
    text = ":".join(str(part) for part in (tournament_seed, *parts))
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def pack_rounds(tables: Sequence[tuple[Seat, ...]]) -> list[list[tuple[Seat, ...]]]:
    """Group tables into rounds in which no bot plays twice, first fit, in order."""
    rounds: list[list[tuple[Seat, ...]]] = []
    playing: dict[Seat, int] = {}
    """Each bot's rounds as a bit set: bit r is set if the bot plays in round r."""
    for table in tables:
        busy = 0
        for bot in table:
            busy |= playing.get(bot, 0)
        free = ~busy & (busy + 1)
        number = free.bit_length() - 1
        if number == len(rounds):
            rounds.append([])
        rounds[number].append(table)
        for bot in table:
            playing[bot] = playing.get(bot, 0) | free
    return rounds


# -- round robin ------------------------------------------------------------------


def _round_robin(settings: TournamentSettings, bots: list[str]) -> list[list[Seating]]:
    _check_table_size(settings.table_size, len(bots))
    games_per_table = (settings.table_size if settings.rotations else 1) * settings.deals_per_table
    tables = round_robin_tables(bots, settings.table_size, settings.max_tables,
                                games_per_table=games_per_table)
    return pack_rounds(tables)


def _check_table_size(table_size: int, bot_count: int) -> None:
    if table_size > bot_count:
        raise ScheduleError(f"tables of {table_size} need at least {table_size} bots, "
                            f"got {bot_count}")


def round_robin_tables(bots: Sequence[str], table_size: int, max_tables: int, *,
                       games_per_table: int = 1) -> list[Seating]:
    """The round-robin tables (one seat order each) of `bots` at tables of `table_size`.

    Every combination when there are at most `max_tables` of them; otherwise
    the balanced subset described in the module docstring. Each table plays
    `games_per_table` games: tables that cannot fit within `MAX_GAMES` are
    refused at once, without being searched for, and the orbits of a big field
    are chosen within the room the game limit leaves.
    """
    count = len(bots)
    room = MAX_GAMES // games_per_table
    combinations = math.comb(count, table_size)
    if combinations <= max_tables:
        if combinations > room:
            _refuse_games(combinations * games_per_table)
        return [tuple(bots[i] for i in combo)
                for combo in itertools.combinations(range(count), table_size)]
    fewest = -(-math.comb(count, 2) // math.comb(table_size, 2))
    if fewest > max_tables:
        raise _too_few(max_tables, count, table_size)
    if fewest > room:
        _refuse_games(fewest * games_per_table, at_least=True)
    if _exhaustive_work(count, table_size, max_tables) <= MAX_ORBIT_SEARCH_WORK:
        chosen = _balanced_orbits(_cyclic_orbits(count, table_size), count, table_size,
                                  max_tables)
    else:
        chosen = _built_orbits(count, table_size, max_tables, room, games_per_table)
    return [tuple(bots[i] for i in table) for orbit in chosen for table in orbit.tables]


def _refuse_games(games: int, *, at_least: bool = False) -> NoReturn:
    raise ScheduleError(f"the schedule would hold {'at least ' if at_least else ''}{games:,} "
                        f"games, more than the {MAX_GAMES:,} a tournament may have: use fewer "
                        "deals per table, fewer tables (max_tables) or several tournaments")


def _too_few(max_tables: int, count: int, table_size: int) -> ScheduleError:
    return ScheduleError(
        f"max_tables = {max_tables} is too few for every pair of {count} bots to meet "
        f"at tables of {table_size}; raise it"
    )


def _exhaustive_work(count: int, table_size: int, max_tables: int) -> int:
    """About how many steps comparing every orbit takes: enumerating the combinations
    with bot 0, then, for each orbit picked (an orbit holds at least count / table_size
    tables), comparing every orbit's meetings over every distance."""
    orbits = math.comb(count, table_size) // count + 1
    picks = min(orbits, max_tables * table_size // count + 1)
    return math.comb(count - 1, table_size - 1) * table_size + orbits * picks * (count // 2)


@dataclass(frozen=True, slots=True)
class _Orbit:
    tables: tuple[tuple[int, ...], ...]
    meetings: tuple[int, ...]
    """meetings[d - 1]: how often the orbit seats any pair at cyclic distance d together."""


def _cyclic_orbits(count: int, table_size: int) -> list[_Orbit]:
    representatives = sorted({
        _canonical((0, *rest), count)
        for rest in itertools.combinations(range(1, count), table_size - 1)
    })
    return [_orbit(rep, count) for rep in representatives]


def _canonical(table: tuple[int, ...], count: int) -> tuple[int, ...]:
    """The least translate of `table`, sorted; it holds 0, so it is among the translates
    that move one of the table's bots to 0."""
    return min(_translate(table, -seat, count) for seat in table)


def _translate(table: tuple[int, ...], shift: int, count: int) -> tuple[int, ...]:
    return tuple(sorted((seat + shift) % count for seat in table))


def _orbit(representative: tuple[int, ...], count: int) -> _Orbit:
    tables: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for shift in range(count):
        table = _translate(representative, shift, count)
        if table in seen:
            break
        seen.add(table)
        tables.append(table)
    meetings = [0] * (count // 2)
    for table in tables:
        if table[0] == 0:
            for seat in table[1:]:
                if seat <= count // 2:
                    meetings[seat - 1] += 1
    return _Orbit(tuple(tables), tuple(meetings))


def _balanced_orbits(
    orbits: list[_Orbit], count: int, table_size: int, max_tables: int
) -> list[_Orbit]:
    meetings = [0] * (count // 2)
    chosen: list[_Orbit] = []
    tables = 0
    best: tuple[tuple[int, int], int] | None = None
    remaining = list(orbits)
    while True:
        fitting = [orbit for orbit in remaining if tables + len(orbit.tables) <= max_tables]
        if not fitting:
            break
        pick = min(fitting, key=lambda orbit: _imbalance(meetings, orbit.meetings))
        remaining.remove(pick)
        chosen.append(pick)
        tables += len(pick.tables)
        meetings = [a + b for a, b in zip(meetings, pick.meetings, strict=True)]
        if min(meetings) >= 1:
            key = (max(meetings) - min(meetings), -tables)
            if best is None or key < best[0]:
                best = (key, len(chosen))
    if best is None:
        raise _too_few(max_tables, count, table_size)
    return chosen[: best[1]]


def _imbalance(meetings: Sequence[int], extra: Sequence[int]) -> tuple[int, float]:
    totals = [a + b for a, b in zip(meetings, extra, strict=True)]
    mean = sum(totals) / len(totals)
    return max(totals) - min(totals), sum((t - mean) ** 2 for t in totals)


def _built_orbits(count: int, table_size: int, max_tables: int, room: int,
                  games_per_table: int) -> list[_Orbit]:
    """Whole orbits for a field too big to compare every orbit: each one's first table is
    built seat by seat (with bot 0 in it) to seat together the pairs at the distances met
    least so far, then improved seat by seat; the best prefix is kept as in
    `_balanced_orbits`."""
    builder = _OrbitBuilder(count, table_size)
    limit = min(max_tables, room)
    chosen: list[_Orbit] = []
    tables = 0
    best: tuple[tuple[int, int], int] | None = None
    while tables + count <= limit:
        block = builder.next_block()
        if block is None:
            break
        meetings = builder.add(block)
        chosen.append(_Orbit(tuple(_translate(block, shift, count) for shift in range(count)),
                             tuple(meetings.get(distance, 0)
                                   for distance in range(1, count // 2 + 1))))
        tables += count
        if builder.lowest >= 1:
            key = (builder.highest - builder.lowest, -tables)
            if best is None or key < best[0]:
                best = (key, len(chosen))
    if best is None:
        if room < max_tables:
            _refuse_games((room + 1) * games_per_table, at_least=True)
        raise _too_few(max_tables, count, table_size)
    return chosen[: best[1]]


class _OrbitBuilder:
    """The meetings per cyclic distance of the orbits added so far, and the first table of
    the next orbit that evens them out best.

    A table holding 0 stands for its orbit: the orbit seats any pair at distance d
    together once for every two of the table's seats d apart (twice at distance
    count / 2, which is d apart both ways). Only whole orbits (count tables) are built.
    """

    IMPROVING_PASSES = 3

    def __init__(self, count: int, table_size: int) -> None:
        self.count = count
        self.table_size = table_size
        self.half = count // 2
        self.fold = [min(v, count - v) for v in range(count)]
        self.meetings = [0] * (self.half + 1)
        """meetings[d]: how often each pair at distance d meets; meetings[0] is unused."""
        self.levels = Counter({0: self.half})
        self.base = 4 * math.comb(table_size, 2)
        self._lowest = 0
        self.used: set[tuple[int, ...]] = set()

    @property
    def lowest(self) -> int:
        """The fewest meetings of any pair."""
        return self._lowest

    @property
    def highest(self) -> int:
        """The most meetings of any pair."""
        return max(self.levels)

    def _step(self, distance: int) -> int:
        return 2 if 2 * distance == self.count else 1

    def _added(self, block: Sequence[int]) -> Counter[int]:
        fold = self.fold
        added: Counter[int] = Counter()
        for a, b in itertools.combinations(block, 2):
            distance = fold[(b - a) % self.count]
            added[distance] += self._step(distance)
        return added

    def _cost(self, before: int, step: int) -> int:
        """What raising a distance's meetings from `before` by `step` costs: a raise from
        the fewest meetings is cheaper than any raise above them, whatever its step."""
        return step * int(self.base ** (before - self.lowest))

    def _key(self, block: Sequence[int]) -> tuple[int, int]:
        """(the spread of meetings, the cost of raising them) after `block`."""
        added = self._added(block)
        levels = self.levels.copy()
        cost = 0
        for distance, extra in added.items():
            before = self.meetings[distance]
            levels[before] -= 1
            levels[before + extra] += 1
            cost += self._cost(before, extra)
        present = [level for level, n in levels.items() if n > 0]
        return max(present) - min(present), cost

    def _candidates(self, others: Sequence[int]) -> list[int]:
        """Seats that could join `others`, cheapest first; on a tie the seat farthest from
        them, as the long distances are the hard ones to fit in last."""
        fold, count = self.fold, self.count
        before = self.meetings.copy()
        for distance, extra in self._added(others).items():
            before[distance] += extra
        single = [self._cost(level, self._step(distance))
                  for distance, level in enumerate(before)]
        taken = set(others)
        costs: list[tuple[int, int, int]] = []
        for seat in range(1, count):
            if seat in taken:
                continue
            distances = [fold[(seat - other) % count] for other in others]
            if len(set(distances)) == len(distances):
                cost = sum(single[distance] for distance in distances)
            else:
                cost = self._repeated_cost(before, distances)
            costs.append((cost, -sum(distances), seat))
        costs.sort()
        return [seat for _, _, seat in costs]

    def _repeated_cost(self, before: Sequence[int], distances: Sequence[int]) -> int:
        cost = 0
        seen: Counter[int] = Counter()
        for distance in distances:
            step = self._step(distance)
            cost += self._cost(before[distance] + seen[distance], step)
            seen[distance] += step
        return cost

    def _valid(self, block: Sequence[int]) -> bool:
        table = tuple(sorted(block))
        return self._whole(table) and _canonical(table, self.count) not in self.used

    def _whole(self, table: tuple[int, ...]) -> bool:
        members = set(table)
        return all({(seat + shift) % self.count for seat in table} != members
                   for shift in table if shift)

    def next_block(self) -> tuple[int, ...] | None:
        """The first table (sorted, holding 0) of the best next orbit found, or None."""
        block = [0]
        while len(block) < self.table_size - 1:
            block.append(self._candidates(block)[0])
        last = next((seat for seat in self._candidates(block)
                     if self._valid([*block, seat])), None)
        if last is None:
            return None
        block.append(last)
        for _ in range(self.IMPROVING_PASSES):
            if not self._improve(block):
                break
        return tuple(sorted(block))

    def _improve(self, block: list[int]) -> bool:
        improved = False
        for position in range(1, len(block)):
            others = block[:position] + block[position + 1:]
            current = self._key(block)
            for seat in self._candidates(others):
                trial = [*others[:position], seat, *others[position:]]
                if self._valid(trial):
                    if self._key(trial) < current:
                        block[:] = trial
                        improved = True
                    break
        return improved

    def add(self, block: tuple[int, ...]) -> Counter[int]:
        """Count the meetings of `block`'s orbit; return them, by distance."""
        self.used.add(_canonical(block, self.count))
        added = self._added(block)
        for distance, extra in added.items():
            before = self.meetings[distance]
            self.levels[before] -= 1
            if not self.levels[before]:
                del self.levels[before]
            self.levels[before + extra] += 1
            self.meetings[distance] = before + extra
        self._lowest = min(self.levels)
        return added


# -- partners ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _WhistBase:
    """The first round of a whist tournament over a group, developed by adding each element.

    The group is a product of cyclic groups (`moduli`), its elements numbered
    in mixed radix; with `infinity`, one more point (numbered last) is fixed
    by every translation. Each table is (a, b, c, d): a and c partner against
    b and d; None stands for infinity.
    """

    moduli: tuple[int, ...]
    infinity: bool
    tables: tuple[tuple[int | None, int, int, int], ...]


_WHIST_BASES: dict[int, _WhistBase] = {
    4: _WhistBase((3,), True, ((None, 1, 0, 2),)),
    5: _WhistBase((5,), False, ((0, 2, 1, 4),)),
    8: _WhistBase((7,), True, ((None, 1, 0, 3), (2, 4, 6, 5))),
    9: _WhistBase((3, 3), False, ((1, 3, 2, 6), (4, 5, 8, 7))),
    12: _WhistBase((11,), True, ((None, 1, 0, 3), (2, 6, 9, 7), (4, 5, 10, 8))),
    13: _WhistBase((13,), False, ((0, 2, 1, 9), (3, 10, 7, 12), (5, 6, 8, 11))),
    16: _WhistBase((15,), True,
                   ((None, 1, 0, 2), (3, 9, 6, 11), (4, 8, 13, 12), (5, 7, 10, 14))),
    17: _WhistBase((17,), False,
                   ((0, 2, 1, 5), (3, 12, 7, 14), (4, 8, 10, 13), (6, 9, 15, 16))),
    20: _WhistBase((19,), True, ((None, 1, 0, 2), (3, 9, 5, 15), (4, 12, 14, 17),
                                 (6, 10, 18, 13), (7, 8, 11, 16))),
    21: _WhistBase((21,), False, ((0, 2, 1, 4), (3, 13, 6, 17), (5, 10, 12, 18),
                                  (7, 11, 19, 16), (8, 9, 14, 20))),
    24: _WhistBase((23,), True, ((None, 1, 0, 2), (3, 7, 5, 17), (4, 18, 12, 22),
                                 (6, 10, 20, 13), (8, 11, 19, 16), (9, 14, 15, 21))),
}
"""Whist tournament designs for 4n and 4n+1 players, checked by the test suite."""


def _partners(settings: TournamentSettings, bots: list[str]) -> list[list[Seating]]:
    return partner_rounds(bots)


def partner_rounds(bots: Sequence[str]) -> list[list[Seating]]:
    """Rounds of partner tables (a, b, c, d): a and c partner against b and d.

    For 4n and 4n+1 bots this is a whist tournament; 8 bots play 7 rounds of 2
    tables. Other counts get the near design described in the module docstring.
    """
    count = len(bots)
    if not PARTNER_TABLE_SIZE <= count <= MAX_PARTNER_BOTS:
        raise ScheduleError(
            f"the partner format takes {PARTNER_TABLE_SIZE} to {MAX_PARTNER_BOTS} bots, "
            f"got {count}"
        )
    if count in _WHIST_BASES:
        rounds = _develop(_WHIST_BASES[count])
    else:
        rounds = pack_rounds(_near_whist_tables(count))
    return [[tuple(bots[i] for i in table) for table in tables] for tables in rounds]


def _develop(base: _WhistBase) -> list[list[tuple[int, ...]]]:
    order = math.prod(base.moduli)
    return [
        [tuple(order if point is None else _group_add(point, shift, base.moduli)
               for point in table) for table in base.tables]
        for shift in range(order)
    ]


def _group_add(a: int, b: int, moduli: tuple[int, ...]) -> int:
    total, place = 0, 1
    for modulus in reversed(moduli):
        total += ((a // place + b // place) % modulus) * place
        place *= modulus
    return total


def _near_whist_tables(count: int) -> list[tuple[int, ...]]:
    search = _NearWhistSearch(count)
    if not search.solve():
        raise ScheduleError(f"no partner schedule found for {count} bots")
    return search.tables


class _NearWhistSearch:
    """Backtracking search for partner tables covering every pair but the last once.

    A table (a, b, c, d) covers the partnerships a–c and b–d and makes a, c
    opponents of b, d; no pair may oppose more than `MAX_OPPOSED` times. It
    always extends the partnership with the fewest possible tables (bit sets
    keep that cheap) and tries the least-used opponents first.
    """

    MAX_OPPOSED = 3

    def __init__(self, count: int) -> None:
        self.count = count
        everyone = (1 << count) - 1
        self.unpartnered = [everyone & ~(1 << bot) for bot in range(count)]
        self._mark_partnered(count - 2, count - 1, True)
        self.opposed = [[0] * count for _ in range(count)]
        self.may_oppose = [everyone & ~(1 << bot) for bot in range(count)]
        self.tables: list[tuple[int, ...]] = []

    def solve(self) -> bool:
        """Extend the tables until every partnership is covered; False if impossible."""
        pick = self._most_constrained()
        if pick is None:
            return True
        a, c = pick
        if not self._opponent_pairs(a, c):
            return False
        self._mark_partnered(a, c, True)
        for b, d in self._opponent_pairs(a, c):
            self._place((a, b, c, d), 1)
            if self.solve():
                return True
            self._place((a, b, c, d), -1)
        self._mark_partnered(a, c, False)
        return False

    def _most_constrained(self) -> tuple[int, int] | None:
        best: tuple[int, int, int] | None = None
        for a in range(self.count):
            for c in _bits(self.unpartnered[a] >> (a + 1) << (a + 1)):
                options = self._option_count(a, c)
                if best is None or options < best[0]:
                    best = (options, a, c)
                if options == 0:
                    return a, c
        return None if best is None else (best[1], best[2])

    def _allowed(self, a: int, c: int) -> int:
        return self.may_oppose[a] & self.may_oppose[c] & ~(1 << a) & ~(1 << c)

    def _option_count(self, a: int, c: int) -> int:
        allowed = self._allowed(a, c)
        return sum((self.unpartnered[b] & allowed).bit_count() for b in _bits(allowed)) // 2

    def _opponent_pairs(self, a: int, c: int) -> list[tuple[int, int]]:
        allowed = self._allowed(a, c)
        pairs = [
            (self._load(a, c, b, d), b, d)
            for b in _bits(allowed)
            for d in _bits(self.unpartnered[b] & allowed >> (b + 1) << (b + 1))
        ]
        return [(b, d) for _, b, d in sorted(pairs)]

    def _load(self, a: int, c: int, b: int, d: int) -> int:
        opposed = self.opposed
        return opposed[a][b] + opposed[a][d] + opposed[c][b] + opposed[c][d]

    def _place(self, table: tuple[int, int, int, int], step: int) -> None:
        a, b, c, d = table
        self._mark_partnered(b, d, step > 0)
        for x, y in ((a, b), (a, d), (c, b), (c, d)):
            self.opposed[x][y] += step
            self.opposed[y][x] += step
            full = self.opposed[x][y] >= self.MAX_OPPOSED
            self.may_oppose[x] = _set_bit(self.may_oppose[x], y, not full)
            self.may_oppose[y] = _set_bit(self.may_oppose[y], x, not full)
        if step > 0:
            self.tables.append(table)
        else:
            self.tables.pop()

    def _mark_partnered(self, a: int, c: int, partnered: bool) -> None:
        self.unpartnered[a] = _set_bit(self.unpartnered[a], c, not partnered)
        self.unpartnered[c] = _set_bit(self.unpartnered[c], a, not partnered)


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _set_bit(mask: int, bit: int, on: bool) -> int:
    return mask | (1 << bit) if on else mask & ~(1 << bit)


# -- fixed teams and gauntlet --------------------------------------------------------


def _teams(settings: TournamentSettings, bots: list[str]) -> list[list[Seating]]:
    members = sorted(bot for team in settings.teams for bot in team)
    if members != sorted(bots):
        raise ScheduleError(
            f"the teams list bots {members}, but the tournament's bots are {sorted(bots)}"
        )
    return team_rounds(settings.teams)


def team_rounds(teams: Sequence[tuple[str, str]]) -> list[list[Seating]]:
    """Every team meets every other once (circle method); a team with no match rests."""
    entries: list[tuple[str, str] | None] = list(teams)
    if len(entries) % 2:
        entries.append(None)
    rounds: list[list[Seating]] = []
    for _ in range(len(entries) - 1):
        half = len(entries) // 2
        matches = zip(entries[:half], reversed(entries[half:]), strict=True)
        rounds.append([
            (first[0], second[0], first[1], second[1])
            for first, second in matches
            if first is not None and second is not None
        ])
        entries = [entries[0], entries[-1], *entries[1:-1]]
    return rounds


def _gauntlet(settings: TournamentSettings, bots: list[str]) -> list[list[Seating]]:
    challenger = settings.challenger
    if challenger not in bots:
        raise ScheduleError(f"the challenger {challenger!r} is not among the bots")
    _check_table_size(settings.table_size, len(bots))
    field = [bot for bot in bots if bot != challenger]
    return [[table] for table in gauntlet_tables(challenger, field, settings.table_size)]


def gauntlet_tables(challenger: str, field: Sequence[str], table_size: int) -> list[Seating]:
    """The challenger (seat 0) with each window of `table_size - 1` consecutive field bots."""
    opponents = table_size - 1
    if opponents == len(field):
        return [(challenger, *field)]
    return [
        (challenger, *(field[(start + offset) % len(field)] for offset in range(opponents)))
        for start in range(len(field))
    ]


_FORMATS: dict[Format, Callable[[TournamentSettings, list[str]], list[list[Seating]]]] = {
    Format.ROUND_ROBIN: _round_robin,
    Format.PARTNERS: _partners,
    Format.TEAMS: _teams,
    Format.GAUNTLET: _gauntlet,
}
