"""Dream: per user, flush the buffer, summarise each session, rebuild the profile.

It adds rows and closes the validity of the profile and summaries it replaces; it never
deletes. What the user asked to forget stays out: expired excerpts and facts are skipped, and
a sentence that matches an active tombstone is left out of every summary.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

from heedful.ids import new_id
from heedful.llm.prompts import summarize_session, write_profile
from heedful.llm.prompts.summarize_session import SessionText, Summary
from heedful.llm.prompts.write_profile import Profile, ProfileInput
from heedful.llm.protocol import ChatMessage, run_step
from heedful.memory.events import OpLog
from heedful.memory.normalize import norm_key, trigram_overlap
from heedful.memory.results import DreamResult
from heedful.store.records import FactRecord
from heedful.timeutil import now_text

if TYPE_CHECKING:
    from heedful.memory.parts import MemoryDeps

SUMMARY_SENTENCES = 4
_WORD = re.compile(r"\w+")
_FILLER = re.compile(r"(?i)^(hi|hey|hello|thanks|thank you|ok|okay|cool|great|nice|bye|sure|yes|no)\b[\s!.,]*$")


def summarize_offline(context: SessionText) -> Summary:
    """Extractive: the most informative lines, in their original order."""
    candidates = []
    for position, line in enumerate(context.lines):
        body = line.split(": ", 1)[-1]
        if _FILLER.match(body) or len(_WORD.findall(body)) < 4:
            continue
        if any(trigram_overlap(t, line) >= 0.6 for t in context.tombstones):
            continue
        words = _WORD.findall(body)
        informative = len({w.lower() for w in words if len(w) > 3}) + 3 * sum(w[0].isupper() for w in words[1:])
        candidates.append((informative, position, line))
    best = sorted(candidates, key=lambda c: -c[0])[:SUMMARY_SENTENCES]
    chosen = [line for _, _, line in sorted(best, key=lambda c: c[1])]
    return Summary(text=" ".join(chosen))


class SummarizeStep:
    name = "memory.summarize"
    response_model = Summary

    def messages(self, context: SessionText) -> list[ChatMessage]:
        return summarize_session.messages(context)

    def offline(self, context: SessionText) -> Summary:
        return summarize_offline(context)


class ProfileStep:
    """Rewrites the profile from current facts; offline it groups them (extractive)."""

    name = "memory.profile"
    response_model = Profile

    def messages(self, context: ProfileInput) -> list[ChatMessage]:
        return write_profile.messages(context)

    def offline(self, context: ProfileInput) -> Profile:
        return Profile(text=_group_profile(context.facts))


def _profile_row(fact: FactRecord) -> dict[str, str]:
    return {
        "statement": fact.statement,
        "entity": fact.entity or "user",
        "predicate": fact.predicate or "about",
        "object": fact.object or fact.statement,
    }


def _group_profile(rows: list[dict[str, str]]) -> str:
    """The user's current facts, grouped: the user's own first, then other people's, kept apart."""
    own: dict[str, list[str]] = defaultdict(list)
    others: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        if row["entity"] == "user":
            key, value, target = row["predicate"], row["object"], own
        else:
            key, value, target = row["entity"], row["statement"], others
        if value not in target[key]:
            target[key].append(value)
    lines = [f"{predicate.replace('_', ' ')}: {', '.join(values)}" for predicate, values in own.items()]
    if others:
        lines.append("Other people (their preferences are not the user's):")
        lines.extend(f"- {who}: {'; '.join(values)}" for who, values in others.items())
    return "\n".join(lines)


