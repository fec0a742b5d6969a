"""What recall returns. The CLI's `--json` output is built from these, field for field."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

State = Literal["current", "superseded", "forgotten"]


@dataclass(slots=True)
class RouteHit:
    """How one route saw one item: its 1-based rank there and what it added to the fused score.

    Routes that find many items equally relevant (entity, time, place) give tied items the mean of
    the positions they share, so a rank may be fractional (2.5).
    """

    rank: float
    score: float
    contribution: float


@dataclass(slots=True)
class RecallItem:
    id: str
    kind: str
    text: str
    score: float
    state: State
    valid_from: str
    valid_to: str | None
    event_at: str | None
    session_id: str | None
    source_message_ids: list[str]
    tokens: int
    routes: dict[str, RouteHit] = field(default_factory=dict)

    def to_json(self, explain: bool = False) -> dict[str, object]:
        data = asdict(self)
        if not explain:
            data["routes"] = sorted(self.routes)
        return data


@dataclass(slots=True)
class RecallResult:
    query: str
    items: list[RecallItem]
    as_of: str | None
    enumeration: bool
    budget_tokens: int
    used_tokens: int
    route_ms: dict[str, float] = field(default_factory=dict)
    timed_out: list[str] = field(default_factory=list)
    # Routes that raised an error (logged); like timed-out routes, the others still answered.
    failed: list[str] = field(default_factory=list)
    # How the query was read: terms, entities, places, enumeration and the time window it names.
    analysis: dict[str, object] = field(default_factory=dict)
    # The name of the recall configuration that produced this result (memory/recall/config.py).
    config: str = "default"

    def to_json(self, explain: bool = False) -> dict[str, object]:
        data: dict[str, object] = {
            "query": self.query,
            "as_of": self.as_of,
            "enumeration": self.enumeration,
            "budget_tokens": self.budget_tokens,
            "used_tokens": self.used_tokens,
            "timed_out": self.timed_out,
            "failed": self.failed,
            "route_ms": self.route_ms,
            "items": [item.to_json(explain) for item in self.items],
        }
        if explain:
            data["analysis"] = self.analysis
            data["config"] = self.config
        return data
