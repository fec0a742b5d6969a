"""The rule data model: admissions, candidates, rules, check specs, observations and judgments.

Plain pydantic models so that every layer (store, CLI `--json`, model steps) shares one shape.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from heedful.rules.checks.verdict import Result, Stage, Verdict
from heedful.rules.listing import ACTIVE_STATUSES, LIVE_STATUSES, PublicRule, RuleStatus, Scope, public_rule

Decision = Literal["persist", "task_local", "underspecified", "none"]
Op = Literal["new", "update", "supersede", "split", "noop", "retract", "needs_user"]
Source = Literal["user", "assistant", "tool", "file", "system"]
# Re-exported from the light modules (the check kinds' verdicts; the library as read without the learner).
__all__ = ["ACTIVE_STATUSES", "LIVE_STATUSES", "Result", "RuleStatus", "Scope", "Stage", "Verdict"]

STAGES: tuple[Stage, ...] = ("pre_action", "artifact", "delivery")
# The models of selection and checking are built on first use, not at import: learning a rule
# (a short command) never uses them.
_BUILT_ON_FIRST_USE = ConfigDict(defer_build=True)


class ContextMessage(BaseModel):
    """One earlier message of the same session (only user messages can ground a rule)."""

    role: Literal["user", "assistant", "tool", "system"]
    text: str


class Admission(BaseModel):
    decision: Decision
    scope: Scope | None = None
    retraction: bool = False
    reasons: list[str] = Field(default_factory=list)


class Candidate(BaseModel):
    """One atomic directive read from the user's words (a hypothesis until resolved)."""

    text: str
    polarity: Literal["do", "dont"] = "do"
    condition: str | None = None
    exceptions: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    dangerous: bool = False
    danger_reason: str | None = None
    vague: bool = False


class Case(BaseModel):
    """A validation case: evidence for one stage and the label the compiler expects."""

    stage: Stage
    evidence: dict[str, Any]
    expected: Result
    note: str = ""


class CheckSpec(BaseModel):
    kind: str
    stage: Stage
    params: dict[str, Any]
    evidence: list[str] = Field(default_factory=list)
    cases: list[Case] = Field(default_factory=list)
    validation: dict[str, Any] = Field(default_factory=dict)


class Rule(BaseModel):
    id: str
    user_id: str
    text: str
    scope: Scope
    project: str | None = None
    condition: str | None = None
    exceptions: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    status: RuleStatus
    check: CheckSpec | None = None
    version: int = 1
    supersedes: str | None = None
    superseded_by: str | None = None
    source_text: str = ""
    reason: str = ""
    created_at: str = ""
    updated_at: str = ""

    def public(self) -> PublicRule:
        """The `rules list --json` shape (one builder for it: `heedful.rules.listing.public_rule`)."""
        return public_rule(
            id=self.id,
            text=self.text,
            scope=self.scope,
            project=self.project,
            status=self.status,
            check=None if self.check is None else self.check.model_dump(exclude={"cases"}),
            version=self.version,
            condition=self.condition,
            exceptions=self.exceptions,
            evidence=self.evidence,
            supersedes=self.supersedes,
            superseded_by=self.superseded_by,
            updated_at=self.updated_at,
        )


class Action(BaseModel):
    op: Op
    rule_id: str | None = None
    rule: dict[str, Any] | None = None
    reason: str = ""
    children: list[str] = Field(default_factory=list)


class LearnResult(BaseModel):
    decision: Decision
    scope: Scope | None
    actions: list[Action] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)
    library_version: int | None = None
    elapsed_ms: float = 0.0


class Judgment(BaseModel):
    model_config = _BUILT_ON_FIRST_USE

    rule_id: str
    rule_version: int
    text: str
    kind: str | None
    stage: Stage
    result: Result
    reason: str
    quotes: list[str] = Field(default_factory=list)


class SelectedRule(BaseModel):
    """A rule that applies to the task, with why the selector chose it."""

    model_config = _BUILT_ON_FIRST_USE

    id: str
    text: str
    scope: Scope
    condition: str | None
    exceptions: list[str]
    status: RuleStatus
    score: float
    why: str
    reach: str


class ArmedCheck(BaseModel):
    """A checked rule in scope: its check stays armed at every stage whatever the selection."""

    model_config = _BUILT_ON_FIRST_USE

    rule_id: str
    text: str
    kind: str
    stage: Stage
    params: dict[str, Any]
    evidence: list[str]


class RuleSelection(BaseModel):
    """`rules select --json`: the applicable rules and every armed check of one library version."""

    model_config = _BUILT_ON_FIRST_USE

    library_version: int
    project: str | None
    rules: list[SelectedRule]
    checks: list[ArmedCheck]
    batches: int
    examined: int
    note: str = "Current user instructions and required output formats take precedence over learned rules."


class CheckReport(BaseModel):
    """`rules check --json`: every checked rule of one stage judged on one observation."""

    model_config = _BUILT_ON_FIRST_USE

    library_version: int
    stage: Stage
    project: str | None
    blocked: bool
    counts: dict[Result, int]
    judgments: list[Judgment]
