"""Tournaments: schedules (round robin, partners, teams, gauntlet) and running them."""

from __future__ import annotations

from arena.tournament.runner import (
    PlayedGame,
    Progress,
    RunHold,
    RunSummary,
    TableRunner,
    check_entrants,
    create_tournament,
    holding,
    run_tournament,
    tournament_settings,
)
from arena.tournament.schedule import (
    Format,
    Schedule,
    ScheduledTable,
    ScheduleError,
    SettingsError,
    TournamentSettings,
    build_schedule,
)

__all__ = [
    "Format", "PlayedGame", "Progress", "RunHold", "RunSummary", "Schedule", "ScheduleError",
    "ScheduledTable", "SettingsError", "TableRunner", "TournamentSettings", "build_schedule",
    "check_entrants", "create_tournament", "holding", "run_tournament", "tournament_settings",
]
