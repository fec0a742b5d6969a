"""Prompt: write validation cases (with expected labels) for checking a rule with a model."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage
from heedful.rules.checks.verdict import Result, Stage

SYSTEM = (
    "Write validation cases for checking a rule with a model. Pick the stage at which it can be judged "
    "(pre_action: a proposed tool call {action: {tool, command|file_path}}; artifact: a written file "
    "{artifact: {path, content}}; delivery: the final reply {delivery: text}). Write 3 to 9 cases: at "
    "least one that complies (pass) and one that violates it at that stage, and at least one where it "
    "does not apply (not_applicable). " + DATA_NOTE
)


class CasesInput(BaseModel):
    text: str
    condition: str | None = None
    exceptions: list[str] = Field(default_factory=list)
    attempt: int = 1


class GeneratedCase(BaseModel):
    stage: Stage
    evidence: dict[str, Any]
    expected: Result


class CasesResponse(BaseModel):
    stage: Stage = Field(description="The stage at which the rule can be judged.")
    cases: list[GeneratedCase]


def messages(context: CasesInput) -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content=data_block(context.model_dump())),
    ]
