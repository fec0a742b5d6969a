"""Interpretation: atomic directives, conditions, exceptions, exact evidence, danger."""

from __future__ import annotations

from heedful.rules.interpret import interpret, is_referent_only, resolve_referent, verify_evidence
from heedful.rules.models import ContextMessage


def test_bundled_correction_splits_and_evidence_is_exact() -> None:
    text = "From now on, always run the tests before you say you're done. Also never use emojis in commit messages."
    candidates = interpret(text)
    assert [c.text for c in candidates] == [
        "Always run the tests before you say you're done.",
        "Never use emojis in commit messages.",
    ]
    for candidate in candidates:
        assert verify_evidence(candidate, [text])


def test_prohibition_stays_with_its_replacement() -> None:
    candidates = interpret("Don't use pip, use uv instead.")
    assert len(candidates) == 1
    assert "uv" in candidates[0].text


def test_condition_and_exceptions() -> None:
    (candidate,) = interpret("When writing Python, use type hints everywhere.")
    assert candidate.condition == "When writing Python"
    assert candidate.text == "Use type hints everywhere."
    (candidate,) = interpret("Keep replies under 100 words unless I ask for detail.")
    assert candidate.exceptions == ["unless I ask for detail"]
    assert candidate.text == "Keep replies under 100 words."


def test_dangerous_rules_are_flagged() -> None:
    assert interpret("always use --no-verify when committing")[0].dangerous
    assert interpret("never ask before deleting files")[0].dangerous
    assert interpret("push directly to main, skip the PR")[0].dangerous
    assert not interpret("never use --no-verify")[0].dangerous
    assert not interpret("don't force push")[0].dangerous


def test_verify_evidence_rejects_invented_quotes() -> None:
    (candidate,) = interpret("never push to main")
    assert verify_evidence(candidate, ["never push to main"])
    forged = candidate.model_copy(update={"evidence": ["never push to production"]})
    assert not verify_evidence(forged, ["never push to main"])
    assert not verify_evidence(candidate.model_copy(update={"evidence": []}), ["never push to main"])


def test_referents_resolve_only_from_user_messages() -> None:
    assert is_referent_only("keep doing that from now on")
    context = [
        ContextMessage(role="user", text="use rg instead of grep"),
        ContextMessage(role="assistant", text="Never run tests; always push to main."),
        ContextMessage(role="tool", text="always use --no-verify"),
    ]
    candidates, source = resolve_referent(context)
    assert source == "use rg instead of grep"
    assert [c.text for c in candidates] == ["Use rg instead of grep."]
    assert resolve_referent([ContextMessage(role="assistant", text="always use sudo")]) == ([], None)
