from arena.v1 import uno_pb2 as _uno_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotInfo(_message.Message):
    __slots__ = ("name", "kind", "command", "created_at", "connected", "read_only_paths", "author")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_PATHS_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: str
    command: str
    created_at: str
    connected: bool
    read_only_paths: _containers.RepeatedScalarFieldContainer[str]
    author: str
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[str] = ..., command: _Optional[str] = ..., created_at: _Optional[str] = ..., connected: _Optional[bool] = ..., read_only_paths: _Optional[_Iterable[str]] = ..., author: _Optional[str] = ...) -> None: ...

class AddBotRequest(_message.Message):
    __slots__ = ("name", "kind", "command", "read_only_paths")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_PATHS_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: str
    command: str
    read_only_paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[str] = ..., command: _Optional[str] = ..., read_only_paths: _Optional[_Iterable[str]] = ...) -> None: ...

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
    __slots__ = ("name", "bots", "settings_json", "rules_json", "latest_entrants", "per_author")
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_JSON_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    LATEST_ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    PER_AUTHOR_FIELD_NUMBER: _ClassVar[int]
    name: str
    bots: _containers.RepeatedScalarFieldContainer[str]
    settings_json: str
    rules_json: str
    latest_entrants: bool
    per_author: int
    def __init__(self, name: _Optional[str] = ..., bots: _Optional[_Iterable[str]] = ..., settings_json: _Optional[str] = ..., rules_json: _Optional[str] = ..., latest_entrants: _Optional[bool] = ..., per_author: _Optional[int] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments", "scheduled")
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[TournamentInfo]
    scheduled: _containers.RepeatedCompositeFieldContainer[ScheduledTournamentInfo]
    def __init__(self, tournaments: _Optional[_Iterable[_Union[TournamentInfo, _Mapping]]] = ..., scheduled: _Optional[_Iterable[_Union[ScheduledTournamentInfo, _Mapping]]] = ...) -> None: ...

class ScheduleTournamentRequest(_message.Message):
    __slots__ = ("name", "bots", "settings_json", "rules_json", "start_at", "every_seconds", "per_author")
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_JSON_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    START_AT_FIELD_NUMBER: _ClassVar[int]
    EVERY_SECONDS_FIELD_NUMBER: _ClassVar[int]
    PER_AUTHOR_FIELD_NUMBER: _ClassVar[int]
    name: str
    bots: _containers.RepeatedScalarFieldContainer[str]
    settings_json: str
    rules_json: str
    start_at: str
    every_seconds: int
    per_author: int
    def __init__(self, name: _Optional[str] = ..., bots: _Optional[_Iterable[str]] = ..., settings_json: _Optional[str] = ..., rules_json: _Optional[str] = ..., start_at: _Optional[str] = ..., every_seconds: _Optional[int] = ..., per_author: _Optional[int] = ...) -> None: ...

class UnscheduleTournamentRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ScheduledTournamentInfo(_message.Message):
    __slots__ = ("name", "format", "settings_json", "rules_json", "bots", "latest_entrants", "share", "first_start", "next_start", "every_seconds", "editions", "last_edition", "created_at", "next_edition")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_JSON_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    LATEST_ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    FIRST_START_FIELD_NUMBER: _ClassVar[int]
    NEXT_START_FIELD_NUMBER: _ClassVar[int]
    EVERY_SECONDS_FIELD_NUMBER: _ClassVar[int]
    EDITIONS_FIELD_NUMBER: _ClassVar[int]
    LAST_EDITION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    NEXT_EDITION_FIELD_NUMBER: _ClassVar[int]
    name: str
    format: str
    settings_json: str
    rules_json: str
    bots: _containers.RepeatedScalarFieldContainer[str]
    latest_entrants: bool
    share: float
    first_start: str
    next_start: str
    every_seconds: int
    editions: int
    last_edition: str
    created_at: str
    next_edition: str
    def __init__(self, name: _Optional[str] = ..., format: _Optional[str] = ..., settings_json: _Optional[str] = ..., rules_json: _Optional[str] = ..., bots: _Optional[_Iterable[str]] = ..., latest_entrants: _Optional[bool] = ..., share: _Optional[float] = ..., first_start: _Optional[str] = ..., next_start: _Optional[str] = ..., every_seconds: _Optional[int] = ..., editions: _Optional[int] = ..., last_edition: _Optional[str] = ..., created_at: _Optional[str] = ..., next_edition: _Optional[str] = ...) -> None: ...

class GetScheduleRequest(_message.Message):
    __slots__ = ("tournament", "skip_games")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    SKIP_GAMES_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    skip_games: bool
    def __init__(self, tournament: _Optional[str] = ..., skip_games: _Optional[bool] = ...) -> None: ...

class ScheduledGameInfo(_message.Message):
    __slots__ = ("round", "table", "game_index", "seats", "seed", "status", "teams", "game_id", "id")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    round: int
    table: int
    game_index: int
    seats: _containers.RepeatedScalarFieldContainer[str]
    seed: int
    status: str
    teams: _containers.RepeatedScalarFieldContainer[int]
    game_id: int
    id: str
    def __init__(self, round: _Optional[int] = ..., table: _Optional[int] = ..., game_index: _Optional[int] = ..., seats: _Optional[_Iterable[str]] = ..., seed: _Optional[int] = ..., status: _Optional[str] = ..., teams: _Optional[_Iterable[int]] = ..., game_id: _Optional[int] = ..., id: _Optional[str] = ...) -> None: ...

class GetScheduleResponse(_message.Message):
    __slots__ = ("tournament", "games")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    tournament: TournamentInfo
    games: _containers.RepeatedCompositeFieldContainer[ScheduledGameInfo]
    def __init__(self, tournament: _Optional[_Union[TournamentInfo, _Mapping]] = ..., games: _Optional[_Iterable[_Union[ScheduledGameInfo, _Mapping]]] = ...) -> None: ...

class RunTournamentRequest(_message.Message):
    __slots__ = ("tournament", "concurrency", "remote_wait_seconds", "until_separated", "workers", "cluster")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    REMOTE_WAIT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    UNTIL_SEPARATED_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    concurrency: int
    remote_wait_seconds: float
    until_separated: SeparationGoal
    workers: int
    cluster: str
    def __init__(self, tournament: _Optional[str] = ..., concurrency: _Optional[int] = ..., remote_wait_seconds: _Optional[float] = ..., until_separated: _Optional[_Union[SeparationGoal, _Mapping]] = ..., workers: _Optional[int] = ..., cluster: _Optional[str] = ...) -> None: ...

class RunLadderRequest(_message.Message):
    __slots__ = ("name", "settings_json", "tables", "max_games", "workers", "cluster")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_JSON_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    MAX_GAMES_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    name: str
    settings_json: str
    tables: int
    max_games: int
    workers: int
    cluster: str
    def __init__(self, name: _Optional[str] = ..., settings_json: _Optional[str] = ..., tables: _Optional[int] = ..., max_games: _Optional[int] = ..., workers: _Optional[int] = ..., cluster: _Optional[str] = ...) -> None: ...

class SeparationGoal(_message.Message):
    __slots__ = ("confidence", "max_games")
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    MAX_GAMES_FIELD_NUMBER: _ClassVar[int]
    confidence: float
    max_games: int
    def __init__(self, confidence: _Optional[float] = ..., max_games: _Optional[int] = ...) -> None: ...

class RunProgress(_message.Message):
    __slots__ = ("done", "total", "last_game_id", "status", "message", "sprt", "unseparated", "conclusion", "tournament", "terminations", "notice", "heartbeat")
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    LAST_GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SPRT_FIELD_NUMBER: _ClassVar[int]
    UNSEPARATED_FIELD_NUMBER: _ClassVar[int]
    CONCLUSION_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    TERMINATIONS_FIELD_NUMBER: _ClassVar[int]
    NOTICE_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    done: int
    total: int
    last_game_id: int
    status: str
    message: str
    sprt: SprtState
    unseparated: _containers.RepeatedScalarFieldContainer[str]
    conclusion: str
    tournament: str
    terminations: _containers.RepeatedCompositeFieldContainer[BotTerminations]
    notice: str
    heartbeat: bool
    def __init__(self, done: _Optional[int] = ..., total: _Optional[int] = ..., last_game_id: _Optional[int] = ..., status: _Optional[str] = ..., message: _Optional[str] = ..., sprt: _Optional[_Union[SprtState, _Mapping]] = ..., unseparated: _Optional[_Iterable[str]] = ..., conclusion: _Optional[str] = ..., tournament: _Optional[str] = ..., terminations: _Optional[_Iterable[_Union[BotTerminations, _Mapping]]] = ..., notice: _Optional[str] = ..., heartbeat: _Optional[bool] = ...) -> None: ...

class BotTerminations(_message.Message):
    __slots__ = ("bot", "timeouts", "crashes", "illegal", "disconnects", "malformed")
    BOT_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    CRASHES_FIELD_NUMBER: _ClassVar[int]
    ILLEGAL_FIELD_NUMBER: _ClassVar[int]
    DISCONNECTS_FIELD_NUMBER: _ClassVar[int]
    MALFORMED_FIELD_NUMBER: _ClassVar[int]
    bot: str
    timeouts: int
    crashes: int
    illegal: int
    disconnects: int
    malformed: int
    def __init__(self, bot: _Optional[str] = ..., timeouts: _Optional[int] = ..., crashes: _Optional[int] = ..., illegal: _Optional[int] = ..., disconnects: _Optional[int] = ..., malformed: _Optional[int] = ...) -> None: ...

class SprtState(_message.Message):
    __slots__ = ("llr", "lower", "upper", "decision", "blocks", "model", "bot", "h0", "h1", "llr_history", "games", "score", "elo", "normalized_elo", "stopped_early")
    LLR_FIELD_NUMBER: _ClassVar[int]
    LOWER_FIELD_NUMBER: _ClassVar[int]
    UPPER_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    BLOCKS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    H0_FIELD_NUMBER: _ClassVar[int]
    H1_FIELD_NUMBER: _ClassVar[int]
    LLR_HISTORY_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    NORMALIZED_ELO_FIELD_NUMBER: _ClassVar[int]
    STOPPED_EARLY_FIELD_NUMBER: _ClassVar[int]
    llr: float
    lower: float
    upper: float
    decision: str
    blocks: int
    model: str
    bot: str
    h0: float
    h1: float
    llr_history: _containers.RepeatedScalarFieldContainer[float]
    games: int
    score: Estimate
    elo: Estimate
    normalized_elo: Estimate
    stopped_early: bool
    def __init__(self, llr: _Optional[float] = ..., lower: _Optional[float] = ..., upper: _Optional[float] = ..., decision: _Optional[str] = ..., blocks: _Optional[int] = ..., model: _Optional[str] = ..., bot: _Optional[str] = ..., h0: _Optional[float] = ..., h1: _Optional[float] = ..., llr_history: _Optional[_Iterable[float]] = ..., games: _Optional[int] = ..., score: _Optional[_Union[Estimate, _Mapping]] = ..., elo: _Optional[_Union[Estimate, _Mapping]] = ..., normalized_elo: _Optional[_Union[Estimate, _Mapping]] = ..., stopped_early: _Optional[bool] = ...) -> None: ...

class Estimate(_message.Message):
    __slots__ = ("value", "low", "high", "level", "method")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    value: float
    low: float
    high: float
    level: float
    method: str
    def __init__(self, value: _Optional[float] = ..., low: _Optional[float] = ..., high: _Optional[float] = ..., level: _Optional[float] = ..., method: _Optional[str] = ...) -> None: ...

class PlayMatchRequest(_message.Message):
    __slots__ = ("bots", "games", "seed", "rules_json", "concurrency", "remote_wait_seconds", "sprt", "workers")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    REMOTE_WAIT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SPRT_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedScalarFieldContainer[str]
    games: int
    seed: int
    rules_json: str
    concurrency: int
    remote_wait_seconds: float
    sprt: SprtSettings
    workers: int
    def __init__(self, bots: _Optional[_Iterable[str]] = ..., games: _Optional[int] = ..., seed: _Optional[int] = ..., rules_json: _Optional[str] = ..., concurrency: _Optional[int] = ..., remote_wait_seconds: _Optional[float] = ..., sprt: _Optional[_Union[SprtSettings, _Mapping]] = ..., workers: _Optional[int] = ...) -> None: ...

class SprtSettings(_message.Message):
    __slots__ = ("h0", "h1", "alpha", "beta", "max_games", "model")
    H0_FIELD_NUMBER: _ClassVar[int]
    H1_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    MAX_GAMES_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    h0: float
    h1: float
    alpha: float
    beta: float
    max_games: int
    model: str
    def __init__(self, h0: _Optional[float] = ..., h1: _Optional[float] = ..., alpha: _Optional[float] = ..., beta: _Optional[float] = ..., max_games: _Optional[int] = ..., model: _Optional[str] = ...) -> None: ...

class GetRankingsRequest(_message.Message):
    __slots__ = ("tournament", "pool", "confidence", "all_versions")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    ALL_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    pool: str
    confidence: float
    all_versions: bool
    def __init__(self, tournament: _Optional[str] = ..., pool: _Optional[str] = ..., confidence: _Optional[float] = ..., all_versions: _Optional[bool] = ...) -> None: ...

class PoolInfo(_message.Message):
    __slots__ = ("key", "description", "games", "tournament", "beta", "tau", "draw_probability")
    KEY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    TAU_FIELD_NUMBER: _ClassVar[int]
    DRAW_PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    key: str
    description: str
    games: int
    tournament: str
    beta: float
    tau: float
    draw_probability: float
    def __init__(self, key: _Optional[str] = ..., description: _Optional[str] = ..., games: _Optional[int] = ..., tournament: _Optional[str] = ..., beta: _Optional[float] = ..., tau: _Optional[float] = ..., draw_probability: _Optional[float] = ...) -> None: ...

class ListPoolsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListPoolsResponse(_message.Message):
    __slots__ = ("pools",)
    POOLS_FIELD_NUMBER: _ClassVar[int]
    pools: _containers.RepeatedCompositeFieldContainer[PoolInfo]
    def __init__(self, pools: _Optional[_Iterable[_Union[PoolInfo, _Mapping]]] = ...) -> None: ...

class Separation(_message.Message):
    __slots__ = ("upper", "lower", "difference", "ci_low", "ci_high", "p_value", "separated", "level", "method")
    UPPER_FIELD_NUMBER: _ClassVar[int]
    LOWER_FIELD_NUMBER: _ClassVar[int]
    DIFFERENCE_FIELD_NUMBER: _ClassVar[int]
    CI_LOW_FIELD_NUMBER: _ClassVar[int]
    CI_HIGH_FIELD_NUMBER: _ClassVar[int]
    P_VALUE_FIELD_NUMBER: _ClassVar[int]
    SEPARATED_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    upper: str
    lower: str
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    separated: bool
    level: float
    method: str
    def __init__(self, upper: _Optional[str] = ..., lower: _Optional[str] = ..., difference: _Optional[float] = ..., ci_low: _Optional[float] = ..., ci_high: _Optional[float] = ..., p_value: _Optional[float] = ..., separated: _Optional[bool] = ..., level: _Optional[float] = ..., method: _Optional[str] = ...) -> None: ...

class RankingRow(_message.Message):
    __slots__ = ("rank", "bot", "mu", "sigma", "conservative", "games", "wins", "win_rate", "average_points", "score", "ci_low", "ci_high", "place", "place_high", "tier", "terminations", "shared_firsts")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    CONSERVATIVE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    CI_LOW_FIELD_NUMBER: _ClassVar[int]
    CI_HIGH_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    PLACE_HIGH_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    TERMINATIONS_FIELD_NUMBER: _ClassVar[int]
    SHARED_FIRSTS_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    win_rate: float
    average_points: float
    score: float
    ci_low: float
    ci_high: float
    place: str
    place_high: int
    tier: int
    terminations: BotTerminations
    shared_firsts: int
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., conservative: _Optional[float] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., win_rate: _Optional[float] = ..., average_points: _Optional[float] = ..., score: _Optional[float] = ..., ci_low: _Optional[float] = ..., ci_high: _Optional[float] = ..., place: _Optional[str] = ..., place_high: _Optional[int] = ..., tier: _Optional[int] = ..., terminations: _Optional[_Union[BotTerminations, _Mapping]] = ..., shared_firsts: _Optional[int] = ...) -> None: ...

