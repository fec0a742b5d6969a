"""The leased job queue on PostgreSQL: any number of workers, on any number of machines.

A claim locks the oldest claimable row with `FOR UPDATE SKIP LOCKED`, so concurrent workers
never wait on each other's rows and never take the same job. A worker that dies leaves its job
`running` with a lease that runs out; the next claim picks it up again. Attempts are counted; a
job that fails `max_attempts` times stays `failed` with its last error. Same semantics as
`heedful.store.sqlite.jobs`. Lease times are the workers' clocks (keep them in sync, e.g. NTP).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from heedful.ids import new_id
from heedful.store.postgres.db import Database
from heedful.store.records import JobRecord
from heedful.timeutil import now, now_text, to_text

_CLAIMABLE = "(state = 'pending' OR (state = 'running' AND lease_expires_at < ?))"


def _job(row: Mapping[str, Any]) -> JobRecord:
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


class PostgresJobQueue:
    def __init__(self, db: Database) -> None:
        self.db = db

    def enqueue(self, user_id: str, kind: str, payload: dict[str, object], max_attempts: int = 3) -> str:
        job_id = new_id("j")
        stamp = now_text()
        self.db.execute(
            "INSERT INTO jobs (id, user_id, kind, payload, state, max_attempts, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)",
            (job_id, user_id, kind, json.dumps(payload), max_attempts, stamp, stamp),
        )
        return job_id

    def pending_exists(self, user_id: str, kind: str) -> bool:
        row = self.db.fetchone(
            "SELECT 1 AS found FROM jobs WHERE user_id = ? AND kind = ? AND state = 'pending' LIMIT 1", (user_id, kind)
        )
        return row is not None

    def claim(self, owner: str, lease_seconds: float, kinds: list[str] | None = None) -> JobRecord | None:
        """Take the oldest pending job, or a running one whose lease expired.

        Two statements, no explicit transaction: the first records jobs whose worker died on their
        last attempt as failed (instead of retrying them); the second locks the oldest claimable
        job, skipping rows other workers hold, and leases it.
        """
        stamp = now()
        at = to_text(stamp)
        expires = to_text(stamp + timedelta(seconds=lease_seconds))
        where = _CLAIMABLE
        params: list[object] = [at]
        if kinds:
            where += " AND kind = ANY(?)"
            params.append(list(kinds))
        self.db.execute(
            "UPDATE jobs SET state = 'failed', lease_owner = NULL, lease_expires_at = NULL,"
            " last_error = COALESCE(last_error, 'worker lost its lease on the last attempt'), updated_at = ?"
            f" WHERE {where} AND attempts >= max_attempts",
            [at, *params],
        )
        sql = (
            f"WITH next AS (SELECT id FROM jobs WHERE {where} AND attempts < max_attempts"
            " ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)"
            " UPDATE jobs SET state = 'running', lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1,"
            " updated_at = ? FROM next WHERE jobs.id = next.id RETURNING jobs.*"
        )
        claimed = self.db.fetchone(sql, [*params, owner, expires, at])
        return None if claimed is None else _job(claimed)

    def heartbeat(self, job_id: str, owner: str, lease_seconds: float) -> bool:
        """Extend the lease; False if the job is no longer this owner's."""
        expires = to_text(now() + timedelta(seconds=lease_seconds))
        changed = self.db.execute(
            "UPDATE jobs SET lease_expires_at = ?, updated_at = ? WHERE id = ? AND lease_owner = ?"
            " AND state = 'running'",
            (expires, now_text(), job_id, owner),
        )
        return changed == 1

    def complete(self, job_id: str, owner: str, result: dict[str, object] | None = None) -> bool:
        changed = self.db.execute(
            "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_expires_at = NULL, result = ?,"
            " updated_at = ? WHERE id = ? AND lease_owner = ? AND state = 'running'",
            (json.dumps(result) if result is not None else None, now_text(), job_id, owner),
        )
        return changed == 1

    def fail(self, job_id: str, owner: str, error: str) -> None:
        """Record the error; retry later unless the attempts are used up."""
        self.db.execute(
            "UPDATE jobs SET state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'pending' END,"
            " lease_owner = NULL, lease_expires_at = NULL, last_error = ?, updated_at = ?"
            " WHERE id = ? AND lease_owner = ?",
            (error[:2000], now_text(), job_id, owner),
        )

    def get(self, job_id: str) -> JobRecord | None:
        row = self.db.fetchone("SELECT * FROM jobs WHERE id = ?", (job_id,))
        return None if row is None else _job(row)

    def list(self, state: str | None = None, user_id: str | None = None, limit: int = 100) -> list[JobRecord]:
        sql = "SELECT * FROM jobs WHERE 1 = 1"
        params: list[object] = []
        if state:
            sql += " AND state = ?"
            params.append(state)
        if user_id:
            sql += " AND user_id = ?"
            params.append(user_id)
        rows = self.db.fetchall(sql + " ORDER BY seq DESC LIMIT ?", [*params, limit])
        return [_job(row) for row in rows]

    def counts(self) -> dict[str, int]:
        rows = self.db.fetchall("SELECT state, COUNT(*) AS n FROM jobs GROUP BY state")
        return {row["state"]: int(row["n"]) for row in rows}
