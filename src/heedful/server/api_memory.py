"""`/v1/memory/...`: the `heedful memory` commands over HTTP, answering with the same JSON."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from heedful.errors import InputError
from heedful.memory.results import MemoryUndo
from heedful.server import shapes
from heedful.server.auth import CallerDep, StateDep

router = APIRouter(prefix="/v1/memory", tags=["memory"])


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Message(Body):
    text: str = Field(min_length=1)
    role: Literal["user", "assistant"] = "user"
    session: str | None = None
    at: str | None = Field(None, description="When it was said (ISO 8601).")
    speaker: str | None = None


class AddBody(Body):
    text: str | None = Field(None, min_length=1, description="One message; or give `messages`.")
    messages: list[Message] | None = Field(None, min_length=1)
    session: str | None = None
    role: Literal["user", "assistant"] = "user"
    at: str | None = None
    speaker: str | None = None
    flush: bool = False
    background: bool = False


class RecallBody(Body):
    query: str = Field(min_length=1)
    limit: int | None = Field(None, ge=1)
    budget: int | None = Field(None, ge=1)
    as_of: str | None = None
    explain: bool = False


class TextBody(Body):
    text: str = Field(min_length=1)


class ContextBody(Body):
    question: str = Field(min_length=1)
    options: list[str] | None = None
    harness: str | None = None
    as_of: str | None = None


@router.post("/messages", summary="Add a message (or several) to the user's memory: `memory add --json`.")
def add(body: AddBody, who: CallerDep, state: StateDep) -> dict[str, Any]:
    if (body.text is None) == (body.messages is None):
        raise InputError("give either text or messages, not both and not neither")
    if body.text is not None:
        messages = [shapes.new_message(body.text, body.role, body.session, body.at, body.speaker)]
    else:
        messages = [
            shapes.new_message(m.text, m.role, m.session or body.session, m.at, m.speaker) for m in body.messages or []
        ]
    with state.use() as hf:
        return hf.memory.add(who.user, messages, flush=body.flush, background=body.background).to_json()


@router.post("/recall", summary="Recall what the memory holds about a query: `memory recall --json [--explain]`.")
def recall(body: RecallBody, who: CallerDep, state: StateDep) -> dict[str, Any]:
    when = shapes.moment(body.as_of)
    with state.use() as hf:
        result = hf.memory.recall(who.user, body.query, limit=body.limit, budget_tokens=body.budget, as_of=when)
        return result.to_json(explain=body.explain)


@router.get("", summary="List memories (current unless all=true): `memory list --json`.")
def list_memories(
    who: CallerDep,
    state: StateDep,
    all: Annotated[bool, Query(description="Include superseded and forgotten memories.")] = False,
    kind: Annotated[list[str] | None, Query()] = None,
    as_of: str | None = None,
    limit: Annotated[int | None, Query(ge=1)] = None,
) -> list[dict[str, Any]]:
    with state.use() as hf:
        return shapes.memory_list_json(hf, who.user, kinds=kind, include_inactive=all, as_of=as_of, limit=limit)


@router.get("/{fact_id}/history", summary="What a memory replaced and what replaced it: `memory history --json`.")
def history(fact_id: str, who: CallerDep, state: StateDep) -> dict[str, Any]:
    with state.use() as hf:
        return hf.memory.history(who.user, fact_id).to_json()


@router.post("/{fact_id}/correct", summary="Supersede a memory with a corrected statement: `memory correct --json`.")
def correct(fact_id: str, body: TextBody, who: CallerDep, state: StateDep) -> dict[str, Any]:
    with state.use() as hf:
        return shapes.events_json([hf.memory.correct(who.user, fact_id, body.text)])


@router.delete("/{fact_id}", summary="Expire a memory (kept in the record, marked deleted): `memory delete --json`.")
def delete(fact_id: str, who: CallerDep, state: StateDep) -> dict[str, Any]:
    with state.use() as hf:
        return shapes.events_json([hf.memory.delete(who.user, fact_id)])


@router.post("/undo", summary="Undo the newest change to the memory: `memory undo --json`.", response_model=MemoryUndo)
def undo(who: CallerDep, state: StateDep) -> dict[str, Any]:
    with state.use() as hf:
        return shapes.memory_undo_json(hf, who.user)


@router.post("/forget", summary="Expire what matches and leave a tombstone: `memory forget --json`.")
def forget(body: TextBody, who: CallerDep, state: StateDep) -> dict[str, Any]:
    with state.use() as hf:
        return shapes.events_json(hf.memory.forget(who.user, body.text))


@router.post("/context", summary="What an answering model should read for a question: `memory context --json`.")
def context(body: ContextBody, who: CallerDep, state: StateDep) -> dict[str, Any]:
    from heedful.harness import get_harness

    when = shapes.moment(body.as_of)
    with state.use() as hf:
        harness = get_harness(body.harness, hf.settings.home)
        try:
            built = harness.build(hf, who.user, body.question, options=body.options or None, as_of=when)
        finally:
            harness.close()  # a version with layout code holds a sandboxed process
        return built.to_json()
