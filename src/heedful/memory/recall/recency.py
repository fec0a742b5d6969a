"""The recency route: the newest items first. It only raises what other routes found."""

from __future__ import annotations

from heedful.memory.recall.routes import Ranking, RouteContext


def run(ctx: RouteContext) -> Ranking:
    found = ctx.search.recent_positions(ctx.index, ctx.depth)
    return ctx.ranking([(here, float(len(found) - n)) for n, here in enumerate(found)])
