"""`arena doctor`: what this machine gives managed bots, in plain words."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli.app import (
    main,
)
from arena.cli.context import Context, pass_context


@main.command()
@pass_context
def doctor(context: Context) -> None:
    """Say which isolation managed bots get on this machine, and why; and which of the
    database's bots an operator gave extra read-only paths.

    \b
    Example:
      arena doctor
    """
    from arena.sandbox import describe, status
    from arena.submissions.build import describe_builds

    for line in [*describe(status()), *describe_builds()]:
        click.echo(line)
    click.echo(_read_only_line(context))


def _read_only_line(context: Context) -> str:
    """Which operator's bots are shown extra read-only paths (`bot add --read-only`)."""
    from arena.cli.session import Session
    from arena.v1 import admin_pb2

    async def body(session: Session) -> admin_pb2.ListBotsResponse:
        return await session.admin.ListBots(admin_pb2.ListBotsRequest())

    if context.server is None and isinstance(context.db, Path) and not context.db.exists():
        return "extra read-only paths: none (no database yet)"
    try:
        bots = context.run(body, read_only=True).bots
    except click.ClickException as exc:
        return f"extra read-only paths: not known ({exc.format_message()})"
    given = [f"{bot.name}: {', '.join(bot.read_only_paths)}" for bot in bots
             if bot.read_only_paths]
    if not given:
        return ("extra read-only paths: none; a bot sees the system, the SDK and its own "
                "files only")
    return ("extra read-only paths, given with `bot add --read-only`: " + "; ".join(given))
