"""The harness: what an answering model reads, built from memory. Versioned and swappable."""

from __future__ import annotations

from heedful.harness.params import HarnessParams
from heedful.harness.versions import HARNESSES, Harness, HarnessVersion, get_harness

__all__ = ["HARNESSES", "Harness", "HarnessParams", "HarnessVersion", "get_harness"]
