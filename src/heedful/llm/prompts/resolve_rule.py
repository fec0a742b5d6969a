"""Prompt: resolve a candidate rule against the related rules already in the library."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage
from heedful.rules.models import Candidate

SYSTEM = (
    "Resolve a candidate rule against related existing rules: noop (already covered), update (refined "
    "condition, exception or wording), supersede (the requirement changed), or new. Retract only on an "
    "explicit retraction. Name the target rule id. " + DATA_NOTE
)


class ResolveInput(BaseModel):
    candidate: Candidate
    related: list[dict[str, Any]] = Field(default_factory=list)
    similarities: list[float] = Field(default_factory=list)


class ResolveResponse(BaseModel):
    op: str
    target_id: str | None = None
    reason: str = ""


def messages(context: ResolveInput) -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content=data_block(context.model_dump())),
    ]
