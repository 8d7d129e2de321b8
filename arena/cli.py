"""The `arena` command line: a thin click layer over the admin service.

Every command reaches a server through `arena.session.admin_session`: the one
named by `--server HOST:PORT`, or the same server started in-process on the
local database (`./arena.db`, or `ARENA_DB`).
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import math
import os
import signal
import sqlite3
import sys
import threading
import time
import tomllib
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from functools import wraps
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
import grpc
from tabulate import tabulate

from arena import render, wire
from arena.engine import IllegalActionError, RuleSet, RuleSetError
from arena.engine import events as ev
from arena.server.auth import ADMIN_TOKEN_VARIABLE
from arena.session import (
    DEFAULT_DB,
    TLS_CA_VARIABLE,
    TLS_VARIABLE,
    Session,
    admin_session,
    find_admin_token,
    tls_from_env,
)
from arena.store import StoreError
from arena.tournament.schedule import MAX_TABLE_SIZE
from arena.v1 import admin_pb2

T = TypeVar("T")
FORMATS = ("table", "json", "csv")

UINT32 = click.IntRange(0, 2**32 - 1)
"""The values a uint32 field of an admin request carries."""
UINT64 = click.IntRange(0, 2**64 - 1)
"""The values a uint64 field of an admin request carries."""
POSITIVE_UINT32 = click.IntRange(1, 2**32 - 1)
"""The values above 0 a uint32 field carries."""


class Seconds(click.FloatRange):
    """A finite number of seconds, 0 or more (click.FloatRange lets nan and inf through)."""

    def __init__(self) -> None:
        super().__init__(min=0)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        """The number of seconds `value` says, or a usage error."""
        seconds = super().convert(value, param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value} is not a finite number of seconds.", param, ctx)
        return seconds


def use_color(stream: object = None) -> bool:
    """Colour only on a terminal, and never under NO_COLOR."""
    if "NO_COLOR" in os.environ:
        return False
    target = stream if stream is not None else sys.stdout
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty())


# ----------------------------------------------------------------- plumbing

class Context:
    """Options shared by every command: where the server and the database are."""

    def __init__(self, server: str | None, db: Path) -> None:
        self.server = server
        self.db = db

    def run(self, body: Callable[[Session], Awaitable[T]]) -> T:
        """Open an admin session and run `body` in it; gRPC errors, and a database that
        cannot be used, become clean messages."""
        try:
            tls = tls_from_env() if self.server else None
            token = find_admin_token(self.db) if self.server else None
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        trust = None if tls is None else _tls_trust(os.environ)

        async def main() -> T:
            async with admin_session(self.server, self.db, token, tls) as session:
                return await body(session)
        try:
            return asyncio.run(main())
        except grpc.aio.AioRpcError as exc:
            raise click.ClickException(_rpc_message(exc, self.server, trust)) from None
        except (sqlite3.Error, StoreError) as exc:
            raise click.ClickException(f"cannot use the database {self.db}: {exc}") from None


def _tls_trust(environ: Mapping[str, str]) -> str:
    """The certificates a TLS connection set up by `tls_from_env` trusts, for messages."""
    if environ.get(TLS_CA_VARIABLE):
        return f"the certificates in {TLS_CA_VARIABLE} ({environ[TLS_CA_VARIABLE]})"
    return f"the system's trusted certificates ({TLS_VARIABLE})"


def _rpc_message(exc: grpc.aio.AioRpcError, server: str | None,
                 tls_trust: str | None = None) -> str:
    """What a failed call says, given what a TLS connection trusted (None: plaintext)."""
    if exc.code() is grpc.StatusCode.UNAVAILABLE:
        where = f"cannot reach the arena server at {server}"
        if tls_trust is None:
            return (f"{where}: is `arena serve` running? "
                    f"(If it serves TLS, set {TLS_CA_VARIABLE} or {TLS_VARIABLE}=1.)")
        if "handshake failed" in (exc.details() or "").lower():
            return (f"{where}: the TLS handshake failed: its certificate does not match "
                    f"{tls_trust}, or it does not serve TLS.")
        return (f"{where}: is `arena serve` running? (If it is, the TLS handshake may have "
                f"failed: its certificate may not match {tls_trust}.)")
    if exc.code() is grpc.StatusCode.CANCELLED:
        return "cancelled"
    return exc.details() or exc.code().name.lower()


pass_context = click.make_pass_decorator(Context)


def output_format(function: Callable[..., Any]) -> Callable[..., Any]:
    """The `--format table|json|csv` option of every listing."""
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                        show_default=True, help="Output format.")(function)


def emit(rows: Sequence[dict[str, Any]], fmt: str, empty: str = "nothing to show",
         columns: Sequence[str] = ()) -> None:
    """Print rows as a table, JSON or CSV; CSV without rows is the `columns` header alone."""
    if fmt == "json":
        click.echo(json.dumps(list(rows), indent=2))
    elif fmt == "csv":
        buffer = io.StringIO()
        fieldnames = list(dict.fromkeys(k for row in rows for k in row)) or list(columns)
        if fieldnames:
            writer = csv.DictWriter(buffer, fieldnames=fieldnames, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        click.echo(buffer.getvalue(), nl=False)
    elif rows:
        click.echo(tabulate(rows, headers="keys", floatfmt=".2f"))
    else:
        click.echo(empty)


MAX_NESTING = 32
"""How deep tables and lists may nest in a settings or rules file (they need 3 levels)."""


def load_table(path: str | None, what: str) -> dict[str, Any]:
    """A settings table from a TOML or JSON file (JSON by a `.json` extension in any case,
    TOML otherwise); a file that is no such table is a `click.BadParameter` naming it."""
    if path is None:
        return {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise click.BadParameter(f"{path}: not a UTF-8 text file", param_hint=what) from None
    except OSError as exc:
        raise click.BadParameter(f"{path}: {exc.strerror}", param_hint=what) from None
    too_deep = click.BadParameter(f"{path}: nested too deeply (more than {MAX_NESTING} levels)",
                                  param_hint=what)
    try:
        data = json.loads(text) if Path(path).suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise click.BadParameter(f"{path}: {exc}", param_hint=what) from None
    except RecursionError:
        raise too_deep from None
    if not isinstance(data, dict):
        raise click.BadParameter(f"{path}: must hold a table of settings", param_hint=what)
    if _nesting(data) > MAX_NESTING:
        raise too_deep
    return data


def _nesting(value: object) -> int:
    """How many tables and lists deep `value` goes (counted without recursion)."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((child, depth) for child in (
                item.values() if isinstance(item, dict) else item))
    return deepest


