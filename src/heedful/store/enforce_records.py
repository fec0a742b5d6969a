"""The records of enforcement state the store gives the hook: sessions, turns, active rules, events, log rows.

`TypedDict`s, not dataclasses: they are plain dicts at run time, so a hook process (which imports
this on every event) stays off `dataclasses` and `inspect`, and a record goes into the spool file
and back as JSON unchanged. `heedful.store.records` re-exports them with the other records.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from heedful.rules.checks.verdict import Result, Stage

# What the log records for one rule on one candidate.
LogAction = Literal[
    "deny",
    "feedback",
    "revise",
    "unresolved",
    "unknown",
    "cleared",
    "yielded",
    "filed_appeal",
    "appeal_refused",
    "appeal_upheld",
    "appeal_overturned",
]
Standing = Literal["violated", "cleared", "overturned"]


class CheckDict(TypedDict, total=False):
    """A stored check spec as the hook reads it (`heedful.rules.models.CheckSpec` dumped)."""

    kind: str
    stage: Stage
    params: dict[str, Any]
    evidence: list[str]


class ActiveRule(TypedDict):
    """A checked or guidance rule of the turn's library version, as the store gives it to the hook."""

    id: str
    scope: str
    project: str | None
    version: int
    text: str
    condition: str | None
    exceptions: list[str]
    status: str
    check: CheckDict | None


class _EntryBase(TypedDict):
    stage: str
    action: LogAction


class LogEntry(_EntryBase, total=False):
    """One row of the judgment log, as decided (the store adds who, when and the turn)."""

    candidate: str
    rule_id: str | None
    rule_text: str | None
    kind: str | None
    result: Result | None
    reason: str | None
    quotes: list[str] | None
    detail: str


class ToolEvent(TypedDict, total=False):
    """Something a tool call did that a delivery check may need: an edit, a created file, a command."""

    kind: str
    tool: str
    command: str
    path: str
    created: bool
    ok: bool
    tool_use_id: str


class SessionState(TypedDict):
    """A session as the engine reads it: stored, with the writes not stored yet applied."""

    session_id: str
    platform: str | None
    project: str | None
    current_turn: str | None
    turn_count: int
    last_prompt: str | None
    last_reply: str | None


class TurnState(TypedDict):
    """A turn: the library version it keeps, the user's prompt, the rules shown, the repairs used."""

    turn_id: str
    library_version: int
    prompt: str | None
    selected: list[str]
    revisions: int
