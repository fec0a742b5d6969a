"""Job handlers for the memory kernel (see heedful.worker.HANDLERS)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from heedful.store.records import JobRecord
from heedful.timeutil import now as utc_now
from heedful.timeutil import to_text

if TYPE_CHECKING:
    from heedful.api import Heedful


def run_flush(hf: Heedful, job: JobRecord) -> dict[str, object]:
    events = hf.memory.flush(job.user_id)
    return {"events": len(events)}


def run_dream(hf: Heedful, job: JobRecord) -> dict[str, object]:
    return hf.memory.dream(job.user_id).model_dump(mode="json")  # the job table holds plain JSON


IDLE_HOURS = 1.0
STALE_HOURS = 30.0


def schedule_dreams(hf: Heedful, now: datetime | None = None) -> list[str]:
    """Queue a Dream job for each user idle for an hour with new messages, or with messages
    waiting for more than thirty hours; a user with a Dream already pending is skipped."""
    moment = now or utc_now()
    due = hf.store.memory.users_due_for_dream(
        to_text(moment - timedelta(hours=IDLE_HOURS)), to_text(moment - timedelta(hours=STALE_HOURS))
    )
    queued = []
    for user_id in due:
        if not hf.store.jobs.pending_exists(user_id, "memory.dream"):
            hf.store.jobs.enqueue(user_id, "memory.dream", {})
            queued.append(user_id)
    return queued