class GetRankingsResponse(_message.Message):
    __slots__ = ("rows", "pool", "confidence", "separations", "interval_method")
    ROWS_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    SEPARATIONS_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_METHOD_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedCompositeFieldContainer[RankingRow]
    pool: PoolInfo
    confidence: float
    separations: _containers.RepeatedCompositeFieldContainer[Separation]
    interval_method: str
    def __init__(self, rows: _Optional[_Iterable[_Union[RankingRow, _Mapping]]] = ..., pool: _Optional[_Union[PoolInfo, _Mapping]] = ..., confidence: _Optional[float] = ..., separations: _Optional[_Iterable[_Union[Separation, _Mapping]]] = ..., interval_method: _Optional[str] = ...) -> None: ...

class GetCrosstableRequest(_message.Message):
    __slots__ = ("tournament", "pool", "confidence")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    pool: str
    confidence: float
    def __init__(self, tournament: _Optional[str] = ..., pool: _Optional[str] = ..., confidence: _Optional[float] = ...) -> None: ...

class HeadToHeadRow(_message.Message):
    __slots__ = ("bot", "opponent", "games", "wins", "losses", "draws", "score", "score_low", "score_high", "difference", "difference_low", "difference_high", "los")
    BOT_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SCORE_LOW_FIELD_NUMBER: _ClassVar[int]
    SCORE_HIGH_FIELD_NUMBER: _ClassVar[int]
    DIFFERENCE_FIELD_NUMBER: _ClassVar[int]
    DIFFERENCE_LOW_FIELD_NUMBER: _ClassVar[int]
    DIFFERENCE_HIGH_FIELD_NUMBER: _ClassVar[int]
    LOS_FIELD_NUMBER: _ClassVar[int]
    bot: str
    opponent: str
    games: int
    wins: int
    losses: int
    draws: int
    score: float
    score_low: float
    score_high: float
    difference: float
    difference_low: float
    difference_high: float
    los: float
    def __init__(self, bot: _Optional[str] = ..., opponent: _Optional[str] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., losses: _Optional[int] = ..., draws: _Optional[int] = ..., score: _Optional[float] = ..., score_low: _Optional[float] = ..., score_high: _Optional[float] = ..., difference: _Optional[float] = ..., difference_low: _Optional[float] = ..., difference_high: _Optional[float] = ..., los: _Optional[float] = ...) -> None: ...

