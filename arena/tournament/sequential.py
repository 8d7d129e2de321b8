"""Tournaments that play until the games say enough.

`run_until_separated` plays a tournament's schedule, then keeps appending
whole deal blocks (more deals for every table, seeded like the first ones)
until every adjacent pair of its leaderboard is separated at the confidence
level (`arena.stats.sequential`: a confidence sequence per pair, valid however
often it is looked at) or the game budget is spent. `run_sprt` does the same
for two bots with a sequential probability ratio test (`arena.stats.sprt`) on
the first bot's score per deal block.

Every look reads the tournament's recorded games, and every extension is
stored with the settings that describe it before it is played, so a run that
is stopped resumes where it was and reaches the decision an unbroken run
would.
"""

from __future__ import annotations

import asyncio
import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import arena.stats.sequential as sequential
import arena.stats.sprt as sprt
from arena import stats
from arena.rating.pools import tournament_pool
from arena.store import GameSummary, Store, Tournament, UnknownPool
from arena.tournament.runner import (
    BotPresence,
    Progress,
    RunHold,
    TableRunner,
    run_tournament,
    tournament_settings,
)
from arena.tournament.schedule import MAX_GAMES, ScheduleError, TournamentSettings, more_deals


@dataclass(frozen=True, slots=True)
class UntilSeparated:
    """Play until every adjacent pair is separated at `confidence`, within `max_games`."""

    confidence: float = sequential.DEFAULT_CONFIDENCE
    max_games: int = MAX_GAMES


@dataclass(frozen=True, slots=True)
class SprtPlan:
    """Play two bots until a sequential probability ratio test decides, within `max_games`:
    H0 says the first bot's expected score per deal block is `score0`, H1 `score1`."""

    score0: float = sprt.DEFAULT_SCORE0
    score1: float = sprt.DEFAULT_SCORE1
    alpha: float = sprt.DEFAULT_ALPHA
    beta: float = sprt.DEFAULT_BETA
    max_games: int = MAX_GAMES
    model: str = sprt.Model.AUTO.value
    """`auto` (the pentanomial on duplicate pairs, the trinomial on single games),
    `normal` or `multinomial`: see `arena.stats.sprt`."""

    def test(self) -> sprt.Sprt:
        """A fresh test with these hypotheses, error rates and model (`SprtError` if they
        are bad)."""
        try:
            model = sprt.Model(self.model)
        except ValueError:
            raise sprt.SprtError(f"unknown model {self.model!r} (choose from "
                                 f"{', '.join(m.value for m in SPRT_MODELS)})") from None
        if model not in SPRT_MODELS:
            raise sprt.SprtError(f"the {model.value} model is chosen by `auto` for the blocks "
                                 "it fits; ask for auto")
        return sprt.Sprt(self.score0, self.score1, self.alpha, self.beta, model)


SPRT_MODELS = (sprt.Model.AUTO, sprt.Model.NORMAL, sprt.Model.MULTINOMIAL)
"""The models a run may ask for: the categorical ones need blocks of their size, which
`auto` picks from the games."""


@dataclass(frozen=True, slots=True)
class SequentialOutcome:
    """How a sequential run ended: games this run played, games in the tournament now,
    and, in words, why it stopped."""

    played: int
    games: int
    conclusion: str
    unseparated: tuple[str, ...] = ()
    sprt: sprt.Sprt | None = None
    absence: str = ""
    """Which bots stayed away past the wait, as the runner says it (empty if none did)."""


Look = Callable[[sequential.SeparationReport | sprt.Sprt], None]
"""Told what the games say at every look (to show it while the run goes on)."""


def deal_block_scores(games: Sequence[stats.RankedGame]) -> list[dict[str, float]]:
    """Each deal block's mean score of every bot at its table, blocks in the order their
    first game was recorded."""
    return [scores for scores, _ in deal_blocks(games)]


