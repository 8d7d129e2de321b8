"""A throwaway PostgreSQL cluster for the tests, and fixtures that run a test on both
of the store's backends.

The cluster is started once per test session, the first time a test asks for it:
`initdb` in a fresh temporary folder (as the `postgres` user when the tests run as
root, since PostgreSQL refuses to run as root), trust authentication, listening on
127.0.0.1 at a free port; it is stopped and its folder removed when the session
ends. Each test gets a database of its own (a fresh schema: see `fresh_database`).
Without the server binaries or psycopg the test skips, saying why (and under CI a
skip fails).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support import free_port

if TYPE_CHECKING:
    import psycopg

BACKENDS = ("sqlite", "postgresql")
"""The ids of the two backends a parametrized test runs on."""

SHARED_DATABASE = "arena_tests"
"""The database whose schemas are the tests' databases (see `fresh_database`)."""

TEMPLATE_SCHEMA = "arena_template_schema"
"""Stands for the schema's name in the dump `migrated_database` replays."""

BIN_VARIABLE = "ARENA_TEST_PG_BIN"
"""Names the folder of PostgreSQL's server binaries, if they are not where Debian puts them."""


def server_binaries() -> Path | None:
    """The folder holding `initdb` and `pg_ctl`: `ARENA_TEST_PG_BIN`, else Debian's newest
    /usr/lib/postgresql/N/bin, else the PATH's; None when there is none."""
    chosen = os.environ.get(BIN_VARIABLE)
    candidates = [Path(chosen)] if chosen else []
    debian = Path("/usr/lib/postgresql")
    if debian.is_dir():
        versions = [entry for entry in debian.iterdir() if entry.name.isdigit()]
        candidates += [entry / "bin" for entry in sorted(versions, key=lambda e: -int(e.name))]
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


