"""The SearchStore contract on both backends, and the same answers from both on one fixture.

The fixture is a few hundred generated conversation turns and facts (deterministic: fixed seed,
hashing embedder) written to a SQLite store and a PostgreSQL store alike; every route's query then
has to return the same ids from both, where the math is the same (BM25 with the same tokenizer and
per-user statistics, exact inner products, the same index columns).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from heedful.embed.hashing import HashingEmbedder
from heedful.memory.recall.query import fts_expression
from heedful.store.records import FactRecord

PEOPLE = ["Alice", "Bob", "Carol", "Dmitri", "Elena"]
PLACES = ["Lisbon", "Berlin", "Kyoto", "Lima"]
TOPICS = ["painting", "guitar", "marathon", "garden", "chess", "sailing", "pottery", "hiking"]
VERBS = ["talked about", "practised", "gave up", "started", "loves", "misses"]
QUERIES = ["painting in Lisbon", "Carol guitar", "marathon training", "who loves chess", "sailing Kyoto garden"]


def day(n: int) -> str:
    return f"2024-{1 + n // 28:02d}-{1 + n % 28:02d}T10:00:00.000000Z"


def fixture_rows(user: str, count: int, seed: int) -> list[FactRecord]:
    rng = random.Random(seed)
    embedder = HashingEmbedder()
    rows: list[FactRecord] = []
    for n in range(count):
        who, topic, place = rng.choice(PEOPLE), rng.choice(TOPICS), rng.choice(PLACES)
        text = f"{who} {rng.choice(VERBS)} {topic} in {place} with {rng.choice(PEOPLE)}" + " again" * rng.randint(0, 3)
        kind = "excerpt" if n % 3 else "fact"
        rows.append(
            FactRecord(
                id=f"{user}-{n:04d}",
                user_id=user,
                kind=kind,
                statement=text,
                norm_key=f"{who.lower()} {topic}",
                perspective="user_belief",
                confidence=0.8,
                valid_from=day(n % 200),
                ingested_at=day(n % 200),
                session_id=f"{user}-s{n // 10}" if kind == "excerpt" else None,
                event_at=day((n * 7) % 200) if n % 4 == 0 else None,
                place=place if n % 5 == 0 else None,
                entities=[who, place],
                embedding=embedder.embed([text])[0],
            )
        )
    return rows


def load(store: Any) -> None:
    for user, seed in (("alice", 1), ("bob", 2)):
        store.memory.ensure_user(user)
        rows = fixture_rows(user, 240 if user == "alice" else 60, seed)
        for start in range(0, len(rows), 50):
            store.memory.insert_facts(rows[start : start + 50])
    store.memory.insert_facts(
        [
            FactRecord(
                id="alice-forget",
                user_id="alice",
                kind="tombstone",
                statement="forget the chess",
                norm_key="forget chess",
                perspective="user_belief",
                confidence=1.0,
                valid_from=day(201),
                ingested_at=day(201),
                object="chess",
                embedding=HashingEmbedder().embed(["chess"])[0],
            )
        ]
    )
    store.memory.set_fact_state("alice", "alice-0003", {"valid_to": day(150), "superseded_by": "alice-0004"})
    store.memory.set_fact_state("alice", "alice-0006", {"expired_at": day(160), "expired_reason": "forgotten"})


@pytest.fixture
def both(tmp_path: Path, pg_store: Any) -> Iterator[tuple[Any, Any]]:
    from heedful.store.sqlite import SQLiteStore

    lite = SQLiteStore(tmp_path / "heedful.db")
    load(lite)
    load(pg_store)
    try:
        yield lite, pg_store
    finally:
        lite.close()


def answers(store: Any) -> dict[str, Any]:
    """Every route's answer for the fixture's queries, by id."""
    search = store.search
    embedder = HashingEmbedder()
    found: dict[str, Any] = {
        "rows": search.row_count("alice"),
        "entities": sorted(search.entity_set("alice")),
        "known": search.known_entities("bob"),
        "co": sorted(search.co_entities("alice", ["Kyoto"], 3)),
        "window": search.in_window("alice", day(20), day(40), 50),
        "place": search.at_place("alice", ["lisbon", "Kyoto"], 50),
        "recent": search.recent("alice", 30),
        "neighbours": search.excerpt_neighbours("alice"),
        "lengths": search.excerpt_lengths("bob"),
        "entity_facts": search.entity_facts("alice", ["Dmitri", "Lima"]),
        "tombstones": [(i, target) for i, target, _ in search.tombstones("alice")],
        "share": round(search.term_share("alice", '"Lisbon"'), 9),
    }
    index = search.index("alice")
    for query in QUERIES:
        expression = fts_expression(query.split())
        found[f"keyword {query}"] = [(i, round(s, 6)) for i, s in search.keyword("alice", expression, 20)]
        vector = embedder.embed([query])[0]
        nearest = [(i, round(s, 5)) for i, s in search.vector_search("alice", vector, 20)]
        # rows tied with the last one kept may be cut either way (identical texts): compare those above it
        found[f"vector {query}"] = [(i, s) for i, s in nearest if s > nearest[-1][1]]
        where = np.arange(0, len(index), 7)
        found[f"coverage {query}"] = np.round(search.query_coverage(index, expression, where), 9).tolist()
    candidates = search.candidates("alice", ["alice-0003", "alice-0006", "bob-0001"])
    found["candidates"] = sorted((c.id, c.valid_to, c.expired_at) for c in candidates.values())
    found["states"] = (index.superseded_by[index.position["alice-0003"]], int(index.has_vector.sum()))
    return found


def test_both_backends_answer_alike(both: tuple[Any, Any]) -> None:
    lite, pg = both
    expected, got = answers(lite), answers(pg)
    assert expected["rows"] == 240 and expected["keyword painting in Lisbon"]  # the fixture means something
    for key in expected:
        assert got[key] == expected[key], key


def test_vectors_round_trip(both: tuple[Any, Any]) -> None:
    lite, pg = both
    ids, matrix = pg.search.vectors("alice")
    lite_ids, lite_matrix = lite.search.vectors("alice")
    assert ids == lite_ids and matrix.shape == (240, 256)
    assert np.allclose(matrix, lite_matrix)
    picked = pg.search.vectors_for("alice", ["alice-0001", "bob-0001", "alice-forget"])
    assert picked.keys() == {"alice-0001"}  # another user's row and a tombstone are not recallable rows
    assert np.allclose(picked["alice-0001"], lite_matrix[1])
    index = pg.search.index("alice")
    assert np.allclose(index.matrix[np.array([1, 5])], lite_matrix[[1, 5]])


def test_approximate_route_agrees_with_the_exact_scan(pg_store: Any) -> None:
    load(pg_store)
    embedder = HashingEmbedder()
    kept = []
    for query in QUERIES:
        vector = embedder.embed([query])[0]
        exact = [seq for seq, _ in pg_store.search.nearest("alice", vector, 10, approximate=False)]
        approximate = [seq for seq, _ in pg_store.search.nearest("alice", vector, 10, approximate=True)]
        kept.append(len(set(exact) & set(approximate)) / 10)
    assert np.mean(kept) >= 0.9


def test_index_follows_writes_of_another_process(pg_url: str) -> None:
    """Two stores on one database (two API processes): each sees the other's writes at its next recall."""
    from heedful.store.postgres import PostgresStore

    first, second = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        load(first)
        assert second.search.row_count("alice") == 240
        first.memory.insert_facts(fixture_rows("alice", 250, 1)[240:])
        first.memory.set_fact_state("alice", "alice-0010", {"valid_to": day(199), "superseded_by": "alice-0011"})
        index = second.search.index("alice")
        assert len(index) == 250
        assert index.superseded_by[index.position["alice-0010"]] == "alice-0011"
        assert second.search.keyword("alice", '"again"', 300)[-1][0] != ""  # postings of new rows are read
    finally:
        first.close()
        second.close()


