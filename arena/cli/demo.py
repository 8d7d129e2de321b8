"""`arena demo`: the whole journey on a fresh database, through the same admin calls."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

import arena
from arena.cli.app import main
from arena.cli.context import rpc_message
from arena.cli.inputs import SEED_HELP, UINT64
from arena.cli.output import emit_rankings, follow_progress
from arena.cli.rankings_fetch import pool_rankings
from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.session import Session

SAMPLE_BOTS = Path(arena.__file__).resolve().parent.parent / "sample_bots"


@dataclass(frozen=True)
class SampleBot:
    """A sample bot the demo can launch."""

    name: str
    command: str


def sample_bots(root: Path = SAMPLE_BOTS) -> tuple[list[SampleBot], list[str]]:
    """The sample bots that can run here, and notes on the ones that cannot."""
    python = root / "python"
    bots = [SampleBot(name, f"{sys.executable} {python / f'{name}_bot.py'}")
            for name in ("random", "greedy", "counter") if (python / f"{name}_bot.py").exists()]
    notes: list[str] = []
    node = shutil.which("node")
    if node and (root / "node" / "node_modules").is_dir():
        bots.append(SampleBot("node", f"{node} {root / 'node' / 'bot.js'}"))
    else:
        notes.append("the Node.js bot is left out (needs node and `make node-bot`)")
    cpp = root / "cpp" / "build" / "arena_bot"
    if cpp.exists():
        bots.append(SampleBot("cpp", str(cpp)))
    else:
        notes.append("the C++ bot is left out (build it with `make cpp-bot`)")
    return bots, notes


def run_demo(deals: int, seed: int, db_path: Path | None) -> None:
    """Register the sample bots, run a round-robin with a progress bar, print the rankings."""
    bots, notes = sample_bots()
    if len(bots) < 2:
        raise click.ClickException(f"no sample bots found in {SAMPLE_BOTS}")
    if db_path is not None and db_path.exists():
        raise click.ClickException(f"{db_path} already exists: the demo starts on a new database")
    folder = None if db_path is not None else Path(tempfile.mkdtemp(prefix="arena-demo-"))
    database = folder / "demo.db" if folder is not None else db_path
    assert database is not None
    import asyncio

    from arena.store import StoreError

    try:
        asyncio.run(_journey(bots, notes, deals, seed, database))
    except BaseException as exc:
        if database.exists():
            click.echo(f"(the demo's database and bot logs are kept in {database.parent})",
                       err=True)
        if isinstance(exc, sqlite3.Error | StoreError):
            raise click.ClickException(f"cannot use the database {database}: {exc}") from None
        raise
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        click.echo("\n(the demo played on a temporary database, now removed: "
                   "`arena demo --db demo.db` keeps it)", err=True)


async def _journey(bots: list[SampleBot], notes: list[str], deals: int, seed: int,
                   db_path: Path) -> None:
    from arena.cli.session import admin_session

    async with admin_session(None, db_path) as session:
        click.echo(f"arena server started in-process on {session.address} "
                   f"(database {db_path})")
        await _register(session, bots)
        for note in notes:
            click.echo(f"  note: {note}")
        table_size = min(4, len(bots))
        name = "demo"
        settings = {"format": "round_robin", "table_size": table_size, "seed": seed,
                    "deals_per_table": deals, "concurrency": 4,
                    "rules": {"target_score": None}}
        info = await session.admin.CreateTournament(admin_pb2.CreateTournamentRequest(
            name=name, bots=[b.name for b in bots], settings_json=json.dumps(settings)))
        click.echo(f"round-robin: {len(bots)} bots, {table_size} per table, every seat "
                   f"rotation, {deals} deal(s) per table, single hands: "
                   f"{info.games_total} games")
        await follow_progress(session.admin.RunTournament(
            admin_pb2.RunTournamentRequest(tournament=name, remote_wait_seconds=60)), "playing")
        standings = await pool_rankings(session, name, None)
        click.echo("\nRankings: each bot's score (the share of opponents it placed above) with "
                   "its 95% interval;\nbots the games cannot separate share a place. "
                   "TrueSkill's μ and σ beside.\n")
        emit_rankings(standings, "table")


async def _register(session: Session, bots: list[SampleBot]) -> None:
    for bot in bots:
        await session.admin.AddBot(admin_pb2.AddBotRequest(
            name=bot.name, kind="managed", command=bot.command))
    click.echo("registered sample bots: " + ", ".join(b.name for b in bots))


# ----------------------------------------------------------------------- demo

@main.command()
@click.option("--games", "deals", type=click.IntRange(1), default=3, show_default=True,
              help="Deals per table (each played in every seat rotation).")
@click.option("--seed", type=UINT64, default=2024, show_default=True, help=SEED_HELP)
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
    import grpc

    try:
        run_demo(deals=deals, seed=seed, db_path=demo_db)
    except grpc.aio.AioRpcError as exc:
        raise click.ClickException(rpc_message(exc, None)) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
