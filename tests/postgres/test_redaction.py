"""Secrets written through the PostgreSQL store never reach a table: every text is redacted on its way in."""

from __future__ import annotations

from typing import Any

from rule_rows import rule

from heedful.enforce.ledger import Write

SECRETS = ("sk-proj-abcdefghijklmnopqrstuvwx12", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "AKIAIOSFODNN7EXAMPLE")
LEAK = " ".join(f"token {secret}" for secret in SECRETS)


def dump(pg_store: Any) -> str:
    """Every row of every table of the public schema, as text."""
    from psycopg import sql

    tables = [
        row["tablename"] for row in pg_store.db.fetchall("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    ]
    chunks = []
    with pg_store.db.read() as conn:
        for table in tables:
            query = sql.SQL("SELECT t::text AS row FROM {} t").format(sql.Identifier(table))
            chunks.extend(row["row"] for row in conn.execute(query).fetchall())
    return "\n".join(chunks)


def test_no_secret_reaches_any_table(pg_store: Any) -> None:
    pg_store.rules.commit(
        "me", "learn", LEAK, [rule("r-1", f"Never paste {LEAK}", evidence=[LEAK], source_text=LEAK, reason=LEAK)]
    )
    pg_store.jobs.enqueue("me", "rules.learn", {"text": LEAK, "nested": [LEAK]})
    claimed = pg_store.jobs.claim("w", 60)
    pg_store.jobs.fail(claimed.id, "w", f"crashed on {LEAK}")
    pg_store.keys.add("k-1", "me", "hash", False, LEAK)
    pg_store.set_meta("note", LEAK)
    enforce = pg_store.enforce
    enforce.ensure_session("me", "s1", "codex", None)
    enforce.start_turn("me", "s1", "t1", 1, LEAK, [])
    enforce.save_reply("me", "s1", LEAK)
    enforce.record_events("me", "s1", "t1", [{"kind": "command", "tool": "Bash", "command": f"export {LEAK}"}])
    enforce.log(
        "me", "s1", "t1", [{"stage": "stop", "action": "deny", "reason": LEAK, "quotes": [LEAK], "detail": LEAK}]
    )
    enforce.apply([Write("reply", "me", "s1", "2026-01-01T00:00:00.000000Z", {"text": LEAK})])
    with pg_store.transaction() as conn:  # a statement of the caller's own goes through the same cursor
        conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", ("raw", LEAK))
        conn.execute("INSERT INTO meta (key, value) VALUES (%(key)s, %(value)s)", {"key": "named", "value": LEAK})
        conn.execute("WITH v AS (SELECT 1) INSERT INTO meta (key, value) VALUES (?, ?)", ("with-insert", LEAK))
        conn.execute("WITH v AS (SELECT 1) UPDATE meta SET value = ? WHERE key = ?", (LEAK, "note"))
    text = dump(pg_store)
    for secret in SECRETS:
        assert secret not in text
    assert "Never paste" in text and "[REDACTED:" in text
    job = pg_store.jobs.get(claimed.id)
    assert job is not None and job.payload["nested"][0].startswith("token ")  # JSON stays JSON


def test_ids_are_kept_as_written(pg_store: Any) -> None:
    """Only columns proven safe skip redaction: an id is never masked (its rows would be lost)."""
    job_id = pg_store.jobs.enqueue("user-AKIAIOSFODNN7EXAMPLE", "memory.flush", {"note": "AKIAIOSFODNN7EXAMPLE"})
    row = pg_store.db.fetchone("SELECT user_id, payload FROM jobs WHERE id = ?", (job_id,))
    assert row is not None and row["user_id"] == "user-AKIAIOSFODNN7EXAMPLE"
    assert "AKIAIOSFODNN7EXAMPLE" not in row["payload"]


def write_everything(store: Any) -> dict[str, Any]:
    """The same secret-laden writes through any store; what its repositories read back."""
    store.rules.commit("me", "learn", LEAK, [rule("r-1", f"Never paste {LEAK}", evidence=[LEAK], reason=LEAK)])
    job_id = store.jobs.enqueue("me", "rules.learn", {"text": LEAK, "nested": [LEAK, 3]})
    claimed = store.jobs.claim("w", 60)
    store.jobs.fail(claimed.id, "w", f"crashed on {LEAK}")
    store.keys.add("k-1", "me", "hash", False, LEAK)
    store.set_meta("note", LEAK)
    store.enforce.ensure_session("me", "s1", "codex", None)
    store.enforce.start_turn("me", "s1", "t1", 1, LEAK, [LEAK])
    store.enforce.save_reply("me", "s1", LEAK)
    store.enforce.record_events("me", "s1", "t1", [{"kind": "command", "tool": "Bash", "command": LEAK, "path": LEAK}])
    store.enforce.log("me", "s1", "t1", [{"stage": "stop", "action": "deny", "reason": LEAK, "quotes": [LEAK]}])
    job = store.jobs.get(job_id)
    session = store.enforce.session("me", "s1")
    entry = store.enforce.entries("me", "s1")[0]
    revision = store.rules.history("me", "r-1")[0]
    return {
        "rule": (revision.text, revision.evidence, revision.reason, revision.source_text),
        "library": store.rules.library_versions("me")[0].summary,
        "job": (job.payload, job.last_error),
        "key": store.keys.get("k-1").label,
        "meta": store.get_meta("note"),
        "session": (session["last_prompt"], session["last_reply"]),
        "turn": store.enforce.turn("me", "s1", "t1")["selected"],
        "events": store.enforce.events("me", "s1"),
        "log": (entry["reason"], entry["quotes"]),
    }


def test_postgres_stores_exactly_what_sqlite_stores(pg_store: Any, tmp_path: Any) -> None:
    from heedful.store.sqlite import SQLiteStore

    sqlite_store = SQLiteStore(tmp_path / "heedful.db")
    try:
        expected = write_everything(sqlite_store)
    finally:
        sqlite_store.close()
    assert not any(secret in repr(expected) for secret in SECRETS) and "[REDACTED:" in repr(expected)
    assert write_everything(pg_store) == expected
