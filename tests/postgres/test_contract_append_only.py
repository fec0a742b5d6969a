"""Append-only tables refuse rewrites and deletes on both backends (triggers, not conventions)."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from rule_rows import rule


def refused() -> tuple[type[BaseException], ...]:
    """The error a refused statement raises on either backend."""
    errors: list[type[BaseException]] = [sqlite3.IntegrityError]
    try:
        import psycopg
    except ImportError:
        return tuple(errors)
    return (*errors, psycopg.IntegrityError)


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("UPDATE rule_versions SET text = 'rewritten'", "rule versions are immutable"),
        ("DELETE FROM rule_versions", "rule versions are never deleted"),
        ("UPDATE rule_library_entries SET rule_version = 9", "library versions are immutable"),
        ("UPDATE api_keys SET admin = 0", "API keys are immutable"),
        ("DELETE FROM api_keys", "API keys are never deleted"),
        ("UPDATE api_key_revocations SET revoked_at = NULL", "a revocation is final"),
        ("DELETE FROM api_key_revocations", "a revocation is final"),
    ],
)
def test_rewrites_and_deletes_are_refused(store: Any, statement: str, message: str) -> None:
    store.rules.commit("me", "learn", "one", [rule("r-1", "Use uv")])
    store.keys.add("k-1", "me", "hash", True, None)
    store.keys.revoke("k-1")
    with pytest.raises(refused(), match=message), store.transaction() as conn:
        conn.execute(statement)
    assert store.rules.rules_at("me", 1)[0].text == "Use uv"
    key = store.keys.get("k-1")
    assert key is not None and key.admin and key.revoked_at is not None


@pytest.mark.parametrize("table", ["rule_versions", "api_keys", "api_key_revocations"])
def test_truncate_is_refused_on_postgres(pg_store: Any, table: str) -> None:
    import psycopg

    with pytest.raises(psycopg.IntegrityError), pg_store.transaction() as conn:
        conn.execute(f"TRUNCATE {table} CASCADE")
