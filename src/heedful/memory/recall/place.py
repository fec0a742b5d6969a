"""The place route: items recorded at a place the question names. All share one rank."""

from __future__ import annotations

from heedful.memory.recall.routes import EMPTY, Ranking, RouteContext

PLACE_LIMIT = 1000


def run(ctx: RouteContext) -> Ranking:
    if not ctx.analysis.places:
        return EMPTY
    found = ctx.search.place_positions(ctx.index, ctx.analysis.places, PLACE_LIMIT)
    return ctx.ranking([(here, 1.0) for here in found])
