"""Requests to forget, applied at read time: an item matching an active tombstone is not recalled.

The match rule is the one forgetting uses when it expires items (cosine with the request's vector
at least 0.68, or at least 60% of the request's trigrams found in the item), so a raw excerpt that
escaped expiry (beyond the per-request limit, or written later) still stays out of recall.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from heedful.memory.normalize import trigram_overlap

COSINE_THRESHOLD = 0.68
TRIGRAM_THRESHOLD = 0.6


def forgotten_by_tombstone(
    tombstones: Sequence[tuple[str, str, np.ndarray | None]],
    statements: Mapping[str, str],
    vectors: Mapping[str, np.ndarray],
) -> dict[str, str]:
    """item id -> the id of the tombstone that hides it, for every item an active tombstone matches."""
    hidden: dict[str, str] = {}
    if not tombstones:
        return hidden
    for item_id, statement in statements.items():
        vector = vectors.get(item_id)
        for tombstone_id, target, tombstone_vector in tombstones:
            comparable = vector is not None and tombstone_vector is not None
            comparable = comparable and vector.shape == tombstone_vector.shape  # type: ignore[union-attr]
            cosine = float(vector @ tombstone_vector) if comparable else 0.0
            if cosine >= COSINE_THRESHOLD or trigram_overlap(target, statement) >= TRIGRAM_THRESHOLD:
                hidden[item_id] = tombstone_id
                break
    return hidden
