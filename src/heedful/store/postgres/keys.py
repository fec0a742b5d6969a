"""API keys of `heedful serve` on PostgreSQL: rows are only added (a revocation is a row of its own).

The store sees key ids and hashes only; making and checking the secret is `heedful.server.keys`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from heedful.store.postgres.db import Database
from heedful.store.records import ApiKeyRecord
from heedful.timeutil import now_text

_SELECT = (
    "SELECT k.id, k.user_id, k.secret_hash, k.admin, k.label, k.created_at, r.revoked_at"
    " FROM api_keys k LEFT JOIN api_key_revocations r ON r.key_id = k.id"
)


def _record(row: Mapping[str, Any]) -> ApiKeyRecord:
    return ApiKeyRecord(
        id=row["id"],
        user_id=row["user_id"],
        secret_hash=row["secret_hash"],
        admin=bool(row["admin"]),
        label=row["label"],
        created_at=row["created_at"],
        revoked_at=row["revoked_at"],
    )


class PostgresKeyRepo:
    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, key_id: str, user_id: str, secret_hash: str, admin: bool, label: str | None) -> ApiKeyRecord:
        self.db.execute(
            "INSERT INTO api_keys (id, user_id, secret_hash, admin, label, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (key_id, user_id, secret_hash, int(admin), label, now_text()),
        )
        found = self.get(key_id)
        assert found is not None  # just written in this process
        return found

    def get(self, key_id: str) -> ApiKeyRecord | None:
        row = self.db.fetchone(f"{_SELECT} WHERE k.id = ?", (key_id,))
        return None if row is None else _record(row)

    def list(self, user_id: str | None = None, include_revoked: bool = True) -> list[ApiKeyRecord]:
        sql, params = (f"{_SELECT} WHERE k.user_id = ?", (user_id,)) if user_id is not None else (_SELECT, ())
        rows = [_record(row) for row in self.db.fetchall(sql + " ORDER BY k.seq", params)]
        return rows if include_revoked else [row for row in rows if row.active]

    def revoke(self, key_id: str, reason: str | None = None) -> bool:
        """Record the revocation; False when the key was already revoked (nothing changes)."""
        changed = self.db.execute(
            "INSERT INTO api_key_revocations (key_id, revoked_at, reason) VALUES (?, ?, ?)"
            " ON CONFLICT (key_id) DO NOTHING",
            (key_id, now_text(), reason),
        )
        return changed == 1
