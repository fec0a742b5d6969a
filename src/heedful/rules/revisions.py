"""Rule revisions as the learning step reads and writes them.

`card` is the shape the resolver and the retraction matcher read a rule in; `public_row` the shape
a learned action reports a stored revision in; `retracted_row` and `superseded_row` close a rule
(its words kept, its check dropped) when the user withdraws it or a new rule replaces it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from heedful.rules.library import restate, row_for

if TYPE_CHECKING:
    from heedful.rules.models import Rule
    from heedful.store.sqlite.rules import RuleRow


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


def retracted_row(rule: Rule, user: str, version: int, reason: str, source_text: str) -> RuleRow:
    """The revision that withdraws a rule."""
    return row_for(
        rule.id,
        user,
        version,
        restate(rule),
        rule.scope,
        rule.project,
        "retracted",
        None,
        "retract",
        reason,
        source_text,
    )


def superseded_row(rule: Rule, user: str, version: int, by: str, reason: str, source_text: str) -> RuleRow:
    """The revision that retires a rule in favour of rule `by` (it keeps what the rule itself replaced)."""
    return row_for(
        rule.id,
        user,
        version,
        restate(rule),
        rule.scope,
        rule.project,
        "superseded",
        None,
        "supersede",
        reason,
        source_text,
        supersedes=rule.supersedes,
        superseded_by=by,
    )
