"""Between the admin service's messages and arena's records: bots, games, tournaments, rankings.

The bot protocol's conversions live in `arena.wire`; these are the admin
service's, so that its servicer methods stay a line or two each.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any

from arena import stats, wire
from arena.chart import BotHistory, RatingPoint
from arena.engine.rules import RuleSet
from arena.game_id import public_game_id
from arena.rankings import PoolFit, PoolRanking, PoolStatistics, RankingLine
from arena.record import Decision, SeatTermination
from arena.services.bots import VersionLine
from arena.services.game_views import ShownGame
from arena.services.progress import Progress
from arena.stats.elo import Interval
from arena.stats.headtohead import INTERVAL_METHOD as HEAD_TO_HEAD_METHOD
from arena.stats.sprt import Sprt
from arena.store import (
    AuditEntry,
    Author,
    Bot,
    BotVersion,
    GameSummary,
    Invite,
    Pool,
    Quota,
    ScheduledGame,
    StoredGame,
    Timetable,
    Tournament,
)
from arena.tournament.schedule import MAX_GAMES
from arena.tournament.sequential import SprtPlan, UntilSeparated
from arena.tournament.timetable import edition_name
from arena.v1 import admin_pb2, uno_pb2

DEFAULT_WAIT_SECONDS = 30.0
"""How long a run waits for its bots to connect when the request does not say."""


UPLOAD_CHUNK_BYTES = 256 * 1024
"""The size of each chunk of a submitted bot's archive."""

LOG_TAIL_LINES = 5
"""How many of a build log's last lines a version's listing carries."""


class RequestError(ValueError):
    """An admin request's JSON text is not a JSON object; the message says which field."""


class UploadTooLarge(ValueError):
    """An upload went past the server's size limit; the message gives both sizes."""


def upload_chunks(archive: bytes, header: admin_pb2.SubmitBotHeader
                  ) -> Iterator[admin_pb2.SubmitBotChunk]:
    """`archive` as `SubmitBot` takes it: chunks of `UPLOAD_CHUNK_BYTES`, the header (its
    size set) on the first."""
    header.size = len(archive)
    yield admin_pb2.SubmitBotChunk(header=header, data=archive[:UPLOAD_CHUNK_BYTES])
    for start in range(UPLOAD_CHUNK_BYTES, len(archive), UPLOAD_CHUNK_BYTES):
        yield admin_pb2.SubmitBotChunk(data=archive[start:start + UPLOAD_CHUNK_BYTES])


DRAINED_UPLOAD_FACTOR = 4
"""An upload over the limit is read to its end, and thrown away, up to this many times
the limit, so that its sender hears why it was refused: a call ended while the client
is still sending reaches it as a broken stream, not as the server's answer."""


async def read_upload(chunks: AsyncIterator[admin_pb2.SubmitBotChunk], limit: int,
                      what: str = "this server's limit",
                      ) -> tuple[admin_pb2.SubmitBotHeader, bytes]:
    """The header and the archive of a `SubmitBot` upload; `UploadTooLarge` once the
    header announces, or the chunks bring, more than `limit` bytes (nothing past the
    limit is kept)."""
    header: admin_pb2.SubmitBotHeader | None = None
    parts: list[bytes] = []
    received = 0
    async for chunk in chunks:
        if header is None:
            if not chunk.HasField("header"):
                raise RequestError("the first chunk of an upload carries its header")
            header = chunk.header
        received += len(chunk.data)
        if max(header.size, received) > limit:
            parts.clear()
            if received > DRAINED_UPLOAD_FACTOR * limit:
                break
            continue
        parts.append(chunk.data)
    if header is None:
        raise RequestError("an upload with no chunk: send the bot's archive")
    size = max(header.size, received)
    if size > limit:
        raise UploadTooLarge(f"the bot's archive is over {what} of "
                             f"{limit / 2**20:.1f} MiB ({size / 2**20:.1f} MiB sent or "
                             "announced): leave out what the bot does not need")
    if received != header.size:
        raise RequestError(f"the upload stopped after {received:,} of {header.size:,} bytes")
    return header, b"".join(parts)


