"""Rating pools in the database: each rated game rated again in every pool it belongs to.

A rated game belongs to its tournament's pool and to the pool of its rule set
and table size (`arena.rating.pools`). Each pool keeps its own parameters, the
games it rated in order, every bot's current skill, and the skill after each
game. These functions work on an open connection, inside the caller's
transaction, so `record_game` rates a game in the same transaction that
stores it, and a migration can rebuild every pool from the stored games.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from arena import rating
from arena.engine.outcome import Outcome, Termination
from arena.rating import pools as rating_pools
from arena.store.backend import Connection
from arena.store.errors import InvalidInput
from arena.store.records import tournament_kind

POOL_TABLES = (
    """CREATE TABLE pools (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        description TEXT NOT NULL,
        tournament_id INTEGER REFERENCES tournaments (id),
        parameters TEXT NOT NULL
    )""",
    """CREATE TABLE pool_games (
        pool_id INTEGER NOT NULL REFERENCES pools (id),
        game_id INTEGER NOT NULL REFERENCES games (id),
        PRIMARY KEY (pool_id, game_id)
    )""",
    """CREATE TABLE pool_ratings (
        pool_id INTEGER NOT NULL REFERENCES pools (id),
        bot_id INTEGER NOT NULL REFERENCES bots (id),
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        points INTEGER NOT NULL,
        PRIMARY KEY (pool_id, bot_id)
    )""",
    """CREATE TABLE pool_rating_history (
        pool_id INTEGER NOT NULL REFERENCES pools (id),
        game_id INTEGER NOT NULL REFERENCES games (id),
        bot_id INTEGER NOT NULL REFERENCES bots (id),
        mu REAL NOT NULL,
        sigma REAL NOT NULL
    )""",
    "CREATE INDEX pool_rating_history_bot ON pool_rating_history (bot_id, pool_id)",
)
"""The tables of migration 4."""


def pool_keys(conn: Connection, tournament_id: int | None, rules: Mapping[str, Any],
              seats: int) -> list[tuple[str, str, int | None]]:
    """(key, description, tournament id) of each pool a game belongs to."""
    keys: list[tuple[str, str, int | None]] = [
        (rating_pools.rules_pool(rules, seats), rating_pools.describe_rules_pool(rules, seats),
         None)]
    if tournament_id is not None:
        name, format_ = conn.execute("SELECT name, format FROM tournaments WHERE id = ?",
                                     (tournament_id,)).fetchone()
        keys.insert(0, (rating_pools.tournament_pool(str(name)),
                        rating_pools.describe_tournament_pool(str(name),
                                                              tournament_kind(str(format_))),
                        tournament_id))
    return keys


def ensure_pool(conn: Connection, key: str, description: str,
                tournament_id: int | None, seats: int) -> tuple[int, rating.RatingParameters]:
    """The pool's id and parameters, creating it (under `pool_parameters(seats)`) if new."""
    row = conn.execute("SELECT id, parameters FROM pools WHERE key = ?", (key,)).fetchone()
    if row is not None:
        return int(row[0]), rating.RatingParameters.from_dict(json.loads(row[1]))
    parameters = rating_pools.pool_parameters(seats)
    row = conn.execute(
        "INSERT INTO pools (key, description, tournament_id, parameters) VALUES (?, ?, ?, ?)"
        " RETURNING id", (key, description, tournament_id, json.dumps(parameters.to_dict()))
    ).fetchone()
    return int(row[0]), parameters


def rate_in_pool(conn: Connection, pool_id: int, parameters: rating.RatingParameters,
                 game_id: int, bot_ids: Sequence[int], outcome: Outcome,
                 teams: Sequence[Sequence[int]] | None, *, inherit: bool = True) -> None:
    """Rate one stored game in one pool: skills, counts and history, after the pool's
    earlier games. A bot's first game in the pool starts from the default skill, or,
    for a version submitted with `--inherit-rating` (and `inherit`), from the skill its
    predecessor has in the pool then."""
    before = _skills(conn, pool_id, bot_ids, parameters.initial_skill, inherit)
    try:
        after = rating.rate_game(before, bot_ids, outcome.ranks, teams, parameters=parameters)
    except rating.RatingError as exc:
        raise InvalidInput(f"game can't be rated: {exc}") from None
    conn.execute("INSERT INTO pool_games (pool_id, game_id) VALUES (?, ?)", (pool_id, game_id))
    seats = {bot: list(bot_ids).index(bot) for bot in after}
    # One statement for all seats, not one per seat: on PostgreSQL each is a round trip.
    conn.executemany(
        "INSERT INTO pool_ratings (pool_id, bot_id, mu, sigma, games, wins, points)"
        " VALUES (?, ?, ?, ?, 1, ?, ?) ON CONFLICT (pool_id, bot_id) DO UPDATE"
        " SET mu = excluded.mu, sigma = excluded.sigma, games = pool_ratings.games + 1,"
        " wins = pool_ratings.wins + excluded.wins,"
        " points = pool_ratings.points + excluded.points",
        [(pool_id, bot, skill.mu, skill.sigma, int(outcome.ranks[seats[bot]] == 0),
          outcome.scores[seats[bot]]) for bot, skill in after.items()])
    conn.executemany(
        "INSERT INTO pool_rating_history (pool_id, game_id, bot_id, mu, sigma)"
        " VALUES (?, ?, ?, ?, ?)",
        [(pool_id, game_id, bot, skill.mu, skill.sigma) for bot, skill in after.items()])


