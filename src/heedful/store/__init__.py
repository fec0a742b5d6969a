"""Storage: the `Store` protocols and their SQLite implementation.

Names resolve on first use, so that importing one backend module (a hook imports only the
enforcement tables) does not load the others.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from heedful.store.protocols import JobQueue, MemoryStore, SearchStore, Store
    from heedful.store.sqlite import SQLiteStore

_WHERE = {
    "JobQueue": "heedful.store.protocols",
    "MemoryStore": "heedful.store.protocols",
    "SearchStore": "heedful.store.protocols",
    "Store": "heedful.store.protocols",
    "SQLiteStore": "heedful.store.sqlite",
}
__all__ = ["JobQueue", "MemoryStore", "SQLiteStore", "SearchStore", "Store"]


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(name)
    return getattr(import_module(_WHERE[name]), name)
