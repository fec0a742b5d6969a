"""The PostgreSQL connection layer: a pool, one connection per transaction, migrations, redaction.

SQL is written as for SQLite, with `?` placeholders; `to_pg` turns it into psycopg's `%s` form
(and doubles literal `%`), so the repositories of both backends read alike and the SQLite
redaction planner (`placeholder_columns`) reads the same statement text:

    INSERT INTO notes (id, body) VALUES (?, ?)   -> INSERT INTO notes (id, body) VALUES (%s, %s)
    ... WHERE action LIKE 'appeal_%'             -> ... WHERE action LIKE 'appeal_%%'

A cursor given no parameters at all (`conn.execute(sql)`) runs the text as written (migrations);
psycopg's own `%s`/`%(name)s` forms and `psycopg.sql` compositions are accepted too.

Every written text is redacted on its way in exactly as in SQLite: `RedactingCursor` binds each
INSERT/UPDATE parameter (also one behind a WITH clause) through `redact_value` unless its column
is known to hold no free text. COPY is not redacted: write with INSERT.

The repositories use `Database.transaction()`, `fetchone`/`fetchall`/`execute`, or `db.conn`, which
stands in for SQLite's connection (each statement joins this thread's transaction or runs alone).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from heedful.errors import StoreError
from heedful.redact_values import is_safe_column, placeholder_columns, redact_value

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
EXTENSIONS = ("vector", "pg_trgm")
# pg_advisory_xact_lock key held while migrating: several processes starting at once migrate once.
MIGRATION_LOCK = 0x68656564  # "heed"
Row = dict[str, Any]
_WITH_WRITE = re.compile(r"^\s*WITH\b.*\b(?:INSERT|UPDATE)\b", re.IGNORECASE | re.DOTALL)
_PSYCOPG_PLACEHOLDER = re.compile(r"%\(\w+\)s|%s")


def _migration_files() -> list[tuple[int, Path]]:
    """(version, path) of every migration file, in order."""
    return sorted(
        (int(path.name.split("_", 1)[0]), path) for path in MIGRATIONS_DIR.iterdir() if path.name.endswith(".sql")
    )


def newest_migration() -> int:
    files = _migration_files()
    return files[-1][0] if files else -1


def public_url(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    except ValueError:  # not a URL we can take apart (a bad port, a broken address): show none of it
        return "the configured URL"
    return urlunsplit(parts._replace(netloc=netloc))


@lru_cache(maxsize=512)
def to_pg(sql: str) -> str:
    """`?` placeholders outside quotes become `%s`; every literal `%` is doubled."""
    out: list[str] = []
    quote = ""
    for char in sql:
        if char == "%":
            out.append("%%")
        elif quote:
            quote = "" if char == quote else quote
            out.append(char)
        elif char in "'\"":
            quote = char
            out.append(char)
        elif char == "?":
            out.append("%s")
        else:
            out.append(char)
    return "".join(out)


@lru_cache(maxsize=512)
def _plan(sql: str) -> tuple[bool, ...] | None:
    """For a write statement, whether each placeholder's column is safe; None for other statements."""
    columns = placeholder_columns(sql)
    if columns is None and _WITH_WRITE.search(sql):
        # A write behind a WITH clause: each placeholder is judged by what it is compared with or
        # assigned to; one in a VALUES list has no column found this way and is redacted.
        columns = placeholder_columns(f"UPDATE {sql}")
    return None if columns is None else tuple(is_safe_column(column) for column in columns)


@lru_cache(maxsize=4096)
def _redacted(value: str) -> str:
    """`redact_value`, remembered: the same text is often written to several tables in a row."""
    return str(redact_value(value))


def _clean_value(value: Any) -> Any:
    if isinstance(value, str):
        return _redacted(value) if value else value
    if isinstance(value, (list, tuple)):  # an array parameter: each of its texts
        return [_clean_value(item) for item in value]
    return value


def redact_parameters(sql: str, parameters: Sequence[Any] | Mapping[str, Any]) -> Sequence[Any] | Mapping[str, Any]:
    """The parameters of a `?`-style statement with every text redacted unless its column is safe."""
    if isinstance(parameters, Mapping):  # named: each value is judged by its name, as in SQLite
        if _plan(sql) is None:
            return parameters
        return {key: value if is_safe_column(key) else _clean_value(value) for key, value in parameters.items()}
    plan = _plan(sql)
    if plan is None or all(plan):
        return parameters
    return [
        value if index < len(plan) and plan[index] else _clean_value(value) for index, value in enumerate(parameters)
    ]


