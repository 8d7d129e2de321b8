"""Admin messages about live tables, built from plain values (the sibling of `arena.wire`).

`arena.wire` converts engine objects and writes the bot protocol; this module
builds the `ArenaAdmin` messages that describe a table to operators. A watch
stream's updates are `arena.wire.watch_update_to_proto`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.v1 import admin_pb2

__all__ = ["WatchUpdate", "table_info_to_proto"]

WatchUpdate = admin_pb2.WatchGameUpdate
"""One message of a `WatchGame` stream (see `arena.wire.watch_update_to_proto`)."""


def table_info_to_proto(game_id: str, players: Sequence[str], hand_number: int,
                        decisions: int) -> admin_pb2.TableInfo:
    """The `ListTables` line of a table being played."""
    return admin_pb2.TableInfo(game_id=game_id, players=players, hand_number=hand_number,
                               decisions=decisions)
