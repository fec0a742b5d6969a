"""Choosing the storage backend from the settings: the SQLite file, or PostgreSQL for a postgresql:// URL.

Each backend is imported only when chosen, so a SQLite hook never loads the PostgreSQL driver and a
base install (without the postgres extra) runs everything but a PostgreSQL URL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from heedful.errors import StoreError

if TYPE_CHECKING:
    from heedful.config import Settings
    from heedful.store.protocols import Store

POSTGRES_EXTRA = "a postgresql:// database needs the postgres extra: pip install 'heedful[postgres]'"
# The modules whose absence means the extra is not installed (anything else missing is a real bug).
POSTGRES_MODULES = ("heedful.store.postgres", "psycopg", "psycopg_pool", "psycopg_binary")


def open_store(settings: Settings, busy_timeout_ms: int | None = None, pool_size: int | None = None) -> Store:
    """The store the settings name.

    `busy_timeout_ms` replaces the configured wait for a lock (SQLite's busy timeout, PostgreSQL's
    lock timeout: a hook waits less than a command); `pool_size` the number of PostgreSQL connections
    this process may hold (a hook needs one).
    """
    if settings.store.is_postgres and settings.store.url is not None:
        try:
            from heedful.store.postgres import PostgresStore
        except ModuleNotFoundError as exc:
            if exc.name not in POSTGRES_MODULES:
                raise
            raise StoreError(POSTGRES_EXTRA) from None
        # (`Store` wants settable attributes where the backends have cached properties: see below.)
        return PostgresStore(settings.store.url, pool_size=pool_size or 4, lock_timeout_ms=busy_timeout_ms)
    from heedful.store.sqlite import SQLiteStore

    busy = settings.store.busy_timeout_ms if busy_timeout_ms is None else busy_timeout_ms
    # `Store` declares its parts as settable attributes and SQLiteStore builds them as cached (read-only)
    # properties; the protocol's members want to be read-only properties.
    return SQLiteStore(settings.db_path, busy)
