"""The SQLite store against real database files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.errors import StoreError
from heedful.store import SQLiteStore


@pytest.mark.sqlite_only(reason="SQLite's migrations and pragmas")
def test_fresh_database_is_migrated_and_in_wal_mode(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "h.db")
    assert store.db.schema_version >= 1
    assert store.db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    version = store.db.schema_version
    store.close()
    again = SQLiteStore(tmp_path / "h.db")  # reopening applies nothing twice
    assert again.db.schema_version == version
    again.close()


@pytest.mark.sqlite_only(reason="SQLite's migrations (PostgreSQL: tests/postgres/test_connection.py)")
def test_a_database_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "h.db")
    store.db.conn.execute("INSERT INTO schema_version (version, name) VALUES (9999, 'future')")
    store.close()
    with pytest.raises(StoreError, match="newer heedful"):
        SQLiteStore(tmp_path / "h.db")


@pytest.mark.sqlite_only(reason="SQLite's triggers (PostgreSQL: tests/postgres/test_contract_append_only.py)")
def test_statements_cannot_be_rewritten_nor_rows_deleted(hf: Heedful) -> None:
    hf.memory.add("alice", "I live in Berlin", flush=True)
    conn = hf.store.db.conn
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE facts SET statement = 'changed' WHERE user_id = 'alice'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM facts WHERE user_id = 'alice'")


def test_a_failed_write_leaves_nothing_behind(hf: Heedful) -> None:
    hf.memory.add("alice", "I live in Berlin", flush=True)
    before = hf.store.memory.count_facts("alice")
    with pytest.raises(RuntimeError), hf.store.transaction():
        hf.memory.add("alice", "I moved to Lisbon", flush=True)
        raise RuntimeError("crash inside the transaction")
    assert hf.store.memory.count_facts("alice") == before
    assert [f.statement for f in hf.memory.list("alice")] == ["The user lives in Berlin"]


def test_wrong_embedding_dimension_is_refused_with_a_clear_error(home: Path) -> None:
    with Heedful.open(home, embedder="hashing") as hf:
        hf.memory.add("alice", "I live in Berlin")
    with pytest.raises(StoreError, match="256-dimensional"):
        Heedful.open(home, embedder="minilm")  # refused at open, before any model is loaded
    with Heedful.open(home, embedder="hashing") as hf:  # nothing was written by the refused call
        assert [m.text for m in hf.store.memory.messages("alice")] == ["I live in Berlin"]
