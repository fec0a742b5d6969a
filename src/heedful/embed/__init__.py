"""Embedders: the `Embedder` protocol, the bundled MiniLM default and a hashing fallback."""

from __future__ import annotations

from heedful.embed.protocol import Embedder, load_embedder

__all__ = ["Embedder", "load_embedder"]
