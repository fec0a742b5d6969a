"""The shared backend: one PostgreSQL database (pgvector and pg_trgm) for many processes and machines.

`PostgresStore(url)` has the shape of `SQLiteStore`: the same repositories, built on first use,
over a pool of connections. Needs the `postgres` extra (psycopg 3 with its pool).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from functools import cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Any

from heedful.errors import StoreError

try:
    from heedful.store.postgres.db import Database
except ModuleNotFoundError as exc:  # psycopg is an optional extra
    if exc.name is None or not exc.name.startswith("psycopg"):
        raise
    raise StoreError("the PostgreSQL store needs the postgres extra: pip install 'heedful[postgres]'") from exc

if TYPE_CHECKING:
    from heedful.store.postgres.enforce import PostgresEnforceRepo
    from heedful.store.postgres.jobs import PostgresJobQueue
    from heedful.store.postgres.keys import PostgresKeyRepo
    from heedful.store.postgres.rules import PostgresRuleRepo


def _repository(module: str, name: str, db: Database) -> Any:
    """A repository class from a module of this backend, made on `db`."""
    try:
        found = import_module(f"heedful.store.postgres.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"heedful.store.postgres.{module}":
            raise
        raise StoreError(f"the PostgreSQL store has no {module} repository in this version of heedful") from exc
    return getattr(found, name)(db)


class PostgresStore:
    def __init__(self, url: str, pool_size: int = 4, lock_timeout_ms: int | None = None) -> None:
        self.url = url
        self.db = Database(url, pool_size, lock_timeout_ms=lock_timeout_ms)

    @cached_property
    def memory(self) -> Any:
        return _repository("memory", "PostgresMemoryRepo", self.db)

    @cached_property
    def search(self) -> Any:
        return _repository("search", "PostgresSearch", self.db)

    @cached_property
    def jobs(self) -> PostgresJobQueue:
        from heedful.store.postgres.jobs import PostgresJobQueue

        return PostgresJobQueue(self.db)

    @cached_property
    def rules(self) -> PostgresRuleRepo:
        from heedful.store.postgres.rules import PostgresRuleRepo

        return PostgresRuleRepo(self.db)

    @cached_property
    def enforce(self) -> PostgresEnforceRepo:
        from heedful.store.postgres.enforce import PostgresEnforceRepo

        return PostgresEnforceRepo(self.db)

    @cached_property
    def keys(self) -> PostgresKeyRepo:
        from heedful.store.postgres.keys import PostgresKeyRepo

        return PostgresKeyRepo(self.db)

    def transaction(self) -> AbstractContextManager[Any]:
        return self.db.transaction()

    def get_meta(self, key: str) -> str | None:
        return self.db.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self.db.set_meta(key, value)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["PostgresStore"]
