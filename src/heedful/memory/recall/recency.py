"""The recency route: the newest items first. It only raises what other routes found."""

from __future__ import annotations

from heedful.memory.recall.routes import Ranking, RouteContext


def run(ctx: RouteContext) -> Ranking:
    ids = ctx.search.recent(ctx.user_id, ctx.depth)
    return [(fact_id, float(len(ids) - position)) for position, fact_id in enumerate(ids)]