def version_info(line: VersionLine) -> admin_pb2.BotVersionInfo:
    """One line of a bot's versions, as `ListBotVersions` and `SubmitBot` answer it."""
    entry, rating = line
    if isinstance(entry, BotVersion):
        info = admin_pb2.BotVersionInfo(
            name=entry.name, base_name=entry.base_name, version=entry.number,
            sha256=entry.sha256, created_at=entry.created_at.isoformat(timespec="seconds"),
            build_status=entry.build_status.value, run_command=entry.bot.command or "",
            runtime=entry.runtime, active=entry.bot.active,
            inherits_from=entry.inherits_from or "",
            log_tail="\n".join(entry.build_log.strip().splitlines()[-LOG_TAIL_LINES:]))
    else:
        # A bot added with a command: the command is its files, and nothing is built.
        info = admin_pb2.BotVersionInfo(
            name=entry.name, base_name=entry.name, version=0, build_status="ok",
            sha256=hashlib.sha256((entry.command or "").encode()).hexdigest(),
            created_at=entry.created_at.isoformat(timespec="seconds"),
            run_command=entry.command or "", runtime=entry.kind.value, active=entry.active)
    if rating is not None:
        info.pool, info.mu, info.sigma, info.games = (rating.pool, rating.mu, rating.sigma,
                                                      rating.games)
    return info


def bot_info(bot: Bot, connected: bool = False, author: str = "", *,
             private: bool = True) -> admin_pb2.BotInfo:
    """A registered bot as the admin service shows it, with its `author`'s name ("" for
    the organizer's); not `private`, without how the server launches it."""
    return admin_pb2.BotInfo(name=bot.name, kind=bot.kind.value,
                             command=(bot.command or "") if private else "",
                             created_at=bot.created_at.isoformat(timespec="seconds"),
                             connected=connected,
                             read_only_paths=list(bot.read_only_paths) if private else [],
                             author=author)


def quota_info(quota: Quota) -> admin_pb2.QuotaInfo:
    """An author's quota on the wire."""
    return admin_pb2.QuotaInfo(**asdict(quota))


def quota_changes(info: admin_pb2.QuotaInfo) -> dict[str, int]:
    """The quota figures a request sets (those left 0 are not)."""
    return {field.name: value for field, value in info.ListFields()}


def author_info(author: Author, bots: Sequence[str] = ()) -> admin_pb2.AuthorInfo:
    """An author or viewer as the admin service shows them."""
    return admin_pb2.AuthorInfo(
        name=author.name, role=author.role.value, may_run=author.may_run,
        quota=quota_info(author.quota),
        created_at=author.created_at.isoformat(timespec="seconds"), bots=list(bots))


def invite_info(invite: Invite) -> admin_pb2.InviteInfo:
    """An invite's places (never its code)."""
    return admin_pb2.InviteInfo(role=invite.role.value, cap=invite.cap, used=invite.used,
                                created_at=invite.created_at.isoformat(timespec="seconds"))


def audit_line(entry: AuditEntry) -> admin_pb2.AuditLine:
    """One line of the audit trail."""
    return admin_pb2.AuditLine(
        at=entry.at.isoformat(timespec="seconds"), actor=entry.actor, role=entry.role,
        action=entry.action, target=entry.target, result=entry.result, detail=entry.detail)


def summary_info(game: GameSummary, tournament: str = "",
                 public_id: str = "") -> admin_pb2.GameSummaryInfo:
    """A stored game's summary as the admin service shows it, under its `public_id`
    (its number when not given)."""
    info = admin_pb2.GameSummaryInfo(
        game_id=game.id, id=public_id or str(game.id), tournament=tournament,
        seats=list(game.seats),
        scores=list(game.outcome.scores), ranks=list(game.outcome.ranks),
        termination=game.outcome.termination.value,
        seat_terminations=[t.value for t in game.seat_terminations],
        started_at=game.started_at.isoformat(timespec="seconds"),
        finished_at=game.finished_at.isoformat(timespec="seconds"),
    )
    if game.forfeited_seat is not None:
        info.forfeited_seat = game.forfeited_seat
    return info


def game_response(game: ShownGame, tournament: str = "",
                  public_id: str = "") -> admin_pb2.GetGameResponse:
    """A stored game cut to a view, as `GetGame` answers: the events the view shows, the
    decisions of the seats it shows, and, only for the full view, the seed and actions."""
    summary = game.summary
    response = admin_pb2.GetGameResponse(
        summary=summary_info(summary, tournament, public_id),
        rules_json=json.dumps(summary.rules), seed=game.seed or 0, full=game.full,
        visible_seats=game.visible_seats)
    for event in game.events:
        wire.stored_event_into(event, response.events.add())
    for action in game.actions:
        wire.stored_action_into(action, response.actions.add())
    if summary.forfeited_seat is not None:
        response.forfeited_seat = summary.forfeited_seat
    response.decisions.extend(decision_info(d) for d in game.decisions or ())
    return response


