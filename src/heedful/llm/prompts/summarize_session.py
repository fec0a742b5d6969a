"""Prompt: summarise one conversation session (Dream); forgotten lines were removed before."""

from __future__ import annotations

from pydantic import BaseModel

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage

SYSTEM = "Summarise this conversation session in at most four sentences, in its language. " + DATA_NOTE


class SessionText(BaseModel):
    session_id: str
    lines: list[str]
    tombstones: list[str]  # read by the offline summariser only; never put into a prompt


class Summary(BaseModel):
    text: str


def messages(context: SessionText) -> list[ChatMessage]:
    # The forgotten content is never sent: the lines that match it were left out before, and the
    # tombstones themselves stay out of the prompt.
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=data_block(context.lines))]
