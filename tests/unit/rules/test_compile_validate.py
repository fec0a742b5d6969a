"""Compilation to the four outcomes, and validation that can reject a check."""

from __future__ import annotations

import pytest

from heedful.llm import OfflineModel
from heedful.rules import validate as validation
from heedful.rules.compile import propose
from heedful.rules.interpret import interpret
from heedful.rules.library import compile_candidate
from heedful.rules.models import Candidate, Verdict

MODEL = OfflineModel()


@pytest.mark.parametrize(
    ("text", "kind", "stage"),
    [
        ("Never push to main.", "forbidden_command", "pre_action"),
        ("Use uv, not pip.", "forbidden_command", "pre_action"),
        ("Never force push.", "forbidden_command", "pre_action"),
        ("Don't run `rm -rf`.", "forbidden_command", "pre_action"),
        ("Never use --no-verify.", "forbidden_command", "pre_action"),
        ("Never edit files in the migrations folder.", "forbidden_path", "pre_action"),
        ("Never write files outside the repo.", "forbidden_path", "pre_action"),
        ("Keep replies under 100 words.", "reply_word_limit", "delivery"),
        ("Reply in JSON with fields `status`, `summary` and `files`.", "reply_json_fields", "delivery"),
        ("In the JSON reply the `lang` field must be `en`.", "field_value", "delivery"),
        ("Always run the tests before you tell me you are done.", "required_event", "delivery"),
        ("Clean up temp files before you finish.", "workspace_leftovers", "delivery"),
    ],
)
def test_checkable_rules_compile_to_validated_checks(text: str, kind: str, stage: str) -> None:
    outcome = compile_candidate(MODEL, Candidate(text=text, evidence=[text]))
    assert outcome.status == "checked", outcome
    assert outcome.check is not None
    assert outcome.check.kind == kind
    assert outcome.check.stage == stage
    cases = outcome.check.cases
    assert 3 <= len(cases) <= 9
    assert any(c.expected == "not_applicable" for c in cases)
    assert {c.expected for c in cases if c.stage == stage} >= {"pass", "violated"}


def test_rules_without_a_full_check_stay_guidance() -> None:
    for text in ("Use type hints everywhere.", "Prefer small functions.", "Be concise."):
        assert compile_candidate(MODEL, Candidate(text=text, evidence=[text])).status == "guidance"


def test_conditions_and_exceptions_block_programmatic_checks() -> None:
    (conditional,) = interpret("When working on the API, never push to main.")
    assert compile_candidate(MODEL, conditional).status == "guidance"
    # "unless I ask for detail" on a length limit is decided by the override of the user's own request (see
    # test_compile_classes_counts); an exception about the question itself is not
    (excepted,) = interpret("Keep replies under 100 words unless the question is hard.")
    assert compile_candidate(MODEL, excepted).status == "guidance"


def test_vague_rules_are_inactive_and_dangerous_ones_wait_for_the_user() -> None:
    assert compile_candidate(MODEL, Candidate(text="Do it right.", evidence=["x"], vague=True)).status == "inactive"
    danger = Candidate(text="Always use --no-verify.", evidence=["x"], dangerous=True, danger_reason="unsafe")
    assert compile_candidate(MODEL, danger).status == "needs_user"


def test_validation_rejects_a_check_that_disagrees_with_its_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    def always_pass(kind: str, params: dict, stage: str, evidence: object) -> Verdict:
        return Verdict(result="pass", reason="broken check")

    monkeypatch.setattr(validation, "evaluate", always_pass)
    outcome = compile_candidate(MODEL, Candidate(text="Never push to main.", evidence=["Never push to main."]))
    assert outcome.status == "guidance"
    assert outcome.rounds and all("execution disagrees" in r["rejected"] for r in outcome.rounds)


def test_review_rejects_checks_that_invent_requirements() -> None:
    (spec,) = propose("Use uv, not pip.")
    invented = spec.model_copy(update={"params": {"program": "npm"}})
    outcome = validation.validate(MODEL, "Use uv, not pip.", [invented], None, [], False)
    assert outcome.status == "guidance"
    assert "review" in outcome.rounds[0]["rejected"]


def test_validation_uses_up_to_three_revision_rounds() -> None:
    (good,) = propose("Never push to main.")
    bad = good.model_copy(update={"params": {**good.params, "args": ["production"]}})
    outcome = validation.validate(MODEL, "Never push to main.", [bad, bad, good], None, [], False)
    assert outcome.status == "checked"
    assert len(outcome.rounds) == 3
    outcome = validation.validate(MODEL, "Never push to main.", [bad, bad, bad, good], None, [], False)
    assert outcome.status == "guidance"


def test_a_check_may_not_need_evidence_from_a_later_stage() -> None:
    (spec,) = propose("Keep replies under 100 words.")
    early = spec.model_copy(update={"stage": "pre_action"})
    problems = validation.structural_problems(early, spec.cases or [])
    assert any("does not exist yet" in p for p in problems)
    outcome = validation.validate(MODEL, "Keep replies under 100 words.", [early], None, [], False)
    assert outcome.status == "guidance"
