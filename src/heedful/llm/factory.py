"""Building the configured model: offline, local, openai:MODEL or anthropic:MODEL, with an
optional fallback provider that takes over when the first fails for good."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from heedful.errors import InputError
from heedful.llm.protocol import ChatMessage, Model, OfflineModel
from heedful.llm.structured import ModelError, UsageLog

if TYPE_CHECKING:
    from heedful.config import ModelSettings

log = logging.getLogger(__name__)
ResponseT = TypeVar("ResponseT", bound=BaseModel)
PROVIDERS = ("offline", "local", "openai:MODEL", "anthropic:MODEL")


class FailoverModel:
    """Asks `primary`; when it fails for good (after its own backoff), asks `secondary`."""

    offline = False

    def __init__(self, primary: Model, secondary: Model) -> None:
        self.primary = primary
        self.secondary = secondary
        self.name = f"{primary.name} (fallback {secondary.name})"

    def structured(self, messages: list[ChatMessage], response_model: type[ResponseT]) -> ResponseT:
        try:
            return self.primary.structured(messages, response_model)
        except ModelError as exc:
            log.warning("%s failed (%s); failing over to %s", self.primary.name, exc, self.secondary.name)
            return self.secondary.structured(messages, response_model)


def build_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    settings: ModelSettings | None = None,
    usage_path: Path | None = None,
) -> Model:
    usage = UsageLog(usage_path)
    provider, _, model_id = spec.partition(":")
    timeout = settings.timeout_seconds if settings else 60.0
    budget = settings.retry_budget_seconds if settings else 180.0
    max_tokens = settings.max_tokens if settings else 2048
    if provider == "offline":
        return OfflineModel()
    if provider == "local":
        from heedful.llm.llamacpp import LlamaCppModel

        return LlamaCppModel(Path(model_id) if model_id else None, usage=usage)
    if provider == "openai":
        if not model_id:
            raise InputError("name the model: openai:MODEL (e.g. openai:gpt-4o-mini)")
        from heedful.llm.openai_compat import OpenAICompatModel

        return OpenAICompatModel(
            model_id,
            base_url=base_url,
            api_key_env=api_key_env,
            json_mode=settings.json_mode if settings else "json_schema",
            timeout_seconds=timeout,
            retry_budget_seconds=budget,
            max_tokens=max_tokens,
            usage=usage,
        )
    if provider == "anthropic":
        if not model_id:
            raise InputError("name the model: anthropic:MODEL")
        from heedful.llm.anthropic import AnthropicModel

        return AnthropicModel(
            model_id,
            base_url=base_url,
            api_key_env=api_key_env,
            timeout_seconds=timeout,
            retry_budget_seconds=budget,
            max_tokens=max_tokens,
            usage=usage,
        )
    raise InputError(f"unknown model {spec!r}; use one of: {', '.join(PROVIDERS)}")


def load_model(settings: ModelSettings, log_dir: Path | None = None) -> Model:
    usage_path = log_dir / "model-usage.jsonl" if log_dir else None
    primary = build_model(
        settings.name, base_url=settings.base_url, api_key_env=settings.api_key_env, settings=settings,
        usage_path=usage_path,
    )
    if not settings.fallback:
        return primary
    secondary = build_model(
        settings.fallback,
        base_url=settings.fallback_base_url,
        api_key_env=settings.fallback_api_key_env,
        settings=settings,
        usage_path=usage_path,
    )
    return FailoverModel(primary, secondary)
