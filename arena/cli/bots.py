"""`arena bot …`: registering, listing and removing bots."""

from __future__ import annotations

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
from arena.cli.session import (
    Session,
)
from arena.v1 import admin_pb2

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
    async def body(session: Session) -> admin_pb2.AddBotResponse:
        return await session.admin.AddBot(admin_pb2.AddBotRequest(
            name=name, kind="managed" if command else "remote", command=command or ""))

    response = context.run(body)
    click.echo(f"added {response.bot.kind} bot {response.bot.name}", err=True)
    click.echo(f"token (shown once, keep it): {response.token}", err=True)
    click.echo(response.token)


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

    rows = [{"name": b.name, "kind": b.kind, "command": b.command, "connected": b.connected,
             "created": b.created_at} for b in context.run(body, read_only=True).bots]
    emit(rows, fmt, "no bots yet: add one with `arena bot add NAME`",
         ["name", "kind", "command", "connected", "created"])


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
