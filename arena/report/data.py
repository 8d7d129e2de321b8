"""Everything a tournament's report shows, gathered from the store into plain values.

`gather` reads one tournament: its leaderboard, crosstable and per-seat results
in the tournament's own rating pool (`arena.rankings`), each bot's rating after
each of its games there, how every seat's part in every game ended, and each
game's replay as a spectator sees it (`arena.report.replay`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from arena import rankings, stats
from arena.chart import BotHistory
from arena.game_id import public_game_id
from arena.rating import pools as rating_pools
from arena.record import GameRecordError, SeatTermination
from arena.report.replay import Frame, frames
from arena.store import GameSummary, Store, Tournament, UnknownPool


@dataclass(frozen=True, slots=True)
class SeatEndings:
    """How often each way of ending a game (`SeatTermination`) happened to one bot."""

    bot: str
    counts: dict[SeatTermination, int]


@dataclass(frozen=True, slots=True)
class GameReplay:
    """One finished game: who sat where (and the seats of each team in a partner game),
    how it ended, and its frames.

    `frames` is empty, and `problem` says why, when the stored game could not be
    replayed.
    """

    game_id: int
    seats: tuple[str, ...]
    teams: tuple[tuple[int, ...], ...] | None
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    termination: str
    seat_terminations: tuple[SeatTermination, ...]
    hands_played: int
    finished_at: datetime
    frames: tuple[Frame, ...]
    problem: str | None = None
    public_id: str = ""
    """The id every command shows and takes (`TOURNAMENT:GAME`); the stored number for a
    game outside any schedule."""


@dataclass(frozen=True, slots=True)
class Report:
    """A tournament's report. The ranking, crosstable and statistics are None while
    the tournament's pool has no rated game."""

    tournament: Tournament
    bots: tuple[str, ...]
    games_done: int
    games_total: int
    pool_key: str
    ranking: rankings.PoolRanking | None
    crosstable: tuple[stats.HeadToHead, ...]
    statistics: rankings.PoolStatistics | None
    histories: tuple[BotHistory, ...]
    seat_endings: tuple[SeatEndings, ...]
    game_endings: dict[str, int]
    games: tuple[GameReplay, ...]
    made_at: datetime


def gather(store: Store, tournament: str, made_at: datetime,
           confidence: float = stats.CONFIDENCE) -> Report:
    """The report of `tournament` as the store holds it now; `UnknownTournament` if none."""
    record = store.tournament(tournament)
    key = rating_pools.tournament_pool(record.name)
    bots = tuple(store.tournament_bots(record.name))
    done, total = store.schedule_progress(record.name)
    summaries = list(reversed(store.games(tournament=record.name)))
    try:
        ranking = rankings.pool_ranking(store, key, confidence)
        _, crosstable = rankings.pool_crosstable(store, key, confidence)
        statistics = rankings.pool_statistics(store, key)
        histories = rankings.pool_histories(store, key, [line.bot for line in ranking.lines])
    except UnknownPool:
        ranking, crosstable, statistics, histories = None, (), None, ()
    return Report(
        tournament=record, bots=bots, games_done=done, games_total=total, pool_key=key,
        ranking=ranking, crosstable=crosstable, statistics=statistics, histories=histories,
        seat_endings=_seat_endings(summaries, ranking, bots),
        game_endings=dict(Counter(g.outcome.termination.value for g in summaries)),
        games=_replays(store, summaries), made_at=made_at)


def _seat_endings(summaries: Sequence[GameSummary], ranking: rankings.PoolRanking | None,
                  entrants: Sequence[str]) -> tuple[SeatEndings, ...]:
    counts: dict[str, Counter[SeatTermination]] = {}
    for game in summaries:
        for bot, ending in zip(game.seats, game.seat_terminations, strict=True):
            counts.setdefault(bot, Counter())[ending] += 1
    order = [line.bot for line in ranking.lines] if ranking else []
    order = list(dict.fromkeys([*order, *entrants, *sorted(counts)]))
    return tuple(SeatEndings(bot, dict(counts[bot])) for bot in order if bot in counts)


def _replays(store: Store, summaries: Sequence[GameSummary]) -> tuple[GameReplay, ...]:
    places = store.schedule_places(summary.id for summary in summaries)
    return tuple(_replay(store, summary, public_game_id(*places[summary.id])
                         if summary.id in places else str(summary.id))
                 for summary in summaries)


def _replay(store: Store, summary: GameSummary, public_id: str) -> GameReplay:
    stored = store.get_game(summary.id)
    try:
        shown, problem = tuple(frames(stored.game_record())), None
    except GameRecordError as exc:
        shown, problem = (), f"this game cannot be replayed: {exc}"
    return GameReplay(
        game_id=summary.id, seats=summary.seats, teams=summary.teams, scores=summary.outcome.scores,
        ranks=summary.outcome.ranks, termination=summary.outcome.termination.value,
        seat_terminations=summary.seat_terminations,
        hands_played=summary.outcome.hands_played, finished_at=summary.finished_at,
        frames=shown, problem=problem, public_id=public_id)
