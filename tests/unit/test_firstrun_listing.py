"""`rules list` reads rows without pydantic; its shape must stay the one `Rule.public()` and the typed results give."""

from __future__ import annotations

from typing import Any, get_type_hints

import pytest

from heedful.rules.library import rule_from_row
from heedful.rules.listing import ProposalView, PublicRule, listed_check, listed_rule
from heedful.rules.proposals import Proposal
from heedful.rules.results import RuleRevision, RuleView
from heedful.store.records import RuleRow

FULL_CHECK: dict[str, Any] = {
    "kind": "command",
    "stage": "pre_action",
    "params": {"program": "git", "args": ["push", "--force"]},
    "evidence": ["never force-push"],
    "cases": [{"stage": "pre_action", "evidence": {"action": {"command": "git push -f"}}, "expected": "violated"}],
    "validation": {"cases": 1, "passed": 1},
}


def row(check_spec: dict[str, Any] | None, **changes: Any) -> RuleRow:
    fields: dict[str, Any] = {
        "id": "r-0123456789ab",
        "user_id": "me",
        "scope": "project",
        "project": "/src/app",
        "version": 3,
        "text": "Never force-push.",
        "condition": "on shared branches",
        "exceptions": ["your own fork"],
        "evidence": ["never force-push"],
        "status": "checked",
        "check_spec": check_spec,
        "op": "update",
        "reason": "compiled",
        "source_text": "never force-push",
        "supersedes": "r-aaaaaaaaaaaa",
        "superseded_by": None,
        "library_version": 7,
        "created_at": "2026-01-02T03:04:05Z",
        "rule_created_at": "2026-01-01T00:00:00Z",
    }
    return RuleRow(**{**fields, **changes})


@pytest.mark.parametrize(
    "check_spec",
    [
        None,
        FULL_CHECK,
        # Written before `evidence`, `cases` and `validation` were stored: the defaults fill in as pydantic would.
        {"kind": "word_limit", "stage": "delivery", "params": {"max_words": 80}},
        {**FULL_CHECK, "an_unknown_key": "dropped, as CheckSpec drops it"},
    ],
)
def test_a_listed_row_is_what_the_model_makes_public(check_spec: dict[str, Any] | None) -> None:
    stored = row(check_spec)
    assert listed_rule(stored) == rule_from_row(stored).public()
    assert list(listed_rule(stored)) == list(rule_from_row(stored).public())  # the same key order too


def test_a_listed_check_is_a_copy() -> None:
    listed = listed_check(FULL_CHECK)
    assert listed is not None
    listed["params"]["args"].append("--mutated")
    assert FULL_CHECK["params"]["args"] == ["push", "--force"]


def test_the_light_and_the_typed_shapes_name_the_same_fields() -> None:
    optional = {"proposal", "pending"}  # only in a listing, next to a proposal
    assert set(get_type_hints(PublicRule)) - optional == set(RuleView.model_fields)
    assert list(listed_rule(row(None))) == list(RuleView.model_fields)
    public = Proposal("r-1", "retract", "r-2", "mcp", "Retract r-2").public()
    assert set(public) == set(get_type_hints(ProposalView))


def test_a_revision_reads_every_field_from_the_stored_row() -> None:
    stored = row(FULL_CHECK)
    revision = RuleRevision.model_validate({name: getattr(stored, name) for name in RuleRevision.model_fields})
    assert revision.library_version == 7 and revision.op == "update" and revision.created_at == stored.created_at
