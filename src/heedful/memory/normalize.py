"""Text keys and similarity used to compare statements. Pure functions."""

from __future__ import annotations

import re
import unicodedata

_PUNCTUATION = re.compile(r"[^\w\s]", re.UNICODE)


def norm_key(text: str) -> str:
    """Case, width, spacing and punctuation folded: equal keys mean the same statement."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = _PUNCTUATION.sub(" ", folded)
    return " ".join(folded.split())


def trigrams(text: str) -> set[str]:
    """Word-padded character trigrams, as PostgreSQL's pg_trgm makes them."""
    grams: set[str] = set()
    for word in norm_key(text).split():
        padded = f"  {word} "
        grams.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return grams


def trigram_overlap(query: str, text: str) -> float:
    """The share of the query's trigrams found in `text` (containment, 0..1)."""
    query_grams = trigrams(query)
    if not query_grams:
        return 0.0
    return len(query_grams & trigrams(text)) / len(query_grams)


def approx_tokens(text: str) -> int:
    """A cheap token estimate (about four characters per token) for budgets."""
    return max(1, (len(text) + 3) // 4)
