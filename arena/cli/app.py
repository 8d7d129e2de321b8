"""The `arena` command group and the options every command shares."""

from __future__ import annotations

import os
from pathlib import Path

import click

from arena.cli.context import (
    Context,
    DatabaseOption,
)
from arena.cli.inputs import (
    DEFAULT_DB,
)

# -------------------------------------------------------------------- group

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arena")
@click.option("--server", metavar="HOST:PORT", default=None,
              help="Talk to a running `arena serve` instead of starting one in-process.")
@click.option("--db", type=DatabaseOption(),
              default=lambda: os.environ.get("ARENA_DB", DEFAULT_DB),
              show_default="./arena.db or ARENA_DB",
              help="SQLite file, or postgresql://USER@HOST/DB (in-process only).")
@click.option("--token", envvar="ARENA_TOKEN", default=None, metavar="TOKEN",
              help="With --server: the token to send (default: the one `arena login` kept "
                   "for that server, or the organizer's ARENA_ADMIN_TOKEN).")
@click.pass_context
def main(ctx: click.Context, server: str | None, db: Path | str, token: str | None) -> None:
    """arena: UNO bots in any language, battling over gRPC.

    \b
    Example:
      arena bot add greedy --command "python sample_bots/python/greedy_bot.py"
      arena match greedy random --games 20
      arena rankings
    """
    ctx.obj = Context(server, db, token)
