"""What a write reports back, and how changes are logged for history and undo."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from heedful.ids import new_id
from heedful.store.records import FactKind, OpRecord, RecordOp
from heedful.timeutil import now_text

# What a write did, as the caller is told. The log keeps its own terms (`RecordOp`): a retract is
# logged as the add and supersede, or the forget, that made it; an enrich or coexist as an add.
MemoryOp = Literal["add", "confirm", "supersede", "retract", "enrich", "coexist"]


@dataclass(slots=True)
class MemoryEvent:
    """One outcome of a write."""

    op: MemoryOp
    fact_id: str
    text: str
    reason: str
    kind: FactKind = "fact"
    related_ids: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "op": self.op,
            "fact_id": self.fact_id,
            "text": self.text,
            "reason": self.reason,
            "kind": self.kind,
            "related_ids": self.related_ids,
        }


class OpLog:
    """Collects the record changes of one user action; they are undone together."""

    def __init__(self, user_id: str) -> None:
        self.user_id = user_id
        self.group_id = new_id("g")
        self.ops: list[OpRecord] = []

    def add(
        self,
        op: RecordOp,
        fact_id: str,
        before: dict[str, str | None] | None = None,
        after: dict[str, str | None] | None = None,
        reason: str | None = None,
    ) -> None:
        self.ops.append(
            OpRecord(
                id=new_id("op"),
                user_id=self.user_id,
                group_id=self.group_id,
                op=op,
                fact_id=fact_id,
                before=before or {},
                after=after or {},
                reason=reason,
                created_at=now_text(),
            )
        )
