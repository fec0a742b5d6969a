"""Users, messages, facts, entities and the operation log in SQLite. Every query names a user."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from heedful.store.records import FactRecord, MessageRecord, OpRecord
from heedful.store.sqlite.db import Database
from heedful.store.sqlite.terms import RECALLABLE_KINDS, index_rows, stored_statements
from heedful.timeutil import now_text

MUTABLE_FACT_FIELDS = ("valid_to", "superseded_by", "expired_at", "expired_reason")
_FACT_COLUMNS = (
    "id, user_id, kind, statement, norm_key, predicate, entity, object, perspective, confidence,"
    " source_message_ids, session_id, event_at, place, background, related_id, valid_from, valid_to,"
    " superseded_by, ingested_at, expired_at, expired_reason"
)


def fact_from_row(row: sqlite3.Row, embedding: bytes | None = None, dim: int = 0) -> FactRecord:
    return FactRecord(
        id=row["id"],
        user_id=row["user_id"],
        kind=row["kind"],
        statement=row["statement"],
        norm_key=row["norm_key"],
        predicate=row["predicate"],
        entity=row["entity"],
        object=row["object"],
        perspective=row["perspective"],
        confidence=row["confidence"],
        source_message_ids=json.loads(row["source_message_ids"]),
        session_id=row["session_id"],
        event_at=row["event_at"],
        place=row["place"],
        background=bool(row["background"]),
        related_id=row["related_id"],
        valid_from=row["valid_from"],
        valid_to=row["valid_to"],
        superseded_by=row["superseded_by"],
        ingested_at=row["ingested_at"],
        expired_at=row["expired_at"],
        expired_reason=row["expired_reason"],
        embedding=None if embedding is None else _vector(embedding),
    )


def _vector(blob: bytes) -> Any:
    import numpy as np  # only where vectors are read: the hook path never loads numpy

    return np.frombuffer(blob, dtype=np.float32)


def _blob(vector: Any) -> bytes:
    import numpy as np

    return np.asarray(vector, np.float32).tobytes()


def _message_from_row(row: sqlite3.Row) -> MessageRecord:
    return MessageRecord(
        id=row["id"],
        user_id=row["user_id"],
        session_id=row["session_id"],
        role=row["role"],
        text=row["text"],
        created_at=row["created_at"],
        ingested_at=row["ingested_at"],
        speaker=row["speaker"],
        background=bool(row["background"]),
        extracted_at=row["extracted_at"],
    )


class SQLiteMemoryRepo:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- users ---------------------------------------------------------------------------------
    def ensure_user(self, user_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("INSERT OR IGNORE INTO users (user_id, created_at) VALUES (?, ?)", (user_id, now_text()))

    def user_exists(self, user_id: str) -> bool:
        row = self.db.conn.execute("SELECT 1 FROM users WHERE user_id = ?", (user_id,)).fetchone()
        return row is not None

    def users_due_for_dream(self, idle_since: str, stale_since: str) -> list[str]:
        """Users with messages newer than their last summary, idle since `idle_since` or waiting
        since `stale_since`. Scheduling only: it returns ids, never anyone's content."""
        rows = self.db.conn.execute(
            "SELECT m.user_id FROM messages m GROUP BY m.user_id"
            " HAVING MAX(m.ingested_at) > COALESCE((SELECT MAX(f.ingested_at) FROM facts f"
            "   WHERE f.user_id = m.user_id AND f.kind IN ('summary', 'profile')), '')"
            " AND (MAX(m.ingested_at) < ? OR MIN(CASE WHEN m.ingested_at > COALESCE((SELECT MAX(f.ingested_at)"
            "   FROM facts f WHERE f.user_id = m.user_id AND f.kind IN ('summary', 'profile')), '')"
            "   THEN m.ingested_at END) < ?)",
            (idle_since, stale_since),
        ).fetchall()
        return [row[0] for row in rows]

    # -- messages ------------------------------------------------------------------------------
    def add_messages(self, messages: Sequence[MessageRecord]) -> None:
        with self.db.transaction() as conn:
            conn.executemany(
                "INSERT INTO messages (id, user_id, session_id, role, speaker, text, created_at, ingested_at,"
                " background, extracted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        m.id,
                        m.user_id,
                        m.session_id,
                        m.role,
                        m.speaker,
                        m.text,
                        m.created_at,
                        m.ingested_at,
                        int(m.background),
                        m.extracted_at,
                    )
                    for m in messages
                ],
            )

    def buffered_messages(self, user_id: str) -> list[MessageRecord]:
        rows = self.db.conn.execute(
            "SELECT * FROM messages WHERE user_id = ? AND extracted_at IS NULL ORDER BY seq", (user_id,)
        ).fetchall()
        return [_message_from_row(row) for row in rows]

    def mark_extracted(self, user_id: str, message_ids: Iterable[str], at: str) -> None:
        with self.db.transaction() as conn:
            conn.executemany(
                "UPDATE messages SET extracted_at = ? WHERE user_id = ? AND id = ?",
                [(at, user_id, mid) for mid in message_ids],
            )

    def messages(
        self, user_id: str, session_id: str | None = None, ids: Sequence[str] | None = None
    ) -> list[MessageRecord]:
        sql = "SELECT * FROM messages WHERE user_id = ?"
        params: list[object] = [user_id]
        if session_id is not None:
            sql += " AND session_id = ?"
            params.append(session_id)
        if ids is not None:
            sql += f" AND id IN ({','.join('?' * len(ids))})"
            params.extend(ids)
        rows = self.db.conn.execute(sql + " ORDER BY seq", params).fetchall()
        return [_message_from_row(row) for row in rows]

    def sessions(self, user_id: str) -> list[tuple[str, str, str, int]]:
        """(session_id, first created_at, last created_at, message count) in order of first message."""
        rows = self.db.conn.execute(
            "SELECT session_id, MIN(created_at), MAX(created_at), COUNT(*) FROM messages"
            " WHERE user_id = ? GROUP BY session_id ORDER BY MIN(seq)",
            (user_id,),
        ).fetchall()
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    # -- facts ---------------------------------------------------------------------------------
    def insert_facts(self, facts: Sequence[FactRecord]) -> None:
        recallable: list[int] = []
        with self.db.transaction() as conn:
            for fact in facts:
                blob = None if fact.embedding is None else _blob(fact.embedding)
                cursor = conn.execute(
                    f"INSERT INTO facts ({_FACT_COLUMNS}, embedding) VALUES"
                    " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        fact.id,
                        fact.user_id,
                        fact.kind,
                        fact.statement,
                        fact.norm_key,
                        fact.predicate,
                        fact.entity,
                        fact.object,
                        fact.perspective,
                        fact.confidence,
                        json.dumps(fact.source_message_ids),
                        fact.session_id,
                        fact.event_at,
                        fact.place,
                        int(fact.background),
                        fact.related_id,
                        fact.valid_from,
                        fact.valid_to,
                        fact.superseded_by,
                        fact.ingested_at,
                        fact.expired_at,
                        fact.expired_reason,
                        blob,
                    ),
                )
                conn.executemany(
                    "INSERT OR IGNORE INTO fact_entities (user_id, fact_id, entity) VALUES (?, ?, ?)",
                    [(fact.user_id, fact.id, entity) for entity in fact.entities],
                )
                if fact.kind in RECALLABLE_KINDS:
                    recallable.append(int(cursor.lastrowid or 0))
            index_rows(conn, self.db.tokenizer, stored_statements(conn, recallable))

    def get_facts(self, user_id: str, fact_ids: Sequence[str]) -> dict[str, FactRecord]:
        found: dict[str, FactRecord] = {}
        for start in range(0, len(fact_ids), 500):
            chunk = list(fact_ids[start : start + 500])
            rows = self.db.conn.execute(
                # `+user_id` keeps SQLite on the id index: by the user index it would read all their rows.
                f"SELECT {_FACT_COLUMNS} FROM facts WHERE id IN ({','.join('?' * len(chunk))}) AND +user_id = ?",
                [*chunk, user_id],
            ).fetchall()
            found.update({row["id"]: fact_from_row(row) for row in rows})
        return found

    def get_fact(self, user_id: str, fact_id: str) -> FactRecord | None:
        return self.get_facts(user_id, [fact_id]).get(fact_id)

    def forget_candidates(
        self,
        user_id: str,
        request: str,
        vector: Any,
        kinds: Sequence[str],
        min_overlap: float,
        min_cosine: float,
    ) -> list[FactRecord]:
        """Every current, non-background item of `kinds`: the caller scores them all (one user's memory
        is small enough on SQLite; PostgreSQL narrows the set with pg_trgm and pgvector first)."""
        items = self.list_facts(user_id, kinds=kinds, current_only=True, with_embeddings=True)
        return [f for f in items if not f.background]

    def list_facts(
        self,
        user_id: str,
        kinds: Sequence[str] | None = None,
        current_only: bool = False,
        limit: int | None = None,
        with_embeddings: bool = False,
    ) -> list[FactRecord]:
        columns = _FACT_COLUMNS + (", embedding" if with_embeddings else "")
        sql = f"SELECT {columns} FROM facts WHERE user_id = ?"
        params: list[object] = [user_id]
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            params.extend(kinds)
        if current_only:
            sql += " AND valid_to IS NULL AND expired_at IS NULL"
        sql += " ORDER BY rowid"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        rows = self.db.conn.execute(sql, params).fetchall()
        return [fact_from_row(row, row["embedding"] if with_embeddings else None) for row in rows]

    def current_facts_by_key(self, user_id: str, norm_key: str) -> list[FactRecord]:
        rows = self.db.conn.execute(
            f"SELECT {_FACT_COLUMNS} FROM facts WHERE user_id = ? AND norm_key = ?"
            " AND valid_to IS NULL AND expired_at IS NULL",
            (user_id, norm_key),
        ).fetchall()
        return [fact_from_row(row) for row in rows]

    def count_facts(self, user_id: str) -> int:
        return int(self.db.conn.execute("SELECT COUNT(*) FROM facts WHERE user_id = ?", (user_id,)).fetchone()[0])

    def set_fact_state(self, user_id: str, fact_id: str, fields: dict[str, str | None]) -> None:
        """Change only the mutable validity/expiry fields of one fact."""
        unknown = set(fields) - set(MUTABLE_FACT_FIELDS)
        if unknown:
            raise ValueError(f"immutable fact fields: {sorted(unknown)}")
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self.db.transaction() as conn:
            conn.execute(
                f"UPDATE facts SET {assignments} WHERE user_id = ? AND id = ?",
                [*fields.values(), user_id, fact_id],
            )

    # -- the operation log ---------------------------------------------------------------------
    def record_ops(self, ops: Sequence[OpRecord]) -> None:
        with self.db.transaction() as conn:
            conn.executemany(
                "INSERT INTO fact_ops (id, user_id, group_id, op, fact_id, before, after, reason, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        o.id,
                        o.user_id,
                        o.group_id,
                        o.op,
                        o.fact_id,
                        json.dumps(o.before),
                        json.dumps(o.after),
                        o.reason,
                        o.created_at,
                    )
                    for o in ops
                ],
            )

    def ops(self, user_id: str, fact_id: str | None = None, group_id: str | None = None) -> list[OpRecord]:
        sql = "SELECT * FROM fact_ops WHERE user_id = ?"
        params: list[object] = [user_id]
        if fact_id is not None:
            sql += " AND fact_id = ?"
            params.append(fact_id)
        if group_id is not None:
            sql += " AND group_id = ?"
            params.append(group_id)
        rows = self.db.conn.execute(sql + " ORDER BY seq", params).fetchall()
        return [
            OpRecord(
                id=r["id"],
                user_id=r["user_id"],
                group_id=r["group_id"],
                op=r["op"],
                fact_id=r["fact_id"],
                before=json.loads(r["before"]),
                after=json.loads(r["after"]),
                reason=r["reason"],
                created_at=r["created_at"],
                undone_by=r["undone_by"],
            )
            for r in rows
        ]

    def last_undoable_group(self, user_id: str) -> str | None:
        """The newest change group that is neither undone nor itself an undo."""
        row = self.db.conn.execute(
            "SELECT group_id FROM fact_ops WHERE user_id = ? AND op != 'undo' AND group_id NOT IN"
            " (SELECT group_id FROM fact_ops WHERE user_id = ? AND undone_by IS NOT NULL)"
            " ORDER BY seq DESC LIMIT 1",
            (user_id, user_id),
        ).fetchone()
        return None if row is None else str(row[0])

    def mark_undone(self, user_id: str, group_id: str, undo_group_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE fact_ops SET undone_by = ? WHERE user_id = ? AND group_id = ?",
                (undo_group_id, user_id, group_id),
            )
