"""The forget matcher's candidates on PostgreSQL (pg_trgm + pgvector) against the domain's full scan.

`forget_candidates` must lose no item the domain's score (`heedful.memory.forget.match_score`) keeps,
must never return another user's item, and must use the trigram index rather than read every row.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from heedful.embed.hashing import HashingEmbedder
from heedful.memory.forget import COSINE_THRESHOLD, TRIGRAM_THRESHOLD, match_score
from heedful.memory.normalize import norm_key
from heedful.store.postgres.forget_match import candidate_seqs_sql
from heedful.store.records import FactRecord

T0 = "2024-05-01T10:00:00.000000Z"
KINDS = ["fact", "commitment", "excerpt", "summary"]
embedder = HashingEmbedder()


def item(fid: str, user: str, statement: str, vector: Any = None, **fields: Any) -> FactRecord:
    return FactRecord(
        id=fid,
        user_id=user,
        kind=fields.pop("kind", "fact"),
        statement=statement,
        norm_key=norm_key(statement),
        perspective="user_belief",
        confidence=0.9,
        valid_from=T0,
        ingested_at=T0,
        embedding=embedder.embed([statement])[0] if vector is None else vector,
        **fields,
    )


def candidates(pg_store: Any, user: str, request: str, vector: Any = None) -> list[str]:
    target_vector = embedder.embed([request])[0] if vector is None else vector
    found = pg_store.memory.forget_candidates(user, request, target_vector, KINDS, TRIGRAM_THRESHOLD, COSINE_THRESHOLD)
    return [f.id for f in found]


def matched(request: str, vector: Any, facts: list[FactRecord]) -> set[str]:
    return {f.id for f in facts if match_score(request, vector, f) > 0}


def test_a_misspelt_request_finds_the_item_and_never_another_users(pg_store: Any) -> None:
    memory = pg_store.memory
    for user in ("alice", "bob"):
        memory.ensure_user(user)
    memory.insert_facts(
        [
            item("f-a1", "alice", "I take sertraline every morning"),
            item("f-a2", "alice", "My sister lives in Lisbon"),
            item("f-b1", "bob", "I take sertraline every morning"),
        ]
    )
    assert candidates(pg_store, "alice", "I tak sertralin evry morning") == ["f-a1"]  # three typos
    assert candidates(pg_store, "bob", "I tak sertralin evry morning") == ["f-b1"]
    assert candidates(pg_store, "carol", "I take sertraline every morning") == []
    assert candidates(pg_store, "alice", "the weather in Oslo") == []


def test_a_reworded_request_is_found_by_its_vector(pg_store: Any) -> None:
    memory = pg_store.memory
    memory.ensure_user("alice")
    rng = np.random.default_rng(7)
    stored = rng.normal(size=64).astype(np.float32)
    stored /= np.linalg.norm(stored)
    near = stored + 0.3 * rng.normal(size=64).astype(np.float32) / 8
    near /= np.linalg.norm(near)
    far = rng.normal(size=64).astype(np.float32)
    far /= np.linalg.norm(far)
    memory.insert_facts([item("f-1", "alice", "I am on an antidepressant", vector=stored)])
    request = "the medication I mentioned"  # no words in common: only the vector can find it
    assert float(near @ stored) >= COSINE_THRESHOLD > float(far @ stored)
    assert candidates(pg_store, "alice", request, near) == ["f-1"]
    assert candidates(pg_store, "alice", request, far) == []


def test_only_current_items_of_the_asked_kinds_outside_the_background(pg_store: Any) -> None:
    memory = pg_store.memory
    memory.ensure_user("alice")
    text = "I take sertraline every morning"
    memory.insert_facts(
        [
            item("f-current", "alice", text),
            item("f-background", "alice", text, background=True),
            item("f-expired", "alice", text),
            item("f-summary", "alice", text, kind="summary"),
            item("f-profile", "alice", text, kind="profile"),
        ]
    )
    memory.set_fact_state("alice", "f-expired", {"expired_at": T0, "expired_reason": "test"})
    assert candidates(pg_store, "alice", text) == ["f-current", "f-summary"]


def test_candidates_lose_no_match_of_the_full_scan(pg_store: Any) -> None:
    """The contract: scoring the candidates keeps exactly what scoring every item keeps."""
    words = (
        "i take sertraline every morning my sister lives in lisbon the dog named rex likes long walks "
        "doctor appointment on tuesday allergic to peanuts work at the harbour office since march "
        "api_key rotation café crème naïve"
    ).split()
    rng = random.Random(3)
    memory = pg_store.memory
    memory.ensure_user("alice")
    facts = [item(f"f-{n}", "alice", " ".join(rng.sample(words, rng.randint(2, 12)))) for n in range(300)]
    memory.insert_facts(facts)
    checked = 0
    for _ in range(120):
        request = " ".join(rng.sample(words, rng.randint(1, 5)))
        if rng.random() < 0.5:  # a typo
            letters = list(request)
            letters[rng.randrange(len(letters))] = rng.choice("abcdefgh")
            request = "".join(letters)
        vector = embedder.embed([request])[0]
        expected = matched(request, vector, facts)
        found = pg_store.memory.forget_candidates("alice", request, vector, KINDS, TRIGRAM_THRESHOLD, COSINE_THRESHOLD)
        assert expected <= {f.id for f in found}, request
        assert matched(request, vector, found) == expected
        checked += bool(expected)
    assert checked > 30  # the requests did match things: the comparison was not vacuous


def test_the_trigram_index_serves_the_lookup(pg_store: Any) -> None:
    memory = pg_store.memory
    memory.ensure_user("alice")
    memory.insert_facts([item(f"f-{n}", "alice", f"note number {n} about the harbour office") for n in range(2000)])
    pg_store.db.execute("ANALYZE facts")  # the planner's statistics, as autovacuum would gather them

    query = candidate_seqs_sql(pg_store.db, "alice", "sertraline", KINDS, TRIGRAM_THRESHOLD, None)
    assert query is not None
    sql, params = query
    with pg_store.db.transaction() as conn:
        plan = "\n".join(row["QUERY PLAN"] for row in conn.execute(f"EXPLAIN {sql}", params).fetchall())
    assert "facts_statement_trgm" in plan
