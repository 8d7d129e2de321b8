"""Results: rankings, pools, crosstables, statistics, fits, tournaments' schedules and
stored games, read from the store.

`ResultsService` only reads. Each answer carries what a caller shows beside it
(the tournament a pool or game belongs to, a game's public id), so that one call
answers one request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

from arena import stats
from arena.chart import BotHistory
from arena.game_id import (
    GameId,
    ScheduledGameId,
    StoredGameNumber,
    parse_game_id,
    public_game_id,
)
from arena.rankings import (
    PoolFit,
    PoolRanking,
    PoolStatistics,
    pool_crosstable,
    pool_fit,
    pool_histories,
    pool_ranking,
    pool_statistics,
)
from arena.rating.fit import FitError
from arena.record import FAULTS, SeatTermination
from arena.services.errors import ServiceError
from arena.services.game_views import FULL, GameView, ShownGame, show
from arena.services.recent import RecentAnswers
from arena.store import (
    GameSummary,
    Pool,
    ScheduledGame,
    Store,
    StoredGame,
    Timetable,
    Tournament,
    UnknownGame,
    UnknownTournament,
)

Answer = TypeVar("Answer")

CHARTED = 8
"""Bots a rating history shows when none are named: the leaderboard's first (one colour
each on the chart)."""

MAX_CHARTED = 50
"""Bots one rating history may show at most."""

Faults = dict[str, dict[SeatTermination, int]]
"""For each bot whose seats ended by its own fault, how many games ended with each fault."""


@dataclass(frozen=True, slots=True)
class Ranked:
    """A pool's leaderboard, the tournament the pool is ("" for a rule-set pool), and
    the faults of that tournament's bots (None for a rule-set pool)."""

    ranking: PoolRanking
    tournament: str
    faults: Faults | None


@dataclass(frozen=True, slots=True)
class Crosstable:
    """Every pair of bots that met in one pool, head to head, at `confidence`."""

    pool: Pool
    rows: tuple[stats.HeadToHead, ...]
    confidence: float
    tournament: str


@dataclass(frozen=True, slots=True)
class RatingHistory:
    """Bots' ratings over one pool's games (each from the pool's initial rating, game 0),
    the pool (its `games` the x axis's end) and the tournament it is ("" for none)."""

    pool: Pool
    histories: tuple[BotHistory, ...]
    tournament: str


@dataclass(frozen=True, slots=True)
class TournamentLine:
    """A tournament, how far its schedule has been played (done, total), its bots."""

    tournament: Tournament
    progress: tuple[int, int]
    bots: list[str]


@dataclass(frozen=True, slots=True)
class Schedule:
    """A tournament where it stands, and its whole schedule (None when not asked for)."""

    line: TournamentLine
    games: list[ScheduledGame] | None


@dataclass(frozen=True, slots=True)
class GameLine:
    """A stored game (or its summary), its tournament's name ("" for none), its public id."""

    game: GameSummary
    tournament: str
    public_id: str


