"""The Model protocol and `Step`: one unit of work that a model or the offline learner can do.

Every step the papers do with an LLM is a `Step`: it can render messages for a model and parse
the answer into a pydantic response model, and it has a deterministic `offline` path that
returns the same response model. `run_step` picks the path, so callers never branch on it.
"""

from __future__ import annotations

from typing import Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel

ContextT = TypeVar("ContextT", contravariant=True)
ResponseT = TypeVar("ResponseT", bound=BaseModel)


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class Model(Protocol):
    name: str
    offline: bool

    def structured(self, messages: list[ChatMessage], response_model: type[ResponseT]) -> ResponseT:
        """Answer `messages` with an instance of `response_model`, or raise."""
        ...


class Step(Protocol, Generic[ContextT, ResponseT]):
    name: str
    response_model: type[ResponseT]

    def messages(self, context: ContextT) -> list[ChatMessage]: ...

    def offline(self, context: ContextT) -> ResponseT: ...


class OfflineModel:
    """No model at all: every step takes its deterministic offline path."""

    name = "offline"
    offline = True

    def structured(self, messages: list[ChatMessage], response_model: type[ResponseT]) -> ResponseT:
        raise RuntimeError("the offline model answers through each step's offline path, not from messages")


def run_step(model: Model, step: Step[ContextT, ResponseT], context: ContextT) -> ResponseT:
    if model.offline:
        return step.offline(context)
    return model.structured(step.messages(context), step.response_model)


def load_model(name: str) -> Model:
    """A model from its spec alone (`offline`, `local`, `openai:MODEL`, `claude-cli`, ...; see `factory.PROVIDERS`)."""
    from heedful.llm.factory import build_model

    return build_model(name)