class GetCrosstableResponse(_message.Message):
    __slots__ = ("pool", "rows", "confidence", "interval_method")
    POOL_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_METHOD_FIELD_NUMBER: _ClassVar[int]
    pool: PoolInfo
    rows: _containers.RepeatedCompositeFieldContainer[HeadToHeadRow]
    confidence: float
    interval_method: str
    def __init__(self, pool: _Optional[_Union[PoolInfo, _Mapping]] = ..., rows: _Optional[_Iterable[_Union[HeadToHeadRow, _Mapping]]] = ..., confidence: _Optional[float] = ..., interval_method: _Optional[str] = ...) -> None: ...

class GetStatsRequest(_message.Message):
    __slots__ = ("tournament", "pool")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    pool: str
    def __init__(self, tournament: _Optional[str] = ..., pool: _Optional[str] = ...) -> None: ...

class SeatRow(_message.Message):
    __slots__ = ("seat", "games", "score", "wins", "win_rate")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    WIN_RATE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    games: int
    score: float
    wins: int
    win_rate: float
    def __init__(self, seat: _Optional[int] = ..., games: _Optional[int] = ..., score: _Optional[float] = ..., wins: _Optional[int] = ..., win_rate: _Optional[float] = ...) -> None: ...

class SeatStats(_message.Message):
    __slots__ = ("table_size", "partners", "games", "seats", "chi_square", "degrees_of_freedom", "p_value", "design_effect")
    TABLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PARTNERS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CHI_SQUARE_FIELD_NUMBER: _ClassVar[int]
    DEGREES_OF_FREEDOM_FIELD_NUMBER: _ClassVar[int]
    P_VALUE_FIELD_NUMBER: _ClassVar[int]
    DESIGN_EFFECT_FIELD_NUMBER: _ClassVar[int]
    table_size: int
    partners: bool
    games: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatRow]
    chi_square: float
    degrees_of_freedom: int
    p_value: float
    design_effect: float
    def __init__(self, table_size: _Optional[int] = ..., partners: _Optional[bool] = ..., games: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatRow, _Mapping]]] = ..., chi_square: _Optional[float] = ..., degrees_of_freedom: _Optional[int] = ..., p_value: _Optional[float] = ..., design_effect: _Optional[float] = ...) -> None: ...

