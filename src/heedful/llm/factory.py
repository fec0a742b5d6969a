"""Building the configured model from its spec (`provider[:model]`, see `PROVIDERS`), with an
optional fallback provider that takes over when the first fails for good."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class BuildRequest:
    """What a provider's builder gets: the part after `provider:`, the endpoint and the limits."""

    model_id: str
    base_url: str | None
    api_key_env: str | None
    settings: ModelSettings | None
    usage: UsageLog

    @property
    def timeout(self) -> float:
        return self.settings.timeout_seconds if self.settings else 60.0

    @property
    def budget(self) -> float:
        return self.settings.retry_budget_seconds if self.settings else 180.0

    @property
    def max_tokens(self) -> int:
        return self.settings.max_tokens if self.settings else 2048

    def required_model(self, example: str) -> str:
        if not self.model_id:
            raise InputError(f"name the model: {example}")
        return self.model_id


@dataclass(frozen=True)
class Provider:
    usage: str  # how a spec for it is written, for help and errors
    build: Callable[[BuildRequest], Model]


def _offline(request: BuildRequest) -> Model:
    return OfflineModel()


def _local(request: BuildRequest) -> Model:
    from heedful.llm.llamacpp import LlamaCppModel

    return LlamaCppModel(Path(request.model_id) if request.model_id else None, usage=request.usage)


def _openai(request: BuildRequest) -> Model:
    model_id = request.required_model("openai:MODEL (e.g. openai:gpt-4o-mini)")
    from heedful.llm.openai_compat import OpenAICompatModel

    return OpenAICompatModel(
        model_id,
        base_url=request.base_url,
        api_key_env=request.api_key_env,
        json_mode=request.settings.json_mode if request.settings else "json_schema",
        timeout_seconds=request.timeout,
        retry_budget_seconds=request.budget,
        max_tokens=request.max_tokens,
        usage=request.usage,
    )


def _anthropic(request: BuildRequest) -> Model:
    model_id = request.required_model("anthropic:MODEL")
    from heedful.llm.anthropic import AnthropicModel

    return AnthropicModel(
        model_id,
        base_url=request.base_url,
        api_key_env=request.api_key_env,
        timeout_seconds=request.timeout,
        retry_budget_seconds=request.budget,
        max_tokens=request.max_tokens,
        usage=request.usage,
    )


def _claude_cli(request: BuildRequest) -> Model:
    from heedful.llm.claude_cli import ClaudeCLIModel

    return ClaudeCLIModel(
        request.model_id or None,
        timeout_seconds=request.timeout,
        retry_budget_seconds=request.budget,
        usage=request.usage,
    )


def _codex_cli(request: BuildRequest) -> Model:
    from heedful.llm.codex_cli import CodexCLIModel

    return CodexCLIModel(
        request.model_id or None,
        timeout_seconds=request.timeout,
        retry_budget_seconds=request.budget,
        usage=request.usage,
    )


PROVIDERS: dict[str, Provider] = {
    "offline": Provider("offline", _offline),
    "local": Provider("local[:GGUF]", _local),
    "openai": Provider("openai:MODEL", _openai),
    "anthropic": Provider("anthropic:MODEL", _anthropic),
    "claude-cli": Provider("claude-cli[:MODEL]", _claude_cli),
    "codex-cli": Provider("codex-cli[:MODEL]", _codex_cli),
}


def provider_usage() -> str:
    """`offline, local[:GGUF], openai:MODEL, ...`: every provider as a spec is written."""
    return ", ".join(provider.usage for provider in PROVIDERS.values())


def build_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    settings: ModelSettings | None = None,
    usage_path: Path | None = None,
) -> Model:
    name, _, model_id = spec.strip().partition(":")
    provider = PROVIDERS.get(name)
    if provider is None:
        raise InputError(f"unknown model {spec!r}; use one of: {provider_usage()}")
    request = BuildRequest(model_id, base_url, api_key_env, settings, UsageLog(usage_path))
    return provider.build(request)


def load_model(settings: ModelSettings, log_dir: Path | None = None) -> Model:
    usage_path = log_dir / "model-usage.jsonl" if log_dir else None
    primary = build_model(
        settings.name,
        base_url=settings.base_url,
        api_key_env=settings.api_key_env,
        settings=settings,
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
