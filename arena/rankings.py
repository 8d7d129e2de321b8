"""What a ranking says: TrueSkill within one pool, beside what the pool's games support.

A pool's leaderboard orders bots by their mean score (`arena.stats`), shows
each score with its interval, and lets bots the games cannot separate share a
place; TrueSkill's μ and σ stand beside it. The crosstable, the per-seat
results and the duplicate-deal figures are read from the same games.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, replace

from arena import stats
from arena.chart import BotHistory, RatingPoint
from arena.ladder.settings import LadderSettings
from arena.rating import DEFAULT_PARAMETERS, fit
from arena.store import LADDER_FORMAT, Pool, Rating, Store, Tournament


@dataclass(frozen=True, slots=True)
class RankingLine:
    """One bot's line: its shared place, score with interval, and TrueSkill rating.

    `wins` counts the games it won outright (a place shared with an opponent
    is not a win: its score counts it as half), `shared_firsts` those it tied
    for first with an opponent.
    """

    place: str
    place_low: int
    place_high: int
    tier: int
    bot: str
    score: float
    ci_low: float
    ci_high: float
    mu: float
    sigma: float
    games: int
    wins: int
    points: int
    shared_firsts: int = 0

    @property
    def conservative(self) -> float:
        """μ − 3σ."""
        return self.mu - 3 * self.sigma

    @property
    def win_rate(self) -> float:
        """Share of its games the bot won outright."""
        return self.wins / self.games if self.games else 0.0

    @property
    def average_points(self) -> float:
        """Its mean final score per game."""
        return self.points / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class PoolRanking:
    """A pool's leaderboard, and the test of each adjacent pair on it."""

    pool: Pool
    lines: tuple[RankingLine, ...]
    separations: tuple[stats.Separation, ...]
    confidence: float
    interval_method: str = stats.SCORE_INTERVAL_METHOD
    """How the lines' intervals were made (stratified by pairing in a tournament's pool)."""


@dataclass(frozen=True, slots=True)
class PoolStatistics:
    """Per-seat results and, with duplicate deals, what they bought, in one pool."""

    pool: Pool
    seat_tables: tuple[stats.SeatTable, ...]
    duplicate: stats.DuplicateEffect | None


def ranked_games(store: Store, key: str) -> list[stats.RankedGame]:
    """A pool's games as the statistics take them, deal blocks kept."""
    return [stats.RankedGame(block=game.block, seats=game.seats, ranks=game.ranks,
                             teams=game.teams) for game in store.pool_games(key)]


def pool_ranking(store: Store, key: str, confidence: float = stats.CONFIDENCE, *,
                 all_versions: bool = False) -> PoolRanking:
    """The leaderboard of the pool `key`. In a rule-set pool a submitted bot shows only
    its latest version that played there, placed among the lines shown, unless
    `all_versions`; a tournament's own pool shows its entrants as they were entered. A
    ladder's pool shows every bot version that played in it (a version superseded or
    removed since keeps its line: its games happened), and its scores count whole deals
    only: a deal counts once it is played in all its seat rotations."""
    pool = store.pool(key)
    games = ranked_games(store, key)
    firsts = first_places(games)
    ladder = _ladder_of(store, pool)
    if ladder is not None:
        settings = LadderSettings.from_stored(ladder.settings, ladder.rules)
        games = complete_blocks(games, settings.table_size if settings.rotations else 1)
    # A tournament's schedule fixes who meets whom how often; a ladder's matchmaking and
    # a rule-set pool's mix of tournaments do not.
    board = stats.leaderboard(games, confidence,
                              stratify=ladder is None and pool.tournament_id is not None)
    ratings = {r.bot: r for r in store.ratings(pool=key)}
    lines = [_line(standing, ratings[standing.bot]) for standing in board.standings
             if standing.bot in ratings]
    for unscored in sorted(set(ratings) - {line.bot for line in lines}):
        place = len(lines) + 1
        lines.append(_unscored_line(ratings[unscored], place, (lines[-1].tier + 1) if lines
                                    else 1))
    lines = [replace(line, wins=firsts.get(line.bot, (0, 0))[0],
                     shared_firsts=firsts.get(line.bot, (0, 0))[1]) for line in lines]
    ranking = PoolRanking(pool, tuple(lines), board.separations, board.confidence,
                          board.interval_method)
    if all_versions or ladder is not None or pool.tournament_id is not None:
        return ranking
    return latest_versions_only(ranking, store.version_numbers())


def first_places(games: Sequence[stats.RankedGame]) -> dict[str, tuple[int, int]]:
    """Every bot's games won outright and games tied for first with an opponent."""
    counts: dict[str, list[int]] = {}
    for game in games:
        for seat, bot in enumerate(game.seats):
            tally = counts.setdefault(bot, [0, 0])
            if game.won_alone(seat):
                tally[0] += 1
            elif game.ranks[seat] == 0:
                tally[1] += 1
    return {bot: (alone, shared) for bot, (alone, shared) in counts.items()}


