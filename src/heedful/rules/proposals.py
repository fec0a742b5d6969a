"""Changes held for the user's approval: weakening a checked rule, and whatever the agent proposes.

A proposal is a rule entry of its own with status `needs_user`: it is listed (`rules list`), never
selected or checked, and the rule it targets stays exactly as it was (a checked rule stays
enforced) until the user approves it with `heedful rules edit ID --approve`. Approval applies it as
one new library version; `heedful rules retract ID` rejects it.

The kind of change and who proposed it are kept in the revision's `op` ("propose:retract:mcp"),
the target in `supersedes`: no schema change, and every revision stays in `rules history`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from heedful.errors import InputError

if TYPE_CHECKING:
    from heedful.llm import Model
    from heedful.rules.listing import ProposalView
    from heedful.rules.models import Candidate, Rule
    from heedful.store.records import RuleRow

Change = Literal["new", "update", "supersede", "retract"]
CHANGES: tuple[Change, ...] = ("new", "update", "supersede", "retract")
PREFIX = "propose"


@dataclass(frozen=True, slots=True)
class Proposal:
    """A pending change: `rule_id` is the proposal's own id, `target` the rule it would change."""

    rule_id: str
    change: Change
    target: str | None
    source: str
    text: str

    def public(self) -> ProposalView:
        return {
            "id": self.rule_id,
            "change": self.change,
            "target": self.target,
            "source": self.source,
            "approve": f"heedful rules edit {self.rule_id} --approve",
            "reject": f"heedful rules retract {self.rule_id}",
        }


def op_for(change: Change, source: str) -> str:
    return f"{PREFIX}:{change}:{source}"


def proposal_of(row: RuleRow) -> Proposal | None:
    """The pending proposal a stored revision holds, if it is one."""
    parts = row.op.split(":")
    if row.status != "needs_user" or len(parts) != 3 or parts[0] != PREFIX or parts[1] not in CHANGES:
        return None
    return Proposal(row.id, cast(Change, parts[1]), row.supersedes, parts[2], row.text)


def note(change: Change, source: str, why: str) -> str:
    who = "the user's words" if source == "user" else f"the agent (through {source})"
    return f"{change} proposed by {who}: {why}; held until the user approves it"


def retraction_row(
    rule_id: str, user: str, target: Rule, evidence: list[str], source: str, why: str, source_text: str
) -> RuleRow:
    from heedful.rules.library import row_for  # the library and its models load only to write (see listing.py)
    from heedful.rules.models import Candidate

    candidate = Candidate(text=f"Retract {target.id}: {target.text}", evidence=evidence)
    return row_for(
        rule_id,
        user,
        1,
        candidate,
        target.scope,
        target.project,
        "needs_user",
        None,
        op_for("retract", source),
        note("retract", source, why),
        source_text,
        supersedes=target.id,
    )


def change_row(
    rule_id: str,
    user: str,
    candidate: Candidate,
    change: Change,
    target: Rule | None,
    scope: str,
    project: str | None,
    source: str,
    why: str,
    source_text: str,
    embedding: Any = None,
) -> RuleRow:
    """A proposed new rule, or a proposed new wording of `target` (update or supersede)."""
    from heedful.rules.library import row_for

    where_scope, where_project = (
        (target.scope, target.project) if target is not None and change == "update" else (scope, project)
    )
    return row_for(
        rule_id,
        user,
        1,
        candidate,
        where_scope,
        where_project,
        "needs_user",
        None,
        op_for(change, source),
        note(change, source, why),
        source_text,
        supersedes=None if target is None else target.id,
        embedding=embedding,
    )


def approval_rows(repo: Any, model: Model, user: str, proposal: Proposal, row: RuleRow) -> list[RuleRow]:
    """The revisions that apply an approved proposal (the target's change and the closed proposal)."""
    from heedful.rules.library import compile_candidate, restate, row_for, rule_from_row
    from heedful.rules.revisions import retired_row

    own = rule_from_row(row)
    version = repo.next_rule_version(user, proposal.rule_id)
    if proposal.change == "new":
        outcome = compile_candidate(model, restate(own))
        return [
            row_for(
                own.id,
                user,
                version,
                restate(own),
                own.scope,
                own.project,
                outcome.status,
                outcome.check,
                "update",
                f"approved by the user; {outcome.reason}",
                "approved by the user",
            )
        ]
    target_row = repo.rule_at(user, proposal.target or "", repo.latest_version(user))
    if target_row is None or target_row.status in ("retracted", "superseded"):
        state = "gone" if target_row is None else target_row.status
        raise InputError(
            f"rule {proposal.target} is {state}: the proposal {own.id} has nothing left to change; "
            f"reject it with `heedful rules retract {own.id}`"
        )
    target = rule_from_row(target_row)
    target_version = repo.next_rule_version(user, target.id)
    closed = row_for(
        own.id,
        user,
        version,
        restate(own),
        own.scope,
        own.project,
        "superseded",
        None,
        "approved",
        f"approved by the user; applied to {target.id}",
        "approved by the user",
        supersedes=target.id,
        superseded_by=target.id,
    )
    if proposal.change == "retract":
        return [
            retired_row(target, user, target_version, f"retracted by the user (approved {own.id})", own.source_text),
            closed,
        ]
    candidate = restate(own)
    outcome = compile_candidate(model, candidate)
    if proposal.change == "update":
        return [
            row_for(
                target.id,
                user,
                target_version,
                candidate,
                target.scope,
                target.project,
                outcome.status,
                outcome.check,
                "update",
                f"approved by the user ({own.id}); {outcome.reason}",
                own.source_text,
                supersedes=target.supersedes,
            ),
            closed,
        ]
    return [  # supersede: the proposal becomes the rule that replaces the target
        retired_row(
            target, user, target_version, f"superseded by {own.id} (approved by the user)", own.source_text, own.id
        ),
        row_for(
            own.id,
            user,
            version,
            candidate,
            own.scope,
            own.project,
            outcome.status,
            outcome.check,
            "supersede",
            f"approved by the user; {outcome.reason}",
            own.source_text,
            supersedes=target.id,
        ),
    ]


__all__ = [
    "CHANGES",
    "Change",
    "Proposal",
    "approval_rows",
    "change_row",
    "note",
    "op_for",
    "proposal_of",
    "retraction_row",
]
