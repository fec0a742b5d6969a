"""The hook process: where the home is, who the user is, the database, the background worker, the log.

A hook starts a fresh interpreter for every event, so everything here stays off the heavy imports
(numpy, the memory store): the settings come from `heedful.config.load_settings`, the same loader
every other entry point uses (standard library only), and the store from `heedful.store.open`,
whose SQLite backend builds only the enforcement tables the hook reads.

The enforcer only reads while it decides; `commit` stores its writes once the answer is out,
waiting at most `WRITE_BUSY_MS` for the write lock and spooling them otherwise.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from heedful.config import Settings, default_home, load_settings
from heedful.enforce.engine import Enforcer, env_project_dir
from heedful.enforce.spool import WRITE_BUSY_MS, Spool

if TYPE_CHECKING:
    from heedful.store.protocols import Store

HOOK_BUSY_TIMEOUT_MS = 2000
WORKER_IDLE_SECONDS = 60


def home() -> Path:
    return default_home()


def hook_busy_ms(settings: Settings) -> int:
    """How long a hook waits for SQLite's lock: the configured wait, but never more than HOOK_BUSY_TIMEOUT_MS."""
    busy = settings.store.busy_timeout_ms
    return min(busy, HOOK_BUSY_TIMEOUT_MS) if busy > 0 else HOOK_BUSY_TIMEOUT_MS


def log_error(context: str, exc: BaseException | None = None) -> None:
    """Append an error to HEEDFUL_HOME/logs/hooks.log (redacted, owner-only, bounded); never raises.

    The hook fails open whatever happens here."""
    try:
        from heedful.error_log import append_error

        if append_error(home(), "hooks", context, exc):
            return
    except Exception:  # not even the log module: say it where the agent's own log may keep it
        pass
    try:
        sys.stderr.write(f"heedful hook: {context}\n")
    except Exception:
        return


class HookRuntime:
    """Opens the store lazily, so that events that need nothing never touch the database."""

    def __init__(self, platform: str, settings: Settings | None = None) -> None:
        self.platform = platform
        self.settings = settings if settings is not None else load_settings()
        self.home = self.settings.home
        self.user = self.settings.user.default.strip() or "me"
        self.busy_ms = hook_busy_ms(self.settings)
        self._store: Store | None = None
        self._enforcer: Enforcer | None = None
        self.spool = Spool(self.home)

    @property
    def enforcer(self) -> Enforcer:
        if self._enforcer is None:
            from heedful.rules.checks import evaluate
            from heedful.store.open import open_store

            # PostgreSQL reads never wait for locks: only the writes after the answer do, and briefly.
            pg = self.settings.store.is_postgres
            wait = min(WRITE_BUSY_MS, self.busy_ms) if pg else self.busy_ms
            self._store = open_store(self.settings, busy_timeout_ms=wait, pool_size=1)
            self._enforcer = Enforcer(
                self._store.enforce,
                self.user,
                evaluate,
                self.platform,
                project_dir=env_project_dir(self.platform),
                waiting=self.spool.waiting,
                defer_writes=True,
            )
        return self._enforcer

    def discard(self) -> None:
        """Drop the writes of an event that failed (it fails open and records nothing)."""
        if self._enforcer is not None:
            self._enforcer.take_writes()

    def commit(self) -> None:
        """Store the event's writes (and any spooled earlier) after the answer; spool them if the lock is held.

        Never raises: a failure here can only lose the record of a decision already answered.
        """
        if self._enforcer is None:
            return
        writes = self._enforcer.take_writes()
        try:
            self._wait_less_for_writes()
            report = self.spool.flush(self._enforcer.repo, writes)
        except Exception as exc:
            log_error(f"{self.platform}: {len(writes)} write(s) could be neither stored nor spooled", exc)
            return
        for reason in report.rejected:
            log_error(f"{self.platform}: parked a spooled batch the database rejects ({reason})")

    def _wait_less_for_writes(self) -> None:
        """On SQLite, wait at most WRITE_BUSY_MS for the write lock (the answer is out; spooling is cheaper)."""
        from heedful.store.sqlite import SQLiteStore

        if isinstance(self._store, SQLiteStore):
            self._store.db.conn.execute(f"PRAGMA busy_timeout = {min(WRITE_BUSY_MS, self.busy_ms)}")

    def start_worker(self) -> None:
        """Start a detached `heedful worker --idle-exit N` unless one is running or it is turned off.

        HEEDFUL_HOOK_WORKER=0 turns this off (then `heedful jobs drain` or a worker you run learns);
        HEEDFUL_WORKER_IDLE_EXIT sets N (seconds, default 60).
        """
        if os.environ.get("HEEDFUL_HOOK_WORKER", "1").lower() in ("0", "false", "no", "off"):
            return
        run = self.home / "run"
        pid_file = run / "worker.pid"
        try:
            pid = int(pid_file.read_text().strip())
            os.kill(pid, 0)
            return
        except (OSError, ValueError):
            pass
        import subprocess

        run.mkdir(parents=True, exist_ok=True)
        (self.home / "logs").mkdir(mode=0o700, parents=True, exist_ok=True)
        # Owner-only like every file in the home: the worker's output may quote what it learned from.
        descriptor = os.open(self.home / "logs" / "worker.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(descriptor, "ab") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "heedful",
                    "worker",
                    "--idle-exit",
                    os.environ.get("HEEDFUL_WORKER_IDLE_EXIT", str(WORKER_IDLE_SECONDS)),
                    "--home",
                    str(self.home),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                close_fds=True,
            )
        pid_file.write_text(str(process.pid))

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
