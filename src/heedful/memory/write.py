"""The write path: messages -> redaction -> buffer and raw excerpts -> extraction -> adjudication.

A message is recallable as a raw excerpt as soon as `add` returns; only its extraction into
facts may wait for the buffer to fill (or a flush). If adjudication fails for any reason,
every candidate is kept as new: a fact may be duplicated, never lost.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from heedful.config import MAX_MEMORY_MESSAGE_CHARS
from heedful.errors import InputError
from heedful.ids import new_id, validate_user_id
from heedful.llm.prompts.adjudicate_facts import (
    AdjudicationContext,
    CandidateWithNeighbours,
    Decision,
    StoredFact,
)
from heedful.llm.prompts.extract_facts import Candidate, ExtractionContext, SourceMessage
from heedful.llm.protocol import run_step
from heedful.memory.adjudicate import AdjudicateStep
from heedful.memory.events import MemoryEvent, MemoryOp, OpLog
from heedful.memory.extract import ExtractStep
from heedful.memory.forget import FORGOTTEN_TEXT, apply_forget, match_score
from heedful.memory.normalize import norm_key
from heedful.memory.recall.indexing import (
    excerpt_embedding_text,
    excerpt_statement,
    extract_entities,
    extract_places,
)
from heedful.memory.redact import redact
from heedful.store.records import FactRecord, MessageRecord, Role
from heedful.timeutil import now_text, to_text

if TYPE_CHECKING:
    from heedful.memory.areas import AreaClassifier
    from heedful.memory.parts import MemoryDeps

log = logging.getLogger(__name__)

BUFFER_FLUSH_MESSAGES = 8
NEIGHBOURS = 5
MAX_MESSAGE_CHARS = MAX_MEMORY_MESSAGE_CHARS  # defined with the other limits in config


@dataclass(slots=True)
class NewMessage:
    text: str
    role: Role = "user"
    session_id: str = "default"
    at: datetime | None = None
    speaker: str | None = None


@dataclass(slots=True)
class AddResult:
    message_ids: list[str]
    events: list[MemoryEvent]
    redactions: dict[str, int] = field(default_factory=dict)
    buffered: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "message_ids": self.message_ids,
            "events": [event.to_json() for event in self.events],
            "redactions": self.redactions,
            "buffered": self.buffered,
        }


def _validate(messages: list[NewMessage]) -> None:
    if not messages:
        raise InputError("there is no message to add")
    for number, message in enumerate(messages, 1):
        if not isinstance(message.text, str) or not message.text.strip():
            raise InputError(f"message {number} has no text")
        if len(message.text) > MAX_MESSAGE_CHARS:
            raise InputError(f"message {number} is longer than {MAX_MESSAGE_CHARS} characters")
        if message.role not in ("user", "assistant"):
            raise InputError(f"message {number} has role {message.role!r}; use 'user' or 'assistant'")
        if not message.session_id or not message.session_id.strip():
            raise InputError(f"message {number} has an empty session id")


class MemoryWriter:
    def __init__(
        self, deps: MemoryDeps, extract: ExtractStep | None = None, adjudicate: AdjudicateStep | None = None
    ) -> None:
        """`deps` is `MemoryParts` or anything else with a store, an embedder and a model (an open `Heedful`)."""
        self.deps = deps
        # The steps carry a harness version's extraction and retraction rules (default: heedful's own).
        self.extract_step = extract or ExtractStep()
        self.adjudicate_step = adjudicate or AdjudicateStep()
        self._areas: AreaClassifier | None = None

    @property
    def areas(self) -> AreaClassifier:
        """What a request to forget was about ("health"); the area descriptions are embedded on first use, once."""
        if self._areas is None:
            from heedful.memory.areas import AreaClassifier

            self._areas = AreaClassifier(self.deps.embedder)
        return self._areas

    def add(
        self,
        user_id: str,
        messages: list[NewMessage],
        *,
        flush: bool = False,
        extract: bool = True,
        background: bool = False,
    ) -> AddResult:
        """Store messages (redacted) and their excerpts; extract now if the buffer is full or asked."""
        user_id = validate_user_id(user_id)
        _validate(messages)
        store = self.deps.store
        ingested = now_text()
        records: list[MessageRecord] = []
        redactions: dict[str, int] = {}
        for message in messages:
            masked = redact(message.text)
            for kind, count in masked.counts.items():
                redactions[kind] = redactions.get(kind, 0) + count
            speaker = redact(message.speaker).text if message.speaker else None
            records.append(
                MessageRecord(
                    id=new_id("m"),
                    user_id=user_id,
                    session_id=message.session_id.strip(),
                    role=message.role,
                    text=masked.text,
                    created_at=to_text(message.at) if message.at else ingested,
                    ingested_at=ingested,
                    speaker=speaker,
                    background=background,
                    extracted_at=None if extract else ingested,
                )
            )
        excerpts = self._excerpts(user_id, records, ingested)
        with store.transaction():
            store.memory.ensure_user(user_id)
            store.memory.add_messages(records)
            store.memory.insert_facts(excerpts)
        result = AddResult(message_ids=[r.id for r in records], events=[], redactions=redactions)
        if extract:
            buffered = len(store.memory.buffered_messages(user_id))
            if flush or buffered >= BUFFER_FLUSH_MESSAGES:
                result.events = self.flush(user_id)
            result.buffered = len(store.memory.buffered_messages(user_id))
        return result

    def _excerpts(self, user_id: str, records: list[MessageRecord], ingested: str) -> list[FactRecord]:
        previous: dict[str, str] = {}
        statements, embed_texts = [], []
        for record in records:
            statement = excerpt_statement(record.text, record.speaker)
            statements.append(statement)
            embed_texts.append(excerpt_embedding_text(record.text, record.speaker, previous.get(record.session_id)))
            previous[record.session_id] = statement
        vectors = self.deps.embedder.embed(embed_texts)
        return [
            FactRecord(
                id=new_id("x"),
                user_id=user_id,
                kind="excerpt",
                statement=statement,
                norm_key=norm_key(statement),
                perspective="assistant_said" if record.role == "assistant" else "user_belief",
                confidence=1.0,
                valid_from=record.created_at,
                ingested_at=ingested,
                source_message_ids=[record.id],
                session_id=record.session_id,
                event_at=record.created_at,
                place=next(iter(extract_places(record.text)), None),
                background=record.background,
                entities=extract_entities(record.text, record.speaker),
                embedding=vector,
            )
            for record, statement, vector in zip(records, statements, vectors, strict=True)
        ]

    # -- extraction ----------------------------------------------------------------------------
    def flush(self, user_id: str) -> list[MemoryEvent]:
        """Extract and adjudicate everything in the user's buffer."""
        user_id = validate_user_id(user_id)
        store = self.deps.store
        buffered = store.memory.buffered_messages(user_id)
        if not buffered:
            return []
        context = ExtractionContext(
            user_id=user_id,
            messages=[
                SourceMessage(id=m.id, role=m.role, speaker=m.speaker, text=m.text, at=m.created_at) for m in buffered
            ],
        )
        extraction = run_step(self.deps.model, self.extract_step, context)
        by_id = {m.id: m for m in buffered}
        oplog = OpLog(user_id)
        events: list[MemoryEvent] = []
        facts = [c for c in extraction.candidates if c.kind != "forget"]
        with store.transaction():
            events.extend(self._record_candidates(user_id, facts, by_id, oplog))
            for request in (c for c in extraction.candidates if c.kind == "forget"):
                events.extend(
                    apply_forget(
                        self.deps,
                        self.areas,
                        user_id,
                        request.object or request.statement,
                        source_message_ids=request.source_message_ids,
                        oplog=oplog,
                    )
                )
            store.memory.record_ops(oplog.ops)
            store.memory.mark_extracted(user_id, [m.id for m in buffered], now_text())
        return events

    def _record_candidates(
        self,
        user_id: str,
        candidates: list[Candidate],
        messages: dict[str, MessageRecord],
        oplog: OpLog,
    ) -> list[MemoryEvent]:
        if not candidates:
            return []
        store = self.deps.store
        ingested = now_text()
        vectors = self.deps.embedder.embed([c.statement for c in candidates])
        stored = store.memory.list_facts(user_id, kinds=["fact", "commitment"], current_only=True, with_embeddings=True)
        new_facts = [self._fact(user_id, c, v, messages, ingested) for c, v in zip(candidates, vectors, strict=True)]
        events: list[MemoryEvent] = []
        pending: list[int] = []
        tombstones = store.memory.list_facts(user_id, kinds=["tombstone"], current_only=True, with_embeddings=True)
        for index, fact in enumerate(new_facts):
            request = _forgotten_by(fact, tombstones)
            if request is not None:  # said before the user asked to forget it: kept in the record, expired
                fact.expired_at = ingested
                fact.expired_reason = f"forgotten at the user's request ({request.id})"
                store.memory.insert_facts([fact])
                oplog.add("add", fact.id, reason=fact.expired_reason)
                events.append(
                    MemoryEvent("retract", fact.id, FORGOTTEN_TEXT, fact.expired_reason, fact.kind, [request.id])
                )
                continue
            confirmed = store.memory.current_facts_by_key(user_id, fact.norm_key)
            if confirmed:  # the same statement after normalisation: confirm, no model call
                oplog.add("confirm", confirmed[0].id, reason="same statement after normalization")
                events.append(MemoryEvent("confirm", confirmed[0].id, confirmed[0].statement, "already stored"))
            else:
                pending.append(index)
        if not pending:
            return events
        # Each candidate is compared with the stored facts and with the candidates before it.
        items = [
            CandidateWithNeighbours(
                index=i,
                candidate=candidates[i],
                neighbours=_neighbours(new_facts[i], stored + [new_facts[j] for j in pending if j < i]),
            )
            for i in pending
        ]
        decisions = {
            item.index: Decision(index=item.index, action="new", reason="nothing related is stored")
            for item in items
            if not item.neighbours  # no model call when there is nothing to compare with
        }
        to_decide = [item for item in items if item.neighbours]
        try:
            if to_decide:
                adjudication = run_step(self.deps.model, self.adjudicate_step, AdjudicationContext(items=to_decide))
                decisions.update({d.index: d for d in adjudication.decisions if d.index in pending})
        except Exception as exc:  # a failed adjudication keeps every candidate as new
            log.warning("adjudication failed; keeping all candidates as new: %s", exc)
            decisions.update(
                {
                    item.index: Decision(index=item.index, action="new", reason=f"adjudication failed: {exc}")
                    for item in to_decide
                }
            )
        inserted: dict[str, FactRecord] = {f.id: f for f in stored}
        for index in pending:
            fact = new_facts[index]
            decision = decisions.get(index) or Decision(index=index, action="new", reason="no decision returned")
            targets = [inserted[t] for t in decision.target_ids if t in inserted]
            events.append(self._apply(user_id, fact, candidates[index], decision, targets, oplog))
            if decision.action != "duplicate" or not targets:
                inserted[fact.id] = fact
        return events

    def _apply(
        self,
        user_id: str,
        fact: FactRecord,
        candidate: Candidate,
        decision: Decision,
        targets: list[FactRecord],
        oplog: OpLog,
    ) -> MemoryEvent:
        if decision.action == "duplicate" and targets:
            oplog.add("confirm", targets[0].id, reason=decision.reason)
            return MemoryEvent("confirm", targets[0].id, targets[0].statement, decision.reason or "already stored")
        action, reason = decision.action, decision.reason
        if not targets and action != "new":
            action, reason = "new", f"{reason} (no stored target found; added)"
        if action in ("enrichment", "coexisting"):
            fact.related_id = targets[0].id
        self.deps.store.memory.insert_facts([fact])
        oplog.add("add", fact.id, reason=reason)
        if action == "replacement":
            for old in targets:
                change: dict[str, str | None] = {"valid_to": fact.valid_from, "superseded_by": fact.id}
                self.deps.store.memory.set_fact_state(user_id, old.id, change)
                oplog.add("supersede", old.id, {"valid_to": None, "superseded_by": None}, change, reason)
        op: MemoryOp = {
            "new": "add",
            "enrichment": "enrich",
            "coexisting": "coexist",
            "replacement": "retract" if candidate.negated else "supersede",
        }[action]
        return MemoryEvent(op, fact.id, fact.statement, reason, fact.kind, [t.id for t in targets])

    def _fact(
        self,
        user_id: str,
        candidate: Candidate,
        vector: np.ndarray,
        messages: dict[str, MessageRecord],
        ingested: str,
    ) -> FactRecord:
        sources = [messages[m] for m in candidate.source_message_ids if m in messages]
        said_at = sources[0].created_at if sources else ingested
        session = sources[0].session_id if sources else None
        background = any(m.background for m in sources)
        entity = "user" if candidate.entity.strip().lower() in ("user", "the user", "i", "me") else candidate.entity
        entities = extract_entities(candidate.statement)
        if entity != "user":
            entities.insert(0, entity.lower())
        return FactRecord(
            id=new_id("f"),
            user_id=user_id,
            kind="commitment" if candidate.kind == "commitment" else "fact",
            statement=candidate.statement,
            norm_key=norm_key(candidate.statement),
            perspective=candidate.perspective,
            confidence=candidate.confidence,
            valid_from=said_at,
            ingested_at=ingested,
            predicate=candidate.predicate,
            entity=entity,
            object=candidate.object,
            source_message_ids=[m.id for m in sources],
            session_id=session,
            event_at=candidate.event_at or said_at,
            place=candidate.place,
            background=background,
            entities=list(dict.fromkeys(entities)),
            embedding=vector,
        )


