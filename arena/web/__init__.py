"""The participants' web front: leaderboards that follow the games live, crosstables,
tournaments and the timetable, every game's replay, the tables in play, and an author's
own area (sign in with a token, upload a bot, follow its build, see their bots' games
as their bots saw them).

It runs as its own process (`arena web`) beside a match server and reaches it only
through the admin RPCs, each sent with the visitor's own token: the server's one
permission table decides what every visitor sees. Needs the `web` extra.
"""

from arena.web.app import create_app
from arena.web.front import WebSettings

__all__ = ["WebSettings", "create_app"]
