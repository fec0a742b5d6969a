"""One Settings object, from defaults < `$HEEDFUL_HOME/config.toml` < `HEEDFUL_*` environment < overrides.

Every entry point loads it through `load_settings` once and passes it down: the CLI (its
`--model`/`--embedder` are overrides, never written into the environment), the library
(`Heedful.open`), the HTTP server and the hook process. The hook starts a fresh interpreter for
every event, so this module imports nothing the hook would not load anyway: no pydantic, and not even
`dataclasses` (which pulls in `inspect` and `ast`); each table is a `Section`, whose settings are its
annotated class attributes.

Example `config.toml`:

    [embedder]
    name = "minilm"        # or "hashing" (tests and tiny machines only)

    [model]
    name = "offline"       # or "local", "openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5"
    base_url = "http://127.0.0.1:8080/v1"   # for OpenAI-compatible endpoints
    api_key_env = "OPENAI_API_KEY"          # the key is read from this variable, never stored

    [store]
    path = "heedful.db"    # the SQLite file, relative to HEEDFUL_HOME unless absolute
    # url = "postgresql://heedful@db.internal/heedful"   # PostgreSQL instead (the postgres extra)

    [user]
    default = "me"         # the user id used when a command names none

    [recall]
    config = "default"     # a named recall configuration: "single-stage", "restatements", "newest-first"
"""

import os
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

from heedful.errors import InputError

CONFIG_FILE = "config.toml"
DB_FILE = "heedful.db"
# The longest message heedful learns from or stores as a correction (the hook, the CLI, MCP, HTTP).
MAX_MESSAGE_CHARS = 20_000
# The longest message memory stores (a pasted document is memory, not a correction).
MAX_MEMORY_MESSAGE_CHARS = 100_000
POSTGRES_SCHEMES = ("postgresql", "postgres")

# Environment variable -> the dotted setting it overrides. Later rows win over earlier ones for
# the same setting (HEEDFUL_DATABASE_URL over the older HEEDFUL_STORE).
ENVIRONMENT: dict[str, str] = {
    "HEEDFUL_EMBEDDER": "embedder.name",
    "HEEDFUL_MODEL": "model.name",
    "HEEDFUL_MODEL_BASE_URL": "model.base_url",
    "HEEDFUL_MODEL_API_KEY_ENV": "model.api_key_env",
    "HEEDFUL_STORE": "store.url",
    "HEEDFUL_DATABASE_URL": "store.url",
    "HEEDFUL_USER": "user.default",
    "HEEDFUL_RECALL_CONFIG": "recall.config",
}


class Section:
    """One table of config.toml: its settings are the class's annotated attributes, with their defaults.

    Built from keyword values (each checked against its annotation by `load_settings`, then by
    `validate`); compared and printed by value.
    """

    def __init__(self, **values: Any) -> None:
        unknown = set(values) - set(self.fields())
        if unknown:
            raise TypeError(f"{type(self).__name__} has no setting {sorted(unknown)[0]!r}")
        for name in self.fields():
            setattr(self, name, values.get(name, getattr(type(self), name)))
        self.validate()

    @classmethod
    def fields(cls) -> dict[str, Any]:
        """Setting name -> its type (the class's own annotations, evaluated: this module has no
        `from __future__ import annotations`)."""
        return {name: kind for name, kind in cls.__annotations__.items() if typing.get_origin(kind) is not ClassVar}

    def validate(self) -> None:
        """Raise ValueError for a value of the right type that is still not allowed."""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


class EmbedderSettings(Section):
    name: str = "minilm"
    batch_size: int = 32

    def validate(self) -> None:
        if self.batch_size < 1:
            raise ValueError("must be at least 1")


class ModelSettings(Section):
    """Which model does the steps the papers do with an LLM.

    `name` is `offline` (the deterministic learner), `local` (the bundled SmolLM2 through
    llama.cpp, in process), or `PROVIDER:MODEL` with PROVIDER `openai` (any OpenAI-compatible
    endpoint: OpenAI, vLLM, Ollama, llama.cpp server, LM Studio, OpenRouter) or `anthropic`, or
    `claude-cli[:MODEL]` / `codex-cli[:MODEL]` (the agent's own logged-in CLI, run headless).
    """

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

    def validate(self) -> None:
        if self.timeout_seconds <= 0 or self.retry_budget_seconds < 0 or self.max_tokens < 1:
            raise ValueError("timeouts and max_tokens must be positive")


