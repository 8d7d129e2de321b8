"""The ladder on worker processes: each worker launches the bots its chunks bring, so a bot
added while the ladder plays joins it there too; every game is recorded once."""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path

import pytest

from tests.cli.cli_support import (
    ARENA,
    ONE_HAND,
    add_bots,
    bot_command,
    marked_env,
    ok,
    query,
    write_json,
)
from tests.support import wait_until

pytestmark = pytest.mark.timeout(240)


def _games_of(db: Path, bot: str) -> int:
    if not db.exists():
        return 0
    return int(query(db, "SELECT count(*) AS n FROM game_seats s JOIN bots b ON "
                         "b.id = s.bot_id WHERE b.name = ?", bot)[0]["n"])


def test_a_ladder_on_two_workers_takes_in_a_bot_added_while_it_plays(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    settings = write_json(tmp_path / "ladder.json", {"rules": ONE_HAND, "tables": 2})
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    with marked_env(f"workers-{tmp_path.name}") as env:
        ladder = subprocess.Popen([*ARENA, "--db", str(db), "ladder", "run", "--workers", "2",
                                   "--settings", str(settings)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                   signal.SIG_DFL))
        try:
            wait_until(lambda: _games_of(db, "greedy") >= 6, timeout=60,
                       what="the ladder's first games")
            ok(db, "bot", "add", "late", "--command", bot_command("counter"))
            wait_until(lambda: _games_of(db, "late") >= 2, timeout=60,
                       what="the added bot's first games on the workers")
            ladder.send_signal(signal.SIGTERM)
            # The workers give up their chunks in play: their games stay queued.
            _, err = ladder.communicate(timeout=90)
        finally:
            if ladder.poll() is None:
                ladder.kill()
                print("ladder said:", ladder.communicate()[1].decode())
    assert ladder.returncode == 0, err.decode()
    assert "Traceback" not in err.decode(), err.decode()
    done = query(db, "SELECT s.game_id FROM scheduled_games s WHERE s.status = 'done'")
    assert len(done) == len({row["game_id"] for row in done})
    assert len(query(db, "SELECT id FROM games")) == len(done), "every game recorded once"
    [said] = re.findall(r"stopped after (\d+) games this run", err.decode())
    assert int(said) == len(done), "the games this run, as recorded"
