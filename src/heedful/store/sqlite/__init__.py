"""The default backend: one SQLite file in WAL mode."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from heedful.store.sqlite.db import Database
from heedful.store.sqlite.enforce import SQLiteEnforceRepo
from heedful.store.sqlite.jobs import SQLiteJobQueue
from heedful.store.sqlite.memory import SQLiteMemoryRepo
from heedful.store.sqlite.rules import SQLiteRuleRepo
from heedful.store.sqlite.search import SQLiteSearch


class SQLiteStore:
    def __init__(self, path: Path, busy_timeout_ms: int = 5000) -> None:
        self.db = Database(path, busy_timeout_ms)
        self.memory = SQLiteMemoryRepo(self.db)
        self.search = SQLiteSearch(self.db)
        self.jobs = SQLiteJobQueue(self.db)
        self.rules = SQLiteRuleRepo(self.db)
        self.enforce = SQLiteEnforceRepo(self.db)

    def transaction(self) -> AbstractContextManager[Any]:
        return self.db.transaction()

    def get_meta(self, key: str) -> str | None:
        return self.db.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self.db.set_meta(key, value)

    def close(self) -> None:
        self.db.close()


__all__ = ["SQLiteStore"]
