"""What the memory operations are given: the store, the embedder, the model, and the two settings they read.

    parts = MemoryParts(store, lambda: hf.embedder, lambda: hf.model, home=settings.home)
    MemoryWriter(parts).add("alice", [NewMessage("I moved to Lisbon")])

The writer, forgetting and the user's corrections need only `MemoryDeps` (a store, an embedder and a
model), which `MemoryParts` provides and so does an open `Heedful`. The embedder and the model load on
first use (listing memories loads neither), so `MemoryParts` holds loaders, not objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.embed import Embedder
    from heedful.llm import Model
    from heedful.store.protocols import Store


class MemoryDeps(Protocol):
    """What writing, forgetting and correcting memory use."""

    @property
    def store(self) -> Store: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def model(self) -> Model: ...


@dataclass(frozen=True, slots=True)
class MemoryParts:
    store: Store
    load_embedder: Callable[[], Embedder]
    load_model: Callable[[], Model]
    home: Path  # where the adopted harness version (how memory is written) is read
    recall_config: str = "default"  # the named recall configuration (`heedful.memory.recall.config`)

    @property
    def embedder(self) -> Embedder:
        return self.load_embedder()

    @property
    def model(self) -> Model:
        return self.load_model()

    @classmethod
    def of(cls, hf: Heedful) -> MemoryParts:
        """The parts of an open `Heedful` (its embedder and model still load on first use)."""
        return cls(
            hf.store,
            lambda: hf.embedder,
            lambda: hf.model,
            home=hf.settings.home,
            recall_config=hf.settings.recall.config,
        )
