"""What the rule operations answer: one typed model per result. `RuleService` returns the model; the
CLI's `--json` prints its `model_dump(mode="json")` and the HTTP API returns it as is (its OpenAPI
schema documents the shape).

    detail = hf.rules.show("me", "r-1f2e3d4c5b6a")              # RuleDetail
    detail.status, detail.cases, detail.model_dump(mode="json")  # the `rules show --json` shape

`rules list` stays on the light `listing.PublicRule` (no pydantic on that path); `RuleView` has the
same fields, and a test keeps the two equal.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from heedful.rules.listing import ProposalView, PublicRule, RuleStatus, Scope
from heedful.rules.models import Case


class RuleView(BaseModel):
    """One rule in its public shape (`listing.public_rule`), as the operations that change it return it."""

    id: str
    text: str
    scope: Scope
    project: str | None
    status: RuleStatus
    check: dict[str, Any] | None
    version: int
    condition: str | None
    exceptions: list[str]
    evidence: list[str]
    supersedes: str | None
    superseded_by: str | None
    updated_at: str

    @classmethod
    def of(cls, public: PublicRule) -> RuleView:
        return cls.model_validate(public)


class RuleDetail(RuleView):
    """`rules show --json`: the rule, why it is as it is, its validation cases and how many revisions it has."""

    reason: str
    source_text: str
    cases: list[Case]
    history: int


class RuleRevision(BaseModel):
    """One row of `rules history --json`: a stored revision and the words that caused it."""

    version: int
    op: str  # as stored: the learner's, the importer's and the editor's ops, older libraries' included
    status: RuleStatus
    text: str
    condition: str | None
    exceptions: list[str]
    evidence: list[str]
    reason: str
    source_text: str
    library_version: int
    supersedes: str | None
    superseded_by: str | None
    created_at: str


class RuleChange(BaseModel):
    """`rules edit|retract --json`: the library version the change made and the rule as it now is."""

    library_version: int
    rule: RuleView


class Approval(RuleChange):
    """`rules edit --approve --json` of a proposal: what was approved, and the rule it changed."""

    approved: ProposalView


class RetractionProposal(RuleChange):
    """A retraction the agent asks for: held for the user, the rule still in force meanwhile."""

    status: Literal["needs_user"] = "needs_user"
    proposal: ProposalView
    note: str


class LibraryUndo(BaseModel):
    """`rules undo --json`: the library version undone and the new version that undid it."""

    undone: int
    library_version: int


class RuleExport(BaseModel):
    """`rules export --json`: the folder, one Markdown file per rule, and the guidance file if one was asked for."""

    directory: str
    files: list[str]
    count: int
    agents_file: str | None = None


__all__ = [
    "Approval",
    "LibraryUndo",
    "RetractionProposal",
    "RuleChange",
    "RuleDetail",
    "RuleExport",
    "RuleRevision",
    "RuleView",
]
