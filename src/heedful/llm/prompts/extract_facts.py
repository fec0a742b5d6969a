"""Prompt: extract facts, commitments and requests to forget from a user's new messages."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage


class SourceMessage(BaseModel):
    id: str
    role: Literal["user", "assistant"]
    speaker: str | None = None
    text: str
    at: str


class ExtractionContext(BaseModel):
    user_id: str
    messages: list[SourceMessage]


class Candidate(BaseModel):
    kind: Literal["fact", "commitment", "forget"]
    statement: str = Field(description="One self-contained sentence, in the language of the conversation.")
    entity: str = Field(description="Who or what it is about: 'user' for the user, else the person's name or relation.")
    predicate: str | None = Field(default=None, description="A short snake_case relation, e.g. likes, lives_in.")
    object: str | None = None
    single_valued: bool = Field(default=False, description="True if a new value replaces the old (name, city).")
    negated: bool = Field(default=False, description="True for 'no longer' / 'not anymore' statements.")
    perspective: Literal["user_belief", "objective", "assistant_said"] = "user_belief"
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    source_message_ids: list[str]
    event_at: str | None = None
    place: str | None = None
    replaces: str | None = Field(default=None, description="The old value when the user says X replaced it.")


class Extraction(BaseModel):
    candidates: list[Candidate]


SYSTEM = (
    """You maintain a personal memory. From the new messages, extract:
- facts the user states about themselves (preferences, attributes, plans, relationships) and
  about other people (keep that person as the entity, never the user);
- commitments (reminders, promises, deadlines);
- requests to forget something (kind "forget", object = what to forget).
Ignore greetings, questions and small talk. Never record secrets. Keep the user's language.
Answer with JSON matching the schema. """
    + DATA_NOTE
)


def build_messages(context: ExtractionContext) -> list[ChatMessage]:
    payload = [{"id": m.id, "at": m.at, "speaker": m.speaker or m.role, "text": m.text} for m in context.messages]
    return [
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content=data_block({"new messages": payload})),
    ]
