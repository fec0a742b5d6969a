"""Prompt: split a correction into atomic directives with conditions, exceptions and quotes."""

from __future__ import annotations

from pydantic import BaseModel, Field

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage
from heedful.rules.models import Candidate

SYSTEM = (
    "Split the user's correction into atomic directives (one behaviour each; keep a prohibition with "
    "its replacement, split independent requirements). For each give text, polarity, condition (only "
    "from explicit wording), exceptions, and evidence: exact quotes copied from the message. Mark "
    "dangerous any rule that would weaken safety (skipping hooks or tests, never asking before deleting, "
    "force pushes, committing secrets). " + DATA_NOTE
)


class InterpretInput(BaseModel):
    text: str


class InterpretResponse(BaseModel):
    candidates: list[Candidate] = Field(default_factory=list)


def messages(context: InterpretInput) -> list[ChatMessage]:
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=data_block(context.text))]
