"""The PostgreSQL connection layer: migrations once under a lock, nested transactions, meta."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("psycopg", reason="the postgres extra is not installed (pip install 'heedful[postgres]')")

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


def test_several_processes_opening_a_new_database_migrate_it_once(pg_server_url: str) -> None:
    from pg_server import admin, with_database

    name = f"heedful_race_{os.getpid()}"
    admin(pg_server_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name}")
    url = with_database(pg_server_url, name)
    code = "import sys; from heedful.store.postgres import PostgresStore; PostgresStore(sys.argv[1], 1).close()"
    try:
        openers = [
            subprocess.Popen([sys.executable, "-c", code, url], stderr=subprocess.PIPE, text=True) for _ in range(6)
        ]
        for opener in openers:
            _, err = opener.communicate(timeout=120)
            assert opener.returncode == 0, err
        with PostgresStore(url, pool_size=1) as store:
            assert store.db.schema_version == newest_migration()
    finally:
        admin(pg_server_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_a_database_from_a_newer_version_is_refused(pg_url: str) -> None:
    with PostgresStore(pg_url, pool_size=1) as store:
        store.db.execute("INSERT INTO schema_version (version, name) VALUES (9999, 'future')")
    with pytest.raises(StoreError, match="newer heedful"):
        PostgresStore(pg_url, pool_size=1)


def test_an_open_store_reopens_without_migrating_again(pg_url: str) -> None:
    with PostgresStore(pg_url, pool_size=1) as store:
        applied = store.db.fetchall("SELECT version, applied_at FROM schema_version ORDER BY version")
    with PostgresStore(pg_url, pool_size=1) as again:
        assert again.db.fetchall("SELECT version, applied_at FROM schema_version ORDER BY version") == applied


@pytest.mark.parametrize("url", ["postgresql://u:pw@host:notaport/db", "postgresql://u:pw@[broken/db", "mysql://x"])
def test_a_bad_url_is_one_line_and_never_shows_the_password(url: str) -> None:
    with pytest.raises(StoreError) as caught:
        PostgresStore(url, pool_size=1)
    message = str(caught.value)
    assert "\n" not in message and "pw" not in message and message.startswith("cannot connect to the database at")


def test_a_write_behind_a_held_lock_gives_up_after_the_lock_timeout(pg_url: str) -> None:
    """A hook must not wait on another writer: with a lock timeout its write fails fast (and it spools)."""
    from rule_rows import rule

    holding, release = threading.Event(), threading.Event()
    with PostgresStore(pg_url, pool_size=2) as owner, PostgresStore(pg_url, pool_size=1, lock_timeout_ms=100) as hook:

        def hold() -> None:
            with owner.transaction() as conn:
                owner.db.lock(conn, "rules:me")
                holding.set()
                release.wait(30)

        holder = threading.Thread(target=hold)
        holder.start()
        try:
            assert holding.wait(30)
            started = time.monotonic()
            with pytest.raises(StoreError, match="is busy"):
                hook.rules.commit("me", "learn", "blocked", [rule("r-1", "Use uv")])
            assert time.monotonic() - started < 5
            assert hook.rules.latest_version("me") == 0  # nothing half-written
            assert hook.jobs.enqueue("me", "memory.flush", {})  # other writes are not held up
        finally:
            release.set()
            holder.join()
        assert hook.rules.commit("me", "learn", "free again", [rule("r-1", "Use uv")]) == 1