def deal_blocks(games: Sequence[stats.RankedGame]) -> list[tuple[dict[str, float], int]]:
    """Each deal block's mean score of every bot at its table and its number of games,
    blocks in the order their first game was recorded."""
    totals: dict[Hashable, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    sizes: dict[Hashable, int] = defaultdict(int)
    for game in games:
        sizes[game.block] += 1
        for _, bot, score in game.scores():
            totals[game.block][bot].append(score)
    return [({bot: sum(scores) / len(scores) for bot, scores in block.items()}, sizes[key])
            for key, block in totals.items()]


class _Batches:
    """Plays a tournament's pending games batch after batch, keeping count of what this run
    played and of the bots that stayed away; reads each batch's new deal blocks once."""

    def __init__(self, store: Store, tournament: Tournament, play: TableRunner, *,
                 concurrency: int | None, progress: Progress | None,
                 on_game: Callable[[GameSummary], None] | None, hold: RunHold | None,
                 presence: BotPresence | None, wait: float) -> None:
        self.store = store
        self.tournament = tournament
        self.games = 0
        """Games in the tournament's schedule after the last batch or extension."""
        self._play = play
        self._concurrency, self._progress, self._on_game = concurrency, progress, on_game
        self._hold, self._presence, self._wait = hold, presence, wait
        self.played = 0
        self._absences: list[str] = []
        self._last_game = 0

    async def play_pending(self) -> list[tuple[dict[str, float], int]]:
        """Play every pending game; the deal blocks recorded since the last call (whole
        blocks: a batch always holds every game of its deals), each with its game count."""
        self.tournament = await asyncio.to_thread(self.store.tournament, self.tournament.id)
        summary = await run_tournament(
            self.store, self.tournament.id, self._play, concurrency=self._concurrency,
            progress=self._progress, on_game=self._on_game, hold=self._hold,
            presence=self._presence, wait=self._wait)
        self.played += summary.played
        if summary.message:
            self._absences.append(summary.message)
        self.games = await asyncio.to_thread(self._schedule_length)
        try:
            games = await asyncio.to_thread(self.store.pool_games,
                                            tournament_pool(self.tournament.name),
                                            after=self._last_game)
        except UnknownPool:
            return []
        if games:
            self._last_game = games[-1].game_id
        return deal_blocks([stats.RankedGame(block=g.block, seats=g.seats, ranks=g.ranks,
                                             teams=g.teams) for g in games])

    def _schedule_length(self) -> int:
        return self.store.schedule_progress(self.tournament.id)[1]

    async def extend(self, max_games: int, deals: int | None = None) -> bool:
        """Append more deals for every table, within the budget; False when none fit."""
        extended = await asyncio.to_thread(
            _extend, self.store, self.tournament, tournament_settings(self.tournament),
            self.games, max_games, deals)
        self.games = await asyncio.to_thread(self._schedule_length)
        return extended

    def outcome(self, conclusion: str, unseparated: tuple[str, ...] = (),
                test: sprt.Sprt | None = None) -> SequentialOutcome:
        """How the run ended, with what it played and who stayed away."""
        return SequentialOutcome(self.played, self.games, conclusion, unseparated, test,
                                 "; ".join(self._absences))


async def run_until_separated(
    store: Store, tournament: str | int, play: TableRunner, *,
    confidence: float = sequential.DEFAULT_CONFIDENCE, max_games: int = MAX_GAMES,
    concurrency: int | None = None, progress: Progress | None = None,
    on_game: Callable[[GameSummary], None] | None = None, hold: RunHold | None = None,
    look: Look | None = None, presence: BotPresence | None = None, wait: float = 60.0,
) -> SequentialOutcome:
    """Play `tournament`, then append deal blocks until its leaderboard is separated or it
    holds `max_games` games (or the schedule's limit)."""
    batches = _Batches(store, await asyncio.to_thread(store.tournament, tournament), play,
                       concurrency=concurrency, progress=progress, on_game=on_game, hold=hold,
                       presence=presence, wait=wait)
    monitor: sequential.SeparationMonitor | None = None
    while True:
        blocks = await batches.play_pending()
        if monitor is None:  # planned for half the budget, in blocks of the first batch's size
            per_block = batches.games // max(1, len(blocks))
            monitor = sequential.SeparationMonitor(
                confidence=confidence,
                plan_blocks=max(1, min(max_games, MAX_GAMES) // (2 * max(1, per_block))))
        for block, _ in blocks:
            monitor.add_block(block)
        report = monitor.report()
        if look is not None:
            look(report)
        if report.separated:
            return batches.outcome(f"every adjacent pair is separated at {confidence:.0%} "
                                   f"after {batches.games:,} games")
        if not await batches.extend(max_games):
            unseparated = tuple(f"{p.upper} ~ {p.lower}" for p in report.unseparated)
            return batches.outcome(
                f"the budget of {min(max_games, MAX_GAMES):,} games is spent "
                f"with {len(unseparated)} adjacent pair(s) the sequential test does not yet "
                f"separate at {confidence:.0%}: {', '.join(unseparated)} (it allows for looking "
                "after every batch, so it is stricter than the leaderboard's places, which "
                "test the games once)", unseparated)


async def run_sprt(
    store: Store, tournament: str | int, play: TableRunner, test: sprt.Sprt, first: str, *,
    max_games: int = MAX_GAMES, concurrency: int | None = None,
    progress: Progress | None = None, on_game: Callable[[GameSummary], None] | None = None,
    hold: RunHold | None = None, look: Look | None = None,
    presence: BotPresence | None = None, wait: float = 60.0,
) -> SequentialOutcome:
    """Play the two-bot `tournament` deal block by deal block until `test`, fed `first`'s
    score per block, accepts a hypothesis or the tournament holds `max_games` games."""
    batches = _Batches(store, await asyncio.to_thread(store.tournament, tournament), play,
                       concurrency=concurrency, progress=progress, on_game=on_game, hold=hold,
                       presence=presence, wait=wait)
    test.bot = first
    while True:
        for block, size in await batches.play_pending():
            if test.add(block[first], games=size) is not sprt.Decision.CONTINUE:
                break
        if look is not None:
            look(test)
        if test.decision is not sprt.Decision.CONTINUE:
            return batches.outcome(_sprt_conclusion(test, first, batches.games), test=test)
        if not await batches.extend(max_games, deals=concurrency or 1):
            return batches.outcome(
                f"the budget of {min(max_games, MAX_GAMES):,} games is spent before the test "
                f"decided: LLR {test.llr:+.2f} within [{test.lower_bound:.2f}, "
                f"{test.upper_bound:.2f}]", test=test)


def _sprt_conclusion(test: sprt.Sprt, first: str, games: int) -> str:
    accepted, rejected = ((f"H1 (an expected score of {test.score1:.3f} per deal)",
                           f"H0 ({test.score0:.3f})")
                          if test.decision is sprt.Decision.ACCEPT_H1 else
                          (f"H0 (an expected score of {test.score0:.3f} per deal)",
                           f"H1 ({test.score1:.3f})"))
    return (f"{accepted} accepted for {first} over {rejected} after {test.blocks} deals "
            f"(the {test.model.value} test; LLR {test.llr:+.2f}, bounds "
            f"[{test.lower_bound:.2f}, {test.upper_bound:.2f}]); "
            f"{first} scored {test.mean:.3f} per deal; {games:,} games were played, the deals "
            "already in play when the test decided included")


def _extend(store: Store, tournament: Tournament, settings: TournamentSettings, games: int,
            max_games: int, deals: int | None = None) -> bool:
    """Append more deals for every table, within the budget; False when none fit."""
    per_deal = games // max(1, settings.deals_per_table)
    room = (min(max_games, MAX_GAMES) - games) // max(1, per_deal)
    wanted = deals if deals is not None else max(1, math.ceil(settings.deals_per_table / 4))
    add = min(wanted, room)
    if add <= 0:
        return False
    try:
        extra = more_deals(settings, store.scheduled_games(tournament.id), add)
    except ScheduleError:
        return False
    grown = {**tournament.settings, "deals_per_table": settings.deals_per_table + add}
    store.extend_schedule(tournament.id, grown, extra)
    return True