class StoreSettings(Section):
    """Where the database is: a SQLite file (`path`), or a PostgreSQL server (`url`)."""

    path: Path = Path(DB_FILE)
    url: str | None = None  # `postgresql://...`; "sqlite" (or nothing) means the file at `path`
    busy_timeout_ms: int = 5000

    def validate(self) -> None:
        if self.busy_timeout_ms < 0:
            raise ValueError("must not be negative")
        if self.url is not None and self.url != "sqlite" and self.url.partition("://")[0] not in POSTGRES_SCHEMES:
            raise ValueError("must be 'sqlite' or a postgresql:// URL")

    @property
    def is_postgres(self) -> bool:
        return self.url is not None and self.url.partition("://")[0] in POSTGRES_SCHEMES


class UserSettings(Section):
    default: str = "me"


class RecallSettings(Section):
    """Which named recall configuration `memory recall` (CLI, library, MCP, HTTP) uses.

    The names live in `heedful.memory.recall.config` (which loads numpy, so the hook never imports
    it): an unknown name is a one-line error at the first recall, naming the known ones.
    """

    config: str = "default"

    def validate(self) -> None:
        if not self.config.strip():
            raise ValueError("must name a recall configuration")


class Settings:
    """Every setting of one heedful home: `settings.model.name`, `settings.store.path`, ..."""

    def __init__(
        self,
        home: Path,
        embedder: EmbedderSettings | None = None,
        model: ModelSettings | None = None,
        store: StoreSettings | None = None,
        user: UserSettings | None = None,
        recall: RecallSettings | None = None,
    ) -> None:
        self.home = home
        self.embedder = embedder if embedder is not None else EmbedderSettings()
        self.model = model if model is not None else ModelSettings()
        self.store = store if store is not None else StoreSettings()
        self.user = user if user is not None else UserSettings()
        self.recall = recall if recall is not None else RecallSettings()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settings) and vars(other) == vars(self)

    def __repr__(self) -> str:
        return f"Settings({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"

    @property
    def db_path(self) -> Path:
        """The SQLite file (`[store] path`, relative to the home unless absolute)."""
        return self.home / self.store.path.expanduser()

    @property
    def database(self) -> str:
        """Where the data lives, for messages: the SQLite file or the PostgreSQL URL without its password."""
        if not self.store.is_postgres or self.store.url is None:
            return str(self.db_path)
        scheme, _, rest = self.store.url.partition("://")
        credentials, at, host = rest.rpartition("@")
        user = credentials.partition(":")[0]
        return f"{scheme}://{user}{at}{host}" if at else self.store.url

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"


S = typing.TypeVar("S", bound=Section)
SECTIONS: dict[str, type[Section]] = {
    "embedder": EmbedderSettings,
    "model": ModelSettings,
    "store": StoreSettings,
    "user": UserSettings,
    "recall": RecallSettings,
}


def default_home() -> Path:
    env = os.environ.get("HEEDFUL_HOME")
    return Path(env).expanduser() if env else Path.home() / ".heedful"


