"""Every bot that played has one line of seat endings in a report, whatever the leaderboard."""

from __future__ import annotations

from datetime import UTC, datetime

from arena.engine.outcome import Outcome, Termination
from arena.record import SeatTermination
from arena.report.data import _seat_endings
from arena.store import GameSummary


def _game(number: int, seats: tuple[str, ...]) -> GameSummary:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return GameSummary(
        id=number, tournament_id=1, scheduled_game_id=number, rules={}, seed=number,
        seats=seats, teams=None,
        outcome=Outcome(Termination.SINGLE_HAND, (0, 0), (0, 1), hands_played=1),
        seat_terminations=(SeatTermination.NORMAL, SeatTermination.NORMAL), rated=True,
        started_at=now, finished_at=now, forfeited_seat=None)


def test_a_bot_missing_from_the_leaderboard_is_listed_once_not_twice() -> None:
    games = [_game(1, ("old@1", "rival")), _game(2, ("rival", "old@1"))]
    endings = _seat_endings(games, None, ["old@1", "rival"])
    assert [e.bot for e in endings] == ["old@1", "rival"]
    assert endings[0].counts == {SeatTermination.NORMAL: 2}
