"""`arena bot …`: registering, listing and removing bots."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

import click

from arena.cli.app import (
    main,
)
from arena.cli.context import (
    Context,
    pass_context,
)
from arena.cli.output import (
    emit,
    output_format,
)
from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.session import Session

# ----------------------------------------------------------------------- bots

@main.group()
def bot() -> None:
    """Register, list and remove bots.

    \b
    Example:
      arena bot add greedy --command "python sample_bots/python/greedy_bot.py"
      arena bot list
    """


@bot.command("add")
@click.argument("name")
@click.option("--command", "command", default=None,
              help="Command that starts the bot: arena launches it (a managed bot). "
                   "Without it the bot is remote and its owner starts it.")
@pass_context
def bot_add(context: Context, name: str, command: str | None) -> None:
    """Register a bot and print its token (shown only this once).

    \b
    Example:
      arena bot add greedy --command "python sample_bots/python/greedy_bot.py"
      arena bot add my-remote-bot
    """
    if command and context.server is None:
        check_program(name, command)

    async def body(session: Session) -> admin_pb2.AddBotResponse:
        return await session.admin.AddBot(admin_pb2.AddBotRequest(
            name=name, kind="managed" if command else "remote", command=command or ""))

    response = context.run(body)
    click.echo(f"added {response.bot.kind} bot {response.bot.name}", err=True)
    click.echo(f"token (shown once, keep it): {response.token}", err=True)
    click.echo(response.token)


def check_program(name: str, command: str) -> None:
    """Refuse managed bot `name` unless the program of `command` (its first word) can be
    started the way the supervisor starts it: found on PATH, or a path from the current
    folder (where an in-process server runs its bots)."""
    from arena.supervisor import ManagedBotError, command_words

    try:
        program = command_words(name, command)[0]
    except ManagedBotError as exc:
        raise click.ClickException(str(exc)) from None
    if shutil.which(program) is None:
        where = f"from {os.getcwd()}" if os.sep in program else "on PATH"
        raise click.ClickException(
            f"bot {name} not added: no program {program!r} {where} (or it is not "
            "executable); give --command a program that exists")


@bot.command("list")
@output_format
@pass_context
def bot_list(context: Context, fmt: str) -> None:
    """List registered bots.

    \b
    Example:
      arena bot list --format json
    """
    async def body(session: Session) -> admin_pb2.ListBotsResponse:
        return await session.admin.ListBots(admin_pb2.ListBotsRequest())

    listed = context.run(body, read_only=True).bots
    if fmt == "table":
        rows = [{"name": b.name, "kind": b.kind, "command": b.command,
                 "connected": b.connected, "created": b.created_at} for b in listed]
    else:
        rows = [{"name": b.name, "kind": b.kind, "command": b.command or None,
                 "connected": b.connected, "created_at": b.created_at} for b in listed]
    emit(rows, fmt, "no bots yet: add one with `arena bot add NAME`",
         ["name", "kind", "command", "connected", "created_at"])


@bot.command("remove")
@click.argument("name")
@pass_context
def bot_remove(context: Context, name: str) -> None:
    """Remove a bot: its token stops working; its games and ratings stay.

    \b
    Example:
      arena bot remove greedy
    """
    async def body(session: Session) -> admin_pb2.RemoveBotResponse:
        return await session.admin.RemoveBot(admin_pb2.RemoveBotRequest(name=name))

    click.echo(f"removed bot {context.run(body).bot.name}")
