"""The `Heedful` facade: the one object the CLI, the MCP server and library users go through.

    with Heedful.open("~/.heedful") as hf:
        hf.memory.add("alice", "I moved to Lisbon last month")
        hf.memory.recall("alice", "where does alice live?")

Heavy parts (the embedder, the model) load on first use, so a hook that only reads rules
never imports onnxruntime.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Self

from heedful.config import Settings, load_settings
from heedful.errors import StoreError

if TYPE_CHECKING:
    from heedful.embed import Embedder
    from heedful.enforce.engine import Enforcer
    from heedful.llm import Model
    from heedful.memory.service import MemoryService
    from heedful.rules.service import RuleService
    from heedful.store.protocols import Store

EMBEDDER_META_KEY = "embedder"
# The keyword overrides `Heedful.open` takes, and the settings they set (`store_url="sqlite"` keeps a
# scratch home in its own file even where HEEDFUL_DATABASE_URL names a shared PostgreSQL database).
OVERRIDES = {"embedder": "embedder.name", "model": "model.name", "store_url": "store.url"}
DIMENSION_META_KEY = "embedding_dim"


class Heedful:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @classmethod
    def open(cls, home: Path | str | None = None, **overrides: str | None) -> Self:
        """Open the heedful home (default `$HEEDFUL_HOME` or `~/.heedful`).

        `overrides` name the embedder, model or store for this process only, e.g. `embedder="hashing"`.
        """
        unknown = sorted(set(overrides) - set(OVERRIDES))
        if unknown:
            raise TypeError(f"unknown override {unknown[0]!r}; use one of: {', '.join(OVERRIDES)}")
        settings = load_settings(home, {OVERRIDES[key]: value for key, value in overrides.items()})
        return cls.from_settings(settings)

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        """Open the store the settings name (migrating it) and check its embedder, so errors surface now."""
        hf = cls(settings)
        try:
            _ = hf.store
            hf._check_signature()
        except BaseException:
            hf.close()
            raise
        return hf

    @cached_property
    def store(self) -> Store:
        from heedful.store.open import open_store

        return open_store(self.settings)

    @cached_property
    def embedder(self) -> Embedder:
        from heedful.embed import load_embedder

        embedder = load_embedder(self.settings.embedder.name, self.settings.embedder.batch_size)
        self._check_dimension(embedder.name, embedder.dim)
        return embedder

    def _check_signature(self) -> None:
        """Refuse, at open, an embedder whose vectors would not match the stored ones."""
        from heedful.embed.protocol import embedder_signature

        self._check_dimension(*embedder_signature(self.settings.embedder.name))

    def _check_dimension(self, name: str, dim: int) -> None:
        stored_dim = self.store.get_meta(DIMENSION_META_KEY)
        stored_name = self.store.get_meta(EMBEDDER_META_KEY)
        if stored_dim is None:
            self.store.set_meta(DIMENSION_META_KEY, str(dim))
            self.store.set_meta(EMBEDDER_META_KEY, name)
            return
        if int(stored_dim) != dim or stored_name != name:
            raise StoreError(
                f"the database at {self.settings.database} holds {stored_dim}-dimensional vectors from "
                f"{stored_name!r}, but the configured embedder {name!r} makes {dim}; "
                "configure the original embedder or use a new HEEDFUL_HOME"
            )

    @cached_property
    def model(self) -> Model:
        from heedful.llm.factory import load_model

        return load_model(self.settings.model, self.settings.log_dir)

    @cached_property
    def memory(self) -> MemoryService:
        from heedful.memory.parts import MemoryParts
        from heedful.memory.service import MemoryService

        return MemoryService(MemoryParts.of(self))

    @cached_property
    def rules(self) -> RuleService:
        from heedful.rules.parts import RuleParts
        from heedful.rules.service import RuleService

        return RuleService(RuleParts.of(self))

    @cached_property
    def enforce(self) -> Enforcer:
        """Enforcement for the configured default user (hooks use a lighter runtime of their own)."""
        from heedful.enforce.engine import for_heedful

        return for_heedful(self)

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
