"""Users, messages, facts, entities and the operation log on PostgreSQL. Every query names a user.

The same behaviour as `heedful.store.sqlite.memory`: the record is append-only (triggers refuse
rewrites and deletes), only validity and expiry change, and every change is logged for undo.
Vectors are stored zero-padded to `MAX_DIMS` with their own size beside them (see migration 0001).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from heedful.errors import InputError
from heedful.store.postgres.db import Database, Row
from heedful.store.postgres.forget_match import candidate_seqs_sql
from heedful.store.postgres.terms import index_rows, new_tokenizer
from heedful.store.records import FactRecord, MessageRecord, OpRecord
from heedful.store.sqlite.terms import RECALLABLE_KINDS
from heedful.timeutil import now_text

if TYPE_CHECKING:
    from heedful.store.sqlite.terms import Tokenizer

MAX_DIMS = 384
MUTABLE_FACT_FIELDS = ("valid_to", "superseded_by", "expired_at", "expired_reason")
FACT_COLUMNS = (
    "id, user_id, kind, statement, norm_key, predicate, entity, object, perspective, confidence,"
    " source_message_ids, session_id, event_at, place, background, related_id, valid_from, valid_to,"
    " superseded_by, ingested_at, expired_at, expired_reason"
)
# The stored vector, cut back to the size it was made with, as a float4 array.
VECTOR_COLUMN = "(embedding::real[])[1:embedding_dim] AS embedding"
_MESSAGE_COLUMNS = "id, user_id, session_id, role, speaker, text, created_at, ingested_at, background, extracted_at"


def padded(vector: Any) -> str:
    """A vector in pgvector's text form, zero-padded to MAX_DIMS (an inner product is unchanged).

    Text, not a float array: psycopg dumps a list of floats one element at a time (3 ms a row),
    and each float32 written as its exact decimal reads back as the same float32.
    """
    values = np.asarray(vector, dtype=np.float32).reshape(-1)
    if len(values) > MAX_DIMS:
        raise InputError(f"vectors of {len(values)} dimensions do not fit the PostgreSQL store (at most {MAX_DIMS})")
    tail = ",0" * (MAX_DIMS - len(values))
    return "[" + ",".join(map(str, values.tolist())) + tail + "]"


def vector_of(values: Sequence[float] | None) -> np.ndarray | None:
    return None if values is None else np.asarray(values, dtype=np.float32)


def fact_from_row(row: Row) -> FactRecord:
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
        confidence=float(row["confidence"]),
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
        embedding=vector_of(row.get("embedding")),
    )


def _message_from_row(row: Row) -> MessageRecord:
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


def _fact_values(fact: FactRecord) -> tuple[object, ...]:
    vector = None if fact.embedding is None else padded(fact.embedding)
    dim = None if fact.embedding is None else int(np.asarray(fact.embedding).size)
    return (
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
        fact.background,
        fact.related_id,
        fact.valid_from,
        fact.valid_to,
        fact.superseded_by,
        fact.ingested_at,
        fact.expired_at,
        fact.expired_reason,
        vector,
        dim,
    )


class PostgresMemoryRepo:
    def __init__(self, db: Database) -> None:
        self.db = db

    @cached_property
    def tokenizer(self) -> Tokenizer:
        return new_tokenizer()

    # -- users ---------------------------------------------------------------------------------
    def ensure_user(self, user_id: str) -> None:
        self.db.execute(
            "INSERT INTO users (user_id, created_at) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING",
            (user_id, now_text()),
        )

    def user_exists(self, user_id: str) -> bool:
        return self.db.fetchone("SELECT 1 AS found FROM users WHERE user_id = ?", (user_id,)) is not None

    def users_due_for_dream(self, idle_since: str, stale_since: str) -> list[str]:
        """Users with messages newer than their last summary, idle since `idle_since` or waiting
        since `stale_since`. Scheduling only: it returns ids, never anyone's content."""
        rows = self.db.fetchall(
            "WITH last AS (SELECT user_id, MAX(ingested_at) AS at FROM facts"
            "   WHERE kind IN ('summary', 'profile') GROUP BY user_id)"
            " SELECT m.user_id FROM messages m LEFT JOIN last ON last.user_id = m.user_id"
            " GROUP BY m.user_id, last.at"
            " HAVING MAX(m.ingested_at) > COALESCE(last.at, '')"
            " AND (MAX(m.ingested_at) < ?"
            "   OR MIN(CASE WHEN m.ingested_at > COALESCE(last.at, '') THEN m.ingested_at END) < ?)"
            " ORDER BY m.user_id",
            (idle_since, stale_since),
        )
        return [str(row["user_id"]) for row in rows]

    # -- messages ------------------------------------------------------------------------------
    def add_messages(self, messages: Sequence[MessageRecord]) -> None:
        if not messages:
            return
        with self.db.transaction() as conn, conn.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO messages ({_MESSAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                        m.background,
                        m.extracted_at,
                    )
                    for m in messages
                ],
            )

    def buffered_messages(self, user_id: str) -> list[MessageRecord]:
        rows = self.db.fetchall(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE user_id = ? AND extracted_at IS NULL ORDER BY seq",
            (user_id,),
        )
        return [_message_from_row(row) for row in rows]

    def mark_extracted(self, user_id: str, message_ids: Iterable[str], at: str) -> None:
        listed = list(message_ids)
        if listed:
            self.db.execute(
                "UPDATE messages SET extracted_at = ? WHERE user_id = ? AND id = ANY(?)", (at, user_id, listed)
            )

    def messages(
        self, user_id: str, session_id: str | None = None, ids: Sequence[str] | None = None
    ) -> list[MessageRecord]:
        sql = f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE user_id = ?"
        params: list[object] = [user_id]
        if session_id is not None:
            sql += " AND session_id = ?"
            params.append(session_id)
        if ids is not None:
            sql += " AND id = ANY(?)"
            params.append(list(ids))
        return [_message_from_row(row) for row in self.db.fetchall(sql + " ORDER BY seq", params)]

    def sessions(self, user_id: str) -> list[tuple[str, str, str, int]]:
        """(session_id, first created_at, last created_at, message count) in order of first message."""
        rows = self.db.fetchall(
            "SELECT session_id, MIN(created_at) AS first, MAX(created_at) AS last, COUNT(*) AS n FROM messages"
            " WHERE user_id = ? GROUP BY session_id ORDER BY MIN(seq)",
            (user_id,),
        )
        return [(r["session_id"], r["first"], r["last"], int(r["n"])) for r in rows]

    # -- facts ---------------------------------------------------------------------------------
    def insert_facts(self, facts: Sequence[FactRecord]) -> None:
        if not facts:
            return
        marks = ", ".join("?" * 22)
        with self.db.transaction() as conn, conn.cursor() as cursor:
            # One pipelined statement for all rows; each statement's RETURNING gives the row as stored
            # (redacted), so that its terms hold no masked secret.
            cursor.executemany(
                f"INSERT INTO facts ({FACT_COLUMNS}, embedding, embedding_dim) VALUES ({marks}, ?::vector, ?)"
                " RETURNING seq, user_id, kind, statement",
                [_fact_values(fact) for fact in facts],
                returning=True,
            )
            stored: list[Row] = []
            while True:
                stored.extend(cursor.fetchall())
                if not cursor.nextset():
                    break
            named = [(f.user_id, f.id, entity) for f in facts for entity in dict.fromkeys(f.entities)]
            if named:
                cursor.executemany(
                    "INSERT INTO fact_entities (user_id, fact_id, entity) VALUES (?, ?, ?)"
                    " ON CONFLICT (fact_id, entity) DO NOTHING",
                    named,
                )
            recallable = [
                (int(r["seq"]), str(r["user_id"]), str(r["statement"])) for r in stored if r["kind"] in RECALLABLE_KINDS
            ]
            index_rows(conn, self.tokenizer, recallable)

    def get_facts(self, user_id: str, fact_ids: Sequence[str]) -> dict[str, FactRecord]:
        if not fact_ids:
            return {}
        rows = self.db.fetchall(
            f"SELECT {FACT_COLUMNS} FROM facts WHERE id = ANY(?) AND user_id = ?", (list(fact_ids), user_id)
        )
        return {row["id"]: fact_from_row(row) for row in rows}

    def get_fact(self, user_id: str, fact_id: str) -> FactRecord | None:
        return self.get_facts(user_id, [fact_id]).get(fact_id)

    def list_facts(
        self,
        user_id: str,
        kinds: Sequence[str] | None = None,
        current_only: bool = False,
        limit: int | None = None,
        with_embeddings: bool = False,
    ) -> list[FactRecord]:
        columns = FACT_COLUMNS + (f", {VECTOR_COLUMN}" if with_embeddings else "")
        sql = f"SELECT {columns} FROM facts WHERE user_id = ?"
        params: list[object] = [user_id]
        if kinds:
            sql += " AND kind = ANY(?)"
            params.append(list(kinds))
        if current_only:
            sql += " AND valid_to IS NULL AND expired_at IS NULL"
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [fact_from_row(row) for row in self.db.fetchall(sql, params)]

    def forget_candidates(
        self,
        user_id: str,
        request: str,
        vector: Any,
        kinds: Sequence[str],
        min_overlap: float,
        min_cosine: float,
    ) -> list[FactRecord]:
        """The user's current, non-background items of `kinds` (with vectors) that may match a request
        to forget: pg_trgm and pgvector pick them (see forget_match.py); the caller scores them."""
        values = None if vector is None else np.asarray(vector, dtype=np.float32).reshape(-1)
        by_vector = None if values is None or not len(values) else (padded(values), len(values), min_cosine)
        query = candidate_seqs_sql(self.db, user_id, request, kinds, min_overlap, by_vector)
        if query is None:
            return []
        sql, params = query
        rows = self.db.fetchall(
            f"SELECT {FACT_COLUMNS}, {VECTOR_COLUMN} FROM facts WHERE seq IN ({sql}) ORDER BY seq", params
        )
        return [fact_from_row(row) for row in rows]

    def current_facts_by_key(self, user_id: str, norm_key: str) -> list[FactRecord]:
        rows = self.db.fetchall(
            f"SELECT {FACT_COLUMNS} FROM facts WHERE user_id = ? AND norm_key = ?"
            " AND valid_to IS NULL AND expired_at IS NULL ORDER BY seq",
            (user_id, norm_key),
        )
        return [fact_from_row(row) for row in rows]

    def count_facts(self, user_id: str) -> int:
        row = self.db.fetchone("SELECT COUNT(*) AS n FROM facts WHERE user_id = ?", (user_id,))
        return 0 if row is None else int(row["n"])

    def set_fact_state(self, user_id: str, fact_id: str, fields: dict[str, str | None]) -> None:
        """Change only the mutable validity/expiry fields of one fact."""
        unknown = set(fields) - set(MUTABLE_FACT_FIELDS)
        if unknown:
            raise ValueError(f"immutable fact fields: {sorted(unknown)}")
        if not fields:
            return
        assignments = ", ".join(f"{name} = ?" for name in fields)
        self.db.execute(
            f"UPDATE facts SET {assignments} WHERE user_id = ? AND id = ?", [*fields.values(), user_id, fact_id]
        )

    # -- the operation log ---------------------------------------------------------------------
    def record_ops(self, ops: Sequence[OpRecord]) -> None:
        if not ops:
            return
        with self.db.transaction() as conn, conn.cursor() as cursor:
            cursor.executemany(
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
            for r in self.db.fetchall(sql + " ORDER BY seq", params)
        ]

    def last_undoable_group(self, user_id: str) -> str | None:
        """The newest change group that is neither undone nor itself an undo."""
        row = self.db.fetchone(
            "SELECT group_id FROM fact_ops WHERE user_id = ? AND op <> 'undo' AND group_id NOT IN"
            " (SELECT group_id FROM fact_ops WHERE user_id = ? AND undone_by IS NOT NULL)"
            " ORDER BY seq DESC LIMIT 1",
            (user_id, user_id),
        )
        return None if row is None else str(row["group_id"])

    def mark_undone(self, user_id: str, group_id: str, undo_group_id: str) -> None:
        self.db.execute(
            "UPDATE fact_ops SET undone_by = ? WHERE user_id = ? AND group_id = ?", (undo_group_id, user_id, group_id)
        )
