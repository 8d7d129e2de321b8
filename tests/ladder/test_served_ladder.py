"""`arena serve --ladder` as a new user meets it: a real server process, two bots
submitted over gRPC and playing within the minute, the ladder's leaderboard with its
uncertainty moving, a final scheduled beside it, and a clean stop on SIGTERM."""

from __future__ import annotations

import json
import signal
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.cli.cli_support import (
    ONE_HAND,
    PYTHON_BOTS,
    arena,
    leaderboard_tables,
    marked_env,
    ok,
    query,
    serving,
    wait_for_line,
    write_json,
)
from tests.support import free_port, wait_until

pytestmark = pytest.mark.timeout(150)


def _ladder_games(db: Path) -> int:
    return int(query(db, "SELECT count(*) AS n FROM games g JOIN scheduled_games s ON "
                         "s.game_id = g.id JOIN tournaments t ON t.id = s.tournament_id "
                         "WHERE t.format = 'ladder'")[0]["n"])


def _standings(db: Path, server: str) -> dict[str, dict[str, str]]:
    shown = arena(db, "--server", server, "rankings", "--ladder")
    if shown.exit_code != 0:
        return {}
    [(_, rows)] = leaderboard_tables(shown.stdout)
    return {row["bot"]: row for row in rows}


def test_serve_ladder_plays_two_submitted_bots_and_a_final_beside_them(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    settings = write_json(tmp_path / "ladder.json", {"rules": ONE_HAND})
    port = free_port()
    server_address = f"127.0.0.1:{port}"
    with marked_env(f"served-{tmp_path.name}") as env, \
            serving(db, port, env, "--ladder", str(settings), "--tables", "2") as server:
        said = wait_for_line(server, "arena serving on", 30)
        submitted_at = datetime.now()
        for manifest in ("arena-bot.toml", "random.arena-bot.toml"):
            ok(db, "--server", server_address, "bot", "submit", str(PYTHON_BOTS),
               "--manifest", manifest)
        wait_until(lambda: {"greedy@1", "random@1"} <= set(_standings(db, server_address)),
                   timeout=60, what="both bots on the ladder's leaderboard", interval=0.2)
        assert datetime.now() - submitted_at < timedelta(seconds=60)
        first = _standings(db, server_address)
        wait_until(lambda: int(_standings(db, server_address)["greedy@1"]["games"])
                   >= int(first["greedy@1"]["games"]) + 4, timeout=60,
                   what="the leaderboard to move", interval=0.2)
        later = _standings(db, server_address)
        assert float(later["greedy@1"]["σ"]) < float(first["greedy@1"]["σ"]), \
            "its uncertainty shrinks as games are added"

        at = (datetime.now() + timedelta(seconds=3)).strftime("%Y-%m-%d %H:%M:%S")
        ok(db, "--server", server_address, "tournament", "create", "final", "--at", at,
           "--table-size", "2", "--deals", "3", "--settings", str(settings))
        listed = json.loads(ok(db, "--server", server_address, "tournament", "list",
                               "--format", "json").stdout)
        assert any(entry.get("name") == "final" for entry in _scheduled(listed))
        ladder_before = _ladder_games(db)
        said += wait_for_line(server, "timetable: started final-", 30)
        edition = f"final-{datetime.now():%Y-%m-%d}"
        wait_until(lambda: query(db, "SELECT status FROM tournaments WHERE name = ?",
                                 edition)[0]["status"] == "finished",
                   timeout=60, what="the final to finish", interval=0.2)
        assert _ladder_games(db) > ladder_before, "the ladder played on beside the final"
        final = ok(db, "--server", server_address, "tournament", "standings", edition)
        assert {row["bot"] for _, rows in leaderboard_tables(final.stdout) for row in rows} \
            == {"greedy@1", "random@1"}

        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
        assert server.stderr is not None
        rest = server.stderr.read().decode()
    assert "Traceback" not in said + rest
    assert "ladder: greedy@1 joined" in said + rest
    statuses = {row["status"] for row in query(
        db, "SELECT s.status FROM scheduled_games s JOIN tournaments t ON "
            "t.id = s.tournament_id WHERE t.format = 'ladder'")}
    assert statuses <= {"done", "pending"}
    recorded = query(db, "SELECT game_id FROM scheduled_games WHERE status = 'done'")
    assert len(recorded) == len(query(db, "SELECT id FROM games")), "no half-written game"


def _scheduled(listed: list[dict[str, object]]) -> list[dict[str, object]]:
    """The timetable's entries in `tournament list --format json`."""
    return [entry for entry in listed if entry["status"] == "scheduled"]
