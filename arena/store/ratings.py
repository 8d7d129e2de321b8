"""Ratings and their history, overall or within one tournament."""

from __future__ import annotations

from arena import rating
from arena.store.database import (
    Database,
)
from arena.store.errors import (
    UnknownBot,
)
from arena.store.records import (
    Rating,
    RatingPoint,
)


class RatingRecords(Database):
    """Ratings and their history, overall or within one tournament."""

    def ratings(self, tournament: str | int | None = None) -> list[Rating]:
        """Ratings of every bot with a rated game, overall or within one tournament.

        Ordered best first, as `rating.ranked` orders them (the leaderboard's order).
        """
        with self._lock:
            tournament_id = (
                None if tournament is None else self._tournament_id(self._conn, tournament)
            )
            rows = self._conn.execute(
                "SELECT b.name, r.* FROM ratings r JOIN bots b ON b.id = r.bot_id"
                " WHERE r.tournament_id IS ?",
                (tournament_id,),
            ).fetchall()
        return rating.ranked(
            Rating(bot=row["name"], tournament_id=row["tournament_id"], mu=row["mu"],
                   sigma=row["sigma"], games=row["games"], wins=row["wins"],
                   points=row["points"])
            for row in rows
        )

    def rating_history(self, bot: str, tournament: str | int | None = None) -> list[RatingPoint]:
        """A bot's skill after each of its rated games, oldest first.

        `bot` names an active bot, or else the most recently removed bot of that name.
        """
        with self._lock:
            row = self._conn.execute(
                "SELECT id FROM bots WHERE name = ? ORDER BY removed_at IS NULL DESC, id DESC",
                (bot,),
            ).fetchone()
            if row is None:
                raise UnknownBot(f"no bot named {bot!r}")
            tournament_id = (
                None if tournament is None else self._tournament_id(self._conn, tournament)
            )
            rows = self._conn.execute(
                "SELECT game_id, mu, sigma FROM rating_history"
                " WHERE bot_id = ? AND tournament_id IS ? ORDER BY game_id",
                (row["id"], tournament_id),
            ).fetchall()
        return [
            RatingPoint(bot=bot, game_id=r["game_id"], tournament_id=tournament_id,
                        mu=r["mu"], sigma=r["sigma"])
            for r in rows
        ]
