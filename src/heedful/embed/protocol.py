"""The Embedder protocol and the factory that picks one by name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from heedful.errors import EmbedderError

if TYPE_CHECKING:
    import numpy as np


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension.

    Embeddings find candidates; they never decide agreement ("always X" and "never X" are close).
    """

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return an array of shape (len(texts), dim), each row L2-normalised."""
        ...


EMBEDDERS = ("minilm", "hashing")
# (model name, dimension) of each embedder, known without loading it, so that a database can be
# checked against the configured embedder when it is opened.
EMBEDDER_SIGNATURES = {"minilm": ("all-MiniLM-L6-v2-int8", 384), "hashing": ("hashing-256", 256)}


def embedder_signature(name: str) -> tuple[str, int]:
    if name not in EMBEDDER_SIGNATURES:
        raise EmbedderError(f"unknown embedder {name!r}; choose one of: {', '.join(EMBEDDERS)}")
    return EMBEDDER_SIGNATURES[name]


def load_embedder(name: str, batch_size: int = 32) -> Embedder:
    if name == "minilm":
        from heedful.embed.minilm import MiniLMEmbedder

        return MiniLMEmbedder(batch_size=batch_size)
    if name == "hashing":
        from heedful.embed.hashing import HashingEmbedder

        return HashingEmbedder()
    raise EmbedderError(f"unknown embedder {name!r}; choose one of: {', '.join(EMBEDDERS)}")