def rules_json(path: str | None) -> str:
    """The rule set in a file, checked here so a mistake is reported before any play."""
    data = load_table(path, "--rules")
    if set(data) == {"rules"} and isinstance(data["rules"], dict):
        data = data["rules"]
    try:
        return json.dumps(RuleSet.from_dict(data).to_dict()) if data else ""
    except RuleSetError as exc:
        raise click.BadParameter(str(exc), param_hint="--rules") from None


async def follow_progress(updates: Any, label: str,
                          on_first: Callable[[], None] | None = None) -> admin_pb2.RunProgress:
    """Show a progress bar (games done of total, rate, time left) over a progress stream;
    `on_first` is called when the first update arrives (the run has begun)."""
    last = admin_pb2.RunProgress()
    rate = _Rate()
    bar: Any = None
    first = True
    try:
        async for update in updates:
            if first and on_first is not None:
                on_first()
            first = False
            last = update
            if bar is None and update.total:
                rate.first_done = update.done
                bar = click.progressbar(length=update.total, label=label, show_eta=True,
                                        show_pos=True, file=sys.stderr, item_show_func=rate.text)
                bar.__enter__()
                bar.update(update.done)
            elif bar is not None:
                rate.done = update.done
                bar.update(update.done - bar.pos)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    return last


class _Rate:
    """Games per second since a progress bar appeared."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.first_done = 0
        self.done = 0

    def text(self, _: object) -> str:
        played = max(self.done - self.first_done, 0)
        return f"{played / max(time.monotonic() - self.started, 1e-9):.1f} games/s"


def _interruptible(message: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Ctrl-C ends the command with `message` instead of a traceback."""
    def decorate(function: Callable[..., T]) -> Callable[..., T]:
        @wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> T:
            try:
                return function(*args, **kwargs)
            except KeyboardInterrupt:
                _stopped(message)
        return wrapper
    return decorate