def _forgotten_by(fact: FactRecord, tombstones: list[FactRecord]) -> FactRecord | None:
    """The request to forget that covers a fact the user stated before making the request."""
    for tombstone in tombstones:
        target = tombstone.object or tombstone.statement
        said_before = fact.valid_from <= tombstone.valid_from
        if said_before and tombstone.embedding is not None and match_score(target, tombstone.embedding, fact) > 0:
            return tombstone
    return None


def _neighbours(fact: FactRecord, pool: list[FactRecord]) -> list[StoredFact]:
    """Stored facts about the same entity, plus the nearest by cosine (to find, not to decide)."""
    pool = [f for f in pool if f.embedding is not None]
    if not pool or fact.embedding is None:
        return []
    sims = np.stack([f.embedding for f in pool if f.embedding is not None]) @ fact.embedding
    entity = norm_key(fact.entity or "")
    chosen = {i for i, f in enumerate(pool) if norm_key(f.entity or "") == entity}
    chosen.update(int(i) for i in np.argsort(-sims)[:NEIGHBOURS])
    return [
        StoredFact(
            id=pool[i].id,
            statement=pool[i].statement,
            entity=pool[i].entity,
            predicate=pool[i].predicate,
            object=pool[i].object,
            similarity=float(sims[i]),
        )
        for i in sorted(chosen, key=lambda i: -sims[i])
    ]
