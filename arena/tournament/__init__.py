"""Tournaments: schedules (round robin, partners, teams, gauntlet) and running them."""

from __future__ import annotations

from arena.tournament.schedule import (
    Format,
    Schedule,
    ScheduledTable,
    ScheduleError,
    SettingsError,
    TournamentSettings,
    build_schedule,
    describe,
    schedule_rows,
)

__all__ = [
    "Format", "Schedule", "ScheduleError", "ScheduledTable", "SettingsError",
    "TournamentSettings", "build_schedule", "describe", "schedule_rows",
]