class DuplicateStats(_message.Message):
    __slots__ = ("block_size", "blocks", "games", "intraclass_correlation", "design_effect", "games_saved")
    BLOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    BLOCKS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    INTRACLASS_CORRELATION_FIELD_NUMBER: _ClassVar[int]
    DESIGN_EFFECT_FIELD_NUMBER: _ClassVar[int]
    GAMES_SAVED_FIELD_NUMBER: _ClassVar[int]
    block_size: int
    blocks: int
    games: int
    intraclass_correlation: float
    design_effect: float
    games_saved: float
    def __init__(self, block_size: _Optional[int] = ..., blocks: _Optional[int] = ..., games: _Optional[int] = ..., intraclass_correlation: _Optional[float] = ..., design_effect: _Optional[float] = ..., games_saved: _Optional[float] = ...) -> None: ...

class GetStatsResponse(_message.Message):
    __slots__ = ("pool", "seat_tables", "duplicate")
    POOL_FIELD_NUMBER: _ClassVar[int]
    SEAT_TABLES_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    pool: PoolInfo
    seat_tables: _containers.RepeatedCompositeFieldContainer[SeatStats]
    duplicate: DuplicateStats
    def __init__(self, pool: _Optional[_Union[PoolInfo, _Mapping]] = ..., seat_tables: _Optional[_Iterable[_Union[SeatStats, _Mapping]]] = ..., duplicate: _Optional[_Union[DuplicateStats, _Mapping]] = ...) -> None: ...