class PostgresCluster:
    """A running PostgreSQL cluster in a temporary folder; `fresh_database` hands out
    empty databases on it."""

    def __init__(self, binaries: Path, *, durable: bool = False) -> None:
        self.binaries = binaries
        self.durable = durable
        """Keep PostgreSQL's default durability (every commit flushed to disk); without
        it, as the tests need none, nothing is flushed."""
        self.user = "postgres" if os.geteuid() == 0 else None
        self.folder = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.port = free_port()
        self._numbers = itertools.count(1)
        self._admin_connection: psycopg.Connection[Any] | None = None
        self._shared_database_made = False
        self._template: str | None = None
        if self.user is not None:
            account = pwd.getpwnam(self.user)
            os.chown(self.folder, account.pw_uid, account.pw_gid)

    def start(self) -> None:
        """initdb and start the server; wait until it accepts connections."""
        data = self.folder / "data"
        self._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-locale", "--no-sync")
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder}"
                   " -c max_connections=200")
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(data), "-l", str(self.folder / "server.log"), "-w",
                  "-t", "60", "-o", options, "start")

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        if self._admin_connection is not None:
            self._admin_connection.close()
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "-w",
                      "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """The URL of `database` on this cluster, as the superuser `postgres`."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def fresh_database(self) -> str:
        """A new, empty database; return its URL. It is a schema of its own in one shared
        database, named in the URL's search path: PostgreSQL makes a schema at once,
        where `CREATE DATABASE` copies a template's files (a second or more on a busy
        machine)."""
        schema = f"test_{next(self._numbers)}"
        self._admin().execute(f'CREATE SCHEMA "{schema}"')
        return self._schema_url(schema)

    def migrated_database(self) -> str:
        """A new database already holding arena's current schema; return its URL.

        The schema is made once per session by `Store.open`, dumped by `pg_dump`, and
        each database after it is that dump replayed in one round trip, several times
        faster than running the migrations again."""
        if self._template is None:
            self._template = self._dump_of_a_migrated_schema()
        schema = f"test_{next(self._numbers)}"
        self._admin().execute(self._template.replace(TEMPLATE_SCHEMA, schema).encode())
        return self._schema_url(schema)

    def _schema_url(self, schema: str) -> str:
        return f"{self.url(SHARED_DATABASE)}?options=-csearch_path%3D{schema}"

    def _admin(self) -> psycopg.Connection[Any]:
        """The session's connection to the shared database (created with it)."""
        import psycopg

        if self._admin_connection is None:
            if not self._shared_database_made:
                with psycopg.connect(self.url(), autocommit=True) as server:
                    server.execute(f'CREATE DATABASE "{SHARED_DATABASE}"')
                self._shared_database_made = True
            self._admin_connection = psycopg.connect(self.url(SHARED_DATABASE),
                                                     autocommit=True)
        return self._admin_connection

    def _dump_of_a_migrated_schema(self) -> str:
        from arena.store import Store

        url = self.fresh_database()
        template = url.rpartition("%3D")[2]
        Store.open(url).close()
        dump = subprocess.run(
            [str(self.binaries / "pg_dump"), "--dbname", self.url(SHARED_DATABASE),
             "--schema", template, "--inserts", "--no-owner", "--no-privileges"],
            capture_output=True, text=True, timeout=120, check=True).stdout
        # Lines starting with a backslash are psql's commands (pg_dump's \restrict), not SQL.
        statements = "\n".join(line for line in dump.splitlines() if not line.startswith("\\"))
        return re.sub(rf"\b{template}\b", TEMPLATE_SCHEMA, statements)

    def end_sessions(self, user: str | None = None) -> int:
        """End every session on the shared database but this cluster's own (only those
        of `user`, if given), as `pg_terminate_backend` does; return once they are gone,
        with how many there were."""
        admin = self._admin()
        ended = [row[0] for row in admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()"
            " AND backend_type = 'client backend' AND (%s::text IS NULL OR usename = %s)",
            (SHARED_DATABASE, user, user)).fetchall()]
        for pid in ended:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        for _ in range(500):
            row = admin.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE pid = ANY(%s)",
                                (ended,)).fetchone()
            if row is None or row[0] == 0:
                break
            time.sleep(0.01)
        return len(ended)

    def add_user(self, name: str) -> None:
        """Create a superuser `name` that can log in (a second driver, say, whose
        sessions can be refused alone)."""
        self._admin().execute(f'CREATE ROLE "{name}" LOGIN SUPERUSER')

    def allow_login(self, name: str, allowed: bool) -> None:
        """Let the user `name` log in, or refuse its new sessions (its open ones go on)."""
        self._admin().execute(f'ALTER ROLE "{name}" {"LOGIN" if allowed else "NOLOGIN"}')

    @staticmethod
    def as_user(url: str, name: str) -> str:
        """`url`, one of this cluster's, for the user `name` instead of its own."""
        return re.sub(r"^postgresql://[^@/]*@", f"postgresql://{name}@", url)

    def restart(self) -> None:
        """Restart the server, as `pg_ctl restart -m fast` does: every session ends."""
        if self._admin_connection is not None:
            self._admin_connection.close()
            self._admin_connection = None
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-l",
                  str(self.folder / "server.log"), "-m", "fast", "-w", "-t", "60", "restart")

    def log(self) -> str:
        """What the server wrote to its log so far."""
        path = self.folder / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _run(self, program: str, *args: str) -> None:
        command: Sequence[str] = [str(self.binaries / program), *args]
        result = subprocess.run(command, user=self.user, group=self.user, cwd=self.folder,
                                capture_output=True, text=True, timeout=120, check=False)
        if result.returncode != 0:
            raise subprocess.CalledProcessError(result.returncode, command, result.stdout,
                                                f"{result.stderr}\n{self.log()}")


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """The session's PostgreSQL cluster, started the first time a test asks for it."""
    binaries = server_binaries()
    if binaries is None:
        pytest.skip("PostgreSQL's server binaries (initdb, pg_ctl) are not installed: "
                    f"install Debian's postgresql, or name their folder in {BIN_VARIABLE}")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed: pip install 'arena[postgres]'")
    cluster = PostgresCluster(binaries)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def postgres_url(postgres_cluster: PostgresCluster) -> str:
    """The URL of a new, empty PostgreSQL database of this test's own."""
    return postgres_cluster.fresh_database()


@pytest.fixture(params=BACKENDS)
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where this test's store lives, once on each backend: an SQLite file under
    tmp_path (yet to be created), or the URL of a new PostgreSQL database that holds
    arena's current schema and nothing else."""
    if request.param == "sqlite":
        return tmp_path / "arena.db"
    cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
    return cluster.migrated_database()
