"""Prompt: review a proposed check blind (the rule, the check and the cases' evidence; no labels)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage
from heedful.rules.models import CheckSpec, Result

SYSTEM = (
    "Review a proposed check for a learned rule. Say whether it preserves the rule's meaning, scope and "
    "exceptions without inventing requirements (approved), whether the rule is clear (meaning_clear), "
    "and label each case pass, violated, not_applicable or unknown on your own. " + DATA_NOTE
)


class ReviewInput(BaseModel):
    rule_text: str
    spec: CheckSpec
    cases: list[tuple[str, dict[str, Any]]]


class ReviewResponse(BaseModel):
    approved: bool
    meaning_clear: bool
    reason: str
    labels: list[Result]


def messages(context: ReviewInput) -> list[ChatMessage]:
    spec = context.spec.model_dump(exclude={"cases", "validation"})
    payload = {"rule": context.rule_text, "check": spec, "cases": context.cases}
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=data_block(payload))]
