"""The timetable at work in a running server: it starts each scheduled tournament's
edition when it is due and plays it on its share of the server's tables.

`Timetable.run` is a background job of `arena serve` (see
`arena.server.app.serve_until_stopped`). It looks at the timetable every few
seconds, and wakes at the exact moment the next edition is due. A due entry
becomes an edition — a tournament of its own, created with the entrants of
that moment and counted on the timetable in one transaction — which it plays
through `RunService.run_tournament`. An edition a stopped server left
unfinished is resumed, not made anew. What goes wrong (too few entrants, bots
that never connect, a database error) is said and tried again later; it never
stops the server.

`tables_in_use` says how many of the server's tables the editions in play hold,
so that whatever else the server plays (the ladder) can leave them free.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from arena.result import GameAbortedError
from arena.services.errors import ServiceError
from arena.services.runs import RunService
from arena.store import StoreError, Tournament
from arena.store import Timetable as TimetableEntry
from arena.tournament import ScheduleError
from arena.tournament.timetable import (
    edition_name,
    edition_schedule,
    local_text,
    next_due,
    share_tables,
    stored_settings,
)

POLL_SECONDS = 2.0
"""How often the timetable is read again (entries added by other processes appear)."""
RETRY_SECONDS = 60.0
"""How long an edition that could not start or play waits before it is tried again."""
WAIT_SECONDS = 30.0
"""How long an edition's run waits for its bots to connect."""

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _InPlay:
    """An edition being played here."""

    task: asyncio.Task[None]
    timetable_id: int
    tables: int


