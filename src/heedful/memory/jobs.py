"""Job handlers for the memory kernel (see heedful.worker.HANDLERS)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from heedful.store.records import JobRecord

if TYPE_CHECKING:
    from heedful.api import Heedful


def run_flush(hf: Heedful, job: JobRecord) -> dict[str, object]:
    events = hf.memory.flush(job.user_id)
    return {"events": len(events)}


def run_dream(hf: Heedful, job: JobRecord) -> dict[str, object]:
    return hf.memory.dream(job.user_id)
