from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.memory.recall.fusion import RRF_K, fuse, fuse_positions, ranks_with_ties
from heedful.memory.recall.routes import Ranking


def test_rrf_sums_weighted_reciprocal_ranks() -> None:
    fused = fuse({"keyword": [("a", 3.0), ("b", 2.0)], "vector": [("b", 0.9), ("a", 0.1)]}, {"vector": 0.5})
    by_id = {entry.id: entry for entry in fused}
    assert by_id["a"].score == 1 / (RRF_K + 1) + 0.5 / (RRF_K + 2)
    assert by_id["b"].score == 1 / (RRF_K + 2) + 0.5 / (RRF_K + 1)
    assert [entry.id for entry in fused] == ["a", "b"]
    assert by_id["a"].routes["vector"].rank == 2
    assert by_id["a"].routes["vector"].contribution == 0.5 / (RRF_K + 2)
    assert by_id["a"].routes["keyword"].score == 3.0


def test_anchor_routes_only_raise_what_content_found() -> None:
    fused = fuse({"keyword": [("a", 1.0)], "time": [("b", 1.0), ("a", 1.0)], "recency": [("c", 1.0)]})
    assert [entry.id for entry in fused] == ["a"]
    assert set(fused[0].routes) == {"keyword", "time"}


def test_anchor_routes_admit_when_no_content_route_found_anything() -> None:
    fused = fuse({"keyword": [], "time": [("b", 1.0)], "place": [("c", 1.0)], "recency": [("d", 1.0), ("b", 1)]})
    assert {entry.id for entry in fused} == {"b", "c"}
    assert fused[0].id == "b"  # raised by recency as well


def test_recency_alone_never_admits() -> None:
    assert fuse({"recency": [("a", 1.0), ("b", 0.5)]}) == []


def test_zero_weight_route_is_ignored() -> None:
    fused = fuse({"keyword": [("a", 1.0)], "vector": [("b", 1.0)]}, {"vector": 0.0})
    assert [entry.id for entry in fused] == ["a"]


def test_tied_routes_share_ranks() -> None:
    assert [rank for _, _, rank in ranks_with_ties([("a", 2), ("b", 1), ("c", 1), ("d", 0)])] == [1, 2.5, 2.5, 4]
    fused = fuse({"entity": [("a", 1.0), ("b", 1.0)]}, tied=frozenset({"entity"}))
    assert fused[0].score == fused[1].score == 1 / (RRF_K + 1.5)


rankings = st.dictionaries(
    st.sampled_from(["vector", "keyword", "entity", "time", "place", "recency"]),
    st.lists(st.tuples(st.sampled_from("abcdefgh"), st.floats(-5, 5)), max_size=8),
    max_size=6,
)


@given(rankings, st.dictionaries(st.sampled_from(["vector", "keyword", "entity", "time"]), st.floats(0, 3)))
def test_fusion_properties(routes: dict[str, list[tuple[str, float]]], weights: dict[str, float]) -> None:
    fused = fuse(routes, weights)
    scores = [entry.score for entry in fused]
    assert scores == sorted(scores, reverse=True)
    assert len({entry.id for entry in fused}) == len(fused)
    content = {i for r in ("vector", "keyword", "entity") if weights.get(r, 1.0) > 0 for i, _ in routes.get(r, [])}
    for entry in fused:
        assert abs(entry.score - sum(hit.contribution for hit in entry.routes.values())) < 1e-12
        if content:
            assert entry.id in content
        assert set(entry.routes) != {"recency"}


@settings(deadline=None)  # timing on a shared machine is not what this checks
@given(rankings, st.dictionaries(st.sampled_from(["vector", "keyword", "entity", "time"]), st.floats(0, 3)))
def test_fusion_over_positions_is_fusion_over_ids(
    routes: dict[str, list[tuple[str, float]]], weights: dict[str, float]
) -> None:
    """The array form recall uses gives the same items, order, scores and per-route parts as `fuse`."""
    tied = frozenset({"entity", "time", "place"})
    ids = list("hgfedcba")  # positions order differently from ids: ties must still break by id
    by_position = {
        route: Ranking(
            np.array([ids.index(item) for item, _ in ranking], dtype=np.int64),
            np.array([score for _, score in ranking], dtype=np.float64),
        )
        for route, ranking in routes.items()
    }
    expected = fuse(routes, weights, tied=tied)
    table = fuse_positions(by_position, ids, weights, tied=tied)
    got = table.entries(ids)
    assert [(e.id, e.score) for e in got] == [(e.id, e.score) for e in expected]
    assert [e.routes for e in got] == [e.routes for e in expected]
