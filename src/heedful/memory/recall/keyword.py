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

from heedful.memory.recall.query import fts_expression
from heedful.memory.recall.routes import Ranking, RouteContext

COMMON_SHARE = 0.2
PREVIOUS_WEIGHT = 0.5
FOLLOWING_TURNS = 1


def run(ctx: RouteContext) -> Ranking:
    terms = ctx.analysis.terms
    if not terms:
        return []
    kept = [t for t in terms if ctx.search.term_share(ctx.user_id, fts_expression([t])) <= COMMON_SHARE]
    expression = fts_expression(kept or terms)
    if not expression:
        return []
    hits = ctx.search.keyword(ctx.user_id, expression, ctx.depth)
    if PREVIOUS_WEIGHT <= 0 or not hits:
        return hits
    _, following = ctx.search.excerpt_neighbours(ctx.user_id)
    scores = dict(hits)
    combined = dict(scores)
    for item_id, score in hits:
        after = following.get(item_id)
        weight = PREVIOUS_WEIGHT
        for _ in range(FOLLOWING_TURNS):
            if after is None:
                break
            combined[after] = combined.get(after, 0.0) + weight * score
            after = following.get(after)
            weight *= PREVIOUS_WEIGHT
    ranked = sorted(combined.items(), key=lambda pair: (-pair[1], pair[0]))
    return ranked[: ctx.depth]
