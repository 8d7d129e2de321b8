"""`arena ladder run`: the always-on ladder, played until Ctrl-C or SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import time
from typing import TYPE_CHECKING, Any

import click

from arena.cli.app import main
from arena.cli.context import Context, ignore_ctrl_c, pass_context
from arena.cli.inputs import POSITIVE_UINT32, load_table
from arena.cli.observe import MetricsAddress, metrics_option, refuse_remote_metrics
from arena.cli.output import emit_rankings, run_faults_warning
from arena.cli.tournaments import MAX_WORKERS
from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.session import Session

LADDER_NAME_HELP = "The ladder's name (its games are NAME:INDEX)."


@main.group()
def ladder() -> None:
    """The always-on ladder: every bot's latest version, playing until stopped.

    A ladder plays table after table among the latest built version of every
    bot (those connected: managed bots are launched, remote ones join when they
    connect). Each table is picked by what it tells — the least certain bots
    first, closely matched tables — and plays one duplicate deal in all its seat
    rotations. A version submitted while it runs plays at the next table once it
    has connected; a removed one leaves at once. Its leaderboard is
    `arena rankings --ladder`.

    \b
    Example:
      arena ladder run --settings examples/ladder.toml
    """


@ladder.command("run")
@click.option("--name", default="ladder", show_default=True, help=LADDER_NAME_HELP)
@click.option("--settings", "settings_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="A TOML file of ladder settings: table_size, tables, seed, "
                                 "matchmaking, wait, [policy], [rules] [default: a stored "
                                 "ladder's own, or the defaults].")
@click.option("--tables", type=POSITIVE_UINT32, default=None,
              help="Tables at once [default: the settings', 4].")
@click.option("--games", "max_games", type=POSITIVE_UINT32, default=None,
              help="Stop once the ladder holds this many games, whole deals [default: play "
                   "until Ctrl-C or SIGTERM].")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=1, show_default=True,
              help="Worker processes that play the tables, each with its own match server and "
                   "copies of the managed bots (--tables at once on each); remote bots play on "
                   "one worker only.")
@click.option("--cluster", default="", metavar="ADDRESS",
              help="Play on the workers of the Dask distributed cluster whose scheduler is at "
                   "ADDRESS (every worker needs the bots' files).")
@click.option("--wait", type=click.FloatRange(0, 3600, min_open=True), default=None,
              metavar="SECONDS",
              help="Seconds a new version is given to connect, and a --cluster to have a "
                   "first worker [default: the settings' wait, 30].")
@metrics_option
@pass_context
def ladder_run(context: Context, name: str, settings_path: str | None, tables: int | None,
               max_games: int | None, workers: int, cluster: str, wait: float | None,
               metrics_at: MetricsAddress | None) -> None:
    """Play the ladder until Ctrl-C or SIGTERM (or --games); run it again to go on.

    Stopping abandons the games in play (they are played first next time) and
    keeps every finished one.

    \b
    Example:
      arena ladder run
      arena ladder run --tables 8 --settings ladder.toml
      arena ladder run --games 400
      arena ladder run --workers 4
    """
    refuse_remote_metrics(context.server, metrics_at)
    context.metrics_at = metrics_at
    settings = load_table(settings_path, "--settings")
    if wait is not None:
        settings["wait"] = wait
    request = admin_pb2.RunLadderRequest(name=name, settings_json=json.dumps(settings)
                                         if settings else "", tables=tables or 0,
                                         max_games=max_games or 0, workers=workers,
                                         cluster=cluster)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # A background job (`nohup arena ladder run &`) starts with SIGINT ignored; SIGTERM
        # stops the ladder as a SIGINT, so that must reach the ladder.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    terminated: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: _as_ctrl_c(terminated))
    follower = _LadderLine(name)

    async def body(session: Session) -> tuple[admin_pb2.RunProgress,
                                               list[admin_pb2.GetRankingsResponse]] | None:
        import asyncio

        from arena.cli.rankings_fetch import pool_rankings

        try:
            last = await follower.follow(session.admin.RunLadder(request))
        except asyncio.CancelledError:
            # Ctrl-C or SIGTERM: the call is cancelled, and the ladder with it. A server of
            # this command's own has recorded its last games once it has stopped; a
            # running one is asked now.
            if context.server:
                follower.recorded = await _games_done(session, name)
            return None
        return last, await pool_rankings(session, name, None)

    try:
        outcome = context.run(body)
        if outcome is None:
            raise KeyboardInterrupt
        last, standings = outcome
    except KeyboardInterrupt:
        ignore_ctrl_c()
        follower.end()
        played = _played_this_run(context, name, follower)
        click.echo(f"stopped after {played} games this run; the games in play were "
                   f"abandoned and go first next time. `arena ladder run --name {name}` goes "
                   f"on, `arena rankings --ladder {name}` shows its leaderboard.", err=True)
        # Stopped by SIGTERM (a supervisor, `systemctl stop`) is a clean end; by Ctrl-C, an
        # interrupted command.
        raise SystemExit(0 if terminated else 130) from None
    follower.end()
    emit_rankings(standings, "table")
    faults = run_faults_warning(last)
    if faults:
        click.echo(faults, err=True)


def _as_ctrl_c(terminated: list[int]) -> None:
    """SIGTERM stops the ladder as Ctrl-C does (noted in `terminated`)."""
    terminated.append(signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGINT)


RELEASE_WAIT = 10.0
"""How long a stopped remote ladder run is given to record the games it was recording
and let the ladder go, before the games it holds are counted anyway."""


async def _games_done(session: Session, name: str) -> int | None:
    """The games ladder `name` holds once the run that was playing it has let it go (a
    game being recorded as the run stopped is recorded first), as the server says; None
    if it cannot say."""
    import asyncio

    import grpc

    loop = asyncio.get_running_loop()
    given_up_at = loop.time() + RELEASE_WAIT
    while True:
        try:
            response = await session.admin.GetSchedule(
                admin_pb2.GetScheduleRequest(tournament=name, skip_games=True))
        except grpc.aio.AioRpcError:
            return None
        if not response.tournament.run_by or loop.time() >= given_up_at:
            return response.tournament.games_done
        await asyncio.sleep(0.05)


def _played_this_run(context: Context, name: str, follower: _LadderLine) -> int:
    """The games the ladder recorded this run, as the database has them once the run has
    stopped: games being recorded when it was stopped are kept, though their progress
    never reached this command. What the progress said, if the database cannot say."""
    if follower.first_done is None:
        return follower.played
    recorded = follower.recorded
    if not context.server:
        from arena.store import Store, StoreError

        try:
            with Store.open(context.db, read_only=True) as store:
                recorded = store.schedule_progress(name)[0]
        except (StoreError, OSError, sqlite3.Error):
            recorded = None
    if recorded is None:
        return follower.played
    return max(recorded - follower.first_done, follower.played)


class _LadderLine:
    """A line on stderr saying how far the ladder has come: redrawn in place on a
    terminal, printed every `EVERY` games elsewhere."""

    EVERY = 100

    def __init__(self, name: str) -> None:
        self.name = name
        self.first_done: int | None = None
        self.played = 0
        self.recorded: int | None = None
        """The games in the ladder once it stopped, as its server said (None: unknown)."""
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()
        self._shown = 0

    async def follow(self, updates: Any) -> admin_pb2.RunProgress:
        """Show every update of the stream; return the last."""
        last = admin_pb2.RunProgress()
        async for update in updates:
            if update.notice:
                self.end()
                click.echo(update.notice, err=True)
                continue
            last = update
            if self.first_done is None:
                if update.message:  # a line about the field, sent before the run began
                    click.echo(update.message, err=True)
                    continue
                self.first_done = update.done
                self.started = time.monotonic()
                click.echo(f"ladder {self.name}: {update.done} games so far; Ctrl-C stops",
                           err=True)
            self.played = update.done - self.first_done
            if update.message:
                self.end()
                click.echo(update.message, err=True)
                continue
            self._show(update)
        return last

    def _show(self, update: admin_pb2.RunProgress) -> None:
        rate = self.played / max(time.monotonic() - self.started, 1e-9)
        text = (f"ladder {self.name}: {self.played} games this run, {update.done} in all, "
                f"{rate:.1f} games/s")
        if self.tty:
            click.echo(f"\r{text}\x1b[K", nl=False, err=True)
            self._shown = 1
        elif self.played // self.EVERY > self._shown:
            self._shown = self.played // self.EVERY
            click.echo(text, err=True)

    def end(self) -> None:
        """End the line drawn in place, if any."""
        if self.tty and self._shown:
            click.echo("", err=True)
            self._shown = 0
