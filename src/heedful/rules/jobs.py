"""Background learning: the `rules.learn` job runs one learning step off the foreground path."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from heedful.errors import InputError

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.store.records import JobRecord


def enqueue_learn(
    hf: Heedful,
    user_id: str,
    text: str,
    project: str | None = None,
    context: list[dict[str, Any]] | None = None,
    source: str = "user",
    proposed_by: str | None = None,
) -> str:
    """Queue a learning step; `heedful jobs drain` (or a worker) runs it."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("the message is empty")
    payload: dict[str, object] = {"text": text, "project": project, "context": context or [], "source": source}
    if proposed_by is not None:
        payload["proposed_by"] = proposed_by
    return hf.store.jobs.enqueue(user_id, "rules.learn", payload)


def run_learn(hf: Heedful, job: JobRecord) -> dict[str, object]:
    payload = job.payload
    text = payload.get("text")
    if not isinstance(text, str):
        raise InputError("the rules.learn job has no text")
    project = payload.get("project")
    context = payload.get("context")
    source = payload.get("source", "user")
    proposed_by = payload.get("proposed_by")
    result = hf.rules.learn(
        job.user_id,
        text,
        project=project if isinstance(project, str) else None,
        context=context if isinstance(context, list) else None,
        source=source if isinstance(source, str) else "user",
        proposed_by=proposed_by if isinstance(proposed_by, str) else None,
    )
    return result.model_dump()
