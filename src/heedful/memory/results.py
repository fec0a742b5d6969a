"""What `hf.memory.undo` and `hf.memory.dream` answer: one typed model per result. `MemoryService`
returns the model; the CLI's `--json`, the HTTP API and the job table hold its `model_dump(mode="json")`.

    undone = hf.memory.undo("alice")        # [UndoneChange(op="supersede", fact_id="f-…", restored={…}), …]
    hf.memory.dream("alice").summaries      # DreamResult: how many session summaries were written
"""

from __future__ import annotations

from pydantic import BaseModel

from heedful.store.records import RecordOp


class UndoneChange(BaseModel):
    """One change an undo reversed: the op it reversed, on which fact, and the fields it set back.

    An inserted row is expired (`expired_at`, `expired_reason`); any other change gets its `before` back.
    """

    op: RecordOp
    fact_id: str
    restored: dict[str, str | None]


class MemoryUndo(BaseModel):
    """`memory undo --json` (and `POST /v1/memory/undo`): each change reversed, newest first."""

    undone: list[UndoneChange]


class DreamResult(BaseModel):
    """One Dream pass for one user: what the flush before it did, and what the pass wrote."""

    user_id: str
    flushed_events: int  # memory changes made by flushing the buffer first
    summaries: int  # session summaries written (new or rewritten)
    profile_rebuilt: bool
