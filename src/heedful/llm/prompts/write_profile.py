"""Prompt: rewrite a user's profile from their current facts (Dream)."""

from __future__ import annotations

from pydantic import BaseModel

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage

SYSTEM = (
    "Write the user's profile from these current facts, in their language: the user's own facts first, then a "
    "separate block for other people (their preferences are not the user's). Use only these facts; add "
    "nothing. " + DATA_NOTE
)


class ProfileInput(BaseModel):
    facts: list[dict[str, str]]  # statement, entity, predicate of each current fact


class Profile(BaseModel):
    text: str


def messages(context: ProfileInput) -> list[ChatMessage]:
    lines = [f"[{f['entity']}] {f['statement']}" for f in context.facts]
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=data_block(lines))]
