"""The coarse area of a request to forget ("health", "money"), which the model may be told.

A model that reads a user's memory may learn that the user asked it to forget something and in
which area, never what: "The user asked to forget 1 thing (area: health)". The area comes from
a short word list first, then from the nearest area description by embedding, and is "personal"
when neither is close.

    >>> area_by_words("forget that my salary is 90k")
    'money'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from heedful.embed import Embedder

FALLBACK_AREA = "personal"
MIN_COSINE = 0.3
AREAS: dict[str, str] = {
    "health": "health medication medicine pills prescription illness disease diagnosis diagnosed doctor therapy "
    "therapist treatment hospital surgery symptoms depression anxiety antidepressant pregnant allergy",
    "money": "money salary income debt loan mortgage bank account savings finances bills paid pay rent credit",
    "relationships": "relationship partner dating boyfriend girlfriend husband wife marriage married divorce "
    "breakup ex affair family",
    "work": "work job employer career boss manager colleague coworker office fired hired interview promotion",
    "home": "home address live lives living apartment flat house moved moving neighbourhood neighborhood",
    "contact details": "phone number email contact",
    "beliefs": "religion religious faith church mosque temple politics political vote voted party beliefs",
    "identity": "age birthday born gender sexuality nationality passport",
    "habits": "habit drinking alcohol smoking smoke drugs gambling diet weight",
}
_WORD = re.compile(r"[a-z]+")
_LEXICON = {word: area for area, words in AREAS.items() for word in words.split()}


def area_by_words(text: str) -> str | None:
    """The area of the first listed word `text` uses (a trailing plural 's' ignored), or None."""
    for word in _WORD.findall(text.lower()):
        area = _LEXICON.get(word) or _LEXICON.get(word.removesuffix("s"))
        if area is not None:
            return area
    return None


class AreaClassifier:
    """Areas of forget requests for one embedder; the area descriptions are embedded once."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._names = list(AREAS)
        self._matrix: np.ndarray | None = None

    def area(self, target: str, vector: np.ndarray | None) -> str:
        found = area_by_words(target)
        if found is not None or vector is None:
            return found or FALLBACK_AREA
        if self._matrix is None:
            import numpy as np

            self._matrix = np.asarray(self.embedder.embed(list(AREAS.values())), dtype=np.float32)
        scores = self._matrix @ vector.astype(self._matrix.dtype).reshape(-1)
        best = int(scores.argmax())
        return self._names[best] if float(scores[best]) >= MIN_COSINE else FALLBACK_AREA

    def areas(self, requests: Sequence[tuple[str, np.ndarray | None]]) -> list[str]:
        """The distinct areas of several requests, in first-seen order."""
        return list(dict.fromkeys(self.area(target, vector) for target, vector in requests))
