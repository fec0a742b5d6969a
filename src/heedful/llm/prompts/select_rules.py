"""Prompt: judge one batch of rule cards (at most 32) for the current task and message."""

from __future__ import annotations

from pydantic import BaseModel, Field

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage

SYSTEM = (
    "Select the learned rules that apply to the CURRENT task and the user's latest message. Judge each "
    "rule's scope, condition and exceptions; topic similarity alone is not enough; an exception that the "
    "request meets excludes a rule. Prefer including a rule that may apply over missing it. Answer one "
    "decision per card with a short reason. " + DATA_NOTE
)


class SelectCard(BaseModel):
    id: str
    text: str
    condition: str | None = None
    exceptions: list[str] = Field(default_factory=list)
    cosine: float = 0.0
    keyword: float = 0.0


class SelectInput(BaseModel):
    query: str
    project_languages: list[str] | None = None
    cards: list[SelectCard]
    cosine_threshold: float
    keyword_threshold: float


class SelectDecision(BaseModel):
    id: str
    applies: bool
    why: str


class SelectResponse(BaseModel):
    decisions: list[SelectDecision]


def messages(context: SelectInput) -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content=data_block(context.model_dump())),
    ]
