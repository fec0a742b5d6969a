"""Resolution against existing rules (pure): noop, update, supersede, new; retraction targets."""

from __future__ import annotations

from heedful.rules.interpret import interpret
from heedful.rules.resolve import resolve_offline, retraction_target
from heedful.rules.steps import ResolveInput


def card(rule_id: str, text: str, **extra: object) -> dict:
    return {"id": rule_id, "text": text, "condition": None, "exceptions": [], "evidence": [text], **extra}


def decide(text: str, *rules: dict) -> tuple[str, str | None]:
    (candidate,) = interpret(text)
    response = resolve_offline(ResolveInput(candidate=candidate, related=list(rules)))
    return response.op, response.target_id


def test_restatement_is_a_noop() -> None:
    assert decide("never push to main!", card("r1", "Never push to main.")) == ("noop", "r1")


def test_changed_requirement_supersedes() -> None:
    assert decide("we switched to yarn, not pnpm", card("r1", "Use pnpm.")) == ("supersede", "r1")
    assert decide("from now on, be more detailed", card("r1", "Be concise.")) == ("supersede", "r1")
    assert decide("use spaces for indentation", card("r1", "Use tabs for indentation.")) == ("supersede", "r1")


def test_refinement_updates() -> None:
    op, target = decide("never push to main unless I say so", card("r1", "Never push to main."))
    assert (op, target) == ("update", "r1")


def test_unrelated_is_new() -> None:
    assert decide("never use emojis in commit messages", card("r1", "Use uv, not pip."))[0] == "new"


def test_retraction_finds_its_rule() -> None:
    rules = [card("r1", "Use rg instead of grep."), card("r2", "Never push to main.")]
    assert retraction_target("forget what I said about rg", rules)["id"] == "r1"
    assert retraction_target("forget what I said about emojis", rules) is None
