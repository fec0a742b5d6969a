"""What one server process holds: the opened home, one lock around it, the keys and the buckets.

The SQLite connection is shared by the request threads of a process, so every use of the facade
takes `lock`; more throughput comes from more processes (`heedful serve --workers N`), each with
its own connection, as the CLI, the hooks and the workers already share one database file.
"""

from __future__ import annotations

import os
import secrets
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from heedful.server.ratelimit import RateLimiter
from heedful.store.protocols import KeyStore
from heedful.store.records import ApiKeyRecord

if TYPE_CHECKING:
    from heedful.api import Heedful

SECRET_FILE = "serve-secret"
DEFAULT_RATE = 20.0  # requests per second per key, sustained
DEFAULT_BURST = 40


@dataclass(frozen=True, slots=True)
class Caller:
    """Who a request acts as: its key, and the user it may read and change."""

    key: ApiKeyRecord
    user: str


@dataclass
class ServerState:
    hf: Heedful
    limiter: RateLimiter
    secret: bytes  # signs UI session cookies and CSRF tokens
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def keys(self) -> KeyStore:
        return self.hf.store.keys

    @contextmanager
    def use(self) -> Iterator[Heedful]:
        with self.lock:
            yield self.hf


def load_or_create_secret(home: Path) -> bytes:
    """The home's signing secret (0600), made on first use; several workers may race to make it."""
    path = Path(home).expanduser() / SECRET_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            os.chmod(path, 0o600)
        for _ in range(50):  # another worker may have created it and not yet written it
            text = path.read_text(encoding="utf-8").strip()
            if len(text) >= 32:
                return text.encode()
            threading.Event().wait(0.02)
        raise RuntimeError(f"the signing secret {path} is empty; delete it to get a new one") from None
    text = secrets.token_urlsafe(48)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    return text.encode()
