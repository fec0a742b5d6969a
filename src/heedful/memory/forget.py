"""Forgetting: expire what matches a request, and leave a tombstone every layer honours.

A stored item matches when its cosine similarity to the request is at least 0.68 or at least
60% of the request's trigrams occur in it. At most six facts expire per request, and never
background the user entered deliberately. Raw excerpts that match are expired as well, so the
words the user asked to forget cannot come back through the raw-history fallback, and a user who
has a profile gets it rebuilt at once without them. What a forget reports back (it may go to an
agent) names the area of the request ("health"), never the forgotten words.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from heedful.errors import InputError
from heedful.ids import new_id
from heedful.memory.events import MemoryEvent, OpLog
from heedful.memory.normalize import norm_key, trigram_overlap
from heedful.memory.redact import redact
from heedful.store.records import FactRecord
from heedful.timeutil import now_text

if TYPE_CHECKING:
    from heedful.memory.areas import AreaClassifier
    from heedful.memory.parts import MemoryDeps

COSINE_THRESHOLD = 0.68
TRIGRAM_THRESHOLD = 0.6
MAX_FACTS_PER_REQUEST = 6
MAX_EXCERPTS_PER_REQUEST = 20
FORGOTTEN_TEXT = "[forgotten]"
_REQUEST_PREFIX = re.compile(
    r"(?i)^\s*(?:please\s+)?(?:forget|stop remembering|don't remember|do not remember|erase|delete)(?:\s+|$)"
    r"(?:that\s+|about\s+|what i (?:said|told you) about\s+|the fact that\s+)?"
)


def request_target(text: str) -> str:
    """'Please forget that I take sertraline' (or just 'that I take sertraline') -> 'I take sertraline'."""
    target = _REQUEST_PREFIX.sub("", text).strip(" .!")
    return re.sub(r"(?i)^(?:that|about|the fact that)\s+", "", target)


def match_score(target: str, target_vector: np.ndarray, fact: FactRecord) -> float:
    """How strongly a stored item matches a forget request; 0 when below both thresholds."""
    cosine = float(fact.embedding @ target_vector) if fact.embedding is not None else 0.0
    overlap = trigram_overlap(target, fact.statement)
    if cosine >= COSINE_THRESHOLD or overlap >= TRIGRAM_THRESHOLD:
        return max(cosine, overlap)
    return 0.0


def apply_forget(
    deps: MemoryDeps,
    areas: AreaClassifier,
    user_id: str,
    request: str,
    *,
    source_message_ids: list[str] | None = None,
    oplog: OpLog,
) -> list[MemoryEvent]:
    target = request_target(redact(request).text)  # the tombstone keeps no secret, nor do its key and vector
    if not target:
        raise InputError("the request to forget names nothing to forget")
    store = deps.store
    vector = deps.embedder.embed([target])[0]
    stamp = now_text()
    tombstone_id = new_id("t")
    # The reason names the tombstone, not the content: reasons are shown wherever a row is.
    reason = f"forgotten at the user's request ({tombstone_id})"
    kinds = ["fact", "commitment", "excerpt", "summary"]
    items = store.memory.forget_candidates(user_id, target, vector, kinds, TRIGRAM_THRESHOLD, COSINE_THRESHOLD)
    scored = [(match_score(target, vector, f), f) for f in items]
    scored = sorted((pair for pair in scored if pair[0] > 0), key=lambda pair: -pair[0])
    facts = [f for _, f in scored if f.kind in ("fact", "commitment")][:MAX_FACTS_PER_REQUEST]
    others = [f for _, f in scored if f.kind in ("excerpt", "summary")][:MAX_EXCERPTS_PER_REQUEST]
    tombstone = FactRecord(
        id=tombstone_id,
        user_id=user_id,
        kind="tombstone",
        statement=f"The user asked to forget: {target}",
        norm_key=norm_key(target),
        perspective="user_belief",
        confidence=1.0,
        valid_from=stamp,
        ingested_at=stamp,
        predicate="forget",
        entity="user",
        object=target,
        source_message_ids=source_message_ids or [],
        embedding=vector,
    )
    events: list[MemoryEvent] = []
    with store.transaction():
        store.memory.ensure_user(user_id)
        store.memory.insert_facts([tombstone])
        oplog.add("add", tombstone.id, reason="request to forget")
        for fact in facts + others:
            change: dict[str, str | None] = {"expired_at": stamp, "expired_reason": reason}
            store.memory.set_fact_state(user_id, fact.id, change)
            oplog.add("forget", fact.id, {"expired_at": None, "expired_reason": None}, change, reason)
            if fact.kind != "excerpt":
                events.append(MemoryEvent("retract", fact.id, FORGOTTEN_TEXT, reason, fact.kind, [tombstone.id]))
        if facts or others:
            from heedful.memory.dream import refresh_profile_after_forget

            refresh_profile_after_forget(deps, user_id, stamp, oplog)
    # What a forget reports names the area, never the content: an agent may be the caller.
    area = areas.area(target, vector)
    events.insert(
        0,
        MemoryEvent(
            "add",
            tombstone.id,
            f"The user asked to forget something (area: {area})",
            f"request to forget; {len(facts)} fact(s) and {len(others)} excerpt(s) expired",
            "tombstone",
            [f.id for f in facts + others],
        ),
    )
    return events


def forget(deps: MemoryDeps, areas: AreaClassifier, user_id: str, request: str) -> list[MemoryEvent]:
    """A direct request to forget (CLI, API): its own change group, undoable."""
    oplog = OpLog(user_id)
    with deps.store.transaction():
        events = apply_forget(deps, areas, user_id, request, oplog=oplog)
        deps.store.memory.record_ops(oplog.ops)
    return events