def decision_info(decision: Decision) -> admin_pb2.DecisionInfo:
    """One decision a seat owed, as `GetGame` shows it."""
    return admin_pb2.DecisionInfo(
        seat=decision.seat, index=decision.number, events_before=decision.events_before,
        elapsed_ms=decision.elapsed_ms,
        outcome=decision.outcome.value, strikes=decision.strikes, auto=decision.auto,
        penalty="" if decision.penalty is None else decision.penalty.value)


def exported_game(entry: ScheduledGame, game: StoredGame, tournament: str,
                  public_id: str) -> admin_pb2.ExportedGame:
    """A stored game of a tournament's schedule with its game record, as
    `ExportTournament` streams it."""
    return admin_pb2.ExportedGame(
        summary=summary_info(game, tournament, public_id),
        record_json=game.game_record().dumps(), game_index=entry.game_index,
        round=entry.round, table=entry.table)


def public_exported_game(entry: ScheduledGame, game: StoredGame, tournament: str,
                         public_id: str) -> admin_pb2.ExportedGame:
    """A stored game of a tournament's schedule as anyone but the organizer may have it:
    its public events instead of its record (whose seed reveals every hand)."""
    return admin_pb2.ExportedGame(
        summary=summary_info(game, tournament, public_id), game_index=entry.game_index,
        round=entry.round, table=entry.table,
        public_events=public_events(game))


def public_events(game: StoredGame) -> list[uno_pb2.Event]:
    """The events of a stored game every participant may see."""
    return [wire.stored_event_into(event, uno_pb2.Event()) for event in game.events
            if wire.stored_event_audience(event) is None]


def bot_terminations(bot: str, faults: Mapping[SeatTermination, int]
                     ) -> admin_pb2.BotTerminations:
    """How often a bot's seats ended by each fault, as counts of games."""
    return admin_pb2.BotTerminations(
        bot=bot, timeouts=faults.get(SeatTermination.TIMEOUT, 0),
        crashes=faults.get(SeatTermination.CRASH, 0),
        illegal=faults.get(SeatTermination.ILLEGAL, 0),
        disconnects=faults.get(SeatTermination.DISCONNECT, 0),
        malformed=faults.get(SeatTermination.MALFORMED, 0))


def tournament_info(tournament: Tournament, progress: tuple[int, int],
                    bots: Sequence[str]) -> admin_pb2.TournamentInfo:
    """A tournament as the admin service shows it, with its (done, total) games and bots."""
    done, total = progress
    return admin_pb2.TournamentInfo(
        name=tournament.name, format=tournament.format, status=tournament.status.value,
        settings_json=json.dumps(tournament.settings), rules_json=json.dumps(tournament.rules),
        games_total=total, games_done=done,
        created_at=tournament.created_at.isoformat(timespec="seconds"),
        bots=list(bots), run_by=tournament.run_by)


def without_seeds(message: admin_pb2.TournamentInfo | admin_pb2.ScheduledTournamentInfo
                  | admin_pb2.GetScheduleResponse) -> None:
    """Take every seed out of a tournament's (or a schedule's) message, for anyone but the
    organizer: a deal's seed, or the seed deals are derived from, reveals every hand."""
    if isinstance(message, admin_pb2.GetScheduleResponse):
        without_seeds(message.tournament)
        for game in message.games:
            game.seed = 0
        return
    settings = json.loads(message.settings_json or "{}")
    if isinstance(settings, dict) and "seed" in settings:
        settings.pop("seed")
        message.settings_json = json.dumps(settings)


def add_scheduled_games(response: admin_pb2.GetScheduleResponse,
                        games: Sequence[ScheduledGame], tournament: str) -> None:
    """Append the games of `tournament`'s schedule to a `GetSchedule` answer."""
    for game in games:
        teams = [0] * len(game.seats)
        for team, seats in enumerate(game.teams or ()):
            for seat in seats:
                teams[seat] = team
        response.games.add(round=game.round, table=game.table,
                           game_index=game.game_index, seats=list(game.seats),
                           seed=game.seed, status=game.status.value,
                           teams=teams if game.teams else [],
                           game_id=game.game_id or 0,
                           id=public_game_id(tournament, game.game_index))


