"""The keyword route: SQLite FTS5 BM25 over statements, with stop words removed from the query."""

from __future__ import annotations

from heedful.memory.recall.routes import Ranking, RouteContext


def run(ctx: RouteContext) -> Ranking:
    if not ctx.analysis.match_expression:
        return []
    return ctx.search.keyword(ctx.user_id, ctx.analysis.match_expression, ctx.depth)
