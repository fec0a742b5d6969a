"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp server, LM Studio,
OpenRouter, ...) through the official `openai` SDK (the optional extra `heedful[openai]`).

Structured output uses the JSON-schema response format; endpoints that reject it (the
llama.cpp server answers HTTP 500) take `json_mode = "json_object"`, which sends the schema
inside `{"type": "json_object", "schema": ...}`.
"""

from __future__ import annotations

import os
from typing import Any, Literal, TypeVar

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


class OpenAICompatModel:
    offline = False
    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        json_mode: Literal["json_schema", "json_object"] = "json_schema",
        timeout_seconds: float = 60.0,
        retry_budget_seconds: float = 180.0,
        max_tokens: int = 2048,
        usage: UsageLog | None = None,
    ) -> None:
        try:
            import openai
        except ImportError as exc:
            raise InputError("OpenAI-compatible models need the extra: pip install 'heedful[openai]'") from exc
        key_env = api_key_env or "OPENAI_API_KEY"
        api_key = os.environ.get(key_env)
        if not api_key and base_url is None:
            raise InputError(f"no API key: set {key_env} (or model.api_key_env) or point model.base_url at a server")
        self._openai = openai
        # The SDK's own retries are off: backoff and failover are ours, bounded and logged.
        self._client = openai.OpenAI(
            api_key=api_key or "not-needed", base_url=base_url, timeout=timeout_seconds, max_retries=0
        )
        self.model = model
        self.name = f"openai:{model}"
        self.json_mode = json_mode
        self.retry_budget_seconds = retry_budget_seconds
        self.max_tokens = max_tokens
        self.usage = usage or UsageLog(None)

    def _format(self, response_model: type[BaseModel]) -> dict[str, Any]:
        schema = capped_schema(response_model.model_json_schema())
        if self.json_mode == "json_object":
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": response_model.__name__, "schema": schema}}

    def _send(self, messages: list[dict[str, str]], response_format: dict[str, Any]) -> Reply:
        openai = self._openai
        try:
            response = self._client.chat.completions.create(  # type: ignore[call-overload]
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                response_format=response_format,  # type: ignore[arg-type]
                max_tokens=self.max_tokens,
                temperature=0,
            )
        except (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError) as exc:
            raise TransientModelError(f"{type(exc).__name__}: {exc}") from exc
        except openai.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code in (408, 409, 429):
                raise TransientModelError(f"HTTP {exc.status_code}: {exc.message}") from exc
            raise ModelError(f"{self.name} refused the request: HTTP {exc.status_code}: {exc.message}") from exc
        if not response.choices:
            return Reply(text="", finish_reason="empty")
        choice = response.choices[0]
        usage = response.usage
        return Reply(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
        )

    def structured(self, messages: list[ChatMessage], response_model: type[ResponseT]) -> ResponseT:
        response_format = self._format(response_model)
        return structured_call(
            lambda conversation: self._send(conversation, response_format),
            messages,
            response_model,
            provider=self.provider,
            model=self.model,
            budget_seconds=self.retry_budget_seconds,
            usage=self.usage,
        )
