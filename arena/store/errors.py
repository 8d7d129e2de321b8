"""What the store raises: one `StoreError` family, a kind for each way a call can fail."""

from __future__ import annotations


class StoreError(Exception):
    """Base of every error the store raises on bad input or a bad database."""


class DuplicateName(StoreError):
    """A bot or tournament with that name already exists."""


class UnknownBot(StoreError):
    """No active bot has that name."""


class UnknownTournament(StoreError):
    """No tournament has that name or id."""


class UnknownTimetable(UnknownTournament):
    """No tournament on the timetable has that name."""


class UnknownGame(StoreError):
    """No game or scheduled game has that id."""


class InvalidInput(StoreError):
    """A value the store was given is malformed or inconsistent."""


class AlreadyRecorded(StoreError):
    """The scheduled game already has a recorded result."""


class SchemaError(StoreError):
    """The database schema is newer than this code, or a migration failed."""


class NoDatabase(StoreError):
    """A database opened only to be read does not exist, or holds nothing yet."""


class NotWritable(StoreError):
    """A database to be written, or the folder it is in, cannot be written."""


class DamagedDatabase(StoreError):
    """A row of the database cannot be read back: it was changed or broken outside arena."""


class EntrantRemoved(StoreError):
    """A bot a tournament still has games for has been removed."""


class TournamentBusy(StoreError):
    """Another run, in this process or another, is playing the tournament's games."""


class DatabaseError(StoreError):
    """The database server could not be reached, or refused a statement (PostgreSQL;
    SQLite's own errors are `sqlite3.Error`s)."""


class ConstraintViolation(DatabaseError):
    """A statement broke one of the schema's constraints (PostgreSQL)."""


class ConnectionLost(DatabaseError):
    """The connection to the database server broke (the server restarted, the session
    was ended, the network failed): the statement, and the transaction it was in, did
    not take effect, unless `during_commit` says the commit itself was cut off."""

    def __init__(self, message: str, *, during_commit: bool = False) -> None:
        super().__init__(message)
        self.during_commit = during_commit
        """Whether the connection broke while committing: the commit may have taken
        effect or not."""


class ReconnectFailed(DatabaseError):
    """The connection to the database was lost and could not be made again in time;
    what was being written was not written."""


class CommitUncertain(DatabaseError):
    """The connection to the database broke while a change that cannot safely be made
    twice was being committed: it may or may not have been made."""


class ClaimTakenOver(TournamentBusy):
    """While this run was disconnected from the database, another run took its claim on
    the tournament over: this run must write nothing more for it."""


class NotOwner(StoreError):
    """A bot's name belongs to someone else: their versions hold it."""


class StatementTimeout(DatabaseError):
    """The database cancelled a statement that ran longer than the statement timeout
    (`ConnectionSettings.statement_timeout`); nothing of its transaction was kept."""
