"""Weighted reciprocal rank fusion with content gating. Pure.

Each route gives a ranking (best first) of `(item id, route score)`. An item's fused score is the
sum over the routes that found it of `weight / (k + rank)`. Content routes decide what may come
back; anchor routes (time, place) and recency only raise items a content route found. When no
content route found anything, anchor routes admit items; recency never admits an item alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

RRF_K = 60
CONTENT_ROUTES = frozenset({"vector", "keyword", "entity"})
ANCHOR_ROUTES = frozenset({"time", "place"})
BOOST_ONLY_ROUTES = frozenset({"recency"})


class RouteRank(NamedTuple):  # a tuple: fusion makes thousands of these per recall
    rank: float
    score: float
    contribution: float


@dataclass(slots=True)
class Fused:
    id: str
    score: float
    routes: dict[str, RouteRank] = field(default_factory=dict)


def ranks_with_ties(scored: Sequence[tuple[str, float]]) -> list[tuple[str, float, float]]:
    """Fractional ranks for a list sorted best first: equal scores share the mean of their positions.

    ("a", 2), ("b", 1), ("c", 1), ("d", 0) -> ranks 1, 2.5, 2.5, 4. A route that finds many items
    equally relevant (everything in a wide time window) thereby raises each of them only a little.
    """
    out: list[tuple[str, float, float]] = []
    start = 0
    while start < len(scored):
        end = start
        while end + 1 < len(scored) and scored[end + 1][1] == scored[start][1]:
            end += 1
        rank = (start + 1 + end + 1) / 2
        out.extend((item_id, score, rank) for item_id, score in scored[start : end + 1])
        start = end + 1
    return out


def fuse(
    rankings: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float] | None = None,
    *,
    k: int = RRF_K,
    content_routes: frozenset[str] = CONTENT_ROUTES,
    boost_only_routes: frozenset[str] = BOOST_ONLY_ROUTES,
    tied: frozenset[str] = frozenset(),
) -> list[Fused]:
    """Fuse route rankings into one list, best first (ties broken by id for determinism).

    `tied` names routes whose equal scores share a rank (e.g. the entity route, where every item
    naming the same entities is equally relevant). A route missing from `weights` has weight 1.
    """
    weights = weights or {}
    fused: dict[str, Fused] = {}
    for route, ranking in rankings.items():
        weight = float(weights.get(route, 1.0))
        if weight <= 0:
            continue
        if route in tied:
            ranked = ranks_with_ties(ranking)
        else:
            ranked = [(item_id, score, float(rank)) for rank, (item_id, score) in enumerate(ranking, start=1)]
        for item_id, score, rank in ranked:
            entry = fused.get(item_id)
            if entry is None:
                entry = fused[item_id] = Fused(item_id, 0.0)
            elif route in entry.routes:  # a route's first mention of an item counts
                continue
            contribution = weight / (k + rank)
            entry.score += contribution
            entry.routes[route] = RouteRank(rank, float(score), contribution)

    kept = [entry for entry in fused.values() if not content_routes.isdisjoint(entry.routes)]
    if not kept:
        kept = [entry for entry in fused.values() if not boost_only_routes.issuperset(entry.routes)]
    kept.sort(key=lambda entry: (-entry.score, entry.id))
    return kept
