"""The place route: items recorded at a place the question names. All share one rank."""

from __future__ import annotations

from heedful.memory.recall.routes import Ranking, RouteContext

PLACE_LIMIT = 1000


def run(ctx: RouteContext) -> Ranking:
    if not ctx.analysis.places:
        return []
    return [(fact_id, 1.0) for fact_id in ctx.search.at_place(ctx.user_id, ctx.analysis.places, PLACE_LIMIT)]
