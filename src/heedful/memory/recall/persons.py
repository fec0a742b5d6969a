"""The person a question is about: items that never name them rank lower. Pure (arrays of the user's index).

In a conversation between a few people, most questions ask about one of them ("What do Melanie's
kids like?", "What did Caroline research?"), and the evidence is that person's own turns (the
speaker is an item's first entity, see indexing.py) or turns that name them. A person who speaks
or is named in a large share of the user's items is too common for the entity route to rank by
(its tied group is hundreds of items, so each gains almost nothing). Here such a name works the
other way: an item that names none of the common people the question names loses `penalty` of
its fused score. Items naming them keep theirs; a question naming no common person is unchanged.

Off by default (`RecallConfig.person_penalty` 0): measured with MiniLM at 0.2, the first five kept,
LoCoMo @10 moves multi-hop 37.2 -> 38.9 and open-domain 34.6 -> 37.5 on conversations 0-4 (held
out 5-9: 35.6 -> 37.5 and 36.5 -> 39.8), but adversarial questions, which name the wrong person on
purpose, lose 3 to 4 points, and the whole stays where it was (77.5 -> 77.4, held out 72.9 -> 72.7).
Without the first five kept (0.3) adversarial lost 15 points. Derive a configuration to use it where
questions name the right person.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from heedful.memory.recall.query import QueryAnalysis
    from heedful.store.sqlite.recall_index import UserRecallIndex

# A person named in at least this share of the user's items is one of the people the memory is about.
COMMON_SHARE = 0.05
# Below this many items, shares say little: no one is common.
MIN_ROWS = 100


def common_people(index: UserRecallIndex, analysis: QueryAnalysis) -> list[str]:
    """The question's entities that are common among the user's items (the people it is about)."""
    total = len(index)
    if total < MIN_ROWS:
        return []
    return [name for name in analysis.entities if len(index.entities.get(name, ())) / total >= COMMON_SHARE]


def person_focus(
    index: UserRecallIndex,
    people: list[str],
    positions: np.ndarray,
    scores: np.ndarray,
    penalty: float,
    keep: int = 0,
) -> np.ndarray:
    """`scores` (best first) with the items at `positions` that name none of `people` lowered by `penalty`
    (a share); the first `keep` keep theirs."""
    if not people or penalty <= 0 or len(positions) <= keep:
        return scores
    naming = np.zeros(len(index), dtype=bool)
    for name in people:
        naming[np.asarray(index.entities[name], dtype=np.int64)] = True
    lowered = ~naming[positions]
    lowered[:keep] = False
    return np.where(lowered, scores * (1.0 - penalty), scores)
