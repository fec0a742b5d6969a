"""One Settings object, from defaults < `$HEEDFUL_HOME/config.toml` < `HEEDFUL_*` environment.

Example `config.toml`:

    [embedder]
    name = "minilm"        # or "hashing" (tests and tiny machines only)

    [model]
    name = "offline"       # or "local", "openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5"
    base_url = "http://127.0.0.1:8080/v1"   # for OpenAI-compatible endpoints
    api_key_env = "OPENAI_API_KEY"          # the key is read from this variable, never stored

    [store]
    url = "sqlite"         # the database file lives in HEEDFUL_HOME

    [user]
    default = "me"         # the user id used when a command names none
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from heedful.errors import InputError

CONFIG_FILE = "config.toml"
DB_FILE = "heedful.db"


class EmbedderSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "minilm"
    batch_size: int = 32


class ModelSettings(BaseModel):
    """Which model does the steps the papers do with an LLM.

    `name` is `offline` (the deterministic learner), `local` (the bundled SmolLM2 through
    llama.cpp, in process), or `PROVIDER:MODEL` with PROVIDER `openai` (any OpenAI-compatible
    endpoint: OpenAI, vLLM, Ollama, llama.cpp server, LM Studio, OpenRouter) or `anthropic`, or
    `claude-cli[:MODEL]` / `codex-cli[:MODEL]` (the agent's own logged-in CLI, run headless).
    """

    model_config = ConfigDict(extra="forbid")
    name: str = "offline"
    base_url: str | None = None
    api_key_env: str | None = None
    json_mode: Literal["json_schema", "json_object"] = "json_schema"
    timeout_seconds: float = 60.0
    retry_budget_seconds: float = 180.0
    max_tokens: int = 2048
    fallback: str | None = None
    fallback_base_url: str | None = None
    fallback_api_key_env: str | None = None


class StoreSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    url: str = "sqlite"
    busy_timeout_ms: int = 5000


class UserSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    default: str = "me"


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    home: Path
    embedder: EmbedderSettings = EmbedderSettings()
    model: ModelSettings = ModelSettings()
    store: StoreSettings = StoreSettings()
    user: UserSettings = UserSettings()

    @property
    def db_path(self) -> Path:
        return self.home / DB_FILE

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"


def default_home() -> Path:
    env = os.environ.get("HEEDFUL_HOME")
    return Path(env).expanduser() if env else Path.home() / ".heedful"


def load_settings(home: Path | str | None = None) -> Settings:
    """Read the settings for `home` (default: `$HEEDFUL_HOME` or `~/.heedful`)."""
    home_path = Path(home).expanduser() if home is not None else default_home()
    data: dict[str, object] = {}
    config_path = home_path / CONFIG_FILE
    if config_path.exists():
        try:
            data = tomllib.loads(config_path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{config_path} is not valid TOML: {exc}") from exc
    for section, key, env in (
        ("embedder", "name", "HEEDFUL_EMBEDDER"),
        ("model", "name", "HEEDFUL_MODEL"),
        ("model", "base_url", "HEEDFUL_MODEL_BASE_URL"),
        ("model", "api_key_env", "HEEDFUL_MODEL_API_KEY_ENV"),
        ("store", "url", "HEEDFUL_STORE"),
        ("user", "default", "HEEDFUL_USER"),
    ):
        if os.environ.get(env):
            section_data = data.setdefault(section, {})
            if isinstance(section_data, dict):
                section_data[key] = os.environ[env]
    try:
        return Settings(home=home_path, **data)  # type: ignore[arg-type]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InputError(f"{config_path}: setting {where!r}: {first['msg']}") from exc
