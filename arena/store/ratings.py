"""Rating pools, the ratings within each, their history, and the games each has rated."""

from __future__ import annotations

import json

from arena import rating
from arena.rating import pools as rating_pools
from arena.store.backend import Connection, Row
from arena.store.codec import _teams_from_json
from arena.store.database import Database, reads
from arena.store.errors import StoreError, UnknownBot
from arena.store.pools import rerate_pool
from arena.store.records import Pool, PoolGame, Rating, RatingPoint, tournament_kind


class UnknownPool(StoreError):
    """No rating pool has that key (or the tournament has no rated game yet)."""


class RatingRecords(Database):
    """Rating pools, the ratings within each, their history, and the games each has rated."""

    @reads
    def pools(self) -> list[Pool]:
        """Every pool with a rated game: tournaments' own pools first, newest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT p.*, (SELECT COUNT(*) FROM pool_games g WHERE g.pool_id = p.id) AS games"
                " FROM pools p ORDER BY p.tournament_id IS NULL, p.id DESC").fetchall()
        return [_pool(row) for row in rows]

    @reads
    def pool(self, key: str) -> Pool:
        """One pool by key; `UnknownPool` if none."""
        return self._pool_by_key(self._conn, key)

    @reads
    def pool_key(self, tournament: str | int | None = None, pool: str | None = None) -> str:
        """The key of the pool a listing means: `pool` itself, else `tournament`'s own pool;
        with neither, the pool that rated the latest game (`UnknownPool` if none has)."""
        if pool:
            return pool
        with self._lock:
            if tournament is not None:
                name = self._tournament_row(self._conn, tournament)["name"]
                return rating_pools.tournament_pool(str(name))
            row = self._conn.execute(
                "SELECT p.key FROM pool_games g JOIN pools p ON p.id = g.pool_id"
                " WHERE p.tournament_id IS NULL ORDER BY g.game_id DESC LIMIT 1").fetchone()
        if row is None:
            raise UnknownPool("no rated game yet")
        return str(row[0])

    @reads
    def ratings(self, tournament: str | int | None = None, *,
                pool: str | None = None) -> list[Rating]:
        """Ratings of every bot with a rated game in one pool (see `pool_key`); none when the
        pool has no game yet. Ordered best first, as `rating.ranked` orders them."""
        try:
            key = self.pool_key(tournament, pool)
        except UnknownPool:
            return []
        with self._lock:
            rows = self._conn.execute(
                "SELECT b.name, r.* FROM pool_ratings r JOIN bots b ON b.id = r.bot_id"
                " JOIN pools p ON p.id = r.pool_id WHERE p.key = ?", (key,)).fetchall()
        return rating.ranked(
            Rating(bot=row["name"], pool=key, mu=row["mu"], sigma=row["sigma"],
                   games=row["games"], wins=row["wins"], points=row["points"])
            for row in rows)

    @reads
    def rating_history(self, bot: str, tournament: str | int | None = None, *,
                       pool: str | None = None) -> list[RatingPoint]:
        """A bot's skill in one pool (see `pool_key`) after each of its rated games, oldest
        first. `bot` names an active bot, or else the most recently removed one of that name.
        """
        with self._lock:
            row = self._conn.execute(
                "SELECT id FROM bots WHERE name = ? ORDER BY removed_at IS NULL DESC, id DESC",
                (bot,),
            ).fetchone()
            if row is None:
                raise UnknownBot(f"no bot named {bot!r}")
        try:
            key = self.pool_key(tournament, pool)
        except UnknownPool:
            return []
        with self._lock:
            rows = self._conn.execute(
                "SELECT h.game_id, h.mu, h.sigma FROM pool_rating_history h"
                " JOIN pools p ON p.id = h.pool_id WHERE h.bot_id = ? AND p.key = ?"
                " ORDER BY h.game_id", (row["id"], key)).fetchall()
        return [RatingPoint(bot=bot, game_id=r["game_id"], pool=key, mu=r["mu"],
                            sigma=r["sigma"]) for r in rows]

    @reads
    def pool_game_ids(self, key: str) -> list[int]:
        """The stored ids of the games pool `key` has rated, in the order it rated them
        (`UnknownPool` for a pool there is not)."""
        with self._lock:
            pool_id = self._pool_id(self._conn, key)
            rows = self._conn.execute(
                "SELECT game_id FROM pool_games WHERE pool_id = ? ORDER BY game_id",
                (pool_id,)).fetchall()
        return [int(row[0]) for row in rows]

    @reads
    def pool_games(self, key: str, *, after: int = 0) -> list[PoolGame]:
        """Every game a pool has rated (those after game id `after`, if given), in the
        order it rated them, with its deal block."""
        with self._lock:
            pool_id = self._pool_id(self._conn, key)
            games = self._conn.execute(
                "SELECT g.id, g.teams, sg.tournament_id, sg.round, sg.table_number, sg.seed"
                " FROM pool_games pg JOIN games g ON g.id = pg.game_id"
                " LEFT JOIN scheduled_games sg ON sg.game_id = g.id"
                " WHERE pg.pool_id = ? AND g.id > ? ORDER BY g.id", (pool_id, after)).fetchall()
            seats = self._conn.execute(
                "SELECT s.game_id, b.name, s.rank, s.score FROM game_seats s"
                " JOIN bots b ON b.id = s.bot_id JOIN pool_games pg ON pg.game_id = s.game_id"
                " WHERE pg.pool_id = ? AND s.game_id > ? ORDER BY s.game_id, s.seat",
                (pool_id, after)).fetchall()
        by_game: dict[int, list[Row]] = {}
        for seat in seats:
            by_game.setdefault(seat["game_id"], []).append(seat)
        return [_pool_game(game, by_game.get(game["id"], [])) for game in games]

    @reads
    def rebuilt_ratings(self, key: str) -> list[Rating]:
        """The pool's ratings computed afresh from its stored games under its parameters,
        without writing anything: equal to `ratings(pool=key)` unless the store is damaged."""
        parameters = self.pool(key).parameters
        skills: dict[str, rating.Skill] = {}
        counts: dict[str, list[int]] = {}
        with self._lock:
            inherits = {} if not self._versioned else {
                str(row[0]): str(row[1]) for row in self._conn.execute(
                    "SELECT b.name, p.name FROM bot_versions v JOIN bots b ON b.id = v.bot_id"
                    " JOIN bots p ON p.id = v.inherits_from")}
        for game in self.pool_games(key):
            for bot in game.seats:
                if bot not in skills and inherits.get(bot) in skills:
                    skills[bot] = skills[inherits[bot]]
            after = rating.rate_game(skills, game.seats, game.ranks, game.teams,
                                     parameters=parameters)
            skills.update(after)
            for bot in after:
                seat = game.seats.index(bot)
                tally = counts.setdefault(bot, [0, 0, 0])
                tally[0] += 1
                tally[1] += int(game.ranks[seat] == 0)
                tally[2] += game.scores[seat]
        return rating.ranked(
            Rating(bot=bot, pool=key, mu=skill.mu, sigma=skill.sigma, games=counts[bot][0],
                   wins=counts[bot][1], points=counts[bot][2]) for bot, skill in skills.items())

    def set_pool_parameters(self, key: str, parameters: rating.RatingParameters) -> Pool:
        """Give pool `key` new parameters and rate its games again under them, in one
        transaction (`UnknownPool` for a pool there is not); return it as it is then."""
        with self._transaction() as conn:
            rerate_pool(conn, self._pool_id(conn, key), parameters)
        return self.pool(key)

    def _pool_by_key(self, conn: Connection, key: str) -> Pool:
        with self._lock:
            row = conn.execute(
                "SELECT p.*, (SELECT COUNT(*) FROM pool_games g WHERE g.pool_id = p.id) AS games"
                " FROM pools p WHERE p.key = ?", (key,)).fetchone()
        if row is None:
            played_by = key.removeprefix(rating_pools.TOURNAMENT_PREFIX)
            owner = None if played_by == key else conn.execute(
                "SELECT format FROM tournaments WHERE name = ?", (played_by,)).fetchone()
            if owner is not None:
                raise UnknownPool(f"{tournament_kind(owner[0])} {played_by} has no rated "
                                  "game yet")
            raise UnknownPool(f"no rating pool {key!r} (`arena rankings --pools` lists them; "
                              "a tournament's is `tournament:NAME`)")
        return _pool(row)

    def _pool_id(self, conn: Connection, key: str) -> int:
        row = conn.execute("SELECT id FROM pools WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise UnknownPool(f"no rating pool {key!r}")
        return int(row[0])


def _pool(row: Row) -> Pool:
    return Pool(key=row["key"], description=row["description"],
                tournament_id=row["tournament_id"],
                parameters=rating.RatingParameters.from_dict(json.loads(row["parameters"])),
                games=row["games"])


def _pool_game(game: Row, seats: list[Row]) -> PoolGame:
    block: tuple[int | str, ...] = (
        ("game", game["id"]) if game["round"] is None
        else (game["tournament_id"], game["round"], game["table_number"], game["seed"]))
    return PoolGame(game_id=game["id"], block=block, seats=tuple(s["name"] for s in seats),
                    ranks=tuple(s["rank"] for s in seats),
                    scores=tuple(s["score"] for s in seats),
                    teams=_teams_from_json(game["teams"]))