class ResultsService:
    """What the stored games say, over one store. A pool's leaderboard, crosstable and
    statistics are kept while the pool is unchanged, or for up to
    `arena.services.recent.FRESH_FOR` seconds after it changed: many readers of one
    leaderboard cost one working out of it."""

    def __init__(self, store: Store, recent: RecentAnswers[object] | None = None) -> None:
        self.store = store
        self.recent = recent if recent is not None else RecentAnswers()

    def pool_key(self, tournament: str | None = None, pool: str | None = None) -> str:
        """The pool a ranking request means (see `Store.pool_key`)."""
        return self.store.pool_key(tournament or None, pool or None)

    def rankings(self, tournament: str | None = None, pool: str | None = None,
                 confidence: float = 0.0, all_versions: bool = False) -> Ranked:
        """The leaderboard of one pool: a tournament's own, a pool by key, or else that of
        the latest rated game; each submitted bot's latest version only, unless
        `all_versions`. A `confidence` of 0 means the default."""
        key = self.pool_key(tournament, pool)
        level = confidence_level(confidence)

        def work_out() -> Ranked:
            ranking = pool_ranking(self.store, key, level, all_versions=all_versions)
            name = self._tournament_of(ranking.pool)
            return Ranked(ranking, name, self.tournament_faults(name) if name else None)
        return self._kept(("rankings", key, level, all_versions), key, work_out)

    def _kept(self, request: tuple[object, ...], key: str,
              work_out: Callable[[], Answer]) -> Answer:
        """`work_out()`, or the answer kept for `request` while pool `key` holds."""
        answer = self.recent.get(request, lambda: self.store.pool(key), work_out)
        return cast(Answer, answer)

    def pools(self) -> list[tuple[Pool, str]]:
        """Every rating pool with a rated game, with the tournament it is ("" for none)."""
        return [(pool, self._tournament_of(pool)) for pool in self.store.pools()]

    def crosstable(self, tournament: str | None = None, pool: str | None = None,
                   confidence: float = 0.0) -> Crosstable:
        """Every pair of bots that met in one pool, head to head."""
        level = confidence_level(confidence)
        key = self.pool_key(tournament, pool)

        def work_out() -> Crosstable:
            found, rows = pool_crosstable(self.store, key, level)
            return Crosstable(found, rows, level, self._tournament_of(found))
        return self._kept(("crosstable", key, level), key, work_out)

    def rating_history(self, tournament: str | None = None, pool: str | None = None,
                       bots: Sequence[str] = (), top: int = 0) -> RatingHistory:
        """Each named bot's rating after each of its games in one pool; with no bot
        named, those of the leaderboard's first `top` (0: `CHARTED`), as `rankings`
        orders them. At most `MAX_CHARTED` bots; a bot with no game in the pool has
        only its starting point."""
        if top < 0 or len(bots) > MAX_CHARTED or top > MAX_CHARTED:
            raise ServiceError(f"a rating history shows 1 to {MAX_CHARTED} bots")
        key = self.pool_key(tournament, pool)
        named = tuple(dict.fromkeys(bots))
        if not named:
            lines = self.rankings(pool=key).ranking.lines
            named = tuple(line.bot for line in lines[:top or CHARTED])

        def work_out() -> RatingHistory:
            found = self.store.pool(key)
            return RatingHistory(found, pool_histories(self.store, key, named),
                                 self._tournament_of(found))
        return self._kept(("history", key, named), key, work_out)

    def fit(self, tournament: str | None = None, pool: str | None = None
            ) -> tuple[PoolFit, str]:
        """TrueSkill's parameters fitted to one pool's games, and the pool's tournament."""
        key = self.pool_key(tournament, pool)
        try:
            fitted = pool_fit(self.store, key)
        except FitError as exc:
            raise ServiceError(f"cannot fit the pool {key}: {exc}") from None
        return fitted, self._tournament_of(fitted.pool)

    def statistics(self, tournament: str | None = None, pool: str | None = None
                   ) -> tuple[PoolStatistics, str]:
        """Per-seat results and the duplicate design of one pool, and its tournament."""
        key = self.pool_key(tournament, pool)

        def work_out() -> tuple[PoolStatistics, str]:
            found = pool_statistics(self.store, key)
            return found, self._tournament_of(found.pool)
        return self._kept(("statistics", key), key, work_out)

    def _tournament_of(self, pool: Pool) -> str:
        if pool.tournament_id is None:
            return ""
        return self.store.tournament(pool.tournament_id).name

    def tournament_faults(self, tournament: str | int) -> Faults:
        """For each bot of a tournament whose seats ended by its own fault, how many of the
        tournament's games ended with each fault."""
        return {bot: faults for bot, endings in self.store.seat_endings(tournament).items()
                if (faults := {e: n for e, n in endings.items() if e in FAULTS})}

    # ----------------------------------------------------------- tournaments

    def tournaments(self) -> tuple[list[TournamentLine], list[Timetable]]:
        """Every tournament, and every tournament on the timetable."""
        return ([self.tournament_line(t) for t in self.store.list_tournaments()],
                self.store.timetables())

    def tournament_line(self, tournament: Tournament) -> TournamentLine:
        """A tournament with its progress and bots."""
        return TournamentLine(tournament, self.store.schedule_progress(tournament.id),
                              self.store.tournament_bots(tournament.id))

    def schedule(self, tournament: str, with_games: bool = True) -> Schedule:
        """A tournament where it stands, and (`with_games`) its whole schedule."""
        found = self.store.tournament(tournament)
        games = self.store.scheduled_games(found.id) if with_games else None
        return Schedule(self.tournament_line(found), games)

    # ---------------------------------------------------------------- games

    def games(self, tournament: str | None, bot: str | None, limit: int,
              author_id: int | None = None) -> list[GameLine]:
        """Stored games, newest first, each with its tournament and public id; with
        `author_id`, only games a bot of that author's played."""
        found = self.store.games(tournament=tournament or None, bot=bot or None,
                                 limit=limit or None, author_id=author_id)
        return self._lines(found)

    def game(self, game_id: GameId | int,
             view: GameView | Callable[[GameSummary], GameView] = FULL
             ) -> tuple[ShownGame, str, str]:
        """One stored game cut to `view` (see `arena.services.game_views`), by its public
        id or its number, with its tournament's name and its public id; `UnknownGame`
        says why there is none. `view` may be a function of the game's summary (the
        view of a bot's seats, say), which raises to refuse it."""
        if isinstance(game_id, int):
            game = self.store.get_game(game_id)
        elif isinstance(game_id, StoredGameNumber):
            game = self.store.get_game(game_id.number)
        else:
            game = self.store.get_game(self._stored_number(game_id))
        chosen = view if isinstance(view, GameView) else view(game)
        line = self._lines([game])[0]
        return show(game, chosen), line.tournament, line.public_id

    def deal_in_play(self, game: GameSummary) -> bool:
        """Whether another seating of `game`'s deal is still to be played in its
        tournament. The seats view of such a game tells a bot the cards it will be dealt
        in another seat there (duplicate deals share their seed): it is to be shown only
        once the deal is played out."""
        if game.tournament_id is None:
            return False
        return self.store.unplayed_games_of_deal(game.tournament_id, game.seed) > 0

    def live_deal_shared(self, game_id: str) -> bool:
        """Whether the game being played under public id `game_id` (`TOURNAMENT:INDEX`)
        shares its duplicate deal with another seating still to be played (or being
        played): what is played of one seating tells the cards of the others. A game
        outside any schedule shares nothing."""
        try:
            parsed = parse_game_id(game_id)
        except ValueError:
            return False
        if not isinstance(parsed, ScheduledGameId):
            return False
        try:
            tournament = self.store.tournament(parsed.tournament)
            entry = self.store.scheduled_game(tournament.id, parsed.game_index)
        except (UnknownTournament, UnknownGame):
            return False
        # The game itself is one of the pending games of its deal while it is played.
        return self.store.unplayed_games_of_deal(tournament.id, entry.seed) > 1

    def _lines(self, games: Sequence[GameSummary]) -> list[GameLine]:
        places = self.store.schedule_places(g.id for g in games)
        names: dict[int, str] = {}
        lines = []
        for game in games:
            tournament = ""
            if game.tournament_id is not None:
                if game.tournament_id not in names:
                    names[game.tournament_id] = self.store.tournament(game.tournament_id).name
                tournament = names[game.tournament_id]
            public = public_game_id(*places[game.id]) if game.id in places else str(game.id)
            lines.append(GameLine(game, tournament, public))
        return lines

    def _stored_number(self, game_id: ScheduledGameId) -> int:
        try:
            tournament = self.store.tournament(game_id.tournament)
        except UnknownTournament:
            raise UnknownGame(f"no game {game_id}: there is no tournament "
                              f"{game_id.tournament} (`arena tournament list` lists them)"
                              ) from None
        try:
            entry = self.store.scheduled_game(tournament.id, game_id.game_index)
        except UnknownGame:
            last = self.store.schedule_progress(tournament.id)[1] - 1
            raise UnknownGame(f"no game {game_id}: tournament {tournament.name}'s schedule has "
                              f"games {tournament.name}:0 to {tournament.name}:{last}"
                              if last >= 0 else f"no game {game_id}: {tournament.name}'s "
                              "schedule is empty") from None
        if entry.game_id is None:
            raise UnknownGame(f"game {game_id} has not been played yet: `arena tournament run "
                              f"{tournament.name}` plays it")
        return entry.game_id

    def export(self, tournament: str) -> Iterator[tuple[ScheduledGame, StoredGame]]:
        """Every stored game of a tournament with its schedule entry, in schedule order,
        read one at a time (`UnknownTournament` at once for a tournament there is not)."""
        schedule = self.store.scheduled_games(self.store.tournament(tournament).id)
        return ((entry, self.store.get_game(entry.game_id))
                for entry in schedule if entry.game_id is not None)


def confidence_level(value: float) -> float:
    """A requested confidence level: 0 for the default, else in [0.5, 1)."""
    if value == 0:
        return stats.CONFIDENCE
    if not 0.5 <= value < 1:
        raise ServiceError(f"confidence: must be at least 0.5 and below 1, got {value}")
    return value
