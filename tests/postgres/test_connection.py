"""The PostgreSQL connection layer: migrations once under a lock, nested transactions, meta."""

from __future__ import annotations

import re
import threading

import pytest

from heedful.errors import StoreError
from heedful.store.postgres import PostgresStore
from heedful.store.postgres.db import newest_migration, to_pg


def test_to_pg_converts_placeholders_outside_quotes_and_doubles_percent() -> None:
    assert to_pg("SELECT ? WHERE a LIKE 'x?%' AND b = ?") == "SELECT %s WHERE a LIKE 'x?%%' AND b = %s"


def test_open_migrates_to_the_newest_schema(pg_store: PostgresStore) -> None:
    assert pg_store.db.schema_version == newest_migration()
    names = {row["extname"] for row in pg_store.db.fetchall("SELECT extname FROM pg_extension")}
    assert {"vector", "pg_trgm"} <= names


def test_meta_round_trip(pg_store: PostgresStore) -> None:
    assert pg_store.get_meta("embedder") is None
    pg_store.set_meta("embedder", "hashing")
    pg_store.set_meta("embedder", "minilm")
    assert pg_store.get_meta("embedder") == "minilm"


def test_nested_transactions_join_and_roll_back_together(pg_store: PostgresStore) -> None:
    with pytest.raises(RuntimeError), pg_store.transaction():
        pg_store.set_meta("a", "1")
        with pg_store.transaction():
            pg_store.set_meta("b", "2")
        raise RuntimeError("abort")
    assert pg_store.get_meta("a") is None and pg_store.get_meta("b") is None
    with pg_store.transaction():
        pg_store.set_meta("a", "1")
        assert pg_store.get_meta("a") == "1"  # reads inside see the transaction's own writes
    assert pg_store.get_meta("a") == "1"


def test_threads_use_their_own_transactions(pg_store: PostgresStore) -> None:
    errors: list[BaseException] = []

    def write(index: int) -> None:
        try:
            for step in range(20):
                with pg_store.transaction():
                    pg_store.set_meta(f"t{index}-{step}", str(step))
        except BaseException as exc:  # reported below: a thread's exception is otherwise lost
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    count = pg_store.db.fetchone("SELECT COUNT(*) AS n FROM meta WHERE key LIKE 't%'")
    assert count is not None and count["n"] == 160


def test_unreachable_server_is_one_clear_error() -> None:
    with pytest.raises(
        StoreError, match=re.escape("cannot connect to the database at postgresql://heedful:***@127.0.0.1:9/")
    ):
        PostgresStore("postgresql://heedful:secret@127.0.0.1:9/heedful?connect_timeout=2", pool_size=1).close()
