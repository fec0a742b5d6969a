"""Plain rows passed between the store and the layers above it.

The enforcement records (sessions, turns, active rules, events, log rows) are defined apart, in
`heedful.store.enforce_records`, without `dataclasses`, because a hook process reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from heedful.store.enforce_records import ActiveRule, CheckDict, LogEntry, SessionState, ToolEvent, TurnState

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ActiveRule",
    "ApiKeyRecord",
    "CandidateRow",
    "CheckDict",
    "FactRecord",
    "JobRecord",
    "LibraryVersionRow",
    "LogEntry",
    "MessageRecord",
    "OpRecord",
    "RecordOp",
    "RuleRow",
    "SessionState",
    "ToolEvent",
    "TurnState",
]


FactKind = Literal["fact", "commitment", "tombstone", "summary", "profile", "excerpt"]
Perspective = Literal["user_belief", "objective", "assistant_said"]
Role = Literal["user", "assistant"]
# What a row of the memory operation log records: the writer's add / confirm / supersede, a forget's
# expiry, the user's delete, and the undo that reversed a change group.
RecordOp = Literal["add", "confirm", "supersede", "forget", "delete", "undo"]


@dataclass(slots=True)
class MessageRecord:
    id: str
    user_id: str
    session_id: str
    role: Role
    text: str
    created_at: str
    ingested_at: str
    speaker: str | None = None
    background: bool = False
    extracted_at: str | None = None


@dataclass(slots=True)
class FactRecord:
    id: str
    user_id: str
    kind: FactKind
    statement: str
    norm_key: str
    perspective: Perspective
    confidence: float
    valid_from: str
    ingested_at: str
    predicate: str | None = None
    entity: str | None = None
    object: str | None = None
    source_message_ids: list[str] = field(default_factory=list)
    session_id: str | None = None
    event_at: str | None = None
    place: str | None = None
    background: bool = False
    related_id: str | None = None
    valid_to: str | None = None
    superseded_by: str | None = None
    expired_at: str | None = None
    expired_reason: str | None = None
    entities: list[str] = field(default_factory=list)
    embedding: np.ndarray | None = None

    def state_at(self, moment: str | None = None) -> Literal["current", "superseded", "forgotten"]:
        """The fact's state now, or in valid time as of `moment`.

        A forgotten (expired) fact stays forgotten for every moment: a request to forget is honoured
        for questions about the past too.
        """
        if self.expired_at is not None:
            return "forgotten"
        if self.valid_to is not None and (moment is None or self.valid_to <= moment):
            return "superseded"
        return "current"


@dataclass(slots=True)
class OpRecord:
    """One change to the record: `before`/`after` hold only the mutable fields that changed."""

    id: str
    user_id: str
    group_id: str
    op: RecordOp
    fact_id: str
    before: dict[str, str | None]
    after: dict[str, str | None]
    reason: str | None
    created_at: str
    undone_by: str | None = None


@dataclass(slots=True)
class JobRecord:
    id: str
    user_id: str
    kind: str
    payload: dict[str, object]
    state: Literal["pending", "running", "done", "failed"]
    attempts: int
    max_attempts: int
    lease_owner: str | None = None
    lease_expires_at: str | None = None
    last_error: str | None = None
    result: dict[str, object] | None = None
    created_at: str = ""
    updated_at: str = ""


@dataclass(frozen=True, slots=True)
class CandidateRow:
    """What recall needs to filter and order a candidate, without its embedding."""

    id: str
    kind: str
    statement: str
    session_id: str | None
    event_at: str | None
    valid_from: str
    valid_to: str | None
    ingested_at: str
    expired_at: str | None


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    id: str
    user_id: str
    secret_hash: str
    admin: bool
    label: str | None
    created_at: str
    revoked_at: str | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def to_json(self) -> dict[str, object]:
        """What `keys list --json` shows: never the hash."""
        return {
            "id": self.id,
            "user": self.user_id,
            "admin": self.admin,
            "label": self.label,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
        }


@dataclass(slots=True)
class RuleRow:
    """One revision of one rule, as stored."""

    id: str
    user_id: str
    scope: str
    project: str | None
    version: int
    text: str
    condition: str | None
    exceptions: list[str]
    evidence: list[str]
    status: str
    check_spec: dict[str, object] | None
    op: str
    reason: str
    source_text: str
    supersedes: str | None
    superseded_by: str | None
    library_version: int
    created_at: str
    rule_created_at: str
    embedding: np.ndarray | None = None


@dataclass(slots=True)
class LibraryVersionRow:
    version: int
    base_version: int
    kind: str
    summary: str
    created_at: str
    undone_by: int | None