def test_search_isolates_users(store: Any) -> None:
    load(store)
    vector = HashingEmbedder().embed(["Bob practised guitar in Lima"])[0]
    assert all(i.startswith("bob-") for i, _ in store.search.vector_search("bob", vector, 100))
    assert all(i.startswith("alice-") for i, _ in store.search.keyword("alice", '"guitar"', 500))
    assert store.search.candidates("bob", ["alice-0001"]) == {}
    assert store.search.vectors_for("bob", ["alice-0001"]) == {}
    assert store.search.tombstones("bob") == []
    assert store.search.row_count("carol") == 0 and store.search.keyword("carol", '"guitar"', 5) == []


def test_past_the_exact_size_recall_takes_the_hnsw_route(pg_store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from heedful.store.postgres import search as pg_search

    load(pg_store)
    vector = HashingEmbedder().embed(["painting in Lisbon"])[0]
    exact = [i for i, _ in pg_store.search.vector_search("alice", vector, 10)]
    monkeypatch.setattr(pg_search, "EXACT_SCAN_UP_TO", 100)  # alice's 240 rows are past it now
    asked: list[bool] = []
    nearest = pg_store.search.nearest

    def spy(user_id: str, query: Any, limit: int, approximate: bool) -> Any:
        asked.append(approximate)
        return nearest(user_id, query, limit, approximate)

    monkeypatch.setattr(pg_store.search, "nearest", spy)
    approximate = [i for i, _ in pg_store.search.vector_search("alice", vector, 10)]
    assert asked == [True] and len(set(approximate) & set(exact)) >= 8
    # a user holding a small share of a large table keeps the exact scan (a filtered index scan would crawl)
    monkeypatch.setattr(pg_store.search, "table_rows", lambda: 100_000.0)
    assert [i for i, _ in pg_store.search.vector_search("alice", vector, 10)] == exact and asked[-1] is False
    # asked for more rows than the user has, the filtered index scan comes back short: the exact scan answers
    every = pg_store.search.nearest("bob", vector, 500, approximate=True)
    assert len(every) == 60 and every == pg_store.search.nearest("bob", vector, 500, approximate=False)
