"""The MemoryStore contract on both backends (the `store` fixture yields SQLite, then PostgreSQL)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from heedful.store.records import FactRecord, MessageRecord, OpRecord

T0 = "2024-05-01T10:00:00.000000Z"
T1 = "2024-06-01T10:00:00.000000Z"


def message(mid: str, user: str, session: str = "s1", text: str = "hello", at: str = T0) -> MessageRecord:
    return MessageRecord(
        id=mid, user_id=user, session_id=session, role="user", text=text, created_at=at, ingested_at=at
    )


def fact(fid: str, user: str, statement: str, key: str = "k", at: str = T0, **fields: Any) -> FactRecord:
    return FactRecord(
        id=fid,
        user_id=user,
        kind=fields.pop("kind", "fact"),
        statement=statement,
        norm_key=key,
        perspective="user_belief",
        confidence=0.9,
        valid_from=at,
        ingested_at=at,
        **fields,
    )


def raw_write(store: Any, sql: str) -> None:
    """A statement sent past the repository, as a careless script would."""
    if hasattr(store.db, "conn"):
        store.db.conn.execute(sql)
    else:
        store.db.execute(sql)


def test_messages_buffer_and_sessions(store: Any) -> None:
    memory = store.memory
    for user in ("alice", "bob"):
        memory.ensure_user(user)
    memory.ensure_user("alice")  # twice is fine
    memory.add_messages([message("m1", "alice"), message("m2", "alice", "s2", at=T1), message("m3", "bob")])
    assert memory.user_exists("alice") and not memory.user_exists("carol")
    assert [m.id for m in memory.buffered_messages("alice")] == ["m1", "m2"]
    memory.mark_extracted("alice", ["m1"], T1)
    assert [m.id for m in memory.buffered_messages("alice")] == ["m2"]
    assert [m.id for m in memory.messages("alice", session_id="s2")] == ["m2"]
    assert [m.id for m in memory.messages("alice", ids=["m1", "m3"])] == ["m1"]  # bob's m3 is not alice's
    assert memory.sessions("alice") == [("s1", T0, T0, 1), ("s2", T1, T1, 1)]
    # bob's message was not marked by alice's call
    assert [m.id for m in memory.buffered_messages("bob")] == ["m3"]


def test_secrets_are_masked_at_the_boundary(store: Any) -> None:
    store.memory.ensure_user("alice")
    secret = "sk-abcdefghijklmnopqrstuvwx1234"
    store.memory.add_messages([message("m1", "alice", text=f"my key is {secret}")])
    store.memory.insert_facts([fact("f1", "alice", f"Alice's key is {secret}", kind="excerpt")])
    assert secret not in store.memory.messages("alice")[0].text
    assert secret not in store.memory.get_fact("alice", "f1").statement
    # and its words left no keyword term behind
    assert store.search.keyword("alice", '"abcdefghijklmnopqrstuvwx1234"', 5) == []


def test_facts_one_user_never_sees_another(store: Any) -> None:
    memory = store.memory
    for user in ("alice", "bob"):
        memory.ensure_user(user)
    vector = np.ones(8, dtype=np.float32) / np.sqrt(8)
    memory.insert_facts(
        [
            fact("a1", "alice", "Alice lives in Berlin", key="alice lives", entities=["Alice", "Berlin"]),
            fact("b1", "bob", "Bob lives in Lisbon", key="bob lives", embedding=vector, entities=["Bob"]),
        ]
    )
    assert memory.get_facts("alice", ["a1", "b1"]).keys() == {"a1"}
    assert memory.get_fact("alice", "b1") is None
    assert [f.id for f in memory.list_facts("alice")] == ["a1"]
    assert memory.count_facts("bob") == 1
    assert memory.current_facts_by_key("alice", "bob lives") == []
    listed = memory.list_facts("bob", with_embeddings=True)
    assert np.allclose(listed[0].embedding, vector) and listed[0].embedding.shape == (8,)
    assert memory.list_facts("alice", with_embeddings=True)[0].embedding is None
    # a state change named with the wrong user touches nothing
    memory.set_fact_state("alice", "b1", {"valid_to": T1})
    assert memory.get_fact("bob", "b1").valid_to is None
    assert store.search.keyword("alice", '"lisbon"', 5) == []
    assert store.search.entity_set("alice") == frozenset({"Alice", "Berlin"})


def test_supersession_and_as_of_state(store: Any) -> None:
    memory = store.memory
    memory.ensure_user("alice")
    memory.insert_facts([fact("old", "alice", "Alice lives in Berlin", key="alice lives")])
    memory.insert_facts([fact("new", "alice", "Alice lives in Lisbon", key="alice lives", at=T1)])
    memory.set_fact_state("alice", "old", {"valid_to": T1, "superseded_by": "new"})
    assert [f.id for f in memory.current_facts_by_key("alice", "alice lives")] == ["new"]
    old = memory.get_fact("alice", "old")
    assert old.superseded_by == "new"
    assert old.state_at() == "superseded" and old.state_at("2024-05-15T00:00:00.000000Z") == "current"
    assert [f.id for f in memory.list_facts("alice", current_only=True)] == ["new"]
    assert [f.id for f in memory.list_facts("alice", kinds=["fact"], limit=1)] == ["old"]


def test_the_record_is_append_only(store: Any) -> None:
    memory = store.memory
    memory.ensure_user("alice")
    memory.insert_facts([fact("f1", "alice", "Alice lives in Berlin")])
    with pytest.raises(ValueError, match="immutable"):
        memory.set_fact_state("alice", "f1", {"statement": "rewritten"})
    with pytest.raises(Exception, match="append-only"):
        raw_write(store, "UPDATE facts SET statement = 'rewritten' WHERE id = 'f1'")
    with pytest.raises(Exception, match="append-only"):
        raw_write(store, "DELETE FROM facts WHERE id = 'f1'")
    assert memory.get_fact("alice", "f1").statement == "Alice lives in Berlin"


def test_operation_log_and_undo_groups(store: Any) -> None:
    memory = store.memory
    for user in ("alice", "bob"):
        memory.ensure_user(user)

    def op(oid: str, user: str, group: str, kind: str = "add") -> OpRecord:
        return OpRecord(oid, user, group, kind, "f1", {"valid_to": None}, {"valid_to": T1}, "moved", T0)

    memory.record_ops([op("o1", "alice", "g1"), op("o2", "alice", "g1"), op("o3", "alice", "g2")])
    memory.record_ops([op("o4", "bob", "g9")])
    assert memory.last_undoable_group("alice") == "g2"
    memory.mark_undone("alice", "g2", "u1")
    memory.record_ops([op("o5", "alice", "u1", "undo")])
    assert memory.last_undoable_group("alice") == "g1"
    assert [o.id for o in memory.ops("alice", group_id="g1")] == ["o1", "o2"]
    assert memory.ops("alice", fact_id="f1")[2].undone_by == "u1"
    assert memory.ops("alice", fact_id="f1")[0].after == {"valid_to": T1}
    memory.mark_undone("alice", "g9", "u2")  # bob's group, named by alice: untouched
    assert memory.ops("bob")[0].undone_by is None
    assert memory.last_undoable_group("bob") == "g9"


def test_users_due_for_dream(store: Any) -> None:
    memory = store.memory
    for user in ("alice", "bob", "carol"):
        memory.ensure_user(user)
    memory.add_messages([message("m1", "alice"), message("m2", "bob"), message("m3", "carol")])
    memory.insert_facts([fact("s1", "bob", "summary of the day", kind="summary", at=T1)])
    # alice and carol have messages newer than any summary; bob's summary is newer than his message
    assert memory.users_due_for_dream(idle_since=T1, stale_since=T0) == ["alice", "carol"]
    assert memory.users_due_for_dream(idle_since=T0, stale_since=T0) == []


def test_concurrent_writers_lose_nothing(pg_url: str) -> None:
    """8 writers (each its own pool, as separate processes would be) add to the same two users at once."""
    import threading

    from heedful.store.postgres import PostgresStore

    stores = [PostgresStore(pg_url, pool_size=1) for _ in range(8)]
    errors: list[BaseException] = []

    def write(number: int, store: Any) -> None:
        try:
            for batch in range(5):
                user = ("alice", "bob")[batch % 2]
                store.memory.ensure_user(user)
                store.memory.insert_facts(
                    [fact(f"w{number}-{batch}-{i}", user, f"writer {number} note {batch} {i} lisbon") for i in range(4)]
                )
        except BaseException as error:  # reported below: a thread's failure must fail the test
            errors.append(error)

    threads = [threading.Thread(target=write, args=(n, store)) for n, store in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        check = stores[0]
        assert check.memory.count_facts("alice") == 8 * 3 * 4 and check.memory.count_facts("bob") == 8 * 2 * 4
        assert check.search.row_count("alice") == 96  # every insert moved the user's version
        assert len(check.search.keyword("alice", '"lisbon"', 500)) == 96  # and indexed its terms
        assert check.search.term_share("bob", '"lisbon"') == 1.0  # totals counted every row once
    finally:
        for store in stores:
            store.close()
