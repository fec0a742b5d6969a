"""The harness: what an answering model reads, built from memory. Versioned and swappable."""

from __future__ import annotations

from heedful.harness.versions import HARNESSES, Harness, get_harness

__all__ = ["HARNESSES", "Harness", "get_harness"]
