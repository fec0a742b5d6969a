from __future__ import annotations

import numpy as np

from heedful.memory.recall.tombstones import TombstoneFilter


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_trigram_containment_hides_an_item() -> None:
    tombstones = TombstoneFilter([("t1", "I take sertraline", None)])
    assert tombstones.hiding("Every morning I take sertraline with tea", None) == "t1"
    assert tombstones.hiding("I walk my dog every morning", None) is None


def test_cosine_hides_an_item_and_sizes_must_agree() -> None:
    tombstones = TombstoneFilter([("t1", "zzz", unit(1, 0, 0))])
    assert tombstones.hiding("unrelated words", unit(1, 0.1, 0)) == "t1"
    assert tombstones.hiding("unrelated words", unit(0, 1, 0)) is None
    assert tombstones.hiding("unrelated words", unit(1, 0)) is None


def test_no_tombstones_is_falsy() -> None:
    assert not TombstoneFilter([])