def rate_game_in_its_pools(conn: Connection, game_id: int,
                           tournament_id: int | None, rules: Mapping[str, Any],
                           bot_ids: Sequence[int], outcome: Outcome,
                           teams: Sequence[Sequence[int]] | None, *,
                           inherit: bool = True) -> None:
    """Rate a stored game in every pool it belongs to (`inherit`: see `rate_in_pool`)."""
    for key, description, pool_tournament in pool_keys(conn, tournament_id, rules,
                                                        len(bot_ids)):
        pool_id, parameters = ensure_pool(conn, key, description, pool_tournament,
                                          len(bot_ids))
        rate_in_pool(conn, pool_id, parameters, game_id, bot_ids, outcome, teams,
                     inherit=inherit)


def rebuild_pools_before_versions(conn: Connection) -> None:
    """`rebuild_all_pools` for a schema without submitted versions (migration 4)."""
    rebuild_all_pools(conn, inherit=False)


def rebuild_all_pools(conn: Connection, *, inherit: bool = True) -> None:
    """Rate every rated game again, in the order it was recorded, into fresh pools."""
    for table in ("pool_rating_history", "pool_ratings", "pool_games", "pools"):
        conn.execute(f"DELETE FROM {table}")
    games = conn.execute(
        "SELECT g.id, g.tournament_id, g.rules FROM games g WHERE g.rated = 1 ORDER BY g.id"
    ).fetchall()
    for game in games:
        bot_ids, outcome, teams = _stored_result(conn, game[0])
        rate_game_in_its_pools(conn, game[0], game[1], json.loads(game[2]), bot_ids, outcome,
                               teams, inherit=inherit)


def rerate_pool(conn: Connection, pool_id: int, parameters: rating.RatingParameters) -> None:
    """Give one pool `parameters` and rate its games again under them, in the order they
    were recorded (every other pool is left as it is)."""
    games = [int(row[0]) for row in conn.execute(
        "SELECT game_id FROM pool_games WHERE pool_id = ? ORDER BY game_id", (pool_id,))]
    for table in ("pool_rating_history", "pool_ratings", "pool_games"):
        conn.execute(f"DELETE FROM {table} WHERE pool_id = ?", (pool_id,))
    conn.execute("UPDATE pools SET parameters = ? WHERE id = ?",
                 (json.dumps(parameters.to_dict()), pool_id))
    for game_id in games:
        bot_ids, outcome, teams = _stored_result(conn, game_id)
        rate_in_pool(conn, pool_id, parameters, game_id, bot_ids, outcome, teams)


def _stored_result(conn: Connection, game_id: int
                   ) -> tuple[list[int], Outcome, list[list[int]] | None]:
    """A stored game's bots by seat, its outcome and its teams."""
    game = conn.execute("SELECT teams, termination, hands_played FROM games WHERE id = ?",
                        (game_id,)).fetchone()
    seats = conn.execute(
        "SELECT bot_id, score, rank FROM game_seats WHERE game_id = ? ORDER BY seat",
        (game_id,)).fetchall()
    outcome = Outcome(termination=Termination(game[1]), scores=tuple(s[1] for s in seats),
                      ranks=tuple(s[2] for s in seats), hands_played=game[2])
    teams = None if game[0] is None else json.loads(game[0])
    return [s[0] for s in seats], outcome, teams


def _skills(conn: Connection, pool_id: int, bot_ids: Sequence[int],
            start: rating.Skill, inherit: bool) -> dict[int, rating.Skill]:
    """Each bot's current skill in the pool; for a bot new to it, its predecessor's there
    if it was submitted with `--inherit-rating` (and `inherit`), else `start`."""
    marks = ",".join("?" * len(bot_ids))
    rows = conn.execute(
        f"SELECT bot_id, mu, sigma FROM pool_ratings WHERE pool_id = ? AND bot_id IN ({marks})",
        (pool_id, *bot_ids)).fetchall()
    known = {int(row[0]): rating.Skill(row[1], row[2]) for row in rows}
    new = [bot for bot in bot_ids if bot not in known]
    if new and inherit:
        inherited = conn.execute(
            "SELECT v.bot_id, r.mu, r.sigma FROM bot_versions v JOIN pool_ratings r"
            " ON r.bot_id = v.inherits_from AND r.pool_id = ?"
            f" WHERE v.bot_id IN ({','.join('?' * len(new))})", (pool_id, *new)).fetchall()
        known.update({int(row[0]): rating.Skill(row[1], row[2]) for row in inherited})
    return {bot: known.get(bot, start) for bot in bot_ids}
