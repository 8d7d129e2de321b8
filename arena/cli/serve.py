"""`arena serve`: the match server as a long-lived process."""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import logging
import socket
import sqlite3
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
from arena.cli.observe import MetricsAddress, metrics_option, serving_metrics

if TYPE_CHECKING:
    from arena.server.app import BackgroundJob
    from arena.services import Services
    from arena.services.timetable import Timetable
    from arena.store import Store
    from arena.submissions.build import BuildLimits
    from arena.supervisor import BotIsolation

DEFAULT_TABLES = 4
"""The tables `arena serve` plays at once on its own (`arena.services.timetable.Timetable`
gives a scheduled tournament's editions their share of them)."""

# --------------------------------------------------------------------- serve

@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=50051, show_default=True)
@click.option("--tls-cert", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Serve over TLS with this PEM certificate chain (needs --tls-key).")
@click.option("--tls-key", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The PEM private key of --tls-cert.")
@click.option("--unsafe-bots", is_flag=True,
              help="On an address other than loopback, launch managed bots even when they "
                   "cannot be sandboxed here.")
@click.option("--check-sandbox", is_flag=True,
              help="Say which isolation managed bots would get here, and exit.")
@click.option("--tables", type=click.IntRange(1, 1024), default=DEFAULT_TABLES,
              show_default=True,
              help="Tables the server plays at once on its own: a scheduled tournament's "
                   "edition plays on its share of them (`tournament create --share`).")
@click.option("--ladder", "ladder_file", is_flag=False, flag_value="", default=None,
              metavar="[FILE]",
              help="Play the ladder beside everything else, on the tables the timetable's "
                   "editions leave free: the latest version of every bot, table after table "
                   "(settings from a TOML FILE: table_size, seed, matchmaking, [rules], ...; "
                   "default: a stored ladder's own).")
@click.option("--build-disk", type=click.IntRange(1, 1024 * 1024), default=None,
              metavar="MIB", help="What a submitted version's folder may hold once built, in "
              "MiB [default: 512]: a build that writes more fails and leaves nothing.")
@click.option("--ladder-name", default="ladder", show_default=True,
              help="With --ladder: the ladder's name (its games are NAME:INDEX).")
@click.option("--public", is_flag=True,
              help="Let anyone without a token read what every participant sees "
                   "(leaderboards, schedules, public replays).")
@metrics_option
@pass_context
def serve(context: Context, host: str, port: int, tls_cert: Path | None,
          tls_key: Path | None, unsafe_bots: bool, check_sandbox: bool, tables: int,
          ladder_file: str | None, ladder_name: str, build_disk: int | None,
          public: bool, metrics_at: MetricsAddress | None) -> None:
    """Run the match server until Ctrl-C or SIGTERM.

    Bots connect with the tokens `arena bot add` printed; other commands reach
    it with `--server HOST:PORT`. Those need the server's admin token: serve
    keeps it in a file beside the database (DB.admin-token, owner-only), which
    commands run with the same --db read; elsewhere, set ARENA_ADMIN_TOKEN
    (serve uses that token instead when it is set). That token is the
    organizer's: `arena author add NAME` gives each author a token of their
    own, with which they submit and follow only their own bots (see `arena
    author --help`); with --public anyone may read the leaderboards.

    With --tls-cert and --tls-key the port is served over TLS (bots and
    commands then set ARENA_TLS_CA to a file of the certificates to trust, or
    ARENA_TLS=1 for the system's); the bots serve launches itself connect
    through the server's Unix socket, in plaintext.

    Managed bots run in a sandbox when the machine has one (`arena doctor` says
    which). Served on an address other than loopback, for others, they must:
    serve refuses to start if they cannot be, unless given --unsafe-bots.

    With --ladder the server plays the ladder until it stops (see `arena ladder
    --help`): a bot submitted meanwhile plays at the next table once it has
    connected, and `arena rankings --ladder --watch` follows its leaderboard.

    The server starts the tournaments on the timetable (`arena tournament
    create NAME --at WHEN` or `--every PERIOD`) when they are due, each edition
    on its share of --tables, and resumes an edition it was stopped in.

    With --metrics HOST:PORT it serves Prometheus metrics there (games, decisions
    and their latency per bot, faults, bots connected, tables in play, ...), with
    /healthz and /readyz (ready while the store takes a write).

    \b
    Example:
      arena serve --port 50051
      arena --log-format json serve --metrics 127.0.0.1:9464
    """
    import asyncio

    from arena.distributed import worker_pools
    from arena.logs import is_json
    from arena.metrics import Metrics
    from arena.sandbox import describe, status
    from arena.server.app import serve as serve_forever
    from arena.server.assembly import build_server, log_dir_for, private_paths
    from arena.server.auth import ADMIN_TOKEN_VARIABLE, AdminTokenError, issue_admin_token
    from arena.server.tls import ServerTls, TlsError
    from arena.services.timetable import Timetable
    from arena.store import Store, StoreError

    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("--tls-cert and --tls-key go together")
    try:
        tls = None if tls_cert is None or tls_key is None else ServerTls.from_files(
            tls_cert, tls_key)
    except TlsError as exc:
        raise click.ClickException(str(exc)) from None

    if check_sandbox:
        for line in describe(status()):
            click.echo(line)
        return
    isolation = bot_isolation(host, unsafe_bots)
    check_port_free(host, port)
    try:
        store = Store.open(context.db, reconnect_within=context.reconnect_within,
                           connection=context.connection_settings, readers=context.db_readers)
    except (sqlite3.Error, StoreError) as exc:
        raise click.ClickException(f"cannot use the database {context.db_name}: {exc}"
                                   ) from None
    try:
        admin_token, token_file = issue_admin_token(context.db_files)
    except AdminTokenError as exc:
        store.close()
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        store.close()
        raise click.ClickException(f"cannot write the admin token: {exc}") from None

    def ready(server: Any) -> None:
        where = f"in {token_file}" if token_file else f"from {ADMIN_TOKEN_VARIABLE}"
        secured = " over TLS" if tls else ""
        if is_json():
            logging.getLogger("arena.serve").info(
                "serving", extra={"address": f"{host}:{server.port}", "tls": bool(tls),
                                  "database": context.db_name})
            return
        click.echo(f"arena serving on {host}:{server.port}{secured} (database {context.db_name}, "
                   f"admin token {where}); Ctrl-C stops", err=True)

    built: list[Services] = []
    metrics = None if metrics_at is None else Metrics()
    server = build_server(store, log_dir_for(context.db_files), built.append,
                          admin_token=admin_token, tls=tls, isolation=isolation,
                          hidden_paths=private_paths(context.db_files),
                          worker_pools=worker_pools, build_limits=build_limits(build_disk),
                          public=public, metrics=metrics)
    timetable = Timetable(built[0].runs, tables, say=say_on_stderr)
    jobs: list[BackgroundJob] = [timetable.run]
    if ladder_file is not None:
        jobs.append(served_ladder(built[0], ladder_name, ladder_file, timetable, store))
    try:
        # The server's own log says when its store lost the database and reconnected.
        with contextlib.ExitStack() as exposing:
            if metrics is not None and metrics_at is not None:
                exposing.enter_context(serving_metrics(metrics, metrics_at, store))
            exposing.enter_context(store.reporting_connection(say_on_stderr))
            asyncio.run(serve_forever(host, port, None, ready=ready, server=server,
                                      background=jobs))
    except (OSError, RuntimeError) as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from None
    finally:
        store.close()


def build_limits(disk_mib: int | None) -> BuildLimits:
    """The limits of the builds a server makes: the defaults, with `disk_mib` MiB of disk
    when given."""
    from dataclasses import replace

    from arena.submissions.build import BuildLimits

    limits = BuildLimits()
    return limits if disk_mib is None else replace(limits, disk_bytes=disk_mib * 1024 * 1024)


def served_ladder(services: Services, name: str, settings_file: str,
                  timetable: Timetable, store: Store) -> BackgroundJob:
    """The ladder job of `serve --ladder`, its settings checked against the stored ladder
    before the server starts (a `ClickException` saying what is wrong, the store closed)."""
    from arena.cli.inputs import load_table
    from arena.ladder.feed import LadderError, open_ladder
    from arena.services.ladder import ladder_job
    from arena.store import StoreError
    from arena.tournament import SettingsError

    try:
        given = load_table(settings_file or None, "--ladder")
        settings = services.competitions.ladder_settings(name, given)
        open_ladder(store, name, settings)
    except (click.BadParameter, SettingsError, LadderError, StoreError) as exc:
        store.close()
        message = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
        raise click.ClickException(f"--ladder: {message}") from None

    def free_tables() -> int:
        return max(1, timetable.tables - timetable.tables_in_use)

    return ladder_job(services.runs.ladder_players(), name, settings, free_tables, say_on_stderr)


def say_on_stderr(line: str) -> None:
    """Print one line of what the server does on its own, with the local time (an event
    of the `arena.serve` logger when the logs are JSON)."""
    from datetime import datetime

    from arena.logs import is_json

    if is_json():
        logging.getLogger("arena.serve").info("%s", line)
        return
    click.echo(f"{datetime.now().astimezone():%Y-%m-%d %H:%M:%S} {line}", err=True)


def is_loopback(host: str) -> bool:
    """Whether `host` is reachable from this machine only (localhost, 127.0.0.0/8, ::1)."""
    if host.strip().lower() in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bot_isolation(host: str, unsafe_bots: bool) -> BotIsolation:
    """How a server on `host` isolates its managed bots: in a sandbox when there is one;
    on an address others reach, a sandbox is required — without one, serving is refused
    (a `ClickException` saying why) unless `unsafe_bots`."""
    from arena.sandbox import status
    from arena.server.assembly import SANDBOXED
    from arena.supervisor import BotIsolation as Isolation

    if is_loopback(host) or unsafe_bots:
        return SANDBOXED
    found = status()
    if not found.available:
        raise click.ClickException(
            f"refusing to serve on {host}, an address others can reach: managed bots "
            f"cannot be sandboxed here ({found.reason}); install bubblewrap, serve on "
            f"127.0.0.1, or pass --unsafe-bots to run them unsandboxed")
    return Isolation("required", SANDBOXED.limits, SANDBOXED.hidden_paths)


def check_port_free(host: str, port: int) -> None:
    """Refuse, in plain words, a port another process is listening on (port 0 picks a
    free one; an address that cannot be probed is left for the server to report)."""
    if port == 0:
        return
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return
    for family, kind, protocol, _, address in addresses:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise click.ClickException(
                        f"port {port} on {host} is in use (another arena serve?)") from None
