"""The ladder's schedule, grown a table at a time while it is played.

A ladder is stored as a tournament of format `ladder` whose schedule has no end:
whenever the run has a free table, `LadderFeed.refill` asks the matchmaking for
the bots of the next table, among the bots in the field *now* (the latest
version of every bot that is connected), and appends that table's deal in all
its seat rotations — one *block*, a round of its own in the schedule, rated as
the tournament's games are, and counted by the statistics as one deal block.
Pending games of a bot that has left the field (removed, superseded by a new
version, or disconnected) are withdrawn from the schedule; what was played stays
in the history.

Only as many games are queued as there are free tables, so a new version is at
the very next table once it has connected, and every table is matched on the
ratings as they stand. A ladder stopped with games queued plays them first when
it starts again; the blocks it made and the meetings between bots are read back
from the schedule.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import random
from collections.abc import Awaitable, Callable, Sequence

from arena.ladder.matchmaking import Contender, Meetings, choose_table, random_table
from arena.ladder.settings import LadderSettings, Matchmaking
from arena.rating import RatingParameters
from arena.rating.pools import pool_parameters, tournament_pool
from arena.store import (
    LADDER_FORMAT,
    DuplicateName,
    ScheduledGame,
    Store,
    Tournament,
    UnknownPool,
    UnknownTournament,
)
from arena.tournament.runner import FeedChange
from arena.tournament.schedule import ScheduledTable, derive_seed, seat_rotations

Field = Callable[[], Sequence[str] | Awaitable[Sequence[str]]]
"""The bots that can be seated now: the latest version of every bot, connected."""

NEVER_SEATED = 1_000_000
"""How long a bot that has never sat at a ladder table has waited, in tables."""


class LadderError(ValueError):
    """A ladder cannot be started as asked; the message says why."""


def open_ladder(store: Store, name: str, settings: LadderSettings) -> Tournament:
    """The stored ladder `name`, created with `settings` if there is none; `LadderError`
    if `name` is a tournament that is not a ladder, or a ladder whose games `settings`
    would change."""
    try:
        ladder = store.tournament(name)
    except UnknownTournament:
        try:
            return store.create_tournament(name, LADDER_FORMAT, settings.stored(),
                                           settings.rules.to_dict())
        except DuplicateName:  # created meanwhile by another process
            ladder = store.tournament(name)
    if ladder.format != LADDER_FORMAT:
        raise LadderError(f"{name} is a tournament, not a ladder (`arena tournament run "
                          f"{name}` plays it); give the ladder another name")
    changed = settings.differences(ladder.settings, ladder.rules)
    if changed:
        raise LadderError(f"ladder {name} was started with other settings ({'; '.join(changed)}); "
                          "a ladder keeps its table size, deals and rules — start a ladder "
                          "under another name for new ones (`arena serve --ladder FILE "
                          "--ladder-name NAME`, `arena ladder run --name NAME`)")
    return ladder


class LadderFeed:
    """A ladder's growing schedule (a `ScheduleFeed` for `run_tournament`).

    `field` says which bots can be seated now; `max_games`, when given, ends the ladder
    once that many games are scheduled (whole deals: the last may go past it);
    `changed`, when given, is awaited for a change of the field (bots connecting),
    with `poll` seconds as the longest wait.
    """

    def __init__(self, store: Store, ladder: Tournament, settings: LadderSettings, field: Field,
                 *, max_games: int | None = None,
                 changed: Callable[[], Awaitable[None]] | None = None,
                 poll: float = 1.0) -> None:
        self.store = store
        self.ladder = ladder
        self.settings = settings
        self._field = field
        self._max_games = max_games
        self._changed = changed
        self._poll = poll
        self._parameters: RatingParameters = pool_parameters(settings.table_size)
        schedule = store.scheduled_games(ladder.id)
        self._games = len(schedule)
        self._round = max((game.round for game in schedule), default=0)
        self._index = max((game.game_index for game in schedule), default=-1) + 1
        self.meetings = Meetings()
        """Who has sat with whom, and how many tables the ladder has made."""
        self._blocks: dict[str, int] = {}
        self._last: dict[str, int] = {}
        for table in _tables_by_round(schedule):
            self._seated(table)

    @property
    def games(self) -> int:
        """Games in the ladder's schedule now (played and pending)."""
        return self._games

    async def refill(self, pending: Sequence[ScheduledGame], free_tables: int) -> FeedChange:
        """Withdraw the pending games of bots that left the field, then append tables for
        the free ones (see the module's description)."""
        found = self._field()
        field = set(await found if inspect.isawaitable(found) else found)
        withdrawn = frozenset(game.id for game in pending if not set(game.seats) <= field)
        if withdrawn:
            await asyncio.to_thread(self.store.withdraw_games, self.ladder.id, withdrawn)
            self._games -= len(withdrawn)
        queued = len(pending) - len(withdrawn)
        added: list[ScheduledGame] = []
        size = self.settings.table_size
        while (queued + len(added) < free_tables and len(field) >= size
               and not self._spent):
            block = await asyncio.to_thread(self._append_block, sorted(field))
            added.extend(block)
        return FeedChange(tuple(added), withdrawn, finished=self._spent)

    async def changed(self) -> None:
        """Return once the field may have changed, or after `poll` seconds."""
        if self._changed is None:
            await asyncio.sleep(self._poll)
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self._poll):
                await self._changed()

    @property
    def _spent(self) -> bool:
        return self._max_games is not None and self._games >= self._max_games

    def _append_block(self, field: Sequence[str]) -> list[ScheduledGame]:
        """Choose the next table among `field` and append its deal, in every rotation."""
        table = self.choose(field)
        self._round += 1
        settings = self.settings
        seatings = seat_rotations(table) if settings.rotations else [table]
        deal_seed = derive_seed(settings.seed, "deal", self._round, 1, 0)
        teams = settings.tournament_settings().table_teams
        entries = []
        for seating in seatings:
            entries.append(ScheduledTable(
                round=self._round, table=1, game_index=self._index, seats=seating,
                seed=(deal_seed if settings.duplicate
                      else derive_seed(settings.seed, "game", self._index)),
                teams=teams))
            self._index += 1
        stored = self.store.append_games(self.ladder.id, entries)
        self._seated(table)
        self._games += len(stored)
        return stored

    def choose(self, field: Sequence[str]) -> tuple[str, ...]:
        """The bots of the next table among `field`, as the ladder's matchmaking picks."""
        rng = random.Random(derive_seed(self.settings.seed, "matchmaking", self.meetings.made))
        contenders = self.contenders(field)
        if self.settings.matchmaking is Matchmaking.RANDOM:
            return random_table(contenders, self.settings.table_size, rng)
        return choose_table(contenders, self.settings.table_size, self.meetings,
                            self._parameters, rng)

    def contenders(self, field: Sequence[str]) -> list[Contender]:
        """Every bot of `field` with its rating in the ladder's pool (a bot not rated
        there yet: the pool's initial skill), its tables so far and its wait."""
        try:
            ratings = {r.bot: r for r in self.store.ratings(pool=tournament_pool(self.ladder.name))}
        except UnknownPool:
            ratings = {}
        initial = self._parameters.initial_skill
        contenders = []
        for bot in field:
            rated = ratings.get(bot)
            last = self._last.get(bot)
            contenders.append(Contender(
                name=bot, mu=initial.mu if rated is None else rated.mu,
                sigma=initial.sigma if rated is None else rated.sigma,
                blocks=self._blocks.get(bot, 0),
                waited=NEVER_SEATED if last is None else self.meetings.made - 1 - last))
        return contenders

    def _seated(self, table: Sequence[str]) -> None:
        """Count `table` as the next one made."""
        for bot in table:
            self._blocks[bot] = self._blocks.get(bot, 0) + 1
            self._last[bot] = self.meetings.made
        self.meetings.add(table)


def _tables_by_round(schedule: Sequence[ScheduledGame]) -> list[tuple[str, ...]]:
    """The table of each round of a ladder's schedule (its first game's seats), in order."""
    tables: dict[int, tuple[str, ...]] = {}
    for game in schedule:
        tables.setdefault(game.round, tuple(game.seats))
    return [tables[number] for number in sorted(tables)]
