"""Running queued jobs: one at a time under a lease, with a heartbeat while a job runs.

`drain` runs until nothing is claimable (tests and scripts use it to wait for background
work); `serve` keeps polling. Several workers may run at once, in as many processes.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING

from heedful.store.records import JobRecord

if TYPE_CHECKING:
    from heedful.api import Heedful

Handler = Callable[["Heedful", JobRecord], dict[str, object] | None]

# kind -> "module:function"; imported on first use so that a worker loads only what it runs.
HANDLERS: dict[str, str] = {
    "memory.flush": "heedful.memory.jobs:run_flush",
    "memory.dream": "heedful.memory.jobs:run_dream",
    "rules.learn": "heedful.rules.jobs:run_learn",
}
DEFAULT_LEASE_SECONDS = 600.0


def owner_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


def resolve_handler(kind: str) -> Handler:
    target = HANDLERS.get(kind)
    if target is None:
        raise LookupError(f"no handler for job kind {kind!r}")
    module_name, function_name = target.split(":")
    handler: Handler = getattr(import_module(module_name), function_name)
    return handler


@dataclass
class DrainStats:
    done: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)


class _Heartbeat:
    """Extends a job's lease from a second connection while the job runs."""

    def __init__(self, hf: Heedful, job_id: str, owner: str, lease_seconds: float) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(hf, job_id, owner, lease_seconds), daemon=True)

    def _run(self, hf: Heedful, job_id: str, owner: str, lease_seconds: float) -> None:
        from heedful.store.open import open_store

        store = open_store(hf.settings)
        try:
            while not self._stop.wait(lease_seconds / 3):
                store.jobs.heartbeat(job_id, owner, lease_seconds)
        finally:
            store.close()

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def fold_spool(hf: Heedful) -> None:
    """Store what hooks spooled while another process held the write lock (their learning jobs too)."""
    from heedful.enforce.spool import fold

    try:
        fold(hf.settings.home, hf.store.enforce)
    except Exception:  # a spool that cannot be folded now is folded by the next hook event
        return


def run_one(hf: Heedful, owner: str, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> JobRecord | None:
    """Claim and run one job; None when nothing is claimable."""
    job = hf.store.jobs.claim(owner, lease_seconds, kinds=list(HANDLERS))
    if job is None:
        return None
    try:
        handler = resolve_handler(job.kind)
        with _Heartbeat(hf, job.id, owner, lease_seconds):
            result = handler(hf, job)
    except Exception as exc:  # a job's failure is recorded, never raised into the worker loop
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        hf.store.jobs.fail(job.id, owner, detail)
    else:
        hf.store.jobs.complete(job.id, owner, result)
    return hf.store.jobs.get(job.id)


def drain(
    hf: Heedful,
    lease_seconds: float = DEFAULT_LEASE_SECONDS,
    on_job: Callable[[JobRecord], None] | None = None,
) -> DrainStats:
    owner = owner_name()
    stats = DrainStats()
    fold_spool(hf)
    while (job := run_one(hf, owner, lease_seconds)) is not None:
        if job.state == "pending":
            continue  # failed and will be retried: the next claim takes it again
        if job.state == "done":
            stats.done += 1
        else:
            stats.failed += 1
            stats.errors.append(f"{job.id} ({job.kind}): {job.last_error}")
        if on_job is not None:
            on_job(job)
    return stats


def serve(
    hf: Heedful,
    poll_seconds: float = 1.0,
    lease_seconds: float = DEFAULT_LEASE_SECONDS,
    stop: threading.Event | None = None,
    max_idle_seconds: float | None = None,
    schedule_seconds: float | None = 300.0,
) -> DrainStats:
    """Work until `stop` is set (or nothing came for `max_idle_seconds`).

    Every `schedule_seconds` it also queues Dream for users who are due (see memory.jobs).
    """
    from heedful.memory.jobs import schedule_dreams

    owner = owner_name()
    stats = DrainStats()
    idle_since = time.monotonic()
    next_schedule = time.monotonic()
    stop = stop or threading.Event()
    while not stop.is_set():
        if schedule_seconds is not None and time.monotonic() >= next_schedule:
            schedule_dreams(hf)
            next_schedule = time.monotonic() + schedule_seconds
        job = run_one(hf, owner, lease_seconds)
        if job is None:
            fold_spool(hf)
            if max_idle_seconds is not None and time.monotonic() - idle_since > max_idle_seconds:
                break
            stop.wait(poll_seconds)
            continue
        idle_since = time.monotonic()
        if job.state == "done":
            stats.done += 1
        elif job.state == "failed":
            stats.failed += 1
    return stats
