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
from arena.cli.observe import configure_logs

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
@click.option("--log-format", type=click.Choice(["human", "json"]), default="human",
              envvar="ARENA_LOG_FORMAT", show_default=True,
              help="How events are logged: human lines, or one JSON object per line (with "
                   "run, game and bot ids where they apply); worker processes follow.")
@click.option("--log-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              envvar="ARENA_LOG_FILE", help="Append the log to this file instead of stderr.")
@click.pass_context
def main(ctx: click.Context, server: str | None, db: Path | str, token: str | None,
         log_format: str, log_file: Path | None) -> None:
    """arena: UNO bots in any language, battling over gRPC.

    \b
    Example:
      arena bot add greedy --command "python sample_bots/python/greedy_bot.py"
      arena match greedy random --games 20
      arena rankings
    """
    configure_logs(log_format, log_file)
    ctx.obj = Context(server, db, token)
