"""API keys and store meta, on SQLite and on PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest


def test_keys_are_added_listed_and_revoked_once(store: Any) -> None:
    keys = store.keys
    admin = keys.add("k-1", "alice", "hash-1", True, "laptop")
    assert admin.id == "k-1" and admin.user_id == "alice" and admin.admin and admin.label == "laptop"
    assert admin.active and admin.created_at
    keys.add("k-2", "bob", "hash-2", False, None)
    keys.add("k-3", "alice", "hash-3", False, None)
    assert [key.id for key in keys.list()] == ["k-1", "k-2", "k-3"]
    assert [key.id for key in keys.list("alice")] == ["k-1", "k-3"]
    assert keys.revoke("k-1", "lost")
    assert not keys.revoke("k-1", "again")  # already revoked: nothing changes
    revoked = keys.get("k-1")
    assert revoked is not None and not revoked.active and revoked.revoked_at is not None
    assert [key.id for key in keys.list("alice", include_revoked=False)] == ["k-3"]
    assert keys.get("k-missing") is None
    assert "secret_hash" not in revoked.to_json()


def test_meta_round_trip(store: Any) -> None:
    assert store.get_meta("embedder") is None
    store.set_meta("embedder", "hashing")
    store.set_meta("embedder", "minilm")
    store.set_meta("embedding_dim", "384")
    assert store.get_meta("embedder") == "minilm" and store.get_meta("embedding_dim") == "384"


def test_a_failed_transaction_leaves_nothing_behind(store: Any) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        store.set_meta("a", "1")
        store.jobs.enqueue("alice", "memory.flush", {})
        store.keys.add("k-1", "alice", "hash", False, None)
        raise RuntimeError("crash inside the transaction")
    assert store.get_meta("a") is None and store.jobs.counts() == {} and store.keys.list() == []
