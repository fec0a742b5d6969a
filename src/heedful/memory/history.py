"""User control over the record: list, history, correct, delete and undo.

Nothing here rewrites a statement or removes a row: a correction supersedes, a deletion
expires, and an undo restores the validity and expiry fields it changed and is itself logged.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING

from heedful.errors import InputError, NotFoundError
from heedful.ids import new_id
from heedful.memory.events import MemoryEvent, OpLog
from heedful.memory.normalize import norm_key
from heedful.memory.recall.indexing import extract_entities
from heedful.memory.redact import redact
from heedful.memory.results import UndoneChange
from heedful.store.records import FactRecord, OpRecord, RecordOp
from heedful.timeutil import now_text

if TYPE_CHECKING:
    from collections.abc import Callable

    from heedful.embed import Embedder
    from heedful.store.protocols import Store

_INSERTING_OPS: frozenset[RecordOp] = frozenset({"add"})  # undone by expiring the row they inserted


def fact_json(fact: FactRecord, as_of: str | None = None) -> dict[str, object]:
    return {
        "id": fact.id,
        "kind": fact.kind,
        "text": fact.statement,
        "state": fact.state_at(as_of),
        "entity": fact.entity,
        "predicate": fact.predicate,
        "perspective": fact.perspective,
        "confidence": fact.confidence,
        "background": fact.background,
        "source_message_ids": fact.source_message_ids,
        "session_id": fact.session_id,
        "valid_from": fact.valid_from,
        "valid_to": fact.valid_to,
        "superseded_by": fact.superseded_by,
        "ingested_at": fact.ingested_at,
        "expired_at": fact.expired_at,
        "expired_reason": fact.expired_reason,
    }


def op_json(op: OpRecord) -> dict[str, object]:
    return {
        "op": op.op,
        "fact_id": op.fact_id,
        "group_id": op.group_id,
        "before": op.before,
        "after": op.after,
        "reason": op.reason,
        "at": op.created_at,
        "undone_by": op.undone_by,
    }


@dataclass(slots=True)
class FactHistory:
    fact: FactRecord
    chain: list[FactRecord]  # oldest first: what this fact replaced, and what replaced it
    ops: list[OpRecord]

    def to_json(self) -> dict[str, object]:
        return {
            "fact": fact_json(self.fact),
            "chain": [fact_json(f) for f in self.chain],
            "ops": [op_json(o) for o in self.ops],
        }


class MemoryHistory:
    """Reads the record and makes the user's own changes; the embedder loads only for a correction."""

    def __init__(self, store: Store, load_embedder: Callable[[], Embedder]) -> None:
        self.store = store
        self.load_embedder = load_embedder

    def _get(self, user_id: str, fact_id: str) -> FactRecord:
        fact = self.store.memory.get_fact(user_id, fact_id)
        if fact is None:
            raise NotFoundError(f"user {user_id!r} has no memory with id {fact_id!r}")
        return fact

    def list(
        self,
        user_id: str,
        *,
        kinds: builtins.list[str] | None = None,
        include_inactive: bool = False,
        as_of: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[FactRecord]:
        facts = self.store.memory.list_facts(user_id, kinds=kinds or ["fact", "commitment", "tombstone"])
        if as_of is not None:
            facts = [f for f in facts if f.valid_from <= as_of]  # valid time: what held then
        if not include_inactive:
            facts = [f for f in facts if f.state_at(as_of) == "current"]
        return facts[-limit:] if limit else facts

    def history(self, user_id: str, fact_id: str) -> FactHistory:
        fact = self._get(user_id, fact_id)
        memory = self.store.memory
        chain = [fact]
        # Walk back through the facts this one replaced, and forward through its replacements.
        replaced_by: dict[str, builtins.list[str]] = {}
        for op in memory.ops(user_id):
            if op.op == "supersede" and op.after.get("superseded_by"):
                replaced_by.setdefault(str(op.after["superseded_by"]), []).append(op.fact_id)
        seen = {fact.id}
        frontier = [fact.id]
        while frontier:
            for older_id in replaced_by.get(frontier.pop(), []):
                older = memory.get_fact(user_id, older_id) if older_id not in seen else None
                if older is not None:
                    chain.append(older)
                    seen.add(older.id)
                    frontier.append(older.id)
        newer = fact
        while newer.superseded_by and newer.superseded_by not in seen:
            replacement = memory.get_fact(user_id, newer.superseded_by)
            if replacement is None:
                break
            chain.append(replacement)
            seen.add(replacement.id)
            newer = replacement
        chain.sort(key=lambda f: (f.valid_from, f.ingested_at))
        ops = [op for f in chain for op in memory.ops(user_id, fact_id=f.id)]
        ops.sort(key=lambda o: o.created_at)
        return FactHistory(fact=fact, chain=chain, ops=ops)

    def correct(self, user_id: str, fact_id: str, text: str) -> MemoryEvent:
        """Replace a fact's statement by superseding it with a corrected one."""
        if not text or not text.strip():
            raise InputError("the corrected text is empty")
        text = redact(text).text  # before anything is derived from it (key, entities, embedding)
        old = self._get(user_id, fact_id)
        if old.state_at() != "current":
            raise InputError(f"memory {fact_id} is {old.state_at()}; only a current memory can be corrected")
        if old.kind not in ("fact", "commitment"):
            raise InputError(f"memory {fact_id} is a {old.kind}; only facts and commitments can be corrected")
        stamp = now_text()
        new = FactRecord(
            id=new_id("f"),
            user_id=user_id,
            kind=old.kind,
            statement=text.strip(),
            norm_key=norm_key(text),
            perspective="user_belief",
            confidence=1.0,
            valid_from=stamp,
            ingested_at=stamp,
            predicate=old.predicate,
            entity=old.entity,
            source_message_ids=old.source_message_ids,
            session_id=old.session_id,
            background=old.background,
            entities=extract_entities(text),
            embedding=self.load_embedder().embed([text.strip()])[0],
        )
        oplog = OpLog(user_id)
        change: dict[str, str | None] = {"valid_to": stamp, "superseded_by": new.id}
        with self.store.transaction():
            self.store.memory.insert_facts([new])
            oplog.add("add", new.id, reason="corrected by the user")
            self.store.memory.set_fact_state(user_id, old.id, change)
            oplog.add(
                "supersede",
                old.id,
                {"valid_to": old.valid_to, "superseded_by": old.superseded_by},
                change,
                "corrected by the user",
            )
            self.store.memory.record_ops(oplog.ops)
        return MemoryEvent("supersede", new.id, new.statement, "corrected by the user", new.kind, [old.id])

    def delete(self, user_id: str, fact_id: str) -> MemoryEvent:
        """Expire a memory at the user's request (it stays in the record, marked deleted)."""
        fact = self._get(user_id, fact_id)
        if fact.expired_at is not None:
            raise InputError(f"memory {fact_id} is already expired ({fact.expired_reason})")
        stamp = now_text()
        change: dict[str, str | None] = {"expired_at": stamp, "expired_reason": "deleted by the user"}
        oplog = OpLog(user_id)
        with self.store.transaction():
            self.store.memory.set_fact_state(user_id, fact_id, change)
            oplog.add("delete", fact_id, {"expired_at": None, "expired_reason": None}, change, "deleted by the user")
            self.store.memory.record_ops(oplog.ops)
        return MemoryEvent("retract", fact_id, fact.statement, "deleted by the user", fact.kind)

    def undo(self, user_id: str) -> builtins.list[UndoneChange]:
        """Reverse the newest change group that is not already undone; the undo is logged too.

        Returns what was reversed, newest change first."""
        memory = self.store.memory
        group = memory.last_undoable_group(user_id)
        if group is None:
            raise InputError(f"user {user_id!r} has nothing to undo")
        undo_log = OpLog(user_id)
        stamp = now_text()
        reversed_ops: builtins.list[UndoneChange] = []
        with self.store.transaction():
            for op in reversed(memory.ops(user_id, group_id=group)):
                fact = memory.get_fact(user_id, op.fact_id)
                if fact is None or op.op == "confirm":
                    continue
                if op.op in _INSERTING_OPS:
                    restore: dict[str, str | None] = {"expired_at": stamp, "expired_reason": f"undone ({group})"}
                    before: dict[str, str | None] = {
                        "expired_at": fact.expired_at,
                        "expired_reason": fact.expired_reason,
                    }
                else:
                    restore = dict(op.before)
                    before = {name: getattr(fact, name) for name in restore}
                memory.set_fact_state(user_id, op.fact_id, restore)
                undo_log.add("undo", op.fact_id, before, restore, f"undo of {op.op} in {group}")
                reversed_ops.append(UndoneChange(op=op.op, fact_id=op.fact_id, restored=restore))
            memory.record_ops(undo_log.ops)
            memory.mark_undone(user_id, group, undo_log.group_id)
        return reversed_ops
