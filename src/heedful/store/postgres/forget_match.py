"""Candidates for a request to forget, found by pg_trgm and pgvector instead of reading every item.

The domain (`heedful.memory.forget`) matches an item when at least `min_overlap` of the request's
trigrams occur in it, or its cosine similarity to the request is at least `min_cosine`, and scores
the candidates itself. Here the database narrows a user's items down to those that can pass:

- trigrams: pg_trgm's own trigrams (`show_trgm`) of the request and of each statement, served by a
  GIN index on `show_trgm(statement)` (migration 0006). An item holding at least m of the request's
  n trigrams holds at least one of any n - m + 1 of them (pigeonhole), so the index lookup on that
  many trigrams loses no match; the share is then counted exactly for the rows it returns.
- vectors: the inner product with the request's (unit) vector, over the user's current items.

pg_trgm splits words where Python's `\\w` does not (an underscore) and case-folds multibyte text
its own way, so the trigram test here runs at TRIGRAM_SLACK below the domain's threshold: the
candidates are a superset of what the domain keeps, and the domain's score decides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from heedful.store.postgres.db import Database

TRIGRAM_SLACK = 0.1
# Trigrams of a word's start ("  s", " se") are in almost every row; the index looks up the rest first.
_EDGE_PREFIX = " "

_CURRENT = (
    "SELECT seq FROM facts"
    " WHERE user_id = ? AND kind = ANY(?) AND valid_to IS NULL AND expired_at IS NULL AND NOT background AND "
)
# Index-served: rows holding one of the lookup trigrams, then the exact count of the request's trigrams.
_BY_TRIGRAMS = (
    "show_trgm(statement) && ?::text[]"
    " AND (SELECT count(*) FROM unnest(?::text[]) AS gram WHERE gram = ANY(show_trgm(statement))) >= ?"
)
# Cosine of unit vectors: an inner product (`<#>` is its negative); padding adds nothing to it.
_BY_VECTOR = "embedding_dim = ? AND (embedding <#> ?::vector) <= ?"
COSINE_SLACK = 1e-4  # float4 in the database, float32 in the domain: the domain's score decides


def lookup_grams(grams: Sequence[str], needed: int) -> list[str]:
    """Any `len(grams) - needed + 1` of the request's trigrams (every match holds one of them),
    word-inner ones first: they are the rarer, so the index returns fewer rows."""
    ordered = sorted(grams, key=lambda gram: (gram.startswith(_EDGE_PREFIX), gram))
    return ordered[: len(grams) - needed + 1]


def candidate_seqs_sql(
    db: Database,
    user_id: str,
    request: str,
    kinds: Sequence[str],
    min_overlap: float,
    vector: tuple[str, int, float] | None,
) -> tuple[str, list[object]] | None:
    """A query for the `seq` of every candidate (a UNION of the trigram and the vector test), or None
    when the request has neither trigrams nor a vector. `vector` is (padded text, dimension, min cosine)."""
    row = db.fetchone("SELECT show_trgm(?) AS grams", (request,))
    grams: list[str] = list(row["grams"]) if row is not None and row["grams"] else []
    parts: list[str] = []
    params: list[object] = []
    if grams:
        needed = max(1, math.ceil((min_overlap - TRIGRAM_SLACK) * len(grams) - 1e-9))
        parts.append(_CURRENT + _BY_TRIGRAMS)
        params += [user_id, list(kinds), lookup_grams(grams, needed), grams, needed]
    if vector is not None:
        text, dimension, min_cosine = vector
        parts.append(_CURRENT + _BY_VECTOR)
        params += [user_id, list(kinds), dimension, text, COSINE_SLACK - min_cosine]
    if not parts:
        return None
    return " UNION ".join(parts), params
