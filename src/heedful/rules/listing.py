"""The rule library as read without the learner: stored rows to the `rules list --json` shape.

Kept free of pydantic and of the check kinds, so that `heedful rules list` (and anything else that
only reads the library) starts about as fast as the command line itself. `Rule.public()` builds
its dict through `public_rule` too, so a rule has one public shape whichever way it was read.

    rows = rows_in_scope(repo, "me", repo.latest_version("me"), None, any_project=True)
    [listed_rule(row) for row in rows]   # [{"id": "r_...", "text": ..., "check": {...}, ...}]
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NotRequired

# Not `typing`'s: pydantic reads these shapes too (`results.py`), and needs this TypedDict before Python 3.12.
from typing_extensions import TypedDict

from heedful.enforce.project import lineage, normalise
from heedful.errors import InputError

if TYPE_CHECKING:
    from heedful.store.protocols import RuleStore
    from heedful.store.records import RuleRow

Scope = Literal["global", "project"]
RuleStatus = Literal["checked", "guidance", "inactive", "retracted", "needs_user", "superseded"]
ACTIVE_STATUSES: tuple[RuleStatus, ...] = ("checked", "guidance")
LIVE_STATUSES: tuple[RuleStatus, ...] = ("checked", "guidance", "inactive", "needs_user")
# A check as listed: `CheckSpec`'s fields in their order, without its validation cases (defaults as there).
LISTED_CHECK_FIELDS: tuple[tuple[str, Any], ...] = (
    ("kind", None),
    ("stage", None),
    ("params", {}),
    ("evidence", []),
    ("validation", {}),
)


class ProposalView(TypedDict):
    """A pending change as listed next to the rule it is (`Proposal.public()`)."""

    id: str
    change: str
    target: str | None
    source: str
    approve: str
    reject: str


class PublicRule(TypedDict):
    """One rule as `rules list --json`, `rules show --json` and the HTTP API show it."""

    id: str
    text: str
    scope: str
    project: str | None
    status: str
    check: dict[str, Any] | None
    version: int
    condition: str | None
    exceptions: list[str]
    evidence: list[str]
    supersedes: str | None
    superseded_by: str | None
    updated_at: str
    proposal: NotRequired[ProposalView]  # this rule is a pending proposal
    pending: NotRequired[list[str]]  # proposals waiting to change this rule


def public_rule(
    *,
    id: str,
    text: str,
    scope: str,
    project: str | None,
    status: str,
    check: dict[str, Any] | None,
    version: int,
    condition: str | None,
    exceptions: list[str],
    evidence: list[str],
    supersedes: str | None,
    superseded_by: str | None,
    updated_at: str,
) -> PublicRule:
    """The one public shape of a rule (the check without its validation cases)."""
    return {
        "id": id,
        "text": text,
        "scope": scope,
        "project": project,
        "status": status,
        "check": check,
        "version": version,
        "condition": condition,
        "exceptions": list(exceptions),
        "evidence": list(evidence),
        "supersedes": supersedes,
        "superseded_by": superseded_by,
        "updated_at": updated_at,
    }


def listed_check(spec: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored check spec as listed: `CheckSpec(**spec).model_dump(exclude={"cases"})`, without pydantic."""
    if spec is None:
        return None
    return {name: copy.deepcopy(spec.get(name, default)) for name, default in LISTED_CHECK_FIELDS}


def listed_rule(row: RuleRow) -> PublicRule:
    """A stored revision in the public shape (what `rule_from_row(row).public()` gives)."""
    return public_rule(
        id=row.id,
        text=row.text,
        scope=row.scope,
        project=row.project,
        status=row.status,
        check=listed_check(row.check_spec),  # type: ignore[arg-type]  # stored JSON: a dict of str keys
        version=row.version,
        condition=row.condition,
        exceptions=row.exceptions,
        evidence=row.evidence,
        supersedes=row.supersedes,
        superseded_by=row.superseded_by,
        updated_at=row.created_at,
    )


def normalise_project(project: str | Path | None) -> str | None:
    """A project path as rules store it: absolute, then widened to its repository root (as the hooks do)."""
    if project is None:
        return None
    text = str(project).strip()
    if not text:
        raise InputError("the project path is empty")
    return normalise(text)


def rows_in_scope(repo: RuleStore, user: str, version: int, project: str | None, **options: Any) -> list[RuleRow]:
    """Rows of the global rules and of `project`, and of project rules stored for a directory above it."""
    rows = list(repo.rules_at(user, version, project=project, **options))
    if options.get("any_project"):
        return rows
    seen = {row.id for row in rows}
    for ancestor in lineage(project)[1:]:
        for row in repo.rules_at(user, version, project=ancestor, **options):
            if row.scope == "project" and row.id not in seen:
                seen.add(row.id)
                rows.append(row)
    return rows
