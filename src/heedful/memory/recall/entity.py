"""The entity-graph route: items naming the query's entities, then their one-hop neighbours.

An item's score is the number of query entities it names (a neighbour entity counts half), and
items with equal scores share a rank: every item about the same people is equally relevant here.
"""

from __future__ import annotations

from heedful.memory.recall.routes import Ranking, RouteContext

HOP_WEIGHT = 0.5
MAX_NEIGHBOURS = 10


def run(ctx: RouteContext) -> Ranking:
    entities = ctx.analysis.entities
    if not entities:
        return []
    direct = ctx.search.entity_facts(ctx.user_id, entities)
    scores = {fact_id: float(len(names)) for fact_id, names in direct.items()}
    if len(scores) < ctx.depth:
        neighbours = ctx.search.co_entities(ctx.user_id, entities, MAX_NEIGHBOURS)
        for fact_id, names in ctx.search.entity_facts(ctx.user_id, neighbours).items():
            scores[fact_id] = scores.get(fact_id, 0.0) + HOP_WEIGHT * min(len(names), 1)
    ranked = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    return ranked[: max(ctx.depth, len(direct))]
