"""The SQLite files' connections and their schemas' migrations: the kiosks' journals and the
scorer's store.

A connection is a `Database`: sqlite3's own, plus transactions as context managers. The
schemas are built and changed by sqlite-utils' migrations, but sqlite-utils is imported only
when a file has a migration still to run: with what it imports (click, dateutil, pluggy) it was
a fifth of the scorer's start and of every kiosk command that opens a journal, to build
schemas that are built once. numpy is hidden from that import: sqlite-utils imports it, when
installed (it is, on the scorer), only to guess column types for numpy values, which no file
here holds."""

from __future__ import annotations

import contextlib
import errno
import secrets
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import JournalError

if TYPE_CHECKING:
    import sqlite_utils

    Schema = sqlite_utils.Database  # what a migration is given: sqlite-utils' whole API
else:
    Schema = Any


class Database:
    """One connection. Statements commit as they run, unless inside `atomic()`."""

    BEGIN = "BEGIN"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()
                ) -> sqlite3.Cursor:
        return self.conn.execute(sql, parameters)

    @contextlib.contextmanager
    def atomic(self) -> Iterator[Database]:
        """A transaction, committed when the block ends and rolled back if it raises; inside
        another one, a savepoint."""
        if self.conn.in_transaction:
            savepoint = f"nested_{secrets.token_hex(8)}"
            self.conn.execute(f"SAVEPOINT {savepoint}")
            try:
                yield self
            except BaseException:
                if self.conn.in_transaction:  # (an error may have ended the transaction)
                    self.conn.execute(f"ROLLBACK TO {savepoint}")
                    self.conn.execute(f"RELEASE {savepoint}")
                raise
            self.conn.execute(f"RELEASE {savepoint}")
            return
        self.conn.execute(self.BEGIN)
        try:
            yield self
            self.conn.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise

    def rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def close(self) -> None:
        self.conn.close()


def durable(path: str | Path, timeout: float = 10) -> Database:
    """A connection with the settings every writer of a journal or the store must have: WAL
    and synchronous=FULL. Raises JournalError when the file cannot be opened so."""
    conn = None
    try:
        # One thread at a time uses a connection, but it may move from the thread that opened
        # it (a kiosk's session runner, the scorer's writer).
        conn = sqlite3.connect(str(path), isolation_level=None, timeout=timeout,
                               check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        level = conn.execute("PRAGMA synchronous").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        raise journal_error(Path(path), exc) from None
    if mode != "wal" or level != 2:
        conn.close()
        raise JournalError(f"{path}: journal_mode={mode}, synchronous={level}; need wal and "
                           "FULL (2)", "journal.unreadable", path=Path(path).name)
    return Database(conn)


def journal_error(path: Path, exc: BaseException, doing: str = "cannot open the journal"
                  ) -> JournalError:
    """The JournalError a person can act on for an SQLite or OS failure (the store's file is
    SQLite as a journal is, and fails the same ways)."""
    text, code = str(exc).lower(), getattr(exc, "errno", None)
    if "readonly" in text or "read-only" in text or code == errno.EROFS:
        key = "journal.read-only"
    elif "full" in text or code == errno.ENOSPC:
        key = "journal.full"
    elif "malformed" in text or "not a database" in text or "corrupt" in text:
        key = "journal.damaged"
    else:
        key = "journal.unreadable"
    return JournalError(f"{path}: {doing}: {exc}", key, path=path.name)


Migration = Callable[[Schema], None]


class Migrations:
    """A file's schema changes, in order, each run once (recorded in sqlite-utils' table of
    applied migrations, under this set's name)."""

    TABLE = "_sqlite_migrations"

    def __init__(self, name: str) -> None:
        self.name = name
        self._steps: list[Migration] = []

    def __call__(self) -> Callable[[Migration], Migration]:
        def register(step: Migration) -> Migration:
            self._steps.append(step)
            return step
        return register

    def pending(self, db: Database) -> list[str]:
        """The names of the migrations not yet run on `db`'s file, in order."""
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [self.TABLE]).fetchone():
            applied: set[str] = set()
        else:
            applied = {name for (name,) in db.execute(
                f"SELECT name FROM {self.TABLE} WHERE migration_set = ?", [self.name])}
        return [step.__name__ for step in self._steps if step.__name__ not in applied]

    def apply(self, db: Database, stop_before: str | None = None) -> None:
        """Runs the pending migrations (those before `stop_before`), each in a transaction of
        `db`'s kind with its record."""
        if not self.pending(db):
            return
        library = _sqlite_utils()

        class Changing(library.Database):  # type: ignore[misc,name-defined]
            def atomic(self) -> contextlib.AbstractContextManager[Any]:
                return db.atomic()  # (a migration's transaction begins as `db`'s do)

        steps = library.migrations.Migrations(self.name)
        for step in self._steps:
            steps()(step)
        steps.apply(Changing(db.conn), stop_before=stop_before)


def _sqlite_utils() -> Any:
    hidden = "numpy" not in sys.modules and "sqlite_utils" not in sys.modules
    if hidden:
        sys.modules["numpy"] = None  # type: ignore[assignment]  # (an import of it fails)
    try:
        import sqlite_utils
        import sqlite_utils.migrations
    finally:
        if hidden:
            del sys.modules["numpy"]
    return sqlite_utils
