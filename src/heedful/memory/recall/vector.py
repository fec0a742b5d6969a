"""The vector route: an exact cosine scan of one user's embeddings.

As in the keyword route, a raw excerpt also takes a part of the score of the turn before it in
the same session: answers follow the questions that share their meaning.
"""

from __future__ import annotations

from heedful.memory.recall.routes import Ranking, RouteContext

PREVIOUS_WEIGHT = 0.0


def run(ctx: RouteContext) -> Ranking:
    if ctx.embedder is None or not ctx.analysis.text.strip():
        return []
    query = ctx.embedder.embed([ctx.analysis.text])[0]
    hits = ctx.search.vector_search(ctx.user_id, query, ctx.depth)
    if PREVIOUS_WEIGHT <= 0 or not hits:
        return hits
    _, following = ctx.search.excerpt_neighbours(ctx.user_id)
    combined = dict(hits)
    for item_id, score in hits:
        after = following.get(item_id)
        if after is not None and after in combined:
            combined[after] = max(combined[after], score * PREVIOUS_WEIGHT + combined[after] * (1 - PREVIOUS_WEIGHT))
    ranked = sorted(combined.items(), key=lambda pair: (-pair[1], pair[0]))
    return ranked[: ctx.depth]
