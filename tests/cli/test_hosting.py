"""Hosting a competition from the command line, as docs/how-to/host-a-competition.md
walks it: the organizer adds authors and an invite, each author signs in with their own
token, submits, sees
their bot on the leaderboard, and is refused everything that is someone else's — against
a real `arena serve`."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from arena.server.auth import ADMIN_TOKEN_VARIABLE
from tests.cli.cli_support import PYTHON_BOTS, invoke, marked_env, serving, wait_for_line
from tests.support import free_port

ORGANIZER = "organizer-token-for-hosting"


def test_an_author_goes_from_login_to_the_leaderboard_and_sees_only_their_own(
        tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "served.db"
    address = f"127.0.0.1:{port}"
    organizer = {ADMIN_TOKEN_VARIABLE: ORGANIZER}

    def as_author(credentials: str) -> dict[str, str | None]:
        """An author's shell: no organizer token anywhere, their own credentials file."""
        return {ADMIN_TOKEN_VARIABLE: None, "ARENA_DB": str(tmp_path / "mine.db"),
                "ARENA_CREDENTIALS": str(tmp_path / credentials)}

    alice, bob = as_author("alice.json"), as_author("bob.json")
    with (marked_env(f"hosting-{os.getpid()}-{port}") as env,
          serving(db, port, {**env, **organizer}) as server):
        wait_for_line(server, "Ctrl-C stops", timeout=20)

        def run(who: Mapping[str, str | None], *args: str) -> tuple[int, str, str]:
            result = invoke("--server", address, *args, env=who)
            return result.exit_code, result.stdout, result.stderr

        code, alice_token, said = run(organizer, "author", "add", "alice")
        assert code == 0 and "token (shown once" in said
        code, invite, _ = run(organizer, "author", "invite", "--cap", "1")
        assert code == 0

        # Alice signs in with the token she was given; Bob registers with the invite.
        code, out, _ = run(alice, "login", "--token", alice_token.strip())
        assert code == 0 and out.startswith(f"signed in to {address} as author alice"), out
        credentials = tmp_path / "alice.json"
        assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
        assert json.loads(credentials.read_text())[address]["name"] == "alice"
        registered = invoke("author", "register", "--server", address, "--invite",
                            invite.strip(), "bob", env=bob)
        assert registered.exit_code == 0, registered.output
        assert f"signed in to {address}" in registered.stderr
        code, _, said = run(bob, "author", "register", "--invite", invite.strip(), "cy")
        assert code == 1 and "used up" in said

        code, out, _ = run(alice, "whoami", "--format", "json")
        me = json.loads(out)[0]
        assert (me["role"], me["name"], me["may_run"]) == ("author", "alice", False)

        # Alice submits; her bot is hers, and Bob can neither add versions to it nor read it.
        code, out, said = run(alice, "bot", "submit", str(PYTHON_BOTS))
        assert (code, out) == (0, "greedy@1\n"), said
        code, _, said = run(bob, "bot", "submit", str(PYTHON_BOTS))
        assert code == 1 and "belongs to someone else" in said, said
        code, _, said = run(bob, "bot", "versions", "greedy")
        assert code == 1 and "needs its author's token; it is not yours" in said, said
        code, _, said = run(bob, "bot", "remove", "greedy")
        assert code == 1 and "it is not yours" in said, said
        code, _, said = run(alice, "tournament", "create", "cup", "--latest")
        assert code == 1 and "leave to run competitions" in said, said
        code, _, said = run(alice, "author", "list")
        assert code == 1 and "needs the organizer's token; you are author alice" in said

        # The organizer's house bot and a final over the latest entrants, one per author.
        code, _, said = run(organizer, "bot", "submit", str(PYTHON_BOTS), "--manifest",
                            "random.arena-bot.toml")
        assert code == 0, said
        code, out, said = run(organizer, "tournament", "create", "final", "--latest",
                              "--per-author", "1", "--table-size", "2", "--deals", "1")
        assert code == 0 and "2 bots" in out, said
        code, out, said = run(organizer, "tournament", "run", "final")
        assert code == 0, said

        code, out, said = run(alice, "rankings", "--tournament", "final", "--format", "json")
        assert code == 0, said
        assert sorted(row["bot"] for row in json.loads(out)) == ["greedy@1", "random@1"]
        code, out, _ = run(alice, "games", "--mine", "--format", "json")
        assert code == 0 and len(json.loads(out)) == 2
        assert all("greedy@1" in game["seats"] for game in json.loads(out))
        game = json.loads(out)[0]["id"]
        code, out, said = run(alice, "replay", game, "--as", "greedy@1")
        assert code == 0 and "arena bot log greedy@1" in out, said
        code, public, said = run(alice, "replay", game)
        assert code == 0, said
        code, _, said = run(bob, "replay", game, "--as", "greedy@1")
        assert code == 1 and "it is not yours" in said, said
        code, _, said = run(alice, "bot", "log", "greedy@1")
        assert code == 0, said
        code, _, said = run(bob, "bot", "log", "greedy@1")
        assert code == 1 and "it is not yours" in said, said
        code, out, _ = run(bob, "games", "--mine", "--format", "json")
        assert code == 0 and json.loads(out) == []
        code, out, _ = run(bob, "bot", "list", "--format", "json")
        listed = {row["name"]: row for row in json.loads(out)}
        assert listed["greedy@1"]["author"] == "alice"
        assert listed["greedy@1"]["command"] is None  # how the server runs it is not Bob's

        # Seeds reveal hands: only the organizer sees them.
        code, out, _ = run(alice, "tournament", "schedule", "final", "--format", "json")
        assert code == 0 and [game["seed"] for game in json.loads(out)] == [None, None]
        code, out, _ = run(organizer, "tournament", "schedule", "final", "--format", "json")
        assert all(isinstance(game["seed"], int) for game in json.loads(out))
        code, out, _ = run(alice, "export", "final")
        header = json.loads(out.splitlines()[0])["header"]
        assert "seed" not in header["settings"]
        exported = [json.loads(line)["game"] for line in out.splitlines()[1:]]
        assert len(exported) == 2 and all("record" not in game for game in exported)
        shown = json.dumps([game["public_events"] for game in exported])
        assert "hand_started" in shown and "cards_received" not in shown  # no one's cards
        code, out, _ = run(organizer, "export", "final")
        assert "seed" in json.loads(out.splitlines()[0])["header"]["settings"]
        assert all("record" in json.loads(line)["game"] for line in out.splitlines()[1:])

        code, out, _ = run(alice, "audit", "--format", "json")
        actions = [(line["action"], line["result"]) for line in json.loads(out)]
        assert ("SubmitBot", "ok") in actions and all(a != "AddAuthor" for a, _ in actions)
        code, out, _ = run(organizer, "audit", "--author", "bob", "--format", "json")
        assert [line["result"].split()[0] for line in json.loads(out)
                if line["action"] == "SubmitBot"] == ["refused"]

        code, out, _ = run(alice, "logout")
        assert (code, out) == (0, f"signed out of {address}\n")
        code, _, said = run(alice, "whoami")
        assert code == 1 and "missing token" in said