def pool_info(pool: Pool, tournament: str = "") -> admin_pb2.PoolInfo:
    """A rating pool as the admin service shows it."""
    return admin_pb2.PoolInfo(key=pool.key, description=pool.description, games=pool.games,
                              tournament=tournament, beta=pool.parameters.beta,
                              tau=pool.parameters.tau,
                              draw_probability=pool.parameters.draw_probability)


def ranking_row(line: RankingLine) -> admin_pb2.RankingRow:
    """One leaderboard line as `GetRankings` answers it."""
    return admin_pb2.RankingRow(
        rank=line.place_low, place=line.place, place_high=line.place_high, tier=line.tier,
        bot=line.bot, score=line.score, ci_low=line.ci_low, ci_high=line.ci_high, mu=line.mu,
        sigma=line.sigma, conservative=line.conservative, games=line.games, wins=line.wins,
        win_rate=line.win_rate, average_points=line.average_points,
        shared_firsts=line.shared_firsts)


KEPT_RANKINGS = 16
"""Leaderboard messages kept for the leaderboards they were made from (`rankings_response`)."""

_kept_rankings: OrderedDict[int, tuple[PoolRanking, str, object, admin_pb2.GetRankingsResponse]]
_kept_rankings = OrderedDict()
_kept_lock = threading.Lock()


def rankings_response(ranking: PoolRanking, tournament: str = "",
                      faults: Mapping[str, Mapping[SeatTermination, int]] | None = None
                      ) -> admin_pb2.GetRankingsResponse:
    """A pool's leaderboard and the tests between its neighbours, as `GetRankings` answers;
    with `faults` (a tournament's pool), each row counts its bot's faulty games.

    A leaderboard the results service keeps (`arena.services.recent`) comes back as the
    same object until its pool changes, and a large one costs more to turn into a
    message than to keep: the message made for the same objects is given again. It is
    shared, so nobody may change it."""
    with _kept_lock:
        kept = _kept_rankings.get(id(ranking))
        if kept is not None and kept[0] is ranking and kept[1] == tournament \
                and kept[2] is faults:
            _kept_rankings.move_to_end(id(ranking))
            return kept[3]
    response = _rankings_message(ranking, tournament, faults)
    with _kept_lock:
        # Keeping `ranking` itself keeps its id from naming another object meanwhile.
        _kept_rankings[id(ranking)] = (ranking, tournament, faults, response)
        while len(_kept_rankings) > KEPT_RANKINGS:
            _kept_rankings.popitem(last=False)
    return response


def _rankings_message(ranking: PoolRanking, tournament: str,
                      faults: Mapping[str, Mapping[SeatTermination, int]] | None
                      ) -> admin_pb2.GetRankingsResponse:
    response = admin_pb2.GetRankingsResponse(
        rows=[ranking_row(line) for line in ranking.lines],
        pool=pool_info(ranking.pool, tournament), confidence=ranking.confidence,
        interval_method=ranking.interval_method,
        separations=[admin_pb2.Separation(
            upper=s.upper, lower=s.lower, difference=s.difference, ci_low=s.ci_low,
            ci_high=s.ci_high, p_value=s.p_value, separated=s.separated, level=s.level,
            method=s.method)
            for s in ranking.separations])
    if faults is not None:
        for row in response.rows:
            row.terminations.CopyFrom(bot_terminations(row.bot, faults.get(row.bot, {})))
    return response


def fit_response(fitted: PoolFit, tournament: str = "", applied: Pool | None = None
                 ) -> admin_pb2.FitRatingsResponse:
    """A fit of a pool's parameters, as `FitRatings` answers it (with the pool as it was
    rebuilt, when the fit was `applied`)."""
    result = fitted.result
    return admin_pb2.FitRatingsResponse(
        pool=pool_info(applied or fitted.pool, tournament), applied=applied is not None,
        beta=result.parameters.beta,
        draw_probability=result.parameters.draw_probability, tau=result.parameters.tau,
        training_games=result.games - result.held_out_games,
        held_out_games=result.held_out_games,
        fitted_log_likelihood=result.held_out_log_likelihood,
        pool_log_likelihood=fitted.pool_log_likelihood,
        default_log_likelihood=result.baseline_held_out_log_likelihood,
        at_bound=list(result.at_bound), beta_standard_error=result.beta_standard_error,
        coin_flip_log_likelihood=result.coin_flip_log_likelihood, warning=result.warning)