class Timetable:
    """Starts the editions of the tournaments on the timetable as they fall due, and
    plays each on its share of the server's `tables`."""

    def __init__(self, runs: RunService, tables: int, *,
                 poll: float = POLL_SECONDS, retry: float = RETRY_SECONDS,
                 wait_seconds: float = WAIT_SECONDS,
                 say: Callable[[str], None] | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        if tables < 1:
            raise ValueError(f"tables: must be at least 1, got {tables}")
        self.runs = runs
        self.tables = tables
        """The server's tables; each edition plays on its share of them."""
        self.poll = poll
        self.retry = retry
        self.wait_seconds = wait_seconds
        self._say = say or _log.info
        self._clock = clock or (lambda: datetime.now(UTC))
        self._in_play: dict[str, _InPlay] = {}
        self._put_off: dict[str, float] = {}
        """What waits before it is tried again ("entry NAME" or "edition NAME"), with the
        loop time it may be tried at."""
        self._wake = asyncio.Event()

    @property
    def tables_in_use(self) -> int:
        """The tables the editions in play here hold now (0 when none is)."""
        return sum(playing.tables for playing in self._in_play.values())

    @property
    def playing(self) -> list[str]:
        """The editions being played here now."""
        return sorted(self._in_play)

    async def run(self, stop: asyncio.Event) -> None:
        """Start and play editions until `stop` is set; then stop the editions in play
        (each is left 'stopped', and resumed by the next server)."""
        try:
            while not stop.is_set():
                try:
                    nearest = await self._look()
                except Exception as exc:  # noqa: BLE001 - a bad look must not stop the server
                    self._say(f"timetable: cannot read the timetable: {exc}; trying again")
                    nearest = None
                await self._sleep(stop, self._seconds_until(nearest))
        finally:
            await self._stop_editions()

    # ------------------------------------------------------------- looking

    async def _look(self) -> datetime | None:
        """Resume unfinished editions and start due ones that have tables; return when
        the next entry not yet due falls due."""
        store = self.runs.store
        for entry, tournament in await asyncio.to_thread(store.unfinished_editions):
            if (tournament.name not in self._in_play and not tournament.run_by
                    and self._may_try(f"edition {tournament.name}")
                    and self._has_room(tables := share_tables(entry.share, self.tables))):
                self._say(f"timetable: resuming {tournament.name} "
                          f"({tournament.status.value}), on {tables} table(s)")
                self._play(entry, tournament.name, tables)
        now = self._clock()
        entries = await asyncio.to_thread(store.timetables)
        for entry in sorted((e for e in entries if e.next_due is not None
                             and e.next_due <= now), key=lambda e: (e.next_due, e.id)):
            tables = share_tables(entry.share, self.tables)
            previous_in_play = any(p.timetable_id == entry.id for p in self._in_play.values())
            if (previous_in_play or not self._may_try(f"entry {entry.name}")
                    or not self._has_room(tables)):
                continue
            edition = await self._make_edition(entry, now)
            if edition is not None:
                self._say(f"timetable: started {edition.name} (due "
                          f"{local_text(entry.next_due or now, seconds=True)}), on "
                          f"{tables} table(s)")
                self._play(entry, edition.name, tables)
        coming = [e.next_due for e in entries if e.next_due is not None and e.next_due > now]
        return min(coming, default=None)

    def _has_room(self, tables: int) -> bool:
        """Whether an edition on `tables` tables may start: when none is in play, or the
        server's tables hold it beside those in play."""
        in_use = self.tables_in_use
        return in_use == 0 or in_use + tables <= self.tables

    def _may_try(self, key: str) -> bool:
        retry_at = self._put_off.get(key)
        if retry_at is None:
            return True
        if asyncio.get_running_loop().time() >= retry_at:
            del self._put_off[key]
            return True
        return False

    def _try_later(self, key: str, why: str) -> None:
        self._put_off[key] = asyncio.get_running_loop().time() + self.retry
        self._say(f"timetable: {why}; trying again in {self.retry:g} s")

    async def _make_edition(self, entry: TimetableEntry, now: datetime) -> Tournament | None:
        """Create `entry`'s due edition with the entrants of this moment; None (said, and
        put off) when it cannot be made now."""
        store = self.runs.store
        try:
            names = (list(entry.entrants) if entry.entrants is not None
                     else await asyncio.to_thread(store.latest_entrants_per_author,
                                                  entry.per_author))
            entrants = list(dict.fromkeys(
                await asyncio.to_thread(self.runs.bots.entrants, names)))
        except (StoreError, ServiceError) as exc:
            self._try_later(f"entry {entry.name}", f"{entry.name} cannot start: {exc}")
            return None
        if len(entrants) < 2:
            self._try_later(f"entry {entry.name}", f"{entry.name} cannot start: it has "
                            f"{len(entrants)} entrant(s), fewer than 2")
            return None
        assert entry.next_due is not None
        due = entry.next_due

        def make() -> Tournament | None:
            name = edition_name(entry.name, due, entry.every)
            settings, schedule = edition_schedule(entry.settings, entry.rules, entrants, name)
            return store.start_edition(entry, name, next_due(due, entry.every, now),
                                       stored_settings(settings), settings.rules.to_dict(),
                                       schedule)
        try:
            return await asyncio.to_thread(make)
        except (ScheduleError, StoreError, ValueError) as exc:
            self._try_later(f"entry {entry.name}", f"{entry.name} cannot start: {exc}")
            return None

    # ------------------------------------------------------------- playing

    def _play(self, entry: TimetableEntry, name: str, tables: int) -> None:
        task = asyncio.create_task(self._run_edition(name, tables), name=f"edition {name}")
        self._in_play[name] = _InPlay(task, entry.id, tables)

        def ended(_: asyncio.Task[None]) -> None:
            self._in_play.pop(name, None)
            self._wake.set()  # its tables are free
        task.add_done_callback(ended)

    async def _run_edition(self, name: str, tables: int) -> None:
        try:
            played = await self.runs.run_tournament(name, tables, self.wait_seconds)
        except GameAbortedError:
            self._say(f"timetable: {name} stopped with the server; it resumes when the "
                      "server is back")
        except Exception as exc:  # noqa: BLE001 - an edition's failure must not stop the server
            self._try_later(f"edition {name}", f"{name} stopped: {exc}")
        else:
            self._say(f"timetable: {name} finished ({played} games played)")

    async def _stop_editions(self) -> None:
        tasks = [playing.task for playing in self._in_play.values()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if tasks:
            self._say(f"timetable: stopped {len(tasks)} edition(s); they resume when the "
                      "server is back")

    # ------------------------------------------------------------- waiting

    def _seconds_until(self, nearest: datetime | None) -> float:
        """How long to sleep: until the next look, the next due moment or the next retry,
        whichever comes first."""
        seconds = self.poll
        if nearest is not None:
            seconds = min(seconds, (nearest - self._clock()).total_seconds() + 0.001)
        loop_now = asyncio.get_running_loop().time()
        retries = [at for at in self._put_off.values() if at > loop_now]
        if retries:
            seconds = min(seconds, min(retries) - loop_now)
        return max(seconds, 0.0)

    async def _sleep(self, stop: asyncio.Event, seconds: float) -> None:
        self._wake.clear()
        waiters = {asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self._wake.wait())}
        try:
            await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
