from arena.v1 import uno_pb2 as _uno_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

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
