"""The person a question is about: items that never name them rank lower. Pure (arrays of the user's index).

In a conversation between a few people, most questions ask about one of them ("What do Melanie's
kids like?", "What did Caroline research?"), and the evidence is that person's own turns (the
speaker is an item's first entity, see indexing.py) or turns that name them. A person who speaks
or is named in a large share of the user's items is too common for the entity route to rank by
(its tied group is hundreds of items, so each gains almost nothing). Here such a name works the
other way: an item that names none of the common people the question names loses `penalty` of
its fused score. Items naming them keep theirs; a question naming no common person is unchanged.

Off by default (`RecallConfig.person_penalty` 0). Why it costs adversarial questions: LoCoMo builds
them by asking about one speaker what the other said or did ("What did Melanie research?" when
Caroline researched adoption agencies), so their evidence is the other person's turn about half of
the time (49% of the evidence turns on conversations 0-4 name the person asked about; 98% for
multi-hop questions). Lowering the turns that do not name the person lowers exactly that evidence.
Measured with MiniLM at 0.2, the first five kept, before the vector route left names out:
LoCoMo @10 multi-hop 37.2 -> 38.9 and open-domain 34.6 -> 37.5 on conversations 0-4 (held out 5-9:
35.6 -> 37.5 and 36.5 -> 39.8), adversarial -3 to -4, the whole unchanged. With names left out of
the vector (vector.py), tuning half @10 78.5 -> 79.0 (multi-hop +3.2, open-domain +3.4,
adversarial 91.1 -> 88.4). Also keeping the keyword route's first five (`person_exempt_keyword`, an
adversarial question still shares the other person's words): 79.1 on the tuning half (adversarial
89.5), but held out 76.0 -> 76.2 only (multi-hop +1.9, open-domain 0, adversarial 89.0 -> 86.1).
Without the first five kept (0.3) adversarial lost 15 points. Derive a configuration to use it where
questions name the right person.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from heedful.memory.recall.query import QueryAnalysis
    from heedful.store.sqlite.recall_index import UserRecallIndex

# A person named in at least this share of the user's items is one of the people the memory is about.
COMMON_SHARE = 0.05
# Below this many items, shares say little: no one is common.
MIN_ROWS = 100
# How many of the items naming a common name are read to tell a speaker from a topic, and the share
# of them a speaker says.
SPEAKER_SAMPLE = 16
SPEAKER_SHARE = 0.25


def common_people(index: UserRecallIndex, analysis: QueryAnalysis) -> list[str]:
    """The question's entities that are common among the user's items (the people it is about)."""
    total = len(index)
    if total < MIN_ROWS:
        return []
    return [name for name in analysis.entities if len(index.entities.get(name, ())) / total >= COMMON_SHARE]


def speakers(
    index: UserRecallIndex, names: list[str], statements: Callable[[list[str]], Mapping[str, str]]
) -> list[str]:
    """The names among `names` that speak (not only are named in) the items naming them: at least
    `SPEAKER_SHARE` of a sample of those items are stored as "Name: text" (raw turns carry their
    speaker so). In a chat between people the common names are the speakers; in a user's chat with
    an assistant they are topics ("Flask", "AI"), which a question needs."""
    found = []
    for name in names:
        rows = np.asarray(index.entities.get(name, ()), dtype=np.int64)
        if not len(rows):
            continue
        sample = rows[np.linspace(0, len(rows) - 1, min(SPEAKER_SAMPLE, len(rows))).astype(np.int64)]
        texts = statements([index.ids[int(here)] for here in sample]).values()
        spoken = sum(text.lower().startswith(f"{name}:") for text in texts)
        if spoken >= SPEAKER_SHARE * len(sample):
            found.append(name)
    return found


def person_focus(
    index: UserRecallIndex,
    people: list[str],
    positions: np.ndarray,
    scores: np.ndarray,
    penalty: float,
    keep: int = 0,
    exempt: np.ndarray | None = None,
) -> np.ndarray:
    """`scores` (best first) with the items at `positions` that name none of `people` lowered by `penalty`
    (a share); the first `keep`, and those `exempt` marks, keep theirs."""
    if not people or penalty <= 0 or len(positions) <= keep:
        return scores
    naming = np.zeros(len(index), dtype=bool)
    for name in people:
        naming[np.asarray(index.entities[name], dtype=np.int64)] = True
    lowered = ~naming[positions]
    lowered[:keep] = False
    if exempt is not None:
        lowered &= ~exempt
    return np.where(lowered, scores * (1.0 - penalty), scores)
