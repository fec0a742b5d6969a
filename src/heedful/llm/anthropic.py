"""Anthropic models through the official `anthropic` SDK (the optional extra `heedful[anthropic]`).

Structured output is a forced tool call whose input schema is the response model's schema.
"""

from __future__ import annotations

import json
import os
from typing import Any, TypeVar

from pydantic import BaseModel

from heedful.errors import InputError
from heedful.llm.protocol import ChatMessage
from heedful.llm.structured import (
    ModelError,
    Reply,
    TransientModelError,
    UsageLog,
    capped_schema,
    structured_call,
)

ResponseT = TypeVar("ResponseT", bound=BaseModel)
TOOL_NAME = "answer"


class AnthropicModel:
    offline = False
    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        timeout_seconds: float = 60.0,
        retry_budget_seconds: float = 180.0,
        max_tokens: int = 2048,
        usage: UsageLog | None = None,
    ) -> None:
        try:
            import anthropic
        except ImportError as exc:
            raise InputError("Anthropic models need the extra: pip install 'heedful[anthropic]'") from exc
        key_env = api_key_env or "ANTHROPIC_API_KEY"
        api_key = os.environ.get(key_env)
        if not api_key:
            raise InputError(f"no API key: set {key_env} (or model.api_key_env)")
        self._anthropic = anthropic
        self._client = anthropic.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout_seconds, max_retries=0)
        self.model = model
        self.name = f"anthropic:{model}"
        self.retry_budget_seconds = retry_budget_seconds
        self.max_tokens = max_tokens
        self.usage = usage or UsageLog(None)

    def _send(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> Reply:
        anthropic = self._anthropic
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [m for m in messages if m["role"] != "system"]
        try:
            response = self._client.messages.create(  # type: ignore[call-overload]
                model=self.model,
                max_tokens=self.max_tokens,
                system=system,
                messages=turns,  # type: ignore[arg-type]
                tools=[{"name": TOOL_NAME, "description": "Give the answer.", "input_schema": schema}],
                tool_choice={"type": "tool", "name": TOOL_NAME},
            )
        except (anthropic.RateLimitError, anthropic.APITimeoutError, anthropic.APIConnectionError) as exc:
            raise TransientModelError(f"{type(exc).__name__}: {exc}") from exc
        except anthropic.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code in (408, 409, 429, 529):
                raise TransientModelError(f"HTTP {exc.status_code}: {exc.message}") from exc
            raise ModelError(f"{self.name} refused the request: HTTP {exc.status_code}: {exc.message}") from exc
        tool_inputs = [block.input for block in response.content if getattr(block, "type", "") == "tool_use"]
        text = (
            json.dumps(tool_inputs[0])
            if tool_inputs
            else "".join(getattr(block, "text", "") for block in response.content)
        )
        finish = "length" if response.stop_reason == "max_tokens" else response.stop_reason
        return Reply(
            text=text,
            finish_reason=finish,
            prompt_tokens=response.usage.input_tokens,
            completion_tokens=response.usage.output_tokens,
        )

    def structured(self, messages: list[ChatMessage], response_model: type[ResponseT]) -> ResponseT:
        schema = capped_schema(response_model.model_json_schema())
        return structured_call(
            lambda conversation: self._send(conversation, schema),
            messages,
            response_model,
            provider=self.provider,
            model=self.model,
            budget_seconds=self.retry_budget_seconds,
            usage=self.usage,
        )