def crosstable_response(pool: Pool, rows: Sequence[stats.HeadToHead], confidence: float,
                        tournament: str = "") -> admin_pb2.GetCrosstableResponse:
    """Head-to-head results, as `GetCrosstable` answers them."""
    return admin_pb2.GetCrosstableResponse(
        pool=pool_info(pool, tournament), confidence=confidence,
        interval_method=HEAD_TO_HEAD_METHOD,
        rows=[admin_pb2.HeadToHeadRow(
            bot=r.bot, opponent=r.opponent, games=r.games, wins=r.wins, losses=r.losses,
            draws=r.draws, score=r.score, score_low=r.score_low, score_high=r.score_high,
            difference=r.difference, difference_low=r.difference_low,
            difference_high=r.difference_high, los=r.los) for r in rows])


def rating_history_response(pool: Pool, histories: Sequence[BotHistory],
                            tournament: str = "") -> admin_pb2.GetRatingHistoryResponse:
    """Bots' ratings over a pool's games, as `GetRatingHistory` answers them."""
    return admin_pb2.GetRatingHistoryResponse(
        pool=pool_info(pool, tournament),
        bots=[admin_pb2.BotRatingHistory(bot=history.bot, points=[
            admin_pb2.RatingHistoryPoint(game=point.game, mu=point.mu, sigma=point.sigma)
            for point in history.points]) for history in histories])


def rating_histories(response: admin_pb2.GetRatingHistoryResponse) -> tuple[BotHistory, ...]:
    """The histories a `GetRatingHistory` answer carries, as `arena.chart` draws them."""
    return tuple(BotHistory(line.bot, tuple(RatingPoint(p.game, p.mu, p.sigma)
                                            for p in line.points))
                 for line in response.bots)


def stats_response(statistics: PoolStatistics, tournament: str = "") -> admin_pb2.GetStatsResponse:
    """Per-seat results and the duplicate design, as `GetStats` answers them."""
    response = admin_pb2.GetStatsResponse(pool=pool_info(statistics.pool, tournament))
    for table in statistics.seat_tables:
        response.seat_tables.add(
            table_size=table.table_size, partners=table.teams is not None, games=table.games,
            seats=[admin_pb2.SeatRow(seat=s.seat, games=s.games, score=s.score, wins=s.wins,
                                     win_rate=s.win_rate) for s in table.seats],
            chi_square=table.chi_square, degrees_of_freedom=table.degrees_of_freedom,
            p_value=table.p_value, design_effect=table.design_effect)
    duplicate = statistics.duplicate
    if duplicate is not None:
        response.duplicate.CopyFrom(admin_pb2.DuplicateStats(
            block_size=duplicate.block_size, blocks=duplicate.blocks, games=duplicate.games,
            intraclass_correlation=duplicate.intraclass_correlation,
            design_effect=duplicate.design_effect, games_saved=duplicate.games_saved))
    return response


def wait_seconds(request: admin_pb2.RunTournamentRequest | admin_pb2.PlayMatchRequest
                 ) -> float:
    """The request's wait for the bots (0: not at all), or `DEFAULT_WAIT_SECONDS`."""
    if not request.HasField("remote_wait_seconds"):
        return DEFAULT_WAIT_SECONDS
    wait = request.remote_wait_seconds
    if not 0 <= wait < math.inf:
        raise ValueError(f"remote_wait_seconds: must be a number of seconds, got {wait}")
    return wait


def rules_from_json(text: str) -> RuleSet:
    """A rule set from JSON text; empty text is the official rules."""
    return RuleSet.from_json(text) if text.strip() else RuleSet()


