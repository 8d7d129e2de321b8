from arena.v1 import uno_pb2 as _uno_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_CODE_UNSPECIFIED: _ClassVar[ErrorCode]
    ERROR_CODE_ILLEGAL_ACTION: _ClassVar[ErrorCode]
    ERROR_CODE_UNKNOWN_REQUEST: _ClassVar[ErrorCode]
    ERROR_CODE_DEADLINE_EXCEEDED: _ClassVar[ErrorCode]
    ERROR_CODE_MALFORMED: _ClassVar[ErrorCode]
    ERROR_CODE_STRIKE: _ClassVar[ErrorCode]
    ERROR_CODE_FORFEIT: _ClassVar[ErrorCode]
ERROR_CODE_UNSPECIFIED: ErrorCode
ERROR_CODE_ILLEGAL_ACTION: ErrorCode
ERROR_CODE_UNKNOWN_REQUEST: ErrorCode
ERROR_CODE_DEADLINE_EXCEEDED: ErrorCode
ERROR_CODE_MALFORMED: ErrorCode
ERROR_CODE_STRIKE: ErrorCode
ERROR_CODE_FORFEIT: ErrorCode

class BotMessage(_message.Message):
    __slots__ = ("hello", "decision")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    decision: Decision
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ...) -> None: ...

class ServerMessage(_message.Message):
    __slots__ = ("welcome", "game_start", "events", "decision_request", "game_end", "error")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    GAME_START_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DECISION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    game_start: GameStart
    events: GameEvents
    decision_request: DecisionRequest
    game_end: GameEnd
    error: Error
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., game_start: _Optional[_Union[GameStart, _Mapping]] = ..., events: _Optional[_Union[GameEvents, _Mapping]] = ..., decision_request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., game_end: _Optional[_Union[GameEnd, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("bot_version", "max_tables", "auto_single_action", "events_in_requests")
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_TABLES_FIELD_NUMBER: _ClassVar[int]
    AUTO_SINGLE_ACTION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_IN_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    bot_version: str
    max_tables: int
    auto_single_action: bool
    events_in_requests: bool
    def __init__(self, bot_version: _Optional[str] = ..., max_tables: _Optional[int] = ..., auto_single_action: _Optional[bool] = ..., events_in_requests: _Optional[bool] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("bot_name", "server_version", "max_tables")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_TABLES_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    server_version: str
    max_tables: int
    def __init__(self, bot_name: _Optional[str] = ..., server_version: _Optional[str] = ..., max_tables: _Optional[int] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("seat", "name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class GameStart(_message.Message):
    __slots__ = ("game_id", "seat", "players", "rules", "decision_timeout_ms", "time_bank_ms", "bot_seed")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    DECISION_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    BOT_SEED_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    players: _containers.RepeatedCompositeFieldContainer[Player]
    rules: _uno_pb2.RuleSet
    decision_timeout_ms: int
    time_bank_ms: int
    bot_seed: int
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., rules: _Optional[_Union[_uno_pb2.RuleSet, _Mapping]] = ..., decision_timeout_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., bot_seed: _Optional[int] = ...) -> None: ...

class GameEvents(_message.Message):
    __slots__ = ("game_id", "events")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    events: _containers.RepeatedCompositeFieldContainer[_uno_pb2.Event]
    def __init__(self, game_id: _Optional[str] = ..., events: _Optional[_Iterable[_Union[_uno_pb2.Event, _Mapping]]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "game_id", "view", "legal_actions", "time_left_ms", "time_bank_ms", "events")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    game_id: str
    view: _uno_pb2.SeatView
    legal_actions: _containers.RepeatedCompositeFieldContainer[_uno_pb2.Action]
    time_left_ms: int
    time_bank_ms: int
    events: _containers.RepeatedCompositeFieldContainer[_uno_pb2.Event]
    def __init__(self, request_id: _Optional[str] = ..., game_id: _Optional[str] = ..., view: _Optional[_Union[_uno_pb2.SeatView, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[_uno_pb2.Action, _Mapping]]] = ..., time_left_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_uno_pb2.Event, _Mapping]]] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("request_id", "action_index", "action")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    action_index: int
    action: _uno_pb2.Action
    def __init__(self, request_id: _Optional[str] = ..., action_index: _Optional[int] = ..., action: _Optional[_Union[_uno_pb2.Action, _Mapping]] = ...) -> None: ...

class GameEnd(_message.Message):
    __slots__ = ("game_id", "outcome", "reason")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    outcome: _uno_pb2.Outcome
    reason: str
    def __init__(self, game_id: _Optional[str] = ..., outcome: _Optional[_Union[_uno_pb2.Outcome, _Mapping]] = ..., reason: _Optional[str] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "request_id", "game_id")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    message: str
    request_id: str
    game_id: str
    def __init__(self, code: _Optional[_Union[ErrorCode, str]] = ..., message: _Optional[str] = ..., request_id: _Optional[str] = ..., game_id: _Optional[str] = ...) -> None: ...