def _stopped(message: str) -> NoReturn:
    """End a command stopped by Ctrl-C with `message`."""
    _ignore_ctrl_c()
    click.echo(f"\n{message}", err=True)
    raise SystemExit(130) from None


def _ignore_ctrl_c() -> None:
    """Ignore further Ctrl-C: the command is ending, and one now would only interrupt
    the interpreter's exit (with an 'Exception ignored' report)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


# -------------------------------------------------------------------- group

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arena")
@click.option("--server", metavar="HOST:PORT", default=None,
              help="Talk to a running `arena serve` instead of starting one in-process.")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              default=lambda: os.environ.get("ARENA_DB", DEFAULT_DB),
              show_default="./arena.db or ARENA_DB", help="SQLite database (in-process only).")
@click.pass_context
def main(ctx: click.Context, server: str | None, db: Path) -> None:
    """arena: UNO bots in any language, battling over gRPC.

    \b
    Example:
      arena bot add greedy --command "python sample_bots/python/greedy_bot.py"
      arena match greedy random --games 20
      arena rankings
    """
    ctx.obj = Context(server, db)


# --------------------------------------------------------------------- serve

@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=50051, show_default=True)
@click.option("--tls-cert", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Serve over TLS with this PEM certificate chain (needs --tls-key).")
@click.option("--tls-key", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The PEM private key of --tls-cert.")
@pass_context
def serve(context: Context, host: str, port: int, tls_cert: Path | None,
          tls_key: Path | None) -> None:
    """Run the match server until Ctrl-C or SIGTERM.

    Bots connect with the tokens `arena bot add` printed; other commands reach
    it with `--server HOST:PORT`. Those need the server's admin token: serve
    keeps it in a file beside the database (DB.admin-token, owner-only), which
    commands run with the same --db read; elsewhere, set ARENA_ADMIN_TOKEN
    (serve uses that token instead when it is set).

    With --tls-cert and --tls-key the port is served over TLS (bots and
    commands then set ARENA_TLS_CA to a file of the certificates to trust, or
    ARENA_TLS=1 for the system's); the bots serve launches itself use a
    plaintext port on 127.0.0.1.

    \b
    Example:
      arena serve --port 50051
    """
    from arena.server.app import serve as serve_forever
    from arena.server.tls import ServerTls, TlsError
    from arena.session import AdminTokenError, build_server, issue_admin_token, log_dir_for
    from arena.store import Store

    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("--tls-cert and --tls-key go together")
    try:
        tls = None if tls_cert is None or tls_key is None else ServerTls.from_files(
            tls_cert, tls_key)
    except TlsError as exc:
        raise click.ClickException(str(exc)) from None

    try:
        store = Store.open(context.db)
    except (sqlite3.Error, StoreError) as exc:
        raise click.ClickException(f"cannot use the database {context.db}: {exc}") from None
    try:
        admin_token, token_file = issue_admin_token(context.db)
    except AdminTokenError as exc:
        store.close()
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        store.close()
        raise click.ClickException(f"cannot write the admin token: {exc}") from None

    def ready(server: Any) -> None:
        where = f"in {token_file}" if token_file else f"from {ADMIN_TOKEN_VARIABLE}"
        secured = " over TLS" if tls else ""
        click.echo(f"arena serving on {host}:{server.port}{secured} (database {context.db}, "
                   f"admin token {where}); Ctrl-C stops", err=True)

    try:
        asyncio.run(serve_forever(host, port, None, ready=ready, server=build_server(
            store, log_dir_for(context.db), admin_token=admin_token, tls=tls)))
    except (OSError, RuntimeError) as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from None
    finally:
        store.close()


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
             "created": b.created_at} for b in context.run(body).bots]
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


# ---------------------------------------------------------------------- match

@main.command()
@click.argument("bots", nargs=-1, required=True)
@click.option("--games", type=POSITIVE_UINT32, default=10, show_default=True,
              help="Games to play, rounded up to a multiple of the number of BOTS.")
@click.option("--seed", type=UINT64, default=0, show_default=True)
@click.option("--rules", "rules_path", type=click.Path(exists=True, dir_okay=False),
              help="Rule set file (TOML or JSON); the official rules otherwise.")
@click.option("--concurrency", type=POSITIVE_UINT32, default=2, show_default=True,
              help="Games played at once.")
@click.option("--wait", type=Seconds(), default=30.0, show_default=True,
              help="Seconds to wait for the bots to connect (0: do not wait).")
@pass_context
def match(context: Context, bots: tuple[str, ...], games: int, seed: int,
          rules_path: str | None, concurrency: int, wait: float) -> None:
    """Play rated games between BOTS (2 to 10, at one table), then show the rankings.

    Each deal is played once in every seat rotation, so every bot holds every
    hand; the match is stored as a tournament of its own (match-DATE-TIME).

    \b
    Example:
      arena match greedy counter random --games 30 --seed 1
    """
    begun = False

    def on_begun() -> None:
        nonlocal begun
        begun = True

    async def body(session: Session) -> admin_pb2.GetRankingsResponse:
        await follow_progress(session.admin.PlayMatch(request), "match", on_begun)
        return await session.admin.GetRankings(admin_pb2.GetRankingsRequest())

    try:
        if len(bots) > MAX_TABLE_SIZE:
            raise click.ClickException(
                f"a match seats at most {MAX_TABLE_SIZE} bots, got {len(bots)}")
        request = admin_pb2.PlayMatchRequest(bots=list(bots), games=games, seed=seed,
                                             rules_json=rules_json(rules_path),
                                             concurrency=concurrency, remote_wait_seconds=wait)
        rows = [r for r in ranking_rows(context.run(body).rows) if r["bot"] in bots]
    except KeyboardInterrupt:
        # The server creates the match only once its bots are connected, just before
        # its first progress update.
        _stopped(MATCH_KEPT if begun else MATCH_NOT_BEGUN)
    emit(rows, "table")


MATCH_KEPT = ("stopped; the games played so far are kept: `arena tournament list` shows "
              "the match, `arena tournament run NAME` finishes it.")
MATCH_NOT_BEGUN = "stopped before the match began; no game was played."


# ------------------------------------------------------------------ tournaments

@main.group()
def tournament() -> None:
    """Create, inspect and run tournaments.

    \b
    Example:
      arena tournament create spring greedy counter random --table-size 3
      arena tournament run spring
    """


@tournament.command("create")
@click.argument("name")
@click.argument("bots", nargs=-1, required=True)
@click.option("--format", "format_", type=click.Choice(
    ["round_robin", "partners", "teams", "gauntlet"]), default=None,
    help="Schedule format [default: round_robin].")
@click.option("--table-size", type=click.IntRange(2, 10), default=None, help="Seats per table.")
@click.option("--deals", "deals", type=click.IntRange(1), default=None,
              help="Deals per table (each played in every seat rotation).")
@click.option("--seed", type=UINT64, default=None, help="Tournament seed.")
@click.option("--challenger", default=None, help="Gauntlet: the bot that meets the field.")
@click.option("--settings", "settings_path", type=click.Path(exists=True, dir_okay=False),
              help="Settings file (TOML or JSON): any of the options, plus policy and rules.")
@click.option("--rules", "rules_path", type=click.Path(exists=True, dir_okay=False),
              help="Rule set file (TOML or JSON).")
@pass_context
def tournament_create(context: Context, name: str, bots: tuple[str, ...], format_: str | None,
                      table_size: int | None, deals: int | None, seed: int | None,
                      challenger: str | None, settings_path: str | None,
                      rules_path: str | None) -> None:
    """Create tournament NAME between BOTS and print a summary of its schedule.

    \b
    Example:
      arena tournament create spring greedy counter random node --table-size 3 --deals 2
      arena tournament create pairs a b c d e f g h --format partners
    """
    settings = load_table(settings_path, "--settings")
    for key, value in (("format", format_), ("table_size", table_size),
                       ("deals_per_table", deals), ("seed", seed), ("challenger", challenger)):
        if value is not None:
            settings[key] = value
    request = admin_pb2.CreateTournamentRequest(name=name, bots=list(bots),
                                                settings_json=json.dumps(settings),
                                                rules_json=rules_json(rules_path))

    async def body(session: Session) -> admin_pb2.TournamentInfo:
        return await session.admin.CreateTournament(request)

    info = context.run(body)
    click.echo(f"created {info.format} tournament {info.name}: {len(info.bots)} bots, "
               f"{info.games_total} games")
    click.echo(f"see the schedule with `arena tournament schedule {info.name}`, "
               f"play it with `arena tournament run {info.name}`")


@tournament.command("schedule")
@click.argument("name")
@output_format
@pass_context
def tournament_schedule(context: Context, name: str, fmt: str) -> None:
    """Print every game of a tournament's schedule, played or not.

    \b
    Example:
      arena tournament schedule spring --format csv
    """
    async def body(session: Session) -> admin_pb2.GetScheduleResponse:
        return await session.admin.GetSchedule(admin_pb2.GetScheduleRequest(tournament=name))

    rows = []
    for g in context.run(body).games:
        row: dict[str, Any] = {"game": g.game_index, "round": g.round, "table": g.table,
                               "seats": " ".join(g.seats), "seed": g.seed, "status": g.status}
        if g.teams:
            row["teams"] = " ".join(str(t) for t in g.teams)
        if g.game_id:
            row["game_id"] = g.game_id
        rows.append(row)
    emit(rows, fmt, "the schedule is empty", ["game", "round", "table", "seats", "seed", "status"])


@tournament.command("list")
@output_format
@pass_context
def tournament_list(context: Context, fmt: str) -> None:
    """List tournaments and how far each has come.

    \b
    Example:
      arena tournament list
    """
    async def body(session: Session) -> admin_pb2.ListTournamentsResponse:
        return await session.admin.ListTournaments(admin_pb2.ListTournamentsRequest())

    emit([_tournament_row(t) for t in context.run(body).tournaments], fmt,
         "no tournaments yet: create one with `arena tournament create NAME BOT BOT ...`",
         TOURNAMENT_COLUMNS)


@tournament.command("status")
@click.argument("name")
@output_format
@pass_context
def tournament_status(context: Context, name: str, fmt: str) -> None:
    """Show a tournament's status and progress.

    \b
    Example:
      arena tournament status spring
    """
    async def body(session: Session) -> admin_pb2.GetScheduleResponse:
        return await session.admin.GetSchedule(
            admin_pb2.GetScheduleRequest(tournament=name, skip_games=True))

    info = context.run(body).tournament
    emit([{**_tournament_row(info), "run by": info.run_by or "-"}], fmt)


@tournament.command("run")
@click.argument("name")
@click.option("--concurrency", type=UINT32, default=0,
              help="Tables at once [default: the tournament's setting].")
@click.option("--wait", type=Seconds(), default=30.0, show_default=True,
              help="Seconds to wait for the bots to connect (0: do not wait).")
@pass_context
@_interruptible("stopped; run the same command again to resume.")
def tournament_run(context: Context, name: str, concurrency: int, wait: float) -> None:
    """Play a tournament's pending games; after Ctrl-C, run it again to resume.

    \b
    Example:
      arena tournament run spring --concurrency 4
    """
    request = admin_pb2.RunTournamentRequest(tournament=name, concurrency=concurrency,
                                             remote_wait_seconds=wait)

    async def body(session: Session) -> admin_pb2.GetRankingsResponse:
        await follow_progress(session.admin.RunTournament(request), name)
        return await session.admin.GetRankings(admin_pb2.GetRankingsRequest(tournament=name))

    emit(ranking_rows(context.run(body).rows), "table")


@tournament.command("standings")
@click.argument("name")
@output_format
@pass_context
def tournament_standings(context: Context, name: str, fmt: str) -> None:
    """The TrueSkill leaderboard of one tournament.

    \b
    Example:
      arena tournament standings spring --format json
    """
    _print_rankings(context, name, fmt)


@main.command()
@click.option("--tournament", default=None, help="Only the games of this tournament.")
@output_format
@pass_context
def rankings(context: Context, tournament: str | None, fmt: str) -> None:
    """The TrueSkill leaderboard, ordered by the conservative rating μ−3σ.

    \b
    Example:
      arena rankings --tournament spring
    """
    _print_rankings(context, tournament or "", fmt)


def _print_rankings(context: Context, tournament: str, fmt: str) -> None:
    async def body(session: Session) -> admin_pb2.GetRankingsResponse:
        return await session.admin.GetRankings(admin_pb2.GetRankingsRequest(
            tournament=tournament))

    emit(ranking_rows(context.run(body).rows), fmt, "no rated games yet", RANKING_COLUMNS)


RANKING_COLUMNS = ("rank", "bot", "μ-3σ", "μ", "σ", "games", "wins", "win rate", "avg points")
TOURNAMENT_COLUMNS = ("name", "format", "status", "bots", "done", "games", "created")


def ranking_rows(rows: Iterable[admin_pb2.RankingRow]) -> list[dict[str, Any]]:
    """Leaderboard rows as the CLI prints them."""
    return [{"rank": r.rank, "bot": r.bot, "μ-3σ": round(r.conservative, 2),
             "μ": round(r.mu, 2), "σ": round(r.sigma, 2), "games": r.games, "wins": r.wins,
             "win rate": round(r.win_rate, 3), "avg points": round(r.average_points, 1)}
            for r in rows]


def _tournament_row(t: admin_pb2.TournamentInfo) -> dict[str, Any]:
    return {"name": t.name, "format": t.format, "status": t.status, "bots": len(t.bots),
            "done": t.games_done, "games": t.games_total, "created": t.created_at}


# ---------------------------------------------------------------------- games

@main.command()
@click.option("--tournament", default=None, help="Only this tournament's games.")
@click.option("--bot", "bot_name", default=None, help="Only games this bot played.")
@click.option("--limit", type=POSITIVE_UINT32, default=20, show_default=True)
@output_format
@pass_context
def games(context: Context, tournament: str | None, bot_name: str | None, limit: int,
          fmt: str) -> None:
    """List stored games, newest first.

    \b
    Example:
      arena games --bot greedy --limit 5
    """
    async def body(session: Session) -> admin_pb2.ListGamesResponse:
        return await session.admin.ListGames(admin_pb2.ListGamesRequest(
            tournament=tournament or "", bot=bot_name or "", limit=limit))

    rows = [{"game": g.game_id, "seats": " ".join(g.seats),
             "scores": " ".join(str(s) for s in g.scores),
             "winner": " ".join(g.seats[i] for i, r in enumerate(g.ranks) if r == 0),
             "ended": g.termination, "finished": g.finished_at}
            for g in context.run(body).games]
    emit(rows, fmt, "no games yet", ["game", "seats", "scores", "winner", "ended", "finished"])


@main.command()
@click.argument("game_id", type=UINT64)
@click.option("--export", "export", type=click.Choice(["jsonl"]), default=None,
              help="Print the full event log as JSON lines instead.")
@click.option("--step", is_flag=True, help="Wait for Enter after each hand.")
@click.option("--hands", is_flag=True, help="Show every seat's hand after each hand starts.")
@pass_context
def replay(context: Context, game_id: int, export: str | None, step: bool, hands: bool) -> None:
    """Step through a stored game with coloured cards.

    The game is also replayed from its seed and actions by the engine, and the
    command fails if that does not reproduce the stored events.

    \b
    Example:
      arena replay 12
      arena replay 12 --export jsonl > game-12.jsonl
    """
    async def body(session: Session) -> admin_pb2.GetGameResponse:
        return await session.admin.GetGame(admin_pb2.GetGameRequest(game_id=game_id))

    response = context.run(body)
    if export == "jsonl":
        for message in response.events:
            click.echo(json.dumps(wire.message_to_dict(message, with_defaults=True)))
        return
    events = [wire.event_from_proto(e) for e in response.events]
    _check_replay(response, events)
    names = list(response.summary.seats)
    color = use_color()
    for event, dealt in zip(events, _deal_flags(events), strict=True):
        if hands and dealt and isinstance(event, ev.CardsReceived):
            click.echo(f"  {names[event.seat]}: {render.cards_text(event.cards, color)}")
        if event.audience is None:
            line = render.describe(event, names, color)
            if line is not None:
                click.echo(line)
        if step and isinstance(event, ev.HandEnded) and sys.stdin.isatty():
            click.pause("press any key for the next hand")


def _deal_flags(events: list[ev.Event]) -> list[bool]:
    """For each event, whether it is part of a deal: the cards received right after a hand starts.

    A later draw is not a deal, even when it comes a few events after the hand started.
    """
    flags: list[bool] = []
    dealing = False
    for event in events:
        if isinstance(event, ev.HandStarted):
            dealing = True
        elif not isinstance(event, ev.CardsReceived):
            dealing = False
        flags.append(dealing and isinstance(event, ev.CardsReceived))
    return flags


def _check_replay(response: admin_pb2.GetGameResponse, events: list[ev.Event]) -> None:
    from arena.engine import replay as replay_game

    failure = f"game {response.summary.game_id} does not replay"
    try:
        rules = RuleSet.from_json(response.rules_json)
        actions = [wire.action_from_proto(a) for a in response.actions]
        game = replay_game(rules, len(response.summary.seats), response.seed, actions)
    except IllegalActionError as exc:
        raise click.ClickException(f"{failure}: a stored action is not legal: {exc}") from None
    except (RuleSetError, wire.WireError) as exc:
        raise click.ClickException(f"{failure}: its stored record is not usable: {exc}") from None
    if response.HasField("forfeited_seat"):
        game.forfeit(response.forfeited_seat)
    if game.events != events:
        raise click.ClickException(f"{failure}: its stored events differ")


@main.command()
@output_format
@pass_context
def tables(context: Context, fmt: str) -> None:
    """List the games being played on a server right now, to `watch` one.

    \b
    Example:
      arena --server 127.0.0.1:50051 tables
    """
    async def body(session: Session) -> admin_pb2.ListTablesResponse:
        return await session.admin.ListTables(admin_pb2.ListTablesRequest())

    rows = [{"game": t.game_id, "players": " ".join(t.players), "hand": t.hand_number,
             "decisions": t.decisions} for t in context.run(body).tables]
    emit(rows, fmt, "no games being played", ["game", "players", "hand", "decisions"])


@main.command()
@click.argument("game_id")
@pass_context
def watch(context: Context, game_id: str) -> None:
    """Follow a game being played, live (its public events).

    \b
    Example:
      arena --server 127.0.0.1:50051 watch 3f2a9c...
    """
    color = use_color()

    async def body(session: Session) -> None:
        names: list[str] = []
        async for update in session.admin.WatchGame(admin_pb2.WatchGameRequest(
                game_id=game_id)):
            names = list(update.players) or names
            for message in update.events:
                line = render.describe(wire.event_from_proto(message), names, color)
                if line is not None:
                    click.echo(line)

    try:
        context.run(body)
    except KeyboardInterrupt:
        raise SystemExit(130) from None


# ----------------------------------------------------------------------- demo

@main.command()
@click.option("--games", "deals", type=click.IntRange(1), default=3, show_default=True,
              help="Deals per table (each played in every seat rotation).")
@click.option("--seed", type=UINT64, default=2024, show_default=True)
@click.option("--db", "demo_db", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Keep the demo's database here (a temporary one otherwise).")
def demo(deals: int, seed: int, demo_db: Path | None) -> None:
    """The whole journey: register the sample bots, run a round-robin, print the rankings.

    Starts the server in-process on a fresh SQLite database, launches the
    sample bots (Python; Node.js and C++ too when they are built), plays a
    round-robin of single hands with a progress bar and prints the TrueSkill
    leaderboard.

    \b
    Example:
      arena demo --games 5
    """
    from arena.demo import run_demo

    try:
        run_demo(deals=deals, seed=seed, db_path=demo_db)
    except grpc.aio.AioRpcError as exc:
        raise click.ClickException(_rpc_message(exc, None)) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
