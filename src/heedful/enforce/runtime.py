"""The hook process: where the home is, who the user is, the database, the background worker, the log.

Everything here stays off the heavy imports (no pydantic settings, no numpy store): a hook starts
a fresh interpreter for every event. The settings read are the same as `heedful.config`:
`HEEDFUL_HOME` (default ~/.heedful), then `config.toml` (`[user] default`, `[store]
busy_timeout_ms`), then `HEEDFUL_USER`.

The enforcer only reads while it decides; `commit` stores its writes once the answer is out,
waiting at most `WRITE_BUSY_MS` for the write lock and spooling them otherwise.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from heedful.enforce.engine import Enforcer, env_project_dir
from heedful.enforce.spool import WRITE_BUSY_MS, Spool

HOOK_BUSY_TIMEOUT_MS = 2000
WORKER_IDLE_SECONDS = 60


def home() -> Path:
    env = os.environ.get("HEEDFUL_HOME")
    return Path(env).expanduser() if env else Path.home() / ".heedful"


def _config(root: Path) -> dict[str, Any]:
    path = root / "config.toml"
    if not path.exists():
        return {}
    import tomllib

    with open(path, "rb") as handle:
        return tomllib.load(handle)


def user_and_timeout(root: Path) -> tuple[str, int]:
    config = _config(root)
    user_section_value = config.get("user")
    user_section: dict[str, Any] = user_section_value if isinstance(user_section_value, dict) else {}
    store_section_value = config.get("store")
    store_section: dict[str, Any] = store_section_value if isinstance(store_section_value, dict) else {}
    user = os.environ.get("HEEDFUL_USER") or str(user_section.get("default") or "me")
    busy = store_section.get("busy_timeout_ms")
    timeout = min(int(busy), HOOK_BUSY_TIMEOUT_MS) if isinstance(busy, int) and busy > 0 else HOOK_BUSY_TIMEOUT_MS
    return user.strip() or "me", timeout


def log_error(context: str, exc: BaseException | None = None) -> None:
    """Append an error to HEEDFUL_HOME/logs/hooks.log; never raises (the hook fails open)."""
    try:
        import traceback

        folder = home() / "logs"
        folder.mkdir(parents=True, exist_ok=True)
        detail = "".join(traceback.format_exception(exc)) if exc is not None else ""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(folder / "hooks.log", "a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(f"{stamp} {context}\n{detail}")
    except Exception:
        try:
            sys.stderr.write(f"heedful hook: {context}\n")
        except Exception:
            return


class HookRuntime:
    """Opens the store lazily, so that events that need nothing never touch the database."""

    def __init__(self, platform: str) -> None:
        self.platform = platform
        self.home = home()
        self.user, self.busy_ms = user_and_timeout(self.home)
        self._db: Any = None
        self._enforcer: Enforcer | None = None
        self.spool = Spool(self.home)

    @property
    def enforcer(self) -> Enforcer:
        if self._enforcer is None:
            from heedful.rules.checks import evaluate
            from heedful.store.sqlite.db import Database
            from heedful.store.sqlite.enforce import SQLiteEnforceRepo

            self._db = Database(self.home / "heedful.db", self.busy_ms)
            repo = SQLiteEnforceRepo(self._db)
            self._enforcer = Enforcer(
                repo,
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
            self._db.conn.execute(f"PRAGMA busy_timeout = {min(WRITE_BUSY_MS, self.busy_ms)}")
            report = self.spool.flush(self._enforcer.repo, writes)
        except Exception as exc:
            log_error(f"{self.platform}: {len(writes)} write(s) could be neither stored nor spooled", exc)
            return
        for reason in report.rejected:
            log_error(f"{self.platform}: parked a spooled batch the database rejects ({reason})")

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
        (self.home / "logs").mkdir(parents=True, exist_ok=True)
        with open(self.home / "logs" / "worker.log", "ab") as log:
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
        if self._db is not None:
            self._db.close()