def json_table(text: str, what: str) -> dict[str, Any]:
    """A JSON object from a request's text field (empty: an empty object)."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestError(f"{what}: not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise RequestError(f"{what}: must be a JSON object")
    return value


def tournament_settings_from(request: admin_pb2.CreateTournamentRequest
                             | admin_pb2.ScheduleTournamentRequest) -> dict[str, Any]:
    """A `CreateTournament` (or `ScheduleTournament`) request's settings, with its rules
    folded in."""
    settings = json_table(request.settings_json, "settings")
    if request.rules_json.strip():
        settings["rules"] = json_table(request.rules_json, "rules")
    return settings


def until_separated(request: admin_pb2.RunTournamentRequest) -> UntilSeparated | None:
    """A run request's "play until separated" goal, if it sets one."""
    if not request.HasField("until_separated"):
        return None
    goal = request.until_separated
    return UntilSeparated(confidence=goal.confidence or stats.CONFIDENCE,
                          max_games=goal.max_games or MAX_GAMES)


def sprt_plan(request: admin_pb2.PlayMatchRequest) -> SprtPlan | None:
    """A match request's sequential test, if it asks for one (zeros take the defaults)."""
    if not request.HasField("sprt"):
        return None
    given = request.sprt
    default = SprtPlan()
    return SprtPlan(score0=given.h0 or default.score0, score1=given.h1 or default.score1,
                    alpha=given.alpha or default.alpha, beta=given.beta or default.beta,
                    max_games=given.max_games or MAX_GAMES, model=given.model or default.model)


def run_progress(progress: Progress, status: str) -> admin_pb2.RunProgress:
    """How far a run has come, as the run's progress stream says it."""
    message = admin_pb2.RunProgress(
        done=progress.done, total=progress.total, last_game_id=progress.last_game_id,
        status=status, tournament=progress.tournament, unseparated=list(progress.unseparated),
        conclusion=progress.conclusion, message=progress.absence, notice=progress.notice,
        terminations=[bot_terminations(bot, faults)
                      for bot, faults in sorted((progress.faults or {}).items())])
    test = progress.sprt
    if test is not None:
        message.sprt.CopyFrom(sprt_state(test, final=bool(progress.conclusion)))
    return message


def sprt_state(test: Sprt, final: bool = False) -> admin_pb2.SprtState:
    """An SPRT as a run's progress shows it; its LLR after every block only when `final`
    (the history grows with every block)."""
    estimates = test.estimates()
    state = admin_pb2.SprtState(
        llr=test.llr, lower=test.lower_bound, upper=test.upper_bound,
        decision=test.decision.value, blocks=test.blocks, model=test.model.value,
        bot=test.bot, h0=test.score0, h1=test.score1, games=test.games,
        llr_history=test.history if final else (), score=estimate(estimates.score),
        elo=estimate(estimates.elo), stopped_early=estimates.stopped_early)
    if estimates.normalized_elo is not None:
        state.normalized_elo.CopyFrom(estimate(estimates.normalized_elo))
    return state


def estimate(interval: Interval) -> admin_pb2.Estimate:
    """A point estimate with its interval, level and method, as the wire carries it."""
    return admin_pb2.Estimate(value=interval.value, low=interval.low, high=interval.high,
                              level=interval.level, method=interval.method)


def schedule_start(request: admin_pb2.ScheduleTournamentRequest) -> datetime | None:
    """A `ScheduleTournament` request's first start (None: now); `RequestError` for a
    time that is not ISO 8601 with an offset."""
    if not request.start_at:
        return None
    try:
        start = datetime.fromisoformat(request.start_at)
    except ValueError:
        raise RequestError(f"start_at: {request.start_at!r} is not an ISO 8601 time") from None
    if start.tzinfo is None:
        raise RequestError(f"start_at: {request.start_at!r} has no offset (UTC is +00:00)")
    return start


def scheduled_tournament_info(timetable: Timetable) -> admin_pb2.ScheduledTournamentInfo:
    """A tournament on the timetable as the admin service shows it."""
    upcoming = timetable.next_due
    return admin_pb2.ScheduledTournamentInfo(
        name=timetable.name, format=timetable.format,
        settings_json=json.dumps(timetable.settings), rules_json=json.dumps(timetable.rules),
        bots=list(timetable.entrants or ()), latest_entrants=timetable.entrants is None,
        share=timetable.share, first_start=timetable.first_due.isoformat(),
        next_start="" if upcoming is None else upcoming.isoformat(),
        every_seconds=timetable.every or 0, editions=timetable.editions,
        last_edition=timetable.last_edition or "",
        created_at=timetable.created_at.isoformat(timespec="seconds"),
        next_edition="" if upcoming is None else edition_name(timetable.name, upcoming,
                                                              timetable.every))
