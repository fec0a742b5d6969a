"""`heedful memory purge-secrets`: secrets stored before redaction covered them are masked in place.

The "old" rows are written with a plain sqlite3 connection, as a store from before the fix would
hold them; the purge must mask them in the append-only tables, leave the guards in place, record
itself without the secret, and leave no byte of the secret in any file of the home.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from heedful.api import Heedful

SECRET = "swordfish77"
KEY = "sk-proj-Zq8Wm2Rt6Yp4Lk0Nv3Bx7Cd1"


def plant_old_secrets(home: Path) -> None:
    with Heedful.open(home, embedder="hashing") as hf:
        hf.memory.add("me", "I live in Porto and I love hiking", flush=True)
        fact = hf.memory.list("me", kinds=["fact"])[0]
        hf.store.jobs.enqueue("me", "test.kind", {"text": "nothing secret"})
    raw = sqlite3.connect(home / "heedful.db")  # no redaction: as an older heedful wrote
    with raw:
        raw.execute(
            "INSERT INTO facts (id, user_id, kind, statement, norm_key, perspective, confidence, valid_from,"
            " ingested_at) VALUES ('f-old', 'me', 'fact', ?, ?, 'user_belief', 1.0, '2024-01-01', '2024-01-01')",
            (f"The root password is {SECRET}", f"the root password is {SECRET}"),
        )
        raw.execute("INSERT INTO fact_terms VALUES ('me', ?, last_insert_rowid(), 1, 5)", (SECRET,))
        raw.execute("UPDATE messages SET text = ? WHERE user_id = 'me'", (f"my key is {KEY} ok",))
        raw.execute("UPDATE jobs SET payload = ?", (json.dumps({"text": f"password: {SECRET}"}),))
        raw.execute(
            "INSERT INTO fact_ops (id, user_id, group_id, op, fact_id, before, after, reason, created_at)"
            " VALUES ('op-old', 'me', 'g-old', 'correct', ?, '{}', ?, 'x', '2024-01-01')",
            (fact.id, json.dumps({"statement": f"key {KEY}"})),
        )
    raw.close()


def files_holding(home: Path, needle: str) -> list[str]:
    return [str(p.relative_to(home)) for p in home.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


@pytest.mark.sqlite_only(reason="writes old rows into the SQLite file (PostgreSQL: tests/postgres/test_memory_purge)")
def test_purge_masks_old_secrets_and_records_itself(home: Path, cli) -> None:  # type: ignore[no-untyped-def]
    plant_old_secrets(home)
    assert files_holding(home, SECRET)
    dry = cli("memory", "purge-secrets", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    planned = json.loads(dry.stdout)
    assert planned["dry_run"] and planned["purge_id"] is None
    assert {"facts", "messages", "jobs", "fact_ops"} <= set(planned["tables"])
    assert SECRET not in dry.stdout and KEY not in dry.stdout
    assert files_holding(home, SECRET)  # a dry run changes nothing

    done = cli("memory", "purge-secrets", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["rows"] == planned["rows"] and report["purge_id"]
    assert files_holding(home, SECRET) == [] and files_holding(home, KEY) == []
    with Heedful.open(home, embedder="hashing") as hf:
        row = hf.store.db.conn.execute("SELECT rewritten, row_count FROM secret_purges").fetchone()
        assert row[1] == report["rows"] and SECRET not in row[0]
        assert {entry["table"] for entry in json.loads(row[0])} == set(report["tables"])
        statement = hf.store.db.conn.execute("SELECT statement FROM facts WHERE id = 'f-old'").fetchone()[0]
        assert statement == "The root password is [REDACTED:password]"
        # the guards are back: append-only rows still cannot be rewritten or deleted
        with pytest.raises(sqlite3.IntegrityError):
            hf.store.db.conn.execute("UPDATE facts SET statement = 'x' WHERE id = 'f-old'")
        with pytest.raises(sqlite3.IntegrityError):
            hf.store.db.conn.execute("DELETE FROM facts WHERE id = 'f-old'")
        # recall still works on the masked rows, and finds nothing by the secret
        assert hf.memory.recall("me", "root password").items
        assert hf.store.search.keyword("me", f'"{SECRET}"', 10) == []
    again = json.loads(cli("memory", "purge-secrets", "--json").stdout)
    assert again["rows"] == 0 and again["purge_id"] is None