def _ladder_of(store: Store, pool: Pool) -> Tournament | None:
    """The ladder whose own pool `pool` is, or None."""
    if pool.tournament_id is None:
        return None
    tournament = store.tournament(pool.tournament_id)
    return tournament if tournament.format == LADDER_FORMAT else None


def complete_blocks(games: Sequence[stats.RankedGame], per_block: int) -> list[stats.RankedGame]:
    """The games of the deal blocks that hold `per_block` games: every rotation played."""
    counts = Counter(game.block for game in games)
    return [game for game in games if counts[game.block] >= per_block]


def latest_versions_only(ranking: PoolRanking,
                         versions: Mapping[str, tuple[str, int]]) -> PoolRanking:
    """`ranking` with each submitted bot's latest version alone (`versions`: entrant name
    → base name and number), places and tiers counted again among the lines kept, and
    the separations between lines kept."""
    latest: dict[str, int] = {}
    for line in ranking.lines:
        if line.bot in versions:
            base, number = versions[line.bot]
            latest[base] = max(number, latest.get(base, 0))
    return only_lines(ranking, {
        line.bot for line in ranking.lines
        if line.bot not in versions or latest[versions[line.bot][0]] == versions[line.bot][1]})


def only_lines(ranking: PoolRanking, shown: Set[str]) -> PoolRanking:
    """`ranking` with the lines of the bots in `shown` alone, places and tiers counted
    again among them, and the separations between them."""
    kept = [line for line in ranking.lines if line.bot in shown]
    if len(kept) == len(ranking.lines):
        return ranking
    tiers = {tier: index + 1 for index, tier in enumerate(sorted({k.tier for k in kept}))}
    renumbered = []
    for line in kept:
        low = 1 + sum(1 for other in kept if other.place_low < line.place_low)
        high = sum(1 for other in kept if other.place_low <= line.place_high)
        renumbered.append(replace(line, place_low=low, place_high=high,
                                  place=stats.place_text(low, high),
                                  tier=tiers[line.tier]))
    kept_names = {line.bot for line in kept}
    separations = tuple(s for s in ranking.separations
                        if s.upper in kept_names and s.lower in kept_names)
    return replace(ranking, lines=tuple(renumbered), separations=separations)


def pool_histories(store: Store, key: str, bots: Sequence[str]) -> tuple[BotHistory, ...]:
    """Each of `bots`' TrueSkill rating in pool `key` after each of its games there,
    numbered by the pool's order of rating (from the pool's initial rating at 0), in
    the order `bots` names them; `UnknownPool` for a pool there is not."""
    order = {game_id: number for number, game_id in enumerate(store.pool_game_ids(key), 1)}
    start = store.pool(key).parameters.initial_skill
    return tuple(
        BotHistory(bot, (RatingPoint(0, start.mu, start.sigma), *(
            RatingPoint(order[point.game_id], point.mu, point.sigma)
            for point in store.rating_history(bot, pool=key) if point.game_id in order)))
        for bot in bots)


def pool_crosstable(store: Store, key: str, confidence: float = stats.CONFIDENCE
                    ) -> tuple[Pool, tuple[stats.HeadToHead, ...]]:
    """Every pair of bots that met in the pool `key`, head to head."""
    return store.pool(key), stats.crosstable(ranked_games(store, key), confidence)


def pool_statistics(store: Store, key: str) -> PoolStatistics:
    """Per-seat results and the duplicate design of the pool `key`."""
    games = ranked_games(store, key)
    return PoolStatistics(store.pool(key), stats.seat_tables(games),
                          stats.duplicate_effect(games))


@dataclass(frozen=True, slots=True)
class PoolFit:
    """TrueSkill's β and draw probability fitted to a pool's games, and how well the fitted,
    the pool's own and TrueSkill's default parameters predict its held-out games."""

    pool: Pool
    result: fit.FitResult
    pool_log_likelihood: float


def pool_fit(store: Store, key: str) -> PoolFit:
    """Fit the pool `key`'s parameters to its games (see `arena.rating.fit`)."""
    pool = store.pool(key)
    games = [fit.RatedGame(seats=g.seats, ranks=g.ranks, teams=g.teams)
             for g in store.pool_games(key)]
    result = fit.fit(games, base=DEFAULT_PARAMETERS)
    return PoolFit(pool, result, fit.held_out_log_likelihood(games, pool.parameters))


def _line(standing: stats.Standing, rating: Rating) -> RankingLine:
    return RankingLine(
        place=standing.place, place_low=standing.place_low, place_high=standing.place_high,
        tier=standing.tier, bot=standing.bot, score=standing.score, ci_low=standing.ci_low,
        ci_high=standing.ci_high, mu=rating.mu, sigma=rating.sigma, games=rating.games,
        wins=rating.wins, points=rating.points)


def _unscored_line(rating: Rating, place: int, tier: int) -> RankingLine:
    return RankingLine(
        place=str(place), place_low=place, place_high=place, tier=tier, bot=rating.bot,
        score=float("nan"), ci_low=float("nan"), ci_high=float("nan"), mu=rating.mu,
        sigma=rating.sigma, games=rating.games, wins=rating.wins, points=rating.points)
