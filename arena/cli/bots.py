"""`arena bot …`: registering, submitting, listing and removing bots."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    """Register, submit, list and remove bots.

    \b
    Example:
      arena bot submit sample_bots/python
      arena bot versions greedy
      arena bot add greedy-dev --command "python sample_bots/python/greedy_bot.py"
      arena bot list
    """


@bot.command("add")
@click.argument("name")
@click.option("--command", "command", default=None,
              help="Command that starts the bot: arena launches it (a managed bot). "
                   "Without it the bot is remote and its owner starts it.")
@click.option("--read-only", "read_only", multiple=True, metavar="PATH",
              help="With --command: a path the bot's sandbox shows it read-only besides what "
                   "its command names (its data, say); repeat for more. `bot list` and "
                   "`arena doctor` show them.")
@pass_context
def bot_add(context: Context, name: str, command: str | None,
            read_only: tuple[str, ...]) -> None:
    """Register a bot and print its token (shown only this once).

    \b
    Example:
      arena bot add greedy --command "python sample_bots/python/greedy_bot.py"
      arena bot add tuned --command "python tuned.py" --read-only /srv/arena/weights
      arena bot add my-remote-bot
    """
    if read_only and not command:
        raise click.UsageError("--read-only goes with --command: a remote bot runs where "
                               "its owner starts it")
    if command and context.server is None:
        check_program(name, command)
        read_only = tuple(os.path.abspath(path) for path in read_only)

    async def body(session: Session) -> admin_pb2.AddBotResponse:
        return await session.admin.AddBot(admin_pb2.AddBotRequest(
            name=name, kind="managed" if command else "remote", command=command or "",
            read_only_paths=list(read_only)))

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
        authored = any(bot.author for bot in listed)
        rows = [{"name": b.name, **({"author": b.author or "-"} if authored else {}),
                 "kind": b.kind, "command": b.command,
                 "connected": b.connected, "created": b.created_at,
                 **({"read-only": ", ".join(b.read_only_paths)}
                    if any(bot.read_only_paths for bot in listed) else {})}
                for b in listed]
    else:
        rows = [{"name": b.name, "author": b.author or None, "kind": b.kind,
                 "command": b.command or None, "connected": b.connected,
                 "created_at": b.created_at, "read_only": list(b.read_only_paths)}
                for b in listed]
    emit(rows, fmt, "no bots yet: add one with `arena bot add NAME`",
         ["name", "author", "kind", "command", "connected", "created_at", "read_only"])


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


MANIFEST_NAME = "arena-bot.toml"
"""The manifest a folder is read with unless --manifest names another
(`arena.submissions.MANIFEST`, not imported here: `--help` loads nothing)."""


@bot.command("submit")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--name", default=None,
              help="The bot's name, instead of the manifest's.")
@click.option("--manifest", default=MANIFEST_NAME, show_default=True, metavar="FILE",
              help="The manifest, a file in the bot's folder (or archive).")
@click.option("--inherit-rating", is_flag=True,
              help="Start the new version from the latest built version's ratings "
                   "instead of the default skill.")
@click.option("--no-wait", is_flag=True,
              help="With --server: return once the version is stored, its build going on "
                   "(`arena bot versions NAME --log N` follows it).")
@pass_context
def bot_submit(context: Context, path: Path, name: str | None, manifest: str,
               inherit_rating: bool, no_wait: bool) -> None:
    """Submit the bot in PATH (a folder, .zip or .tar.gz) as its next version.

    The folder holds an arena-bot.toml manifest (name, run, and optionally
    build and runtime). Its files are stored by their sha256 and built once;
    the version is the bot's name and a number (greedy@2), and its games and
    ratings are its own. Files unchanged since the latest version make no new
    version. The build's output is shown as it comes; the version's name is
    printed on stdout.

    \b
    Example:
      arena bot submit sample_bots/python
      arena bot submit sample_bots/python --manifest random.arena-bot.toml
      arena --server HOST:PORT bot submit my-bot.zip --inherit-rating
      arena --server HOST:PORT bot submit my-bot.zip --no-wait
    """
    from arena.submissions import ArchiveError, pack

    if no_wait and context.server is None:
        raise click.UsageError("--no-wait goes with --server: a build started here ends "
                               "with this command")
    try:
        archive = pack(path)
    except (ArchiveError, OSError) as exc:
        raise click.ClickException(f"{path}: {exc}") from None
    header = admin_pb2.SubmitBotHeader(name=name or "", inherit_rating=inherit_rating,
                                       manifest=_manifest_in(path, manifest), no_wait=True)

    async def body(session: Session) -> tuple[bool, admin_pb2.BotVersionInfo, str]:
        from arena.wire_admin import upload_chunks

        response: admin_pb2.SubmitBotResponse = await session.admin.SubmitBot(
            upload_chunks(archive, header))
        version, shown = response.version, ""
        if response.created and version.build_status == "building" and not no_wait:
            version, shown = await follow_build(session, version)
        return response.created, version, shown

    created, version, shown = context.run(body)
    if no_wait and version.build_status == "building":
        click.echo(f"submitted {version.name} (sha256 {version.sha256[:12]}), building: "
                   f"`arena bot versions {version.base_name} --log {version.version}` "
                   "follows its build", err=True)
    elif not created:
        click.echo(f"unchanged: {version.name} (sha256 {version.sha256[:12]}) is already "
                   f"the latest version of {version.base_name}", err=True)
    elif version.build_status == "failed":
        tail = version.log_tail
        click.echo(tail[len(shown):] if tail.startswith(shown) else tail, err=True)
        raise click.ClickException(
            f"{version.name}: the build failed, and this version will not play; "
            f"`arena bot versions {version.base_name} --log {version.version}` shows its log")
    else:
        click.echo(f"submitted {version.name} (sha256 {version.sha256[:12]}, build "
                   f"{version.build_status})", err=True)
    click.echo(version.name)


BUILD_POLL_SECONDS = 0.5
"""How often `bot submit` asks after a build that is going on."""


async def follow_build(session: Session, version: admin_pb2.BotVersionInfo
                       ) -> tuple[admin_pb2.BotVersionInfo, str]:
    """Show a build's output on stderr as it comes, until it ends; the version then, and
    the output shown."""
    import asyncio

    click.echo(f"building {version.name} ...", err=True)
    shown = ""
    while True:
        await asyncio.sleep(BUILD_POLL_SECONDS)
        listed = await session.admin.ListBotVersions(admin_pb2.ListBotVersionsRequest(
            name=version.base_name, log_version=version.version))
        version = next(v for v in listed.versions if v.version == version.version)
        if version.build_status != "building":
            return version, shown
        log = listed.log
        if log.startswith(shown):
            click.echo(log[len(shown):], err=True, nl=False)
        else:  # the window of its tail moved on: its last lines
            click.echo("\n".join(log.splitlines()[-5:]), err=True)
        shown = log


def _manifest_in(path: Path, manifest: str) -> str:
    """--manifest as a path inside the bot's folder: as given, or, when it names a file
    of the folder from the current one, relative to the folder."""
    given = Path(manifest)
    inside = not given.is_absolute() and (path / given).is_file()
    if not path.is_dir() or inside or not given.is_file():
        return given.as_posix()
    try:
        return given.resolve().relative_to(path.resolve()).as_posix()
    except ValueError:
        raise click.ClickException(f"--manifest {manifest} is not in the bot's folder "
                                   f"{path}") from None


@bot.command("versions")
@click.argument("name")
@click.option("--log", "log_version", type=click.IntRange(min=1), default=None,
              metavar="N", help="Print the build log of version N instead.")
@output_format
@pass_context
def bot_versions(context: Context, name: str, log_version: int | None, fmt: str) -> None:
    """List the versions of bot NAME: hash, date, build and rating.

    A version's rating is the one in the rule-set pool of its latest rated
    game. A bot added with --command is its own only version (version 0),
    whose files are its command.

    \b
    Example:
      arena bot versions greedy
      arena bot versions greedy --log 2
    """
    async def body(session: Session) -> admin_pb2.ListBotVersionsResponse:
        return await session.admin.ListBotVersions(admin_pb2.ListBotVersionsRequest(
            name=name, log_version=log_version or 0))

    response = context.run(body, read_only=True)
    if log_version is not None:
        click.echo(response.log, nl=not response.log.endswith("\n"))
        return
    rows = [_version_row(v, fmt) for v in response.versions]
    emit(rows, fmt, f"no versions of {name}")
    failed = [v for v in response.versions if v.build_status == "failed"]
    if fmt == "table" and failed:
        for version in failed:
            click.echo(f"\n{version.name} failed its build; the end of its log "
                       f"(--log {version.version} for all of it):\n{version.log_tail}")


@bot.command("log")
@click.argument("name")
@click.option("--lines", type=click.IntRange(min=1, max=10_000), default=50,
              show_default=True, help="How many of the last lines to print.")
@pass_context
def bot_log(context: Context, name: str, lines: int) -> None:
    """Print the end of managed bot NAME's current log: what its process wrote.

    A submitted bot's base name reads the log of whichever of its versions
    ran last. The log lies on the machine of the server that launched the
    bot; a remote bot's output stays where its owner runs it.

    \b
    Example:
      arena bot log greedy
      arena --server HOST:PORT bot log greedy --lines 200
    """
    async def body(session: Session) -> admin_pb2.GetBotLogResponse:
        return await session.admin.GetBotLog(admin_pb2.GetBotLogRequest(name=name,
                                                                        lines=lines))

    response = context.run(body, read_only=True)
    if response.text:
        click.echo(response.text, nl=not response.text.endswith("\n"))
    else:
        click.echo(f"(the log of {response.name} is empty)", err=True)


def _version_row(version: admin_pb2.BotVersionInfo, fmt: str) -> dict[str, Any]:
    rated = bool(version.pool)
    if fmt != "table":
        return {"name": version.name, "version": version.version, "sha256": version.sha256,
                "created_at": version.created_at, "build_status": version.build_status,
                "active": version.active, "inherits_from": version.inherits_from or None,
                "pool": version.pool or None, "mu": version.mu if rated else None,
                "sigma": version.sigma if rated else None, "games": version.games}
    rating = f"{version.mu:.2f} ± {version.sigma:.2f} ({version.games} games)" if rated else "–"
    return {"version": version.name + ("" if version.active else " (removed)"),
            "sha256": version.sha256[:12], "created": version.created_at,
            "build": version.build_status, "rating": rating}
