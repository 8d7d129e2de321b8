from arena.v1 import uno_pb2 as _uno_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotInfo(_message.Message):
    __slots__ = ("name", "kind", "command", "created_at", "connected")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: str
    command: str
    created_at: str
    connected: bool
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[str] = ..., command: _Optional[str] = ..., created_at: _Optional[str] = ..., connected: _Optional[bool] = ...) -> None: ...

class AddBotRequest(_message.Message):
    __slots__ = ("name", "kind", "command")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: str
    command: str
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[str] = ..., command: _Optional[str] = ...) -> None: ...

class AddBotResponse(_message.Message):
    __slots__ = ("bot", "token")
    BOT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    bot: BotInfo
    token: str
    def __init__(self, bot: _Optional[_Union[BotInfo, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[BotInfo]
    def __init__(self, bots: _Optional[_Iterable[_Union[BotInfo, _Mapping]]] = ...) -> None: ...

class RemoveBotRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RemoveBotResponse(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: BotInfo
    def __init__(self, bot: _Optional[_Union[BotInfo, _Mapping]] = ...) -> None: ...

class TournamentInfo(_message.Message):
    __slots__ = ("name", "format", "status", "settings_json", "rules_json", "games_total", "games_done", "created_at", "bots", "run_by")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_JSON_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    GAMES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    GAMES_DONE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    RUN_BY_FIELD_NUMBER: _ClassVar[int]
    name: str
    format: str
    status: str
    settings_json: str
    rules_json: str
    games_total: int
    games_done: int
    created_at: str
    bots: _containers.RepeatedScalarFieldContainer[str]
    run_by: str
    def __init__(self, name: _Optional[str] = ..., format: _Optional[str] = ..., status: _Optional[str] = ..., settings_json: _Optional[str] = ..., rules_json: _Optional[str] = ..., games_total: _Optional[int] = ..., games_done: _Optional[int] = ..., created_at: _Optional[str] = ..., bots: _Optional[_Iterable[str]] = ..., run_by: _Optional[str] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("name", "bots", "settings_json", "rules_json")
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_JSON_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    name: str
    bots: _containers.RepeatedScalarFieldContainer[str]
    settings_json: str
    rules_json: str
    def __init__(self, name: _Optional[str] = ..., bots: _Optional[_Iterable[str]] = ..., settings_json: _Optional[str] = ..., rules_json: _Optional[str] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments",)
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[TournamentInfo]
    def __init__(self, tournaments: _Optional[_Iterable[_Union[TournamentInfo, _Mapping]]] = ...) -> None: ...

class GetScheduleRequest(_message.Message):
    __slots__ = ("tournament", "skip_games")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    SKIP_GAMES_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    skip_games: bool
    def __init__(self, tournament: _Optional[str] = ..., skip_games: _Optional[bool] = ...) -> None: ...

class ScheduledGameInfo(_message.Message):
    __slots__ = ("round", "table", "game_index", "seats", "seed", "status", "teams", "game_id")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    round: int
    table: int
    game_index: int
    seats: _containers.RepeatedScalarFieldContainer[str]
    seed: int
    status: str
    teams: _containers.RepeatedScalarFieldContainer[int]
    game_id: int
    def __init__(self, round: _Optional[int] = ..., table: _Optional[int] = ..., game_index: _Optional[int] = ..., seats: _Optional[_Iterable[str]] = ..., seed: _Optional[int] = ..., status: _Optional[str] = ..., teams: _Optional[_Iterable[int]] = ..., game_id: _Optional[int] = ...) -> None: ...

class GetScheduleResponse(_message.Message):
    __slots__ = ("tournament", "games")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    tournament: TournamentInfo
    games: _containers.RepeatedCompositeFieldContainer[ScheduledGameInfo]
    def __init__(self, tournament: _Optional[_Union[TournamentInfo, _Mapping]] = ..., games: _Optional[_Iterable[_Union[ScheduledGameInfo, _Mapping]]] = ...) -> None: ...

class RunTournamentRequest(_message.Message):
    __slots__ = ("tournament", "concurrency", "remote_wait_seconds")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    REMOTE_WAIT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    concurrency: int
    remote_wait_seconds: float
    def __init__(self, tournament: _Optional[str] = ..., concurrency: _Optional[int] = ..., remote_wait_seconds: _Optional[float] = ...) -> None: ...

class RunProgress(_message.Message):
    __slots__ = ("done", "total", "last_game_id", "status", "message")
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    LAST_GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    done: int
    total: int
    last_game_id: int
    status: str
    message: str
    def __init__(self, done: _Optional[int] = ..., total: _Optional[int] = ..., last_game_id: _Optional[int] = ..., status: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class PlayMatchRequest(_message.Message):
    __slots__ = ("bots", "games", "seed", "rules_json", "concurrency", "remote_wait_seconds")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    REMOTE_WAIT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedScalarFieldContainer[str]
    games: int
    seed: int
    rules_json: str
    concurrency: int
    remote_wait_seconds: float
    def __init__(self, bots: _Optional[_Iterable[str]] = ..., games: _Optional[int] = ..., seed: _Optional[int] = ..., rules_json: _Optional[str] = ..., concurrency: _Optional[int] = ..., remote_wait_seconds: _Optional[float] = ...) -> None: ...

class GetRankingsRequest(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    def __init__(self, tournament: _Optional[str] = ...) -> None: ...

class RankingRow(_message.Message):
    __slots__ = ("rank", "bot", "mu", "sigma", "conservative", "games", "wins", "win_rate", "average_points")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    CONSERVATIVE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_POINTS_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    win_rate: float
    average_points: float
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., conservative: _Optional[float] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., win_rate: _Optional[float] = ..., average_points: _Optional[float] = ...) -> None: ...

class GetRankingsResponse(_message.Message):
    __slots__ = ("rows",)
    ROWS_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedCompositeFieldContainer[RankingRow]
    def __init__(self, rows: _Optional[_Iterable[_Union[RankingRow, _Mapping]]] = ...) -> None: ...

class GameSummaryInfo(_message.Message):
    __slots__ = ("game_id", "tournament", "seats", "scores", "ranks", "termination", "seat_terminations", "started_at", "finished_at")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    SEAT_TERMINATIONS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    game_id: int
    tournament: str
    seats: _containers.RepeatedScalarFieldContainer[str]
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    termination: str
    seat_terminations: _containers.RepeatedScalarFieldContainer[str]
    started_at: str
    finished_at: str
    def __init__(self, game_id: _Optional[int] = ..., tournament: _Optional[str] = ..., seats: _Optional[_Iterable[str]] = ..., scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., termination: _Optional[str] = ..., seat_terminations: _Optional[_Iterable[str]] = ..., started_at: _Optional[str] = ..., finished_at: _Optional[str] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("tournament", "bot", "limit")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    bot: str
    limit: int
    def __init__(self, tournament: _Optional[str] = ..., bot: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameSummaryInfo]
    def __init__(self, games: _Optional[_Iterable[_Union[GameSummaryInfo, _Mapping]]] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: int
    def __init__(self, game_id: _Optional[int] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("summary", "rules_json", "seed", "events", "actions", "forfeited_seat")
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_SEAT_FIELD_NUMBER: _ClassVar[int]
    summary: GameSummaryInfo
    rules_json: str
    seed: int
    events: _containers.RepeatedCompositeFieldContainer[_uno_pb2.Event]
    actions: _containers.RepeatedCompositeFieldContainer[_uno_pb2.Action]
    forfeited_seat: int
    def __init__(self, summary: _Optional[_Union[GameSummaryInfo, _Mapping]] = ..., rules_json: _Optional[str] = ..., seed: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_uno_pb2.Event, _Mapping]]] = ..., actions: _Optional[_Iterable[_Union[_uno_pb2.Action, _Mapping]]] = ..., forfeited_seat: _Optional[int] = ...) -> None: ...

class ListConnectedBotsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ConnectedBot(_message.Message):
    __slots__ = ("name", "connection_id", "bot_version", "max_tables", "tables_playing", "peer")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONNECTION_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_TABLES_FIELD_NUMBER: _ClassVar[int]
    TABLES_PLAYING_FIELD_NUMBER: _ClassVar[int]
    PEER_FIELD_NUMBER: _ClassVar[int]
    name: str
    connection_id: str
    bot_version: str
    max_tables: int
    tables_playing: int
    peer: str
    def __init__(self, name: _Optional[str] = ..., connection_id: _Optional[str] = ..., bot_version: _Optional[str] = ..., max_tables: _Optional[int] = ..., tables_playing: _Optional[int] = ..., peer: _Optional[str] = ...) -> None: ...

class ListConnectedBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[ConnectedBot]
    def __init__(self, bots: _Optional[_Iterable[_Union[ConnectedBot, _Mapping]]] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TableInfo(_message.Message):
    __slots__ = ("game_id", "players", "hand_number", "decisions")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    players: _containers.RepeatedScalarFieldContainer[str]
    hand_number: int
    decisions: int
    def __init__(self, game_id: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., hand_number: _Optional[int] = ..., decisions: _Optional[int] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables",)
    TABLES_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[TableInfo]
    def __init__(self, tables: _Optional[_Iterable[_Union[TableInfo, _Mapping]]] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class WatchGameUpdate(_message.Message):
    __slots__ = ("game_id", "players", "events", "outcome")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    players: _containers.RepeatedScalarFieldContainer[str]
    events: _containers.RepeatedCompositeFieldContainer[_uno_pb2.Event]
    outcome: _uno_pb2.Outcome
    def __init__(self, game_id: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., events: _Optional[_Iterable[_Union[_uno_pb2.Event, _Mapping]]] = ..., outcome: _Optional[_Union[_uno_pb2.Outcome, _Mapping]] = ...) -> None: ...
