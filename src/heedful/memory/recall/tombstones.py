"""Requests to forget, applied at read time: an item matching an active tombstone is not recalled.

The match rule is the one forgetting uses when it expires items (cosine with the request's vector
at least 0.68, or at least 60% of the request's trigrams found in the item), so a raw excerpt that
escaped expiry (beyond the per-request limit, or written later) still stays out of recall.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.memory.normalize import trigrams

COSINE_THRESHOLD = 0.68
TRIGRAM_THRESHOLD = 0.6


class TombstoneFilter:
    """Checks items against one user's active tombstones (their trigrams are computed once)."""

    def __init__(self, tombstones: Sequence[tuple[str, str, np.ndarray | None]]) -> None:
        self._tombstones = [(tombstone_id, trigrams(target), vector) for tombstone_id, target, vector in tombstones]

    def __bool__(self) -> bool:
        return bool(self._tombstones)

    def hiding(self, statement: str, vector: np.ndarray | None) -> str | None:
        """The id of the first tombstone that hides this item, or None."""
        grams: set[str] | None = None
        for tombstone_id, target_grams, tombstone_vector in self._tombstones:
            if _cosine(vector, tombstone_vector) >= COSINE_THRESHOLD:
                return tombstone_id
            if target_grams:
                grams = trigrams(statement) if grams is None else grams
                if len(target_grams & grams) / len(target_grams) >= TRIGRAM_THRESHOLD:
                    return tombstone_id
        return None


def _cosine(a: np.ndarray | None, b: np.ndarray | None) -> float:
    """The dot product of two unit vectors; 0 when either is missing or the sizes differ."""
    if a is None or b is None or a.shape != b.shape:
        return 0.0
    return float(a @ b)
