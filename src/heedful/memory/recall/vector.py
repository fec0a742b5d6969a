"""The vector route: an exact cosine scan of one user's embeddings (one matrix product).

A raw excerpt's vector is made from the turn with the one before it (see indexing.py), so an
answer is found through the question it follows.
"""

from __future__ import annotations

from heedful.memory.recall.routes import EMPTY, Ranking, RouteContext


def run(ctx: RouteContext) -> Ranking:
    if ctx.embedder is None or not ctx.analysis.text.strip():
        return EMPTY
    query = ctx.embedder.embed([ctx.analysis.text])[0]
    return ctx.ranking(ctx.search.vector_positions(ctx.index, query, ctx.depth))
