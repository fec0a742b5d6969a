"""The default backend: one SQLite file in WAL mode.

Each repository is built on first use, so a process that only needs one of them (a hook reads
the enforcement tables and rules) never imports what the others need (numpy for vectors).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.store.sqlite.db import Database

if TYPE_CHECKING:
    from heedful.store.sqlite.enforce import SQLiteEnforceRepo
    from heedful.store.sqlite.jobs import SQLiteJobQueue
    from heedful.store.sqlite.keys import SQLiteKeyRepo
    from heedful.store.sqlite.memory import SQLiteMemoryRepo
    from heedful.store.sqlite.rules import SQLiteRuleRepo
    from heedful.store.sqlite.search import SQLiteSearch


class SQLiteStore:
    def __init__(self, path: Path, busy_timeout_ms: int = 5000) -> None:
        self.db = Database(path, busy_timeout_ms)

    @cached_property
    def memory(self) -> SQLiteMemoryRepo:
        from heedful.store.sqlite.memory import SQLiteMemoryRepo

        return SQLiteMemoryRepo(self.db)

    @cached_property
    def search(self) -> SQLiteSearch:
        from heedful.store.sqlite.search import SQLiteSearch

        return SQLiteSearch(self.db)

    @cached_property
    def jobs(self) -> SQLiteJobQueue:
        from heedful.store.sqlite.jobs import SQLiteJobQueue

        return SQLiteJobQueue(self.db)

    @cached_property
    def rules(self) -> SQLiteRuleRepo:
        from heedful.store.sqlite.rules import SQLiteRuleRepo

        return SQLiteRuleRepo(self.db)

    @cached_property
    def enforce(self) -> SQLiteEnforceRepo:
        from heedful.store.sqlite.enforce import SQLiteEnforceRepo

        return SQLiteEnforceRepo(self.db)

    @cached_property
    def keys(self) -> SQLiteKeyRepo:
        from heedful.store.sqlite.keys import SQLiteKeyRepo

        return SQLiteKeyRepo(self.db)

    def transaction(self) -> AbstractContextManager[Any]:
        return self.db.transaction()

    def get_meta(self, key: str) -> str | None:
        return self.db.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self.db.set_meta(key, value)

    def close(self) -> None:
        self.db.close()


__all__ = ["SQLiteStore"]