def load_settings(home: Path | str | None = None, overrides: Mapping[str, str | None] | None = None) -> Settings:
    """The settings for `home` (default: `$HEEDFUL_HOME` or `~/.heedful`).

    `overrides` maps dotted names to values for this process only (`{"model.name": "local"}`),
    over the file and the environment; a None value leaves the setting as it is.
    """
    home_path = Path(home).expanduser() if home is not None else default_home()
    config_path = home_path / CONFIG_FILE
    data = _read_file(config_path)
    layers: list[tuple[str, str, str]] = []  # (dotted name, value, where it came from)
    layers += [(dotted, os.environ[env], env) for env, dotted in ENVIRONMENT.items() if os.environ.get(env)]
    layers += [(dotted, value, "override") for dotted, value in (overrides or {}).items() if value is not None]
    for dotted, value, source in layers:
        section, _, key = dotted.partition(".")
        if section not in SECTIONS or not key:
            raise InputError(f"unknown setting {dotted!r} (from {source})")
        section_data = data.setdefault(section, {})
        if not isinstance(section_data, dict):
            raise InputError(f"{config_path}: [{section}] must be a table")
        section_data[key] = value
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise InputError(f"{config_path}: unknown section [{unknown[0]}]; known: {', '.join(SECTIONS)}")
    return Settings(
        home_path,
        embedder=_section(EmbedderSettings, "embedder", data.get("embedder", {}), config_path),
        model=_section(ModelSettings, "model", data.get("model", {}), config_path),
        store=_section(StoreSettings, "store", data.get("store", {}), config_path),
        user=_section(UserSettings, "user", data.get("user", {}), config_path),
        recall=_section(RecallSettings, "recall", data.get("recall", {}), config_path),
    )


def child_environment(overrides: Mapping[str, str | None], base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a heedful process this one starts, carrying `overrides` as the variables it reads."""
    env = dict(os.environ if base is None else base)
    by_setting = {dotted: name for name, dotted in ENVIRONMENT.items()}  # the later (preferred) name wins
    for dotted, value in overrides.items():
        if value is None:
            continue
        if dotted not in by_setting:
            raise InputError(f"setting {dotted!r} has no environment variable to pass it to another process")
        for name, same in ENVIRONMENT.items():  # an older alias must not outrank the value passed on
            if same == dotted:
                env.pop(name, None)
        env[by_setting[dotted]] = value
    return env


def _read_file(config_path: Path) -> dict[str, Any]:
    if not config_path.is_file():
        return {}
    import tomllib

    try:
        return tomllib.loads(config_path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{config_path} is not valid TOML: {exc}") from exc
    except OSError as exc:
        raise InputError(f"cannot read {config_path}: {exc.strerror or exc}") from exc


def _section(cls: type[S], name: str, raw: object, config_path: Path) -> S:
    """`cls` built from one table of the file, each value checked against the setting's type."""
    if not isinstance(raw, dict):
        raise InputError(f"{config_path}: [{name}] must be a table")
    fields = cls.fields()
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in fields:
            raise InputError(f"{config_path}: unknown setting '{name}.{key}'; known: {', '.join(fields)}")
        try:
            values[key] = _coerce(value, fields[key])
        except ValueError as exc:
            raise InputError(f"{config_path}: setting '{name}.{key}': {exc}") from None
    try:
        return cls(**values)
    except ValueError as exc:
        where = ", ".join(f"'{name}.{key}'" for key in values) or f"[{name}]"
        raise InputError(f"{config_path}: setting {where}: {exc}") from None


def _coerce(value: object, annotation: Any) -> Any:
    """`value` as `annotation` (str, int, float, Path, a Literal, or one of them or None); strings from
    the environment are converted, anything else must already have the type."""
    if isinstance(annotation, types.UnionType):
        options = [option for option in typing.get_args(annotation) if option is not type(None)]
        if value is None or value == "":
            return None
        return _coerce(value, options[0])
    if typing.get_origin(annotation) is Literal:
        allowed = typing.get_args(annotation)
        if value not in allowed:
            raise ValueError(f"must be one of {', '.join(map(repr, allowed))}, not {value!r}")
        return value
    if annotation is Path:
        if not isinstance(value, str) or not value:
            raise ValueError(f"must be a path, not {value!r}")
        return Path(value)
    if annotation is str:
        if not isinstance(value, str):
            raise ValueError(f"must be a string, not {value!r}")
        return value
    if annotation in (int, float):
        if isinstance(value, bool):
            raise ValueError(f"must be a number, not {value!r}")
        if isinstance(value, str):
            try:
                return annotation(value)
            except ValueError:
                raise ValueError(f"must be a number, not {value!r}") from None
        if isinstance(value, int) or (annotation is float and isinstance(value, float)):
            return annotation(value)
        raise ValueError(f"must be {'an integer' if annotation is int else 'a number'}, not {value!r}")
    raise ValueError(f"cannot be set ({annotation!r})")  # pragma: no cover - every field's type is above
