"""The entity-graph route: items naming the query's entities, then their one-hop neighbours.

An item's score is the number of query entities it names (a neighbour entity counts half), and
items with equal scores share a rank: every item about the same people is equally relevant here.
An entity named by a large share of the user's items (the user, their closest companion) tells
nothing apart and is left out; neighbours are followed only when the direct hits are few.
"""

from __future__ import annotations

import numpy as np

from heedful.memory.recall.routes import EMPTY, Ranking, RouteContext

HOP_WEIGHT = 0.5
MAX_NEIGHBOURS = 10
FEW_HITS = 5
COMMON_SHARE = 0.2
MIN_ROWS_TO_PRUNE = 100
# A common entity still says whose item it is (the person speaking, the person asked about).
COMMON_SCORE = 0.25
# Items sharing a score share one rank, so a large group adds almost nothing to each (a group of
# 800 at RRF k = 60 gives each item under a 400th of a first place). Groups past this many items
# times the route's depth are left out; the first group is cut there, newest items kept.
GROUP_DEPTH_FACTOR = 4


def run(ctx: RouteContext) -> Ranking:
    if not ctx.analysis.entities:
        return EMPTY
    index = ctx.index
    total = max(len(index), 1)
    named = {name: index.entities[name] for name in ctx.analysis.entities if index.entities.get(name)}
    rare = {name for name, found in named.items() if total < MIN_ROWS_TO_PRUNE or len(found) / total <= COMMON_SHARE}
    scores = np.zeros(len(index), dtype=np.float64)
    for name, found in named.items():
        np.add.at(scores, np.asarray(found, dtype=np.int64), 1.0 if name in rare else COMMON_SCORE)
    if rare and np.count_nonzero(scores) < FEW_HITS:
        for name in ctx.search.co_entities(ctx.user_id, sorted(rare), MAX_NEIGHBOURS):
            rows = np.asarray(index.entities.get(name, ()), dtype=np.int64)
            if len(rows):
                scores[rows[scores[rows] == 0]] = HOP_WEIGHT
    cap = GROUP_DEPTH_FACTOR * ctx.depth
    ranked: list[tuple[int, float]] = []
    for value in sorted({float(v) for v in np.unique(scores) if v > 0}, reverse=True):
        group = np.flatnonzero(scores == value)
        if ranked and len(ranked) + len(group) > cap:
            break
        group = group[::-1][:cap]
        ranked.extend(sorted(((int(here), value) for here in group), key=lambda pair: index.ids[pair[0]]))
    return ctx.ranking(ranked)