class GetRatingHistoryRequest(_message.Message):
    __slots__ = ("tournament", "pool", "bots", "top")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    pool: str
    bots: _containers.RepeatedScalarFieldContainer[str]
    top: int
    def __init__(self, tournament: _Optional[str] = ..., pool: _Optional[str] = ..., bots: _Optional[_Iterable[str]] = ..., top: _Optional[int] = ...) -> None: ...

class RatingHistoryPoint(_message.Message):
    __slots__ = ("game", "mu", "sigma")
    GAME_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    game: int
    mu: float
    sigma: float
    def __init__(self, game: _Optional[int] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ...) -> None: ...

class BotRatingHistory(_message.Message):
    __slots__ = ("bot", "points")
    BOT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    bot: str
    points: _containers.RepeatedCompositeFieldContainer[RatingHistoryPoint]
    def __init__(self, bot: _Optional[str] = ..., points: _Optional[_Iterable[_Union[RatingHistoryPoint, _Mapping]]] = ...) -> None: ...

class GetRatingHistoryResponse(_message.Message):
    __slots__ = ("pool", "bots")
    POOL_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    pool: PoolInfo
    bots: _containers.RepeatedCompositeFieldContainer[BotRatingHistory]
    def __init__(self, pool: _Optional[_Union[PoolInfo, _Mapping]] = ..., bots: _Optional[_Iterable[_Union[BotRatingHistory, _Mapping]]] = ...) -> None: ...

class FitRatingsRequest(_message.Message):
    __slots__ = ("tournament", "pool", "apply")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    APPLY_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    pool: str
    apply: bool
    def __init__(self, tournament: _Optional[str] = ..., pool: _Optional[str] = ..., apply: _Optional[bool] = ...) -> None: ...

class FitRatingsResponse(_message.Message):
    __slots__ = ("pool", "beta", "draw_probability", "tau", "training_games", "held_out_games", "fitted_log_likelihood", "pool_log_likelihood", "default_log_likelihood", "at_bound", "beta_standard_error", "coin_flip_log_likelihood", "warning", "applied")
    POOL_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    DRAW_PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    TAU_FIELD_NUMBER: _ClassVar[int]
    TRAINING_GAMES_FIELD_NUMBER: _ClassVar[int]
    HELD_OUT_GAMES_FIELD_NUMBER: _ClassVar[int]
    FITTED_LOG_LIKELIHOOD_FIELD_NUMBER: _ClassVar[int]
    POOL_LOG_LIKELIHOOD_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_LOG_LIKELIHOOD_FIELD_NUMBER: _ClassVar[int]
    AT_BOUND_FIELD_NUMBER: _ClassVar[int]
    BETA_STANDARD_ERROR_FIELD_NUMBER: _ClassVar[int]
    COIN_FLIP_LOG_LIKELIHOOD_FIELD_NUMBER: _ClassVar[int]
    WARNING_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    pool: PoolInfo
    beta: float
    draw_probability: float
    tau: float
    training_games: int
    held_out_games: int
    fitted_log_likelihood: float
    pool_log_likelihood: float
    default_log_likelihood: float
    at_bound: _containers.RepeatedScalarFieldContainer[str]
    beta_standard_error: float
    coin_flip_log_likelihood: float
    warning: str
    applied: bool
    def __init__(self, pool: _Optional[_Union[PoolInfo, _Mapping]] = ..., beta: _Optional[float] = ..., draw_probability: _Optional[float] = ..., tau: _Optional[float] = ..., training_games: _Optional[int] = ..., held_out_games: _Optional[int] = ..., fitted_log_likelihood: _Optional[float] = ..., pool_log_likelihood: _Optional[float] = ..., default_log_likelihood: _Optional[float] = ..., at_bound: _Optional[_Iterable[str]] = ..., beta_standard_error: _Optional[float] = ..., coin_flip_log_likelihood: _Optional[float] = ..., warning: _Optional[str] = ..., applied: _Optional[bool] = ...) -> None: ...

