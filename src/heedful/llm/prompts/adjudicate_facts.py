"""Prompt: decide, in one batch, how each candidate relates to the facts already stored."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.prompts.extract_facts import Candidate
from heedful.llm.protocol import ChatMessage


class StoredFact(BaseModel):
    id: str
    statement: str
    entity: str | None
    predicate: str | None
    object: str | None
    similarity: float = Field(description="Cosine similarity to the candidate (for finding, not deciding).")


class CandidateWithNeighbours(BaseModel):
    index: int
    candidate: Candidate
    neighbours: list[StoredFact]


class AdjudicationContext(BaseModel):
    items: list[CandidateWithNeighbours]


class Decision(BaseModel):
    index: int
    action: Literal["new", "duplicate", "replacement", "coexisting", "enrichment"]
    target_ids: list[str] = Field(default_factory=list, max_length=2)
    reason: str = ""


class Adjudication(BaseModel):
    decisions: list[Decision]


SYSTEM = (
    """For each candidate fact, compare it with the stored facts listed beside it and decide:
- duplicate: it says the same as a stored fact (target_ids = that fact);
- replacement: the user changed their mind or the value changed (target_ids = the old facts, at most 2);
- enrichment: it adds detail to a stored fact that stays true (target_ids = that fact);
- coexisting: related but both hold (target_ids = the related fact);
- new: nothing related is stored.
"Always X" and "never X" are not duplicates. Answer with JSON matching the schema. """
    + DATA_NOTE
)


def build_messages(context: AdjudicationContext) -> list[ChatMessage]:
    payload = [
        {
            "candidate": item.index,
            "statement": item.candidate.statement,
            "stored": [{"id": f.id, "statement": f.statement} for f in item.neighbours],
        }
        for item in context.items
    ]
    return [
        ChatMessage(role="system", content=SYSTEM),
        ChatMessage(role="user", content=data_block(payload)),
    ]