class RedactingCursor(psycopg.Cursor[Any]):
    """A cursor that takes SQLite-style `?` statements and redacts what INSERT/UPDATE bind."""

    def execute(  # type: ignore[override]
        self,
        query: str | sql.SQL | sql.Composed,
        params: Sequence[Any] | Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> RedactingCursor:
        if params is None:
            super().execute(query, **kwargs)  # no parameters: run as written (migrations, DDL)
        elif isinstance(query, str) and not isinstance(params, Mapping):
            super().execute(to_pg(query), redact_parameters(query, params), **kwargs)
        else:  # psycopg's own placeholders (%s, %(name)s), or a query composed with psycopg.sql
            text = query if isinstance(query, str) else query.as_string(self)
            super().execute(text, redact_parameters(_PSYCOPG_PLACEHOLDER.sub("?", text), params), **kwargs)
        return self

    def executemany(  # type: ignore[override]
        self, query: str, params_seq: Sequence[Sequence[Any]], **kwargs: Any
    ) -> None:
        cleaned = [redact_parameters(query, params) for params in params_seq]
        super().executemany(to_pg(query), cleaned, **kwargs)


def _configure(conn: psycopg.Connection[Any], lock_timeout_ms: int | None = None) -> None:
    conn.cursor_factory = RedactingCursor
    conn.row_factory = dict_row  # type: ignore[assignment]
    if lock_timeout_ms is not None:  # for the session: autocommit statements and transactions alike
        conn.execute("SELECT set_config('lock_timeout', ?, false)", (f"{int(lock_timeout_ms)}ms",))


@dataclass(slots=True)
class Result:
    """The rows of one statement, already fetched (the connection went back to the pool)."""

    rows: list[Row]
    rowcount: int

    def fetchone(self) -> Row | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[Row]:
        return self.rows

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)