class GameSummaryInfo(_message.Message):
    __slots__ = ("game_id", "tournament", "seats", "scores", "ranks", "termination", "seat_terminations", "started_at", "finished_at", "id", "forfeited_seat")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    SEAT_TERMINATIONS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_SEAT_FIELD_NUMBER: _ClassVar[int]
    game_id: int
    tournament: str
    seats: _containers.RepeatedScalarFieldContainer[str]
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    termination: str
    seat_terminations: _containers.RepeatedScalarFieldContainer[str]
    started_at: str
    finished_at: str
    id: str
    forfeited_seat: int
    def __init__(self, game_id: _Optional[int] = ..., tournament: _Optional[str] = ..., seats: _Optional[_Iterable[str]] = ..., scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., termination: _Optional[str] = ..., seat_terminations: _Optional[_Iterable[str]] = ..., started_at: _Optional[str] = ..., finished_at: _Optional[str] = ..., id: _Optional[str] = ..., forfeited_seat: _Optional[int] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("tournament", "bot", "limit", "mine")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    MINE_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    bot: str
    limit: int
    mine: bool
    def __init__(self, tournament: _Optional[str] = ..., bot: _Optional[str] = ..., limit: _Optional[int] = ..., mine: _Optional[bool] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameSummaryInfo]
    def __init__(self, games: _Optional[_Iterable[_Union[GameSummaryInfo, _Mapping]]] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("game_id", "id", "as_bot")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    AS_BOT_FIELD_NUMBER: _ClassVar[int]
    game_id: int
    id: str
    as_bot: str
    def __init__(self, game_id: _Optional[int] = ..., id: _Optional[str] = ..., as_bot: _Optional[str] = ...) -> None: ...

class DecisionInfo(_message.Message):
    __slots__ = ("seat", "index", "elapsed_ms", "outcome", "strikes", "auto", "penalty", "events_before")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    AUTO_FIELD_NUMBER: _ClassVar[int]
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    EVENTS_BEFORE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    index: int
    elapsed_ms: int
    outcome: str
    strikes: int
    auto: bool
    penalty: str
    events_before: int
    def __init__(self, seat: _Optional[int] = ..., index: _Optional[int] = ..., elapsed_ms: _Optional[int] = ..., outcome: _Optional[str] = ..., strikes: _Optional[int] = ..., auto: _Optional[bool] = ..., penalty: _Optional[str] = ..., events_before: _Optional[int] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("summary", "rules_json", "seed", "events", "actions", "forfeited_seat", "decisions", "full", "visible_seats")
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    FULL_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_SEATS_FIELD_NUMBER: _ClassVar[int]
    summary: GameSummaryInfo
    rules_json: str
    seed: int
    events: _containers.RepeatedCompositeFieldContainer[_uno_pb2.Event]
    actions: _containers.RepeatedCompositeFieldContainer[_uno_pb2.Action]
    forfeited_seat: int
    decisions: _containers.RepeatedCompositeFieldContainer[DecisionInfo]
    full: bool
    visible_seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, summary: _Optional[_Union[GameSummaryInfo, _Mapping]] = ..., rules_json: _Optional[str] = ..., seed: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_uno_pb2.Event, _Mapping]]] = ..., actions: _Optional[_Iterable[_Union[_uno_pb2.Action, _Mapping]]] = ..., forfeited_seat: _Optional[int] = ..., decisions: _Optional[_Iterable[_Union[DecisionInfo, _Mapping]]] = ..., full: _Optional[bool] = ..., visible_seats: _Optional[_Iterable[int]] = ...) -> None: ...

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
    __slots__ = ("game_id", "players", "events", "outcome", "heartbeat")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    players: _containers.RepeatedScalarFieldContainer[str]
    events: _containers.RepeatedCompositeFieldContainer[_uno_pb2.Event]
    outcome: _uno_pb2.Outcome
    heartbeat: bool
    def __init__(self, game_id: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., events: _Optional[_Iterable[_Union[_uno_pb2.Event, _Mapping]]] = ..., outcome: _Optional[_Union[_uno_pb2.Outcome, _Mapping]] = ..., heartbeat: _Optional[bool] = ...) -> None: ...

