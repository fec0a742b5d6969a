"""What every provider shares: parsing a reply into a pydantic model, one repair retry,
bounded backoff on transient errors, and a token-usage log.

A provider supplies `send(messages) -> Reply`; `structured_call` does the rest. Failures end
in `ModelError`, which callers handle (the memory write path keeps candidates as new; the rule
learner falls back to its offline path); nothing is dropped silently.
"""

from __future__ import annotations

import functools
import json
import logging
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from heedful.errors import HeedfulError
from heedful.llm.protocol import ChatMessage
from heedful.timeutil import now_text

log = logging.getLogger(__name__)
ResponseT = TypeVar("ResponseT", bound=BaseModel)
MAX_STRING_CHARS = 600  # caps each string in a schema so that a looping answer ends early


class ModelError(HeedfulError):
    """A model call failed for good (after its retry and backoff)."""


class TransientModelError(Exception):
    """Rate limit, server error, timeout or lost connection: worth another try later."""


class InvalidResponse(Exception):
    """The reply was not JSON, not the schema, or cut off."""


@dataclass(slots=True)
class Reply:
    text: str
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


def capped_schema(
    schema: dict[str, Any], max_chars: int = MAX_STRING_CHARS, max_items: int | None = None
) -> dict[str, Any]:
    """The JSON schema with a maxLength on every string (and maxItems on every array) that has none."""

    def visit(node: Any) -> Any:
        if isinstance(node, dict):
            out = {key: visit(value) for key, value in node.items()}
            if out.get("type") == "string" and "maxLength" not in out and "enum" not in out:
                out["maxLength"] = max_chars
            if out.get("type") == "array" and max_items is not None and "maxItems" not in out:
                out["maxItems"] = max_items
            return out
        if isinstance(node, list):
            return [visit(item) for item in node]
        return node

    return visit(schema)


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def parse_reply(reply: Reply, response_model: type[ResponseT]) -> ResponseT:
    if reply.finish_reason == "length":
        raise InvalidResponse("the answer was cut off at the token limit")
    text = _FENCE.sub("", reply.text.strip()).strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidResponse(f"not JSON: {exc.msg} at position {exc.pos}") from exc
    try:
        return response_model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(root)"
        raise InvalidResponse(f"does not match the schema: {where}: {first['msg']}") from exc


def with_backoff(
    attempt: Callable[[], Reply],
    budget_seconds: float,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Reply:
    """Retry transient failures with capped exponential backoff until the budget is spent."""
    deadline = clock() + budget_seconds
    delay = 1.0
    while True:
        try:
            return attempt()
        except TransientModelError as exc:
            remaining = deadline - clock()
            if remaining <= 0:
                raise ModelError(f"the model kept failing for {budget_seconds:.0f} s: {exc}") from exc
            wait = min(delay * (1 + random.random() * 0.25), 30.0, remaining)
            log.warning("transient model error (%s); retrying in %.1f s", exc, wait)
            sleep(wait)
            delay *= 2


class UsageLog:
    """Appends one JSON line per model call: provider, model, tokens, duration, outcome."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    def record(self, provider: str, model: str, reply: Reply | None, seconds: float, outcome: str) -> None:
        if self.path is None:
            return
        entry = {
            "at": now_text(),
            "provider": provider,
            "model": model,
            "prompt_tokens": reply.prompt_tokens if reply else 0,
            "completion_tokens": reply.completion_tokens if reply else 0,
            "seconds": round(seconds, 3),
            "outcome": outcome,
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry) + "\n")
        except OSError as exc:  # accounting must never break a call
            log.warning("cannot write the model usage log %s: %s", self.path, exc)


def structured_call(
    send: Callable[[list[dict[str, str]]], Reply],
    messages: list[ChatMessage],
    response_model: type[ResponseT],
    *,
    provider: str,
    model: str,
    budget_seconds: float,
    usage: UsageLog,
    sleep: Callable[[float], None] = time.sleep,
) -> ResponseT:
    """Send, parse, and on an invalid answer ask once more with the error; then give up clearly."""
    conversation = [{"role": m.role, "content": m.content} for m in messages]
    last_error = ""
    for attempt in (1, 2):
        started = time.monotonic()
        reply: Reply | None = None
        try:
            reply = with_backoff(functools.partial(send, conversation), budget_seconds, sleep=sleep)
            parsed = parse_reply(reply, response_model)
        except InvalidResponse as exc:
            usage.record(provider, model, reply, time.monotonic() - started, f"invalid: {exc}")
            last_error = str(exc)
            if attempt == 1:
                conversation = [
                    *conversation,
                    {"role": "assistant", "content": reply.text if reply else ""},
                    {
                        "role": "user",
                        "content": f"That answer was invalid ({exc}). Answer again with only JSON that matches "
                        "the schema.",
                    },
                ]
            continue
        except ModelError as exc:
            usage.record(provider, model, reply, time.monotonic() - started, f"failed: {exc}")
            raise
        usage.record(provider, model, reply, time.monotonic() - started, "ok")
        return parsed
    raise ModelError(f"{provider}:{model} gave an invalid answer twice ({last_error})")
