"""The benchmark's memory, written once per distinct way a version writes memory.

A version whose extraction and retraction parameters equal another's reads the same stored
memory (`HarnessParams.ingest_key`), so a round that changes only recall or layout ingests
nothing new. A version that writes memory differently gets a scratch home of its own; the
homes share one embedder that remembers every text it embedded, so embedding the raw messages,
the slow part of ingest, happens once per run whatever the number of versions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from heedful.evolve import evaluator as ev

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.embed.protocol import Embedder
    from heedful.harness.params import HarnessParams


class RememberingEmbedder:
    """An embedder that embeds each distinct text once and answers repeats from memory."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        if missing:
            self.vectors.update(zip(missing, self.inner.embed(missing), strict=True))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.vectors[t] for t in texts])


@dataclass(slots=True)
class StoredMemory:
    """One way of writing memory: its scratch home and the units as stored there."""

    key: str
    hf: Heedful
    parts: dict[ev.SplitName, list[ev.Unit]]


class Memories:
    """Stored memories by ingest key, made on first use and kept for the run."""

    def __init__(
        self,
        root: Path,
        embedder: str,
        parts: dict[ev.SplitName, list[ev.Unit]],
        say: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.root = root
        self.embedder_name = embedder
        self.parts = parts
        self.say = say
        self.stored: dict[str, StoredMemory] = {}
        self.shared: RememberingEmbedder | None = None

    def of(self, params: HarnessParams) -> StoredMemory:
        key = params.ingest_key()
        if key not in self.stored:
            self.stored[key] = self._ingest(key, params)
        return self.stored[key]

    def _ingest(self, key: str, params: HarnessParams) -> StoredMemory:
        from heedful.api import Heedful

        # A scratch home of its own, in SQLite and with the offline model even when others are configured:
        # extraction here is the version's offline rules, deterministic.
        hf = Heedful.open(self.root / f"memory-{key}", embedder=self.embedder_name, store_url="sqlite", model="offline")
        try:
            if self.shared is None:
                self.shared = RememberingEmbedder(hf.embedder)
            hf.embedder = self.shared  # type: ignore[misc]  # one embedder (and its memory) for every home
            users = sum(len(units) for units in self.parts.values())
            how = "raw messages" if key == "raw" else f"with fact extraction ({key})"
            self.say(f"ingesting {users} users, {how} ({self.embedder_name})")
            parts = {name: ev.ingest(hf, units, params) for name, units in self.parts.items()}
        except BaseException:
            hf.close()
            raise
        return StoredMemory(key, hf, parts)

    def close(self) -> None:
        for memory in self.stored.values():
            memory.hf.close()
        self.stored.clear()
