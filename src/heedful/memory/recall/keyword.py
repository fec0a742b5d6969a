"""The keyword route: SQLite FTS5 BM25 over statements.

Two refinements over a plain BM25 query:

- terms that occur in a large share of this user's items (their own name, the name of the person
  they talk to most) are left out of the query: they say little about which item is meant, and the
  FTS index's statistics span every user, so it cannot see how common they are for this one;
- a raw excerpt also scores a part of the turn before it in the same session, because a question
  is often answered by the turn that follows the one that shares its words ("What inspired
  you?" -> "I painted this after I visited ...").
"""

from __future__ import annotations

from heedful.memory.recall.query import fts_expression, keywords
from heedful.memory.recall.routes import Ranking, RouteContext

COMMON_SHARE = 0.2
PREVIOUS_WEIGHT = 0.5
FEEDBACK_DOCS = 0
FEEDBACK_TERMS = 5
FEEDBACK_WEIGHT = 0.3


def _feedback(ctx: RouteContext, hits: Ranking, kept: list[str]) -> Ranking:
    """Pseudo-relevance feedback: words shared by the best hits, searched again."""
    top = [item_id for item_id, _ in hits[:FEEDBACK_DOCS]]
    rows = ctx.search.candidates(ctx.user_id, top)
    counts: dict[str, int] = {}
    for item_id in top:
        row = rows.get(item_id)
        if row is None:
            continue
        for word in keywords(row.statement):
            if word not in kept and not word.isdigit():
                counts[word] = counts.get(word, 0) + 1
    ordered = sorted((w for w, n in counts.items() if n >= 2), key=lambda w: (-counts[w], w))
    extra = [w for w in ordered if ctx.search.term_share(ctx.user_id, fts_expression([w])) <= COMMON_SHARE]
    extra = extra[:FEEDBACK_TERMS]
    if not extra:
        return hits
    second = ctx.search.keyword(ctx.user_id, fts_expression(kept + extra), ctx.depth)
    combined = dict(hits)
    for item_id, score in second:
        combined[item_id] = combined.get(item_id, 0.0) + FEEDBACK_WEIGHT * score
    return sorted(combined.items(), key=lambda pair: (-pair[1], pair[0]))


def run(ctx: RouteContext) -> Ranking:
    terms = ctx.analysis.terms
    if not terms:
        return []
    kept = [t for t in terms if ctx.search.term_share(ctx.user_id, fts_expression([t])) <= COMMON_SHARE]
    expression = fts_expression(kept or terms)
    if not expression:
        return []
    hits = ctx.search.keyword(ctx.user_id, expression, ctx.depth)
    if FEEDBACK_DOCS > 0 and hits:
        hits = _feedback(ctx, hits, kept or terms)
    if PREVIOUS_WEIGHT <= 0 or not hits:
        return hits
    _, following = ctx.search.excerpt_neighbours(ctx.user_id)
    scores = dict(hits)
    combined = dict(scores)
    for item_id, score in hits:
        after = following.get(item_id)
        if after is not None:
            combined[after] = combined.get(after, 0.0) + PREVIOUS_WEIGHT * score
    ranked = sorted(combined.items(), key=lambda pair: (-pair[1], pair[0]))
    return ranked[: ctx.depth]
