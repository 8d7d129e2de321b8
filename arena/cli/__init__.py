"""The `arena` command line: a thin click layer over the admin service.

Every command reaches a server through `arena.cli.session.admin_session`: the
one named by `--server HOST:PORT`, or the same server started in-process on
the local database (`./arena.db`, or `ARENA_DB`). `app` holds the command
group; each module beside it adds the commands of one kind (`serve`, `bots`,
`tournaments`, `ladder`, `rankings`, `games`, `export`, `report`, `demo`, `db`, `doctor`,
`people`, `new`, `web`), over
`context` (reaching the server, errors, Ctrl-C), `inputs` (what a command
takes) and `output` (what it prints).
"""

from arena.cli import (
    bots,
    db,
    demo,
    doctor,
    export,
    games,
    ladder,
    new,
    people,
    rankings,
    report,
    serve,
    tournaments,
    web,
)
from arena.cli.app import main

__all__ = ["bots", "db", "demo", "doctor", "export", "games", "ladder", "main", "new", "people",
           "rankings", "report", "serve", "tournaments", "web"]