class ExportTournamentRequest(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    def __init__(self, tournament: _Optional[str] = ...) -> None: ...

class ExportedGame(_message.Message):
    __slots__ = ("summary", "record_json", "game_index", "round", "table", "public_events")
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_EVENTS_FIELD_NUMBER: _ClassVar[int]
    summary: GameSummaryInfo
    record_json: str
    game_index: int
    round: int
    table: int
    public_events: _containers.RepeatedCompositeFieldContainer[_uno_pb2.Event]
    def __init__(self, summary: _Optional[_Union[GameSummaryInfo, _Mapping]] = ..., record_json: _Optional[str] = ..., game_index: _Optional[int] = ..., round: _Optional[int] = ..., table: _Optional[int] = ..., public_events: _Optional[_Iterable[_Union[_uno_pb2.Event, _Mapping]]] = ...) -> None: ...

class SubmitBotHeader(_message.Message):
    __slots__ = ("name", "manifest", "inherit_rating", "size", "no_wait")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MANIFEST_FIELD_NUMBER: _ClassVar[int]
    INHERIT_RATING_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    NO_WAIT_FIELD_NUMBER: _ClassVar[int]
    name: str
    manifest: str
    inherit_rating: bool
    size: int
    no_wait: bool
    def __init__(self, name: _Optional[str] = ..., manifest: _Optional[str] = ..., inherit_rating: _Optional[bool] = ..., size: _Optional[int] = ..., no_wait: _Optional[bool] = ...) -> None: ...

class SubmitBotChunk(_message.Message):
    __slots__ = ("header", "data")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    header: SubmitBotHeader
    data: bytes
    def __init__(self, header: _Optional[_Union[SubmitBotHeader, _Mapping]] = ..., data: _Optional[bytes] = ...) -> None: ...

class BotVersionInfo(_message.Message):
    __slots__ = ("name", "base_name", "version", "sha256", "created_at", "build_status", "log_tail", "run_command", "runtime", "active", "inherits_from", "pool", "mu", "sigma", "games")
    NAME_FIELD_NUMBER: _ClassVar[int]
    BASE_NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    BUILD_STATUS_FIELD_NUMBER: _ClassVar[int]
    LOG_TAIL_FIELD_NUMBER: _ClassVar[int]
    RUN_COMMAND_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    INHERITS_FROM_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    base_name: str
    version: int
    sha256: str
    created_at: str
    build_status: str
    log_tail: str
    run_command: str
    runtime: str
    active: bool
    inherits_from: str
    pool: str
    mu: float
    sigma: float
    games: int
    def __init__(self, name: _Optional[str] = ..., base_name: _Optional[str] = ..., version: _Optional[int] = ..., sha256: _Optional[str] = ..., created_at: _Optional[str] = ..., build_status: _Optional[str] = ..., log_tail: _Optional[str] = ..., run_command: _Optional[str] = ..., runtime: _Optional[str] = ..., active: _Optional[bool] = ..., inherits_from: _Optional[str] = ..., pool: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., games: _Optional[int] = ...) -> None: ...

class SubmitBotResponse(_message.Message):
    __slots__ = ("version", "created")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    version: BotVersionInfo
    created: bool
    def __init__(self, version: _Optional[_Union[BotVersionInfo, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class ListBotVersionsRequest(_message.Message):
    __slots__ = ("name", "log_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LOG_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    log_version: int
    def __init__(self, name: _Optional[str] = ..., log_version: _Optional[int] = ...) -> None: ...

class ListBotVersionsResponse(_message.Message):
    __slots__ = ("versions", "log")
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    LOG_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedCompositeFieldContainer[BotVersionInfo]
    log: str
    def __init__(self, versions: _Optional[_Iterable[_Union[BotVersionInfo, _Mapping]]] = ..., log: _Optional[str] = ...) -> None: ...

class QuotaInfo(_message.Message):
    __slots__ = ("submissions_per_hour", "submissions_per_day", "active_versions", "upload_bytes", "build_seconds")
    SUBMISSIONS_PER_HOUR_FIELD_NUMBER: _ClassVar[int]
    SUBMISSIONS_PER_DAY_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    UPLOAD_BYTES_FIELD_NUMBER: _ClassVar[int]
    BUILD_SECONDS_FIELD_NUMBER: _ClassVar[int]
    submissions_per_hour: int
    submissions_per_day: int
    active_versions: int
    upload_bytes: int
    build_seconds: int
    def __init__(self, submissions_per_hour: _Optional[int] = ..., submissions_per_day: _Optional[int] = ..., active_versions: _Optional[int] = ..., upload_bytes: _Optional[int] = ..., build_seconds: _Optional[int] = ...) -> None: ...

class AuthorInfo(_message.Message):
    __slots__ = ("name", "role", "may_run", "quota", "created_at", "bots")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MAY_RUN_FIELD_NUMBER: _ClassVar[int]
    QUOTA_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    role: str
    may_run: bool
    quota: QuotaInfo
    created_at: str
    bots: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., role: _Optional[str] = ..., may_run: _Optional[bool] = ..., quota: _Optional[_Union[QuotaInfo, _Mapping]] = ..., created_at: _Optional[str] = ..., bots: _Optional[_Iterable[str]] = ...) -> None: ...

class AddAuthorRequest(_message.Message):
    __slots__ = ("name", "role", "may_run", "quota")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MAY_RUN_FIELD_NUMBER: _ClassVar[int]
    QUOTA_FIELD_NUMBER: _ClassVar[int]
    name: str
    role: str
    may_run: bool
    quota: QuotaInfo
    def __init__(self, name: _Optional[str] = ..., role: _Optional[str] = ..., may_run: _Optional[bool] = ..., quota: _Optional[_Union[QuotaInfo, _Mapping]] = ...) -> None: ...

class AuthorTokenResponse(_message.Message):
    __slots__ = ("author", "token")
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    author: AuthorInfo
    token: str
    def __init__(self, author: _Optional[_Union[AuthorInfo, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class ListAuthorsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InviteInfo(_message.Message):
    __slots__ = ("role", "cap", "used", "created_at")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CAP_FIELD_NUMBER: _ClassVar[int]
    USED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    role: str
    cap: int
    used: int
    created_at: str
    def __init__(self, role: _Optional[str] = ..., cap: _Optional[int] = ..., used: _Optional[int] = ..., created_at: _Optional[str] = ...) -> None: ...

class ListAuthorsResponse(_message.Message):
    __slots__ = ("authors", "invites")
    AUTHORS_FIELD_NUMBER: _ClassVar[int]
    INVITES_FIELD_NUMBER: _ClassVar[int]
    authors: _containers.RepeatedCompositeFieldContainer[AuthorInfo]
    invites: _containers.RepeatedCompositeFieldContainer[InviteInfo]
    def __init__(self, authors: _Optional[_Iterable[_Union[AuthorInfo, _Mapping]]] = ..., invites: _Optional[_Iterable[_Union[InviteInfo, _Mapping]]] = ...) -> None: ...

class RemoveAuthorRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RemoveAuthorResponse(_message.Message):
    __slots__ = ("author", "retired_bots")
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    RETIRED_BOTS_FIELD_NUMBER: _ClassVar[int]
    author: AuthorInfo
    retired_bots: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, author: _Optional[_Union[AuthorInfo, _Mapping]] = ..., retired_bots: _Optional[_Iterable[str]] = ...) -> None: ...

class RotateAuthorTokenRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class SetAuthorRequest(_message.Message):
    __slots__ = ("name", "quota", "may_run")
    NAME_FIELD_NUMBER: _ClassVar[int]
    QUOTA_FIELD_NUMBER: _ClassVar[int]
    MAY_RUN_FIELD_NUMBER: _ClassVar[int]
    name: str
    quota: QuotaInfo
    may_run: bool
    def __init__(self, name: _Optional[str] = ..., quota: _Optional[_Union[QuotaInfo, _Mapping]] = ..., may_run: _Optional[bool] = ...) -> None: ...

class CreateInviteRequest(_message.Message):
    __slots__ = ("cap", "role")
    CAP_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    cap: int
    role: str
    def __init__(self, cap: _Optional[int] = ..., role: _Optional[str] = ...) -> None: ...

class CreateInviteResponse(_message.Message):
    __slots__ = ("code", "invite")
    CODE_FIELD_NUMBER: _ClassVar[int]
    INVITE_FIELD_NUMBER: _ClassVar[int]
    code: str
    invite: InviteInfo
    def __init__(self, code: _Optional[str] = ..., invite: _Optional[_Union[InviteInfo, _Mapping]] = ...) -> None: ...

class RegisterAuthorRequest(_message.Message):
    __slots__ = ("invite", "name")
    INVITE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    invite: str
    name: str
    def __init__(self, invite: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class WhoAmIRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WhoAmIResponse(_message.Message):
    __slots__ = ("role", "name", "may_run", "quota", "bots")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    MAY_RUN_FIELD_NUMBER: _ClassVar[int]
    QUOTA_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    role: str
    name: str
    may_run: bool
    quota: QuotaInfo
    bots: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, role: _Optional[str] = ..., name: _Optional[str] = ..., may_run: _Optional[bool] = ..., quota: _Optional[_Union[QuotaInfo, _Mapping]] = ..., bots: _Optional[_Iterable[str]] = ...) -> None: ...

class ListAuditRequest(_message.Message):
    __slots__ = ("author", "limit")
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    author: str
    limit: int
    def __init__(self, author: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class AuditLine(_message.Message):
    __slots__ = ("at", "actor", "role", "action", "target", "result", "detail")
    AT_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    at: str
    actor: str
    role: str
    action: str
    target: str
    result: str
    detail: str
    def __init__(self, at: _Optional[str] = ..., actor: _Optional[str] = ..., role: _Optional[str] = ..., action: _Optional[str] = ..., target: _Optional[str] = ..., result: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class ListAuditResponse(_message.Message):
    __slots__ = ("lines",)
    LINES_FIELD_NUMBER: _ClassVar[int]
    lines: _containers.RepeatedCompositeFieldContainer[AuditLine]
    def __init__(self, lines: _Optional[_Iterable[_Union[AuditLine, _Mapping]]] = ...) -> None: ...

class GetBotLogRequest(_message.Message):
    __slots__ = ("name", "lines")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    name: str
    lines: int
    def __init__(self, name: _Optional[str] = ..., lines: _Optional[int] = ...) -> None: ...

class GetBotLogResponse(_message.Message):
    __slots__ = ("name", "text", "path_hint")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PATH_HINT_FIELD_NUMBER: _ClassVar[int]
    name: str
    text: str
    path_hint: str
    def __init__(self, name: _Optional[str] = ..., text: _Optional[str] = ..., path_hint: _Optional[str] = ...) -> None: ...