class AutoConnection:
    """What SQLite's `db.conn` is to its repositories: `execute` runs in this thread's open
    transaction, or else on a pooled connection for that one statement (autocommit)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        with self.db.read() as conn:
            cursor = conn.execute(sql, params)
            rows = list(cursor.fetchall()) if cursor.description is not None else []
            return Result(rows, cursor.rowcount)


class Database:
    """A pool of connections to one PostgreSQL database, migrated at open. Safe to share across threads.

    `transaction()` holds one pooled connection for its whole extent; a nested call in the same
    thread joins it (as in SQLite: an error anywhere rolls the whole of it back). Reads outside
    a transaction borrow a connection for one statement.
    """

    def __init__(self, url: str, pool_size: int = 4, timeout: float = 30.0, lock_timeout_ms: int | None = None) -> None:
        self.url = url
        # How long a write waits for a lock another transaction holds (None: as long as it takes);
        # a hook sets it low and spools its writes instead of waiting, as with SQLite's busy_timeout.
        self.lock_timeout_ms = lock_timeout_ms
        self._local = threading.local()
        self.conn = AutoConnection(self)
        try:
            # One direct connection first: a wrong URL or a down server fails now, in one line,
            # instead of after the pool's retries.
            psycopg.connect(url, connect_timeout=int(timeout)).close()
            self.pool = ConnectionPool(
                url,
                min_size=1,
                max_size=max(1, pool_size),
                kwargs={"autocommit": True},
                configure=partial(_configure, lock_timeout_ms=lock_timeout_ms),
                timeout=timeout,
                name="heedful",
                open=False,
            )
            self.pool.open(wait=True, timeout=timeout)
        except (psycopg.Error, PoolTimeout) as exc:
            raise StoreError(f"cannot connect to the database at {public_url(url)}: {_first_line(exc, url)}") from exc
        try:
            if self._current_version() != newest_migration():
                self._migrate()  # an up-to-date database takes no lock at open
        except BaseException:
            self.pool.close()
            raise

    # -- connections and transactions ---------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection[Any]]:
        """A read-write transaction on one connection; nested calls in this thread join the outer one."""
        current: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        with self._borrow() as conn:
            self._local.conn = conn
            try:
                with conn.transaction():
                    yield conn
            finally:
                self._local.conn = None

    @contextmanager
    def read(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection for reads: this thread's open transaction, else one from the pool."""
        current: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        with self._borrow() as conn:
            yield conn

    @contextmanager
    def _borrow(self) -> Iterator[psycopg.Connection[Any]]:
        try:
            with self.pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise StoreError(f"no free connection to the database at {public_url(self.url)}: {exc}") from exc
        except psycopg.errors.LockNotAvailable as exc:
            raise StoreError(f"the database at {public_url(self.url)} is busy: {_first_line(exc, self.url)}") from exc
        except psycopg.OperationalError as exc:
            raise StoreError(
                f"the database at {public_url(self.url)} is unavailable: {_first_line(exc, self.url)}"
            ) from exc

    def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        with self.read() as conn:
            row: Row | None = conn.execute(sql, params).fetchone()
            return row

    def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self.read() as conn:
            return list(conn.execute(sql, params).fetchall())

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement in this thread's transaction, or on its own (one statement is atomic by
        itself: no BEGIN/COMMIT round trips); the number of rows it touched."""
        with self.read() as conn:
            return conn.execute(sql, params).rowcount

    @staticmethod
    def lock(conn: psycopg.Connection[Any], key: str) -> None:
        """Hold an advisory lock on `key` until the transaction ends (serialises writers of one user's rows)."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (key,))

    # -- migrations ----------------------------------------------------------------------------
    def _current_version(self) -> int | None:
        with self.read() as conn:
            found = conn.execute("SELECT to_regclass('schema_version') AS name", ()).fetchone()
            if found is None or found["name"] is None:
                return None
            row = conn.execute("SELECT MAX(version) AS version FROM schema_version", ()).fetchone()
        return None if row is None or row["version"] is None else int(row["version"])

    def _migrate(self) -> None:
        migrations = [(version, path.name, path.read_text(encoding="utf-8")) for version, path in _migration_files()]
        newest_known = migrations[-1][0] if migrations else -1
        with self.transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
            self._ensure_extensions(conn)
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            applied = {row["version"] for row in conn.execute("SELECT version FROM schema_version", ())}
            if applied and max(applied) > newest_known:
                raise StoreError(
                    f"the database at {public_url(self.url)} was written by a newer heedful "
                    f"(schema {max(applied)} > {newest_known}); upgrade heedful to open it"
                )
            for version, name, sql in migrations:
                if version in applied:
                    continue
                try:
                    conn.execute(sql)  # no parameters: several statements, run as written
                except psycopg.Error as exc:
                    raise StoreError(f"migration {name} failed: {_first_line(exc, self.url)}") from exc
                conn.execute("INSERT INTO schema_version (version, name) VALUES (?, ?)", (version, name))

    def _ensure_extensions(self, conn: psycopg.Connection[Any]) -> None:
        """pgvector and pg_trgm; creating them needs a superuser, so an administrator may have done it."""
        present = {row["extname"] for row in conn.execute("SELECT extname FROM pg_extension", ())}
        for name in EXTENSIONS:
            if name in present:
                continue
            try:
                with conn.transaction():  # a savepoint: a refusal leaves the outer transaction usable
                    conn.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")
            except psycopg.errors.InsufficientPrivilege as exc:
                raise StoreError(
                    f"the extension {name!r} is not installed in {public_url(self.url)} and this role may not"
                    f" create it; run `CREATE EXTENSION {name};` as a superuser"
                ) from exc
            except (psycopg.errors.UndefinedFile, psycopg.errors.FeatureNotSupported) as exc:
                raise StoreError(f"the PostgreSQL server has no {name!r} extension; install it") from exc

    @property
    def schema_version(self) -> int:
        row = self.fetchone("SELECT MAX(version) AS version FROM schema_version")
        return int(row["version"]) if row is not None and row["version"] is not None else -1

    # -- meta ----------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.fetchone("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row["value"])

    def set_meta(self, key: str, value: str) -> None:
        self.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def close(self) -> None:
        self.pool.close()


_PASSWORD = re.compile(r"^\w+://[^:/@]*:([^@]+)@")


def _first_line(exc: BaseException, url: str = "") -> str:
    """The error's first line, without the URL's password (libpq quotes a URL it cannot parse)."""
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    found = _PASSWORD.match(url)
    return line.replace(found.group(1), "***") if found else line
