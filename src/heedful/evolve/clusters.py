"""Failure kinds and clusters: where a missed question's gold evidence was lost, and which failures go together.

Each missed gold turn is lost at one step, checked in the order the evidence travels:

- never recalled: no route found it, even in a recall without item limit or token budget;
- beyond recall's item limit: found, but ranked below the items recall returns;
- packed out by the token budget: ranked within the item limit, but the budget had no room;
- recalled below the cut: returned by recall below the reader's first K, and not listed;
- left out of the context: recalled within the first K, yet the context did not list it;
- listed after item K: in the context, too late for the reader.

A question's kind is the earliest step at which one of its gold turns was lost. The built-in
critic clusters the failures by kind and question category (deterministic); a critic command
answers its own clusters, in the same shape.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

FailureKind = Literal[
    "never recalled",
    "beyond recall's item limit",
    "packed out by the token budget",
    "recalled below the cut",
    "left out of the context",
    "listed after item K",
]
KINDS: tuple[FailureKind, ...] = (
    "never recalled",
    "beyond recall's item limit",
    "packed out by the token budget",
    "recalled below the cut",
    "left out of the context",
    "listed after item K",
)


class FailureCluster(BaseModel):
    """Failures that share a cause: a label, the trace ids in it, and how many there are."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    label: str = Field(min_length=1, max_length=300)
    traces: tuple[str, ...] = Field(default=(), max_length=10_000)
    count: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _count_covers_the_ids(self) -> FailureCluster:
        # A critic may cite a sample of ids for a larger cluster, never fewer failures than it cites.
        if self.count < len(self.traces):
            object.__setattr__(self, "count", len(self.traces))
        return self


def gold_failure(
    context_rank: int | None, recall_rank: int | None, wide_rank: int | None, item_limit: int, k: int
) -> FailureKind | None:
    """Where one gold turn was lost (None: it was among the first `k` items the context listed).
    `wide_rank` is its rank in a recall without item limit or budget, `item_limit` the items recall returns."""
    if context_rank is not None:
        return None if context_rank <= k else "listed after item K"
    if recall_rank is not None:
        return "left out of the context" if recall_rank <= k else "recalled below the cut"
    if wide_rank is None:
        return "never recalled"
    return "packed out by the token budget" if wide_rank <= item_limit else "beyond recall's item limit"


def question_failure(kinds: list[FailureKind | None]) -> FailureKind | None:
    """The earliest step at which one of a question's gold turns was lost."""
    lost = [kind for kind in kinds if kind is not None]
    return min(lost, key=KINDS.index) if lost else None


def cluster(failures: list[tuple[str, FailureKind, str]]) -> list[FailureCluster]:
    """(trace id, kind, category) triples grouped by kind and category: largest first, then by step."""
    groups: dict[tuple[FailureKind, str], list[str]] = defaultdict(list)
    for trace_id, kind, category in failures:
        groups[(kind, category)].append(trace_id)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), KINDS.index(item[0][0]), item[0][1]))
    return [
        FailureCluster(label=f"{kind}: {category}", traces=tuple(ids), count=len(ids))
        for (kind, category), ids in ordered
    ]


def traced_failures(traces_file: Path) -> list[dict[str, Any]]:
    """The traces in a development.jsonl (empty when there is none)."""
    if not traces_file.is_file():
        return []
    return [json.loads(line) for line in traces_file.read_text(encoding="utf-8").splitlines() if line.strip()]


def builtin_clusters(traces: list[dict[str, Any]]) -> list[FailureCluster]:
    """The built-in critic's clustering of the traces: by the step that lost the evidence, and category."""
    return cluster(
        [(str(t["id"]), t["failure"], str(t.get("category", ""))) for t in traces if t.get("id") and t.get("failure")]
    )


def answered_clusters(data: object, known: set[str]) -> tuple[list[FailureCluster], list[str]]:
    """A critic's clusters from its JSON answer, with notes on what was dropped. Ids not among the
    traces are dropped (a cluster left with none and no count of its own goes); a malformed one is skipped."""
    if not isinstance(data, list):
        return [], ["the critic gave no clusters"] if data is None else ["the critic's clusters are not a list"]
    clusters: list[FailureCluster] = []
    notes: list[str] = []
    unknown: set[str] = set()
    for number, raw in enumerate(data, start=1):
        try:
            found = FailureCluster.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "cluster"
            notes.append(f"the critic's cluster {number} cannot be read ({where}: {first['msg']})")
            continue
        kept = tuple(dict.fromkeys(t for t in found.traces if t in known))
        unknown.update(t for t in found.traces if t not in known)
        counted = isinstance(raw, dict) and isinstance(raw.get("count"), int) and raw["count"] > 0
        if kept or counted:  # a cluster of ids we never showed, and no count of its own, says nothing
            clusters.append(FailureCluster(label=found.label, traces=kept, count=found.count))
    if unknown:
        notes.append(f"the critic cited {len(unknown)} trace id{'s' * (len(unknown) != 1)} not in the traces (dropped)")
    return clusters, notes
