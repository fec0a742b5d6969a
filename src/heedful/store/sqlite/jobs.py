"""A leased job queue in the database: claim with a lease, heartbeat, reclaim on expiry.

A worker that dies leaves its job `running` with a lease that runs out; the next claim picks
it up again. Attempts are counted; a job that fails `max_attempts` times stays `failed`
with its last error, so nothing is dropped silently.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from typing import TYPE_CHECKING

from heedful.ids import new_id
from heedful.timeutil import now, now_text, to_text

if TYPE_CHECKING:
    from heedful.store.records import JobRecord
    from heedful.store.sqlite.db import Database


def _job_from_row(row: sqlite3.Row) -> JobRecord:
    from heedful.store.records import JobRecord  # not at import: a hook only enqueues

    return JobRecord(
        id=row["id"],
        user_id=row["user_id"],
        kind=row["kind"],
        payload=json.loads(row["payload"]),
        state=row["state"],
        attempts=row["attempts"],
        max_attempts=row["max_attempts"],
        lease_owner=row["lease_owner"],
        lease_expires_at=row["lease_expires_at"],
        last_error=row["last_error"],
        result=None if row["result"] is None else json.loads(row["result"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


class SQLiteJobQueue:
    def __init__(self, db: Database) -> None:
        self.db = db

    def enqueue(self, user_id: str, kind: str, payload: dict[str, object], max_attempts: int = 3) -> str:
        job_id = new_id("j")
        stamp = now_text()
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO jobs (id, user_id, kind, payload, state, max_attempts, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)",
                (job_id, user_id, kind, json.dumps(payload), max_attempts, stamp, stamp),
            )
        return job_id

    def pending_exists(self, user_id: str, kind: str) -> bool:
        row = self.db.conn.execute(
            "SELECT 1 FROM jobs WHERE user_id = ? AND kind = ? AND state = 'pending' LIMIT 1", (user_id, kind)
        ).fetchone()
        return row is not None

    def claim(self, owner: str, lease_seconds: float, kinds: list[str] | None = None) -> JobRecord | None:
        """Take the oldest pending job, or a running one whose lease expired."""
        stamp = now()
        expires = to_text(stamp + timedelta(seconds=lease_seconds))
        sql = "SELECT * FROM jobs WHERE (state = 'pending' OR (state = 'running' AND lease_expires_at < ?))"
        params: list[object] = [to_text(stamp)]
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            params.extend(kinds)
        with self.db.transaction() as conn:
            row = conn.execute(sql + " ORDER BY seq LIMIT 1", params).fetchone()
            if row is None:
                return None
            if row["attempts"] >= row["max_attempts"]:
                # A job whose worker died on its last attempt: record that instead of retrying.
                conn.execute(
                    "UPDATE jobs SET state = 'failed', lease_owner = NULL, lease_expires_at = NULL,"
                    " last_error = COALESCE(last_error, 'worker lost its lease on the last attempt'),"
                    " updated_at = ? WHERE id = ?",
                    (to_text(stamp), row["id"]),
                )
                return self.claim(owner, lease_seconds, kinds)
            conn.execute(
                "UPDATE jobs SET state = 'running', lease_owner = ?, lease_expires_at = ?,"
                " attempts = attempts + 1, updated_at = ? WHERE id = ?",
                (owner, expires, to_text(stamp), row["id"]),
            )
            claimed = conn.execute("SELECT * FROM jobs WHERE id = ?", (row["id"],)).fetchone()
        return _job_from_row(claimed)

    def heartbeat(self, job_id: str, owner: str, lease_seconds: float) -> bool:
        """Extend the lease; False if the job is no longer this owner's."""
        expires = to_text(now() + timedelta(seconds=lease_seconds))
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE jobs SET lease_expires_at = ?, updated_at = ? WHERE id = ? AND lease_owner = ?"
                " AND state = 'running'",
                (expires, now_text(), job_id, owner),
            )
        return cursor.rowcount == 1

    def complete(self, job_id: str, owner: str, result: dict[str, object] | None = None) -> bool:
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_expires_at = NULL, result = ?,"
                " updated_at = ? WHERE id = ? AND lease_owner = ? AND state = 'running'",
                (json.dumps(result) if result is not None else None, now_text(), job_id, owner),
            )
        return cursor.rowcount == 1

    def fail(self, job_id: str, owner: str, error: str) -> None:
        """Record the error; retry later unless the attempts are used up."""
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE jobs SET state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'pending' END,"
                " lease_owner = NULL, lease_expires_at = NULL, last_error = ?, updated_at = ?"
                " WHERE id = ? AND lease_owner = ?",
                (error[:2000], now_text(), job_id, owner),
            )

    def get(self, job_id: str) -> JobRecord | None:
        row = self.db.conn.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else _job_from_row(row)

    def list(self, state: str | None = None, user_id: str | None = None, limit: int = 100) -> list[JobRecord]:
        sql = "SELECT * FROM jobs WHERE 1 = 1"
        params: list[object] = []
        if state:
            sql += " AND state = ?"
            params.append(state)
        if user_id:
            sql += " AND user_id = ?"
            params.append(user_id)
        rows = self.db.conn.execute(sql + " ORDER BY seq DESC LIMIT ?", [*params, limit]).fetchall()
        return [_job_from_row(row) for row in rows]

    def counts(self) -> dict[str, int]:
        rows = self.db.conn.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall()
        return {row[0]: int(row[1]) for row in rows}
