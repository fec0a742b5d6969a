"""Prompt: answer a benchmark question from the memory context a harness built (the evolve reader)."""

from __future__ import annotations

from pydantic import BaseModel

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage

SYSTEM = (
    "Answer the question using only the memory context. Answer in as few words as the question allows "
    "(a name, a date, a short phrase). If the context does not hold the answer, answer exactly: not mentioned. "
    + DATA_NOTE
)


class Answer(BaseModel):
    answer: str


def messages(question: str, context: str) -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content=data_block({"memory_context": context, "question": question})),
    ]
