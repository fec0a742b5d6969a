"""Matching an import's candidates against the library, and reading heedful's own exported rules back.

Pure functions over stored rule rows; the importer supplies the rows and the embeddings.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from heedful.rules.import_parse import Unit
from heedful.rules.models import Candidate
from heedful.rules.resolve import content_words

if TYPE_CHECKING:
    from heedful.store.records import RuleRow

RELATED_LIMIT = 8
# The section `heedful rules export --agents` writes (see `library.agents_section`).
EXPORT_HEADING = "Learned rules (heedful)"
_EXPORTED = re.compile(
    r"^(?P<text>.+?)(?: \(when: (?P<condition>.+?)\))?(?: \(except: (?P<exceptions>.+?)\))?"
    r"(?: \[this project\])?$"
)
_NEGATIVE = re.compile(r"^(?:never|don'?t|do not|avoid|stop|no)\b", re.IGNORECASE)


def card(row: RuleRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "text": row.text,
        "condition": row.condition,
        "exceptions": row.exceptions,
        "evidence": row.evidence,
        "check": row.check_spec,
    }


def related(candidate: Candidate, vector: np.ndarray, rows: list[RuleRow]) -> tuple[list[RuleRow], list[float]]:
    """The rows most related to a candidate (embedding cosine or shared words), as the learner ranks them."""
    words = content_words(candidate.text)
    scored = []
    for row in rows:
        embedding = row.embedding
        usable = embedding is not None and len(embedding) == len(vector)
        cosine = float(np.dot(embedding, vector)) if embedding is not None and usable else 0.0
        shared = len(words & content_words(row.text))
        scored.append((max(cosine, 0.3 * shared), cosine, row))
    scored.sort(key=lambda item: item[0], reverse=True)
    top = [item for item in scored[:RELATED_LIMIT] if item[0] > 0.15]
    return [item[2] for item in top], [item[1] for item in top]


def exported_rule(unit: Unit) -> Candidate | None:
    """A line of `heedful rules export --agents`: the rule as heedful wrote it, condition and exceptions apart."""
    if unit.kind != "item" or unit.heading != EXPORT_HEADING:
        return None
    found = _EXPORTED.match(unit.text)
    if found is None or not found.group("text").strip():
        return None
    text = found.group("text").strip()
    exceptions = [e.strip() for e in (found.group("exceptions") or "").split(";") if e.strip()]
    return Candidate(
        text=text,
        condition=found.group("condition"),
        exceptions=exceptions,
        polarity="dont" if _NEGATIVE.match(text) else "do",
        evidence=[text],
    )


def relocate(quote: str, location: str) -> str:
    """`CLAUDE.md:3: Never push.` becomes `CLAUDE.md:5: Never push.` when the line moved."""
    head, sep, rest = quote.partition(": ")
    return f"{location}: {rest}" if sep and head.rpartition(":")[2].isdigit() else quote


__all__ = ["EXPORT_HEADING", "card", "exported_rule", "related", "relocate"]