def dream(deps: MemoryDeps, user_id: str, flushed_events: int = 0) -> DreamResult:
    """Run the whole pass for one user (its buffer already flushed: `flushed_events` says how much);
    returns what it wrote."""
    memory = deps.store.memory
    tombstones = [f.object or f.statement for f in memory.list_facts(user_id, kinds=["tombstone"], current_only=True)]
    existing = {f.session_id: f for f in memory.list_facts(user_id, kinds=["summary"], current_only=True)}
    excerpts = memory.list_facts(user_id, kinds=["excerpt"], current_only=True)
    by_session: dict[str, list[FactRecord]] = defaultdict(list)
    for excerpt in excerpts:
        by_session[excerpt.session_id or "default"].append(excerpt)
    stamp = now_text()
    oplog = OpLog(user_id)
    new_rows: list[FactRecord] = []
    closed: list[tuple[FactRecord, str]] = []
    for session_id, rows in by_session.items():
        previous = existing.get(session_id)
        if previous is not None and previous.ingested_at >= max(r.ingested_at for r in rows):
            continue  # nothing new in this session since its summary
        # Lines matching a request to forget never reach the summariser, nor does the request itself.
        lines = [r.statement for r in rows if not _mentions_any(r.statement, tombstones)]
        if not lines:
            continue
        summary = run_step(
            deps.model, SummarizeStep(), SessionText(session_id=session_id, lines=lines, tombstones=tombstones)
        )
        if not summary.text.strip():
            continue
        row = _derived(
            user_id,
            "summary",
            summary.text,
            stamp,
            [m for r in rows for m in r.source_message_ids],
            session_id,
            valid_from=max(r.valid_from for r in rows),
        )
        new_rows.append(row)
        if previous is not None:
            closed.append((previous, row.id))
    profile, replaced = _new_profile(deps, user_id, stamp, tombstones)
    if profile is not None:
        new_rows.append(profile)
        closed.extend((old, profile.id) for old in replaced)
    if new_rows:
        vectors = deps.embedder.embed([r.statement for r in new_rows])
        for row, vector in zip(new_rows, vectors, strict=True):
            row.embedding = vector
    with deps.store.transaction():
        memory.insert_facts(new_rows)
        for row in new_rows:
            oplog.add("add", row.id, reason=f"dream {row.kind}")
        for old, replacement in closed:
            change: dict[str, str | None] = {"valid_to": stamp, "superseded_by": replacement}
            memory.set_fact_state(user_id, old.id, change)
            oplog.add("supersede", old.id, {"valid_to": None, "superseded_by": None}, change, "dream rebuilt it")
        memory.record_ops(oplog.ops)
    return DreamResult(
        user_id=user_id,
        flushed_events=flushed_events,
        summaries=sum(r.kind == "summary" for r in new_rows),
        profile_rebuilt=any(r.kind == "profile" for r in new_rows),
    )


def _new_profile(
    deps: MemoryDeps, user_id: str, stamp: str, tombstones: list[str]
) -> tuple[FactRecord | None, list[FactRecord]]:
    """The profile rebuilt from current facts (None when unchanged) and the profiles it replaces.

    A line that matches an active request to forget is left out, whatever wrote it.
    """
    memory = deps.store.memory
    current = memory.list_facts(user_id, kinds=["fact"], current_only=True)
    text = run_step(deps.model, ProfileStep(), ProfileInput(facts=[_profile_row(f) for f in current])).text
    text = "\n".join(line for line in text.splitlines() if not _mentions_any(line, tombstones)).strip()
    old_profiles = memory.list_facts(user_id, kinds=["profile"], current_only=True)
    if not text or (old_profiles and old_profiles[-1].statement == text):
        return None, old_profiles if not text else []
    return _derived(user_id, "profile", text, stamp, [], None, valid_from=stamp), old_profiles


def _mentions_any(line: str, tombstones: list[str]) -> bool:
    return any(trigram_overlap(t, line) >= 0.6 for t in tombstones)


def refresh_profile_after_forget(deps: MemoryDeps, user_id: str, stamp: str, oplog: OpLog) -> bool:
    """At forget time (inside its transaction): rebuild the profile without what was forgotten.

    Only a user who has a profile gets a new one; with no facts left, the old one is closed.
    Returns whether the profile changed.
    """
    memory = deps.store.memory
    if not memory.list_facts(user_id, kinds=["profile"], current_only=True):
        return False
    tombstones = [f.object or f.statement for f in memory.list_facts(user_id, kinds=["tombstone"], current_only=True)]
    profile, replaced = _new_profile(deps, user_id, stamp, tombstones)
    if profile is not None:
        profile.embedding = deps.embedder.embed([profile.statement])[0]
        memory.insert_facts([profile])
        oplog.add("add", profile.id, reason="profile rebuilt after a request to forget")
    for old in replaced:
        change: dict[str, str | None] = {"valid_to": stamp, "superseded_by": profile.id if profile else None}
        memory.set_fact_state(user_id, old.id, change)
        oplog.add("supersede", old.id, {"valid_to": None, "superseded_by": None}, change, "forgotten content")
    return bool(replaced)


def _derived(
    user_id: str,
    kind: str,
    text: str,
    stamp: str,
    sources: list[str],
    session_id: str | None,
    valid_from: str,
) -> FactRecord:
    return FactRecord(
        id=new_id("s" if kind == "summary" else "p"),
        user_id=user_id,
        kind=kind,  # type: ignore[arg-type]
        statement=text,
        norm_key=norm_key(text)[:500],
        perspective="objective",
        confidence=1.0,
        valid_from=valid_from,
        ingested_at=stamp,
        source_message_ids=sources,
        session_id=session_id,
    )
