"""The SQLite connection: WAL, foreign keys, migrations, one transaction per write, and the
redaction of every written text (see `redaction.py`). The home is private: 0700, its files 0600.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from heedful.errors import StoreError
from heedful.store.sqlite.redaction import RedactingConnection

if TYPE_CHECKING:
    from heedful.store.sqlite.terms import Tokenizer

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# Steps a migration needs that SQL cannot do, run in the same transaction right after it.
AFTER_MIGRATION = {5: "rebuild_terms"}


def _migration_files() -> list[tuple[int, Path]]:
    """(version, path) of every migration file, in order."""
    return sorted(
        (int(path.name.split("_", 1)[0]), path) for path in MIGRATIONS_DIR.iterdir() if path.name.endswith(".sql")
    )


def newest_migration() -> int:
    files = _migration_files()
    return files[-1][0] if files else -1


class Database:
    """One connection to one database file. Not shared across processes; each opens its own."""

    def __init__(self, path: Path, busy_timeout_ms: int = 5000) -> None:
        self.path = path
        secure_home(path.parent)
        try:
            # SQLite creates the -wal and -shm files with the database file's mode, so 0600 here
            # keeps all three private.
            os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
            self.conn = sqlite3.connect(
                str(path),
                isolation_level=None,
                check_same_thread=False,
                timeout=busy_timeout_ms / 1000,
                factory=RedactingConnection,
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the database at {path}: {exc}") from exc
        self.conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        if self._current_version() != newest_migration():
            self._migrate()  # the common case, an up-to-date file, takes no write lock at open

    def _current_version(self) -> int | None:
        try:
            row = self.conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        except sqlite3.OperationalError:  # a new file: no version table yet
            return None
        return None if row is None or row[0] is None else int(row[0])

    def _migrate(self) -> None:
        self.conn.execute("PRAGMA journal_mode = WAL")  # kept in the file: set once
        migrations = [(version, path.name, path.read_text(encoding="utf-8")) for version, path in _migration_files()]
        with self.transaction():
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                " applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
            )
            applied = {row[0] for row in self.conn.execute("SELECT version FROM schema_version")}
            newest_known = migrations[-1][0] if migrations else -1
            if applied and max(applied) > newest_known:
                raise StoreError(
                    f"the database at {self.path} was written by a newer heedful "
                    f"(schema {max(applied)} > {newest_known}); upgrade heedful to open it"
                )
            for version, name, sql in migrations:
                if version in applied:
                    continue
                for statement in _split_sql(sql):
                    self.conn.execute(statement)
                if version in AFTER_MIGRATION:
                    from heedful.store.sqlite import terms

                    getattr(terms, AFTER_MIGRATION[version])(self.conn)
                self.conn.execute("INSERT INTO schema_version (version, name) VALUES (?, ?)", (version, name))

    @cached_property
    def tokenizer(self) -> Tokenizer:
        """SQLite's FTS5 tokenizer on this connection (keyword terms are made with it)."""
        from heedful.store.sqlite.terms import Tokenizer

        return Tokenizer(self.conn)

    @property
    def schema_version(self) -> int:
        row = self.conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0])

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (BEGIN IMMEDIATE); nested calls join the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(f"the database at {self.path} is busy: {exc}") from exc
            self._depth = 1
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            else:
                self.conn.execute("COMMIT")
            finally:
                self._depth = 0

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def close(self) -> None:
        self.conn.close()


PRIVATE_FOLDERS = ("logs", "run")


def secure_home(home: Path) -> None:
    """Create the home 0700 and make it, its log and run folders 0700 and their files 0600.

    Files a process made before this ran (or with a loose umask) are tightened here; the
    database's own files are made private before they are opened.
    """
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the heedful home {home}: {exc}") from exc
    for folder in (home, *(home / name for name in PRIVATE_FOLDERS)):
        try:
            if not folder.is_dir():
                continue
            if stat.S_IMODE(folder.stat().st_mode) != 0o700:
                folder.chmod(0o700)
            for entry in os.scandir(folder):
                if entry.is_file(follow_symlinks=False) and stat.S_IMODE(entry.stat().st_mode) & 0o077:
                    os.chmod(entry.path, 0o600)
        except OSError:
            continue  # a folder we do not own (a shared home) keeps the modes its owner chose


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements; sqlite3.complete_statement keeps triggers whole."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        if not buffer and line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
