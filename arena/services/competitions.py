"""Competitions as they are set up: tournaments with their schedules, the timetable, and
the ladder's settings.

`CompetitionService` creates and checks; playing them is `arena.services.runs`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from arena.ladder.settings import LadderSettings, is_ladder
from arena.policy import BotPolicy
from arena.rankings import PoolFit
from arena.services.bots import BotService
from arena.services.errors import ServiceError
from arena.store import Pool, Store, Timetable, Tournament, UnknownTournament
from arena.tournament import TournamentSettings, create_tournament
from arena.tournament.schedule import build_schedule
from arena.tournament.timetable import stored_settings, timetable_settings

PAST_TOLERANCE = timedelta(minutes=1)
"""How far in the past a scheduled tournament's start may be (the clocks of the command
and the server may differ a little): it then starts at once."""


class CompetitionService:
    """Tournaments, the timetable and ladder settings, over one store."""

    def __init__(self, store: Store, bots: BotService) -> None:
        self.store = store
        self.bots = bots

    def create_tournament(self, name: str, bots: Sequence[str],
                          settings: Mapping[str, Any]) -> Tournament:
        """Create a tournament and its whole schedule, so it can be checked before play."""
        checked = TournamentSettings.from_dict(settings)
        bot_policy(checked)
        return create_tournament(self.store, name, checked, self.bots.entrants(bots))

    def schedule_tournament(self, name: str, bots: Sequence[str], settings: Mapping[str, Any],
                            start: datetime | None, every: int | None,
                            per_author: int | None = None) -> Timetable:
        """Put tournament `name` on the timetable: an edition at `start` (None: now), then
        one every `every` seconds (None: that one only), each between `bots` (none: the
        latest entrants of the moment it starts, at most `per_author` of each author's).
        A running server starts each (see
        `arena.services.timetable`); the settings may hold `share`, its tables' share."""
        planned = timetable_settings(settings)
        bot_policy(planned.tournament)
        now = datetime.now(UTC)
        if start is not None and start < now - PAST_TOLERANCE:
            raise ServiceError(f"the start {start.isoformat(timespec='seconds')} is in the "
                               f"past (it is {now.isoformat(timespec='seconds')} here)")
        if bots:
            build_schedule(planned.tournament, self.bots.entrants(bots))  # it can be played
        return self.store.add_timetable(
            name, planned.tournament.format.value, stored_settings(planned.tournament),
            planned.tournament.rules.to_dict(), list(bots) or None, share=planned.share,
            first_due=start or now, every=every, per_author=per_author)

    def unschedule_tournament(self, name: str) -> Timetable:
        """Take `name` off the timetable; the editions it made stay."""
        return self.store.remove_timetable(name)

    def ladder_settings(self, name: str, given: Mapping[str, Any],
                        tables: int | None = None) -> LadderSettings:
        """The settings ladder `name` plays under: `given` (a TOML table's values), or
        with none given the stored ladder's own (the defaults for a new ladder); `tables`
        overrides theirs. A ladder keeps its table size, deals and rules (`open_ladder`)."""
        if not given:
            try:
                stored = self.store.tournament(name)
            except UnknownTournament:
                return LadderSettings().with_tables(tables)
            if is_ladder(stored):
                return LadderSettings.from_stored(stored.settings, stored.rules
                                                  ).with_tables(tables)
        return LadderSettings.from_dict(given).with_tables(tables)


    def apply_fit(self, fitted: PoolFit) -> Pool:
        """Give `fitted`'s pool the fitted β and draw probability (its τ and starting skill
        kept) and rate its games again under them; return the pool as rebuilt."""
        parameters = replace(fitted.pool.parameters, beta=fitted.result.parameters.beta,
                             draw_probability=fitted.result.parameters.draw_probability)
        return self.store.set_pool_parameters(fitted.pool.key, parameters)


def bot_policy(settings: TournamentSettings) -> BotPolicy:
    """The bot policy a tournament's settings ask for; a bad one is a `ServiceError`."""
    try:
        return BotPolicy.from_dict(settings.policy)
    except (TypeError, ValueError) as exc:
        raise ServiceError(f"policy: {exc}") from None
