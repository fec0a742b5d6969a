"""Weighted reciprocal rank fusion with content gating. Pure.

Each route gives a ranking (best first) of `(item id, route score)`. An item's fused score is the
sum over the routes that found it of `weight / (k + rank)`. Content routes decide what may come
back; anchor routes (time, place) and recency only raise items a content route found. When no
content route found anything, anchor routes admit items; recency never admits an item alone.

`fuse` works on item ids and builds one `Fused` per item; recall uses `fuse_positions`, the same
fusion over positions in the user's index as arrays (a recall at 100,000 items fuses thousands of
candidates, and one object per candidate made the garbage collector the largest part of its
tail), and turns into `Fused` only the rows it returns. A property test holds the two equal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from heedful.memory.recall.routes import Ranking

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


@dataclass(frozen=True, slots=True)
class FusedTable:
    """`fuse` over positions, as arrays: one row per kept item, best first.

    Per route (a column, in `routes` order): the item's rank there (NaN when the route did not find
    it), the route's score and the contribution. Recall turns only the rows it returns into `Fused`.
    """

    positions: np.ndarray
    scores: np.ndarray
    routes: tuple[str, ...]
    ranks: np.ndarray
    route_scores: np.ndarray
    contributions: np.ndarray

    def __len__(self) -> int:
        return len(self.positions)

    def entries(self, ids: Sequence[str], start: int = 0, stop: int | None = None) -> list[Fused]:
        """Rows `start:stop` as `Fused` entries (ids read from `ids` by position)."""
        out: list[Fused] = []
        stop = len(self) if stop is None else min(stop, len(self))
        found = ~np.isnan(self.ranks[start:stop])
        for row in range(start, stop):
            hits = {
                route: RouteRank(
                    float(self.ranks[row, col]), float(self.route_scores[row, col]), float(self.contributions[row, col])
                )
                for col, route in enumerate(self.routes)
                if found[row - start, col]
            }
            out.append(Fused(ids[int(self.positions[row])], float(self.scores[row]), hits))
        return out


def tied_ranks(scores: np.ndarray) -> np.ndarray:
    """`ranks_with_ties` for an array of scores sorted best first: equal neighbours share their mean position."""
    if not len(scores):
        return np.zeros(0, dtype=np.float64)
    starts = np.flatnonzero(np.concatenate(([True], scores[1:] != scores[:-1])))
    ends = np.concatenate((starts[1:], [len(scores)]))
    return np.repeat((starts + 1 + ends) / 2, ends - starts)


def order_by_score_then_id(scores: np.ndarray, ids: Sequence[str], positions: np.ndarray) -> np.ndarray:
    """Row order best score first, equal scores by item id (as `fuse` sorts)."""
    order = np.argsort(-scores, kind="stable")
    ordered = scores[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if not len(same):
        return order
    # runs of equal scores (a wide tied route makes long ones): each sorted by id
    starts = same[np.concatenate(([True], np.diff(same) > 1))]
    ends = np.append(same[np.flatnonzero(np.diff(same) > 1)], same[-1]) + 2
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        run = order[start:end]
        order[start:end] = run[np.argsort(np.array([ids[here] for here in positions[run].tolist()]), kind="stable")]
    return order


def fuse_positions(
    rankings: Mapping[str, Ranking],
    ids: Sequence[str],
    weights: Mapping[str, float] | None = None,
    *,
    k: int = RRF_K,
    content_routes: frozenset[str] = CONTENT_ROUTES,
    boost_only_routes: frozenset[str] = BOOST_ONLY_ROUTES,
    tied: frozenset[str] = frozenset(),
) -> FusedTable:
    """`fuse` over rankings of positions (`ids[position]` breaks ties), the same result as arrays."""
    weights = weights or {}
    routes = tuple(route for route in rankings if float(weights.get(route, 1.0)) > 0)
    columns = []
    for route in routes:
        ranking = rankings[route]
        ranks = tied_ranks(ranking.scores) if route in tied else np.arange(1, len(ranking) + 1, dtype=np.float64)
        first = _first_mentions(ranking.positions)  # a route's first mention of an item counts
        columns.append((ranking.positions[first], ranks[first], ranking.scores[first]))
    every = np.unique(np.concatenate([col[0] for col in columns])) if columns else np.zeros(0, dtype=np.int64)
    shape = (len(every), len(routes))
    ranks, route_scores, contributions = np.full(shape, np.nan), np.zeros(shape), np.zeros(shape)
    scores = np.zeros(len(every))
    for col, (route, (positions, route_ranks, found_scores)) in enumerate(zip(routes, columns, strict=True)):
        rows = np.searchsorted(every, positions)
        ranks[rows, col] = route_ranks
        route_scores[rows, col] = found_scores
        contributions[rows, col] = float(weights.get(route, 1.0)) / (k + route_ranks)
        scores += contributions[:, col]  # route by route, in order: the same sums as `fuse`
    found = ~np.isnan(ranks)
    content = [col for col, route in enumerate(routes) if route in content_routes]
    kept = found[:, content].any(axis=1)
    if not kept.any():
        other = [col for col, route in enumerate(routes) if route not in boost_only_routes]
        kept = found[:, other].any(axis=1)
    rows = np.flatnonzero(kept)
    order = rows[order_by_score_then_id(scores[rows], ids, every[rows])]
    return FusedTable(every[order], scores[order], routes, ranks[order], route_scores[order], contributions[order])


def _first_mentions(positions: np.ndarray) -> np.ndarray:
    """Indexes of the first occurrence of each position, in order (routes rarely repeat one)."""
    order = np.argsort(positions, kind="stable")
    ordered = positions[order]
    first = np.ones(len(positions), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return np.sort(order[first])
