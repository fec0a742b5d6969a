"""Prompt: propose programmatic checks for a learned rule, from a closed set of check kinds."""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage
from heedful.rules.models import CheckSpec


class CompileInput(BaseModel):
    text: str
    condition: str | None = None
    exceptions: list[str] = Field(default_factory=list)


class CompileResponse(BaseModel):
    proposals: list[CheckSpec] = Field(default_factory=list)


def system(kinds: dict[str, str]) -> str:
    """`kinds`: each check kind's name and the one-paragraph description of what it states."""
    return (
        "Propose programmatic checks for a learned rule, most faithful first, using only these kinds: "
        f"{json.dumps(kinds)}. Propose nothing when no kind states the whole requirement; never drop a "
        "condition or exception to make a rule checkable, never invent thresholds. " + DATA_NOTE
    )


def messages(context: CompileInput, kinds: dict[str, str]) -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content=system(kinds)),
        ChatMessage(role="user", content=data_block(context.model_dump())),
    ]
