"""Purging secrets on PostgreSQL: rows written before redaction covered them are masked in place.

The "old" rows are written with a plain psycopg connection (no redaction), as an older heedful
would have left them; the purge must mask them in the append-only tables, keep the guards, drop
their keyword terms, record itself without the secret, and let recall's index see the change.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest

from heedful.store.postgres.purge import purge_secrets
from heedful.store.records import FactRecord

SECRET = "swordfish77"
KEY = "sk-proj-Zq8Wm2Rt6Yp4Lk0Nv3Bx7Cd1"


def plant_old_secrets(store: Any, url: str) -> None:
    store.memory.ensure_user("me")
    store.memory.insert_facts(
        [
            FactRecord(
                id="f-new",
                user_id="me",
                kind="fact",
                statement="I live in Porto",
                norm_key="i live in porto",
                perspective="user_belief",
                confidence=1.0,
                valid_from="2024-01-01T00:00:00.000000Z",
                ingested_at="2024-01-01T00:00:00.000000Z",
            )
        ]
    )
    assert store.search.keyword("me", '"porto"', 5)  # the index is built before the purge
    with psycopg.connect(url, autocommit=True) as raw:
        seq = raw.execute(
            "INSERT INTO facts (id, user_id, kind, statement, norm_key, perspective, confidence, valid_from,"
            " ingested_at) VALUES ('f-old', 'me', 'fact', %s, %s, 'user_belief', 1.0, '2024-01-01', '2024-01-01')"
            " RETURNING seq",
            (f"The root password is {SECRET}", f"the root password is {SECRET}"),
        ).fetchone()[0]
        raw.execute("INSERT INTO fact_entities VALUES ('me', 'f-old', %s)", (SECRET,))
        raw.execute("INSERT INTO fact_terms VALUES ('me', %s, %s, 1, 5)", (SECRET, seq))
        raw.execute(
            "INSERT INTO messages (id, user_id, session_id, role, text, created_at, ingested_at)"
            " VALUES ('m-old', 'me', 's', 'user', %s, '2024-01-01', '2024-01-01')",
            (f"my key is {KEY} ok",),
        )
        raw.execute(
            "INSERT INTO fact_ops (id, user_id, group_id, op, fact_id, before, after, reason, created_at)"
            " VALUES ('op-old', 'me', 'g-old', 'correct', 'f-old', '{}', %s, 'x', '2024-01-01')",
            (json.dumps({"statement": f"key {KEY}"}),),
        )


def test_purge_masks_old_secrets_and_records_itself(pg_store: Any, pg_url: str) -> None:
    plant_old_secrets(pg_store, pg_url)
    dry = purge_secrets(pg_store.db, dry_run=True)
    shown = json.dumps(dry.to_json())
    assert dry.dry_run and dry.purge_id is None
    assert {"facts", "messages", "fact_ops"} <= set(dry.to_json()["tables"])  # type: ignore[arg-type]
    assert SECRET not in shown and KEY not in shown
    assert SECRET in pg_store.memory.get_fact("me", "f-old").statement  # a dry run changes nothing

    done = purge_secrets(pg_store.db)
    assert done.purge_id and len(done.rewritten) == len(dry.rewritten)
    old = pg_store.memory.get_fact("me", "f-old")
    assert SECRET not in old.statement and SECRET not in old.norm_key
    assert KEY not in pg_store.memory.messages("me", ids=["m-old"])[0].text
    assert KEY not in json.dumps(pg_store.memory.ops("me", group_id="g-old")[0].after)
    assert pg_store.search.keyword("me", f'"{SECRET}"', 5) == []  # its keyword term is gone
    assert SECRET not in pg_store.search.entity_set("me")  # and the entity read from it
    assert pg_store.search.keyword("me", '"porto"', 5)[0][0] == "f-new"  # the others are rebuilt
    recorded = pg_store.db.fetchall("SELECT rewritten, row_count FROM secret_purges")
    assert len(recorded) == 1 and SECRET not in recorded[0]["rewritten"]
    with pytest.raises(psycopg.Error, match="append-only"):  # the guards are back
        pg_store.db.execute("UPDATE facts SET statement = 'x' WHERE id = 'f-new'")
    assert purge_secrets(pg_store.db).rewritten == []  # nothing left to purge
