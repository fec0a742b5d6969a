"""Prompt: may a delivery judgment the agent appealed be overturned?"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage

SYSTEM = (
    "An AI coding agent appeals a judgment that its reply breaks a rule its user taught. Overturn the "
    "judgment only if the agent's evidence shows that the reply keeps the rule as written; otherwise "
    "uphold it. " + DATA_NOTE
)


class AppealInput(BaseModel):
    rule: str
    judgment: dict[str, Any]
    evidence: dict[str, Any]
    appeal: str


class AppealDecision(BaseModel):
    overturn: bool
    reason: str = Field(default="")


def messages(context: AppealInput) -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content=data_block(context.model_dump())),
    ]
