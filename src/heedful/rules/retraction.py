"""Retractions learned from the user's words: find the rule withdrawn, then retire it or hold it.

A guidance rule the user withdraws is retracted at once. Retracting a checked rule removes a
safeguard, and an agent's request (`proposed_by`) is never the user's own word: both are held as
a proposal for the user's approval (`proposals`), and the rule stays as it is meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from heedful.rules.models import Action, Admission, LearnResult, Rule, Scope
from heedful.rules.proposals import Proposal, retraction_row
from heedful.rules.resolve import retraction_target
from heedful.rules.revisions import card, public_row, retired_row

if TYPE_CHECKING:
    from heedful.store.protocols import RuleStore


def _evidence(own_text: str) -> list[str]:
    """The user's own words as exact quotes (each part between removed passages)."""
    return [part.strip() for part in own_text.split("\n") if part.strip()]


def _result(scope: Scope | None, admission: Admission, action: Action, version: int | None = None) -> LearnResult:
    return LearnResult(
        decision="persist", scope=scope, reasons=[*admission.reasons], library_version=version, actions=[action]
    )


def retract(
    repo: RuleStore,
    new_id: Callable[[], str],
    user: str,
    text: str,
    own_text: str,
    live: list[Rule],
    pending: list[Proposal],
    admission: Admission,
    proposed_by: str | None,
) -> LearnResult:
    """Retire (or propose retiring) the live rule the user's own words withdraw; a no-op when none matches."""
    target = retraction_target(own_text, [card(r) | {"status": r.status} for r in live])
    if target is None:
        return _result(
            admission.scope, admission, Action(op="noop", reason="no existing rule matches what the user withdrew")
        )
    rule = next(r for r in live if r.id == target["id"])
    if proposed_by is not None or rule.status == "checked":
        waiting = next((p for p in pending if p.change == "retract" and p.target == rule.id), None)
        if waiting is not None:
            why = "this retraction is already waiting for approval"
            return _result(rule.scope, admission, Action(op="noop", rule_id=waiting.rule_id, reason=why))
        why = "retracting a checked rule removes a safeguard" if rule.status == "checked" else "an agent's request"
        row = retraction_row(new_id(), user, rule, _evidence(own_text), proposed_by or "user", why, text)
        version = repo.commit(user, "learn", text[:120], [row])
        held = Action(
            op="needs_user", rule_id=row.id, rule=public_row(row.id, row), reason=f"held for the user: {row.reason}"
        )
        return _result(rule.scope, admission, held, version)
    row = retired_row(rule, user, repo.next_rule_version(user, rule.id), "retracted by the user", text)
    version = repo.commit(user, "retract", text[:120], [row])
    done = Action(op="retract", rule_id=rule.id, rule=public_row(rule.id, row), reason="explicit retraction")
    return _result(rule.scope, admission, done, version)
