"""Library helpers: the rules in scope at a library version, stored rows to rules and back, compiling a candidate,
Markdown export.

Pure apart from the rule store and the model passed in.
"""

from __future__ import annotations

import re
from typing import Any

from heedful.llm import Model, run_step
from heedful.rules.listing import normalise_project, rows_in_scope
from heedful.rules.models import Candidate, CheckSpec, Rule, RuleStatus
from heedful.rules.steps import CompileInput, CompileStep
from heedful.rules.validate import Outcome, validate
from heedful.store.protocols import RuleStore
from heedful.store.records import RuleRow


def version_for(repo: RuleStore, user: str, session: str | None = None, turn: str | None = None) -> int:
    """The library version a turn pinned, else the latest."""
    if session is not None and turn is not None:
        pinned = repo.pinned(user, session, turn)
        if pinned is not None:
            return int(pinned)
    return int(repo.latest_version(user))


def rule_from_row(row: RuleRow) -> Rule:
    return Rule(
        id=row.id,
        user_id=row.user_id,
        text=row.text,
        scope=row.scope,  # type: ignore[arg-type]
        project=row.project,
        condition=row.condition,
        exceptions=row.exceptions,
        evidence=row.evidence,
        status=row.status,  # type: ignore[arg-type]
        check=None if row.check_spec is None else CheckSpec.model_validate(row.check_spec),
        version=row.version,
        supersedes=row.supersedes,
        superseded_by=row.superseded_by,
        source_text=row.source_text,
        reason=row.reason,
        created_at=row.rule_created_at,
        updated_at=row.created_at,
    )


def row_for(
    rule_id: str,
    user_id: str,
    version: int,
    candidate: Candidate,
    scope: str,
    project: str | None,
    status: RuleStatus,
    check: CheckSpec | None,
    op: str,
    reason: str,
    source_text: str,
    supersedes: str | None = None,
    superseded_by: str | None = None,
    embedding: Any = None,
) -> RuleRow:
    return RuleRow(
        id=rule_id,
        user_id=user_id,
        scope=scope,
        project=project if scope == "project" else None,
        version=version,
        text=candidate.text,
        condition=candidate.condition,
        exceptions=list(candidate.exceptions),
        evidence=list(candidate.evidence),
        status=status,
        check_spec=None if check is None else check.model_dump(),
        op=op,
        reason=reason,
        source_text=source_text,
        supersedes=supersedes,
        superseded_by=superseded_by,
        library_version=0,
        created_at="",
        rule_created_at="",
        embedding=embedding,
    )


def restate(rule: Rule, **changes: Any) -> Candidate:
    """A rule as a candidate (for a new revision of it)."""
    base = Candidate(
        text=rule.text, condition=rule.condition, exceptions=list(rule.exceptions), evidence=list(rule.evidence)
    )
    return base.model_copy(update=changes)


def compile_candidate(model: Model, candidate: Candidate) -> Outcome:
    """Compile and validate: checked (with a validated check), guidance or inactive."""
    if candidate.dangerous:
        return Outcome("needs_user", None, candidate.danger_reason or "would weaken a safeguard")
    # Offline, the vocabulary compiler reads the condition itself: one the evidence decides does not block a check.
    proposals = run_step(
        model,
        CompileStep(),
        CompileInput(text=candidate.text, condition=candidate.condition, exceptions=candidate.exceptions),
    ).proposals
    return validate(model, candidate.text, proposals, candidate.condition, candidate.exceptions, candidate.vague)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48] or "rule"


def _yaml(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def markdown(rule: Rule) -> str:
    """One reviewable Markdown file per rule: frontmatter, the rule, its evidence and its check."""
    from heedful.rules.checks import describe

    front = {
        "id": rule.id,
        "version": rule.version,
        "status": rule.status,
        "scope": rule.scope,
        "project": rule.project,
        "condition": rule.condition,
        "exceptions": rule.exceptions,
        "supersedes": rule.supersedes,
        "superseded_by": rule.superseded_by,
        "updated": rule.updated_at,
    }
    lines = ["---", *(f"{key}: {_yaml(value)}" for key, value in front.items()), "---", "", f"# {rule.text}", ""]
    if rule.condition:
        lines += [f"**When:** {rule.condition}", ""]
    if rule.exceptions:
        lines += ["**Except:** " + "; ".join(rule.exceptions), ""]
    lines += ["## Evidence (the user's own words)", "", *(f"> {quote}" for quote in rule.evidence), ""]
    if rule.check is not None:
        lines += [
            "## Check",
            "",
            f"- kind: `{rule.check.kind}` at stage `{rule.check.stage}`",
            f"- tests: {describe(rule.check.kind, rule.check.params)}",
            f"- parameters: `{_yaml(rule.check.params)}`",
            f"- validated on {len(rule.check.cases)} cases",
            "",
        ]
    elif rule.reason:
        lines += ["## Why there is no check", "", rule.reason, ""]
    return "\n".join(lines)


def markdown_name(rule: Rule) -> str:
    return f"{rule.id}-{_slug(rule.text)}.md"


def agents_section(rules: list[Rule]) -> str:
    """Guidance for CLAUDE.md / AGENTS.md: active rules as a plain list."""
    lines = ["## Learned rules (heedful)", "", "Current user instructions take precedence over these rules.", ""]
    for rule in rules:
        line = f"- {rule.text}"
        if rule.condition:
            line += f" (when: {rule.condition})"
        if rule.exceptions:
            line += f" (except: {'; '.join(rule.exceptions)})"
        if rule.scope == "project":
            line += " [this project]"
        lines.append(line)
    return "\n".join(lines) + "\n"


__all__ = [
    "agents_section",
    "compile_candidate",
    "markdown",
    "markdown_name",
    "normalise_project",
    "restate",
    "row_for",
    "rows_in_scope",
    "rule_from_row",
    "version_for",
]
