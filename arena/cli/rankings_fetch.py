"""What the rankings commands ask a server for: the leaderboards of a listing, the
pools, a ladder."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.session import Session


async def pool_rankings(session: Session, tournament: str | None, pool: str | None,
                        confidence: float = 0.95, *, all_versions: bool = False
                        ) -> list[admin_pb2.GetRankingsResponse]:
    """The leaderboards a listing asks for: one pool, or every rule-set pool (each
    submitted bot's latest version only, unless `all_versions`)."""
    if tournament or pool:
        return [await session.admin.GetRankings(admin_pb2.GetRankingsRequest(
            tournament=tournament or "", pool=pool or "", confidence=confidence,
            all_versions=all_versions))]
    listed = await list_pools(session)
    return [await session.admin.GetRankings(admin_pb2.GetRankingsRequest(
        pool=p.key, confidence=confidence, all_versions=all_versions))
        for p in listed if not p.tournament]


async def list_pools(session: Session) -> list[admin_pb2.PoolInfo]:
    """Every rating pool with a rated game."""
    return list((await session.admin.ListPools(admin_pb2.ListPoolsRequest())).pools)


async def require_ladder(session: Session, name: str) -> admin_pb2.TournamentInfo:
    """The ladder `name`; a `ClickException` saying so when there is no such ladder, or
    when `name` is a tournament."""
    import grpc

    from arena.store.records import LADDER_FORMAT

    try:
        info = (await session.admin.GetSchedule(admin_pb2.GetScheduleRequest(
            tournament=name, skip_games=True))).tournament
    except grpc.aio.AioRpcError as exc:
        if exc.code() is not grpc.StatusCode.NOT_FOUND:
            raise
        starts = "arena ladder run" + ("" if name == "ladder" else f" --name {name}")
        raise click.ClickException(f"no ladder {name!r} yet: `{starts}` starts it") from None
    if info.format != LADDER_FORMAT:
        raise click.ClickException(f"{name!r} is a tournament, not a ladder: "
                                   f"--tournament {name} shows its standings")
    return info
