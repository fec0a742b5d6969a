"""Storage: the `Store` protocol and its SQLite implementation."""

from __future__ import annotations

from heedful.store.protocols import JobQueue, MemoryStore, SearchStore, Store
from heedful.store.sqlite import SQLiteStore

__all__ = ["JobQueue", "MemoryStore", "SQLiteStore", "SearchStore", "Store"]
