"""The entity-graph route: items naming the query's entities, then their one-hop neighbours.

An item's score is the number of query entities it names (a neighbour entity counts half), and
items with equal scores share a rank: every item about the same people is equally relevant here.
An entity named by a large share of the user's items (the user, their closest companion) tells
nothing apart and is left out; neighbours are followed only when the direct hits are few.
"""

from __future__ import annotations

from heedful.memory.recall.routes import Ranking, RouteContext

HOP_WEIGHT = 0.5
MAX_NEIGHBOURS = 10
FEW_HITS = 5
COMMON_SHARE = 0.2
MIN_ROWS_TO_PRUNE = 100
# A common entity still says whose item it is (the person speaking, the person asked about).
COMMON_SCORE = 0.25


def run(ctx: RouteContext) -> Ranking:
    if not ctx.analysis.entities:
        return []
    direct = ctx.search.entity_facts(ctx.user_id, ctx.analysis.entities)
    total = max(ctx.search.row_count(ctx.user_id), 1)
    per_entity: dict[str, int] = {}
    for names in direct.values():
        for name in names:
            per_entity[name] = per_entity.get(name, 0) + 1
    rare = {name for name, count in per_entity.items() if total < MIN_ROWS_TO_PRUNE or count / total <= COMMON_SHARE}
    scores = {
        fact_id: float(sum(1.0 if name in rare else COMMON_SCORE for name in names))
        for fact_id, names in direct.items()
    }
    scores = {fact_id: score for fact_id, score in scores.items() if score > 0}
    if rare and len(scores) < FEW_HITS:
        neighbours = ctx.search.co_entities(ctx.user_id, sorted(rare), MAX_NEIGHBOURS)
        for fact_id in ctx.search.entity_facts(ctx.user_id, neighbours):
            if fact_id not in scores:
                scores[fact_id] = HOP_WEIGHT
    ranked = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    return ranked[: max(ctx.depth, len(direct))]
