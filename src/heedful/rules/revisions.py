"""Rule revisions as the learning step reads and writes them.

`card` is the shape the resolver and the retraction matcher read a rule in; `public_row` the shape
a learned action reports a stored revision in; `retired_row` closes a rule (its words kept, its
check dropped) when the user withdraws it or a new rule replaces it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from heedful.rules.library import restate, row_for

if TYPE_CHECKING:
    from heedful.rules.models import Rule
    from heedful.store.records import RuleRow


def card(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "text": rule.text,
        "condition": rule.condition,
        "exceptions": rule.exceptions,
        "evidence": rule.evidence,
        "check": None if rule.check is None else rule.check.model_dump(),
    }


def public_row(rule_id: str, row: RuleRow) -> dict[str, Any]:
    return {
        "id": rule_id,
        "text": row.text,
        "scope": row.scope,
        "project": row.project,
        "status": row.status,
        "condition": row.condition,
        "exceptions": row.exceptions,
        "evidence": row.evidence,
        "check": row.check_spec,
        "version": row.version,
        "reason": row.reason,
        "supersedes": row.supersedes,
    }


def retired_row(
    rule: Rule, user: str, version: int, reason: str, source_text: str, superseded_by: str | None = None
) -> RuleRow:
    """The revision that retires a rule, its words kept and its check dropped: withdrawn, or replaced by
    rule `superseded_by` (then it keeps what the rule itself had replaced)."""
    replaced = superseded_by is not None
    return row_for(
        rule.id,
        user,
        version,
        restate(rule),
        rule.scope,
        rule.project,
        "superseded" if replaced else "retracted",
        None,
        "supersede" if replaced else "retract",
        reason,
        source_text,
        supersedes=rule.supersedes if replaced else None,
        superseded_by=superseded_by,
    )
