"""Rules, their revisions, immutable library versions and per-turn pins on PostgreSQL.

Same behaviour as `heedful.store.sqlite.rules`: a change is committed as one new library version
(a copy of the previous version's entries with the changed rules pointing at their new
revisions); nothing is rewritten; undo is a new version restoring an older snapshot. SQLite
serialises writers with its file lock; here a per-user advisory lock does it, so two processes
committing for one user take turns instead of racing for the same version number.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import psycopg

from heedful.errors import StoreError
from heedful.store.postgres.db import Database
from heedful.store.records import LibraryVersionRow, RuleRow
from heedful.timeutil import now_text


def _vector(blob: bytes) -> Any:
    import numpy as np  # only when embeddings are read: the hook path never loads numpy

    return np.frombuffer(blob, dtype=np.float32)


def _blob(vector: Any) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype=np.float32).tobytes()


def library_lock(user_id: str) -> str:
    """The advisory lock key of one user's rule library (enforcement pins take it too)."""
    return f"rules:{user_id}"


_SELECT = (
    "SELECT r.id, r.user_id, r.scope, r.project, r.created_at AS rule_created_at, v.version, v.text, v.condition,"
    " v.exceptions, v.evidence, v.status, v.check_spec, v.op, v.reason, v.source_text, v.supersedes,"
    " v.superseded_by, v.library_version, v.created_at, v.embedding"
)
_ENTRIES = (
    " FROM rule_library_entries e JOIN rules r ON r.id = e.rule_id AND r.user_id = e.user_id"
    " JOIN rule_versions v ON v.rule_id = e.rule_id AND v.version = e.rule_version"
)


def _row(row: Mapping[str, Any], with_embedding: bool) -> RuleRow:
    blob = row["embedding"]
    return RuleRow(
        id=row["id"],
        user_id=row["user_id"],
        scope=row["scope"],
        project=row["project"],
        version=row["version"],
        text=row["text"],
        condition=row["condition"],
        exceptions=json.loads(row["exceptions"]),
        evidence=json.loads(row["evidence"]),
        status=row["status"],
        check_spec=None if row["check_spec"] is None else json.loads(row["check_spec"]),
        op=row["op"],
        reason=row["reason"],
        source_text=row["source_text"],
        supersedes=row["supersedes"],
        superseded_by=row["superseded_by"],
        library_version=row["library_version"],
        created_at=row["created_at"],
        rule_created_at=row["rule_created_at"],
        embedding=_vector(bytes(blob)) if with_embedding and blob is not None else None,
    )


class PostgresRuleRepo:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- library versions ----------------------------------------------------------------------
    def latest_version(self, user_id: str) -> int:
        row = self.db.fetchone(
            "SELECT MAX(version) AS version FROM rule_library_versions WHERE user_id = ?", (user_id,)
        )
        return int(row["version"] or 0) if row is not None else 0

    def library_versions(self, user_id: str) -> list[LibraryVersionRow]:
        rows = self.db.fetchall(
            "SELECT version, base_version, kind, summary, created_at, undone_by FROM rule_library_versions"
            " WHERE user_id = ? ORDER BY version",
            (user_id,),
        )
        return [LibraryVersionRow(**row) for row in rows]

    def rules_at(
        self,
        user_id: str,
        library_version: int,
        project: str | None = None,
        statuses: Sequence[str] | None = None,
        any_project: bool = False,
        with_embeddings: bool = False,
    ) -> list[RuleRow]:
        """Rules in one library version: global ones and those of `project` (or of every project)."""
        sql = f"{_SELECT}{_ENTRIES} WHERE e.user_id = ? AND e.library_version = ?"
        params: list[object] = [user_id, library_version]
        if not any_project:
            sql += " AND (r.scope = 'global' OR (r.scope = 'project' AND r.project = ?))"
            params.append(project)
        if statuses is not None:
            sql += " AND v.status = ANY(?)"
            params.append(list(statuses))
        sql += " ORDER BY r.created_at, r.id"
        return [_row(row, with_embeddings) for row in self.db.fetchall(sql, params)]

    def rule_at(self, user_id: str, rule_id: str, library_version: int) -> RuleRow | None:
        row = self.db.fetchone(
            f"{_SELECT}{_ENTRIES} WHERE e.user_id = ? AND e.library_version = ? AND e.rule_id = ?",
            (user_id, library_version, rule_id),
        )
        return None if row is None else _row(row, False)

    def history(self, user_id: str, rule_id: str) -> list[RuleRow]:
        rows = self.db.fetchall(
            f"{_SELECT} FROM rule_versions v JOIN rules r ON r.id = v.rule_id"
            " WHERE v.user_id = ? AND r.user_id = ? AND v.rule_id = ? ORDER BY v.version",
            (user_id, user_id, rule_id),
        )
        return [_row(row, False) for row in rows]

    def next_rule_version(self, user_id: str, rule_id: str) -> int:
        row = self.db.fetchone(
            "SELECT MAX(version) AS version FROM rule_versions WHERE user_id = ? AND rule_id = ?", (user_id, rule_id)
        )
        return int(row["version"] or 0) + 1 if row is not None else 1

    # -- writing -------------------------------------------------------------------------------
    def commit(
        self, user_id: str, kind: str, summary: str, rows: Sequence[RuleRow], base_version: int | None = None
    ) -> int:
        """Store new rule revisions and a new library version holding them; returns its number."""
        try:
            return self._commit(user_id, kind, summary, rows, base_version)
        except psycopg.errors.IntegrityError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreError(f"the rule library changed while this change was prepared; try again ({first})") from exc

    def _commit(self, user_id: str, kind: str, summary: str, rows: Sequence[RuleRow], base_version: int | None) -> int:
        stamp = now_text()
        with self.db.transaction() as conn:
            self.db.lock(conn, library_lock(user_id))
            latest = self.latest_version(user_id)
            base = latest if base_version is None else base_version
            new = latest + 1
            conn.execute(
                "INSERT INTO rule_library_versions (user_id, version, base_version, kind, summary, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (user_id, new, base, kind, summary, stamp),
            )
            changed = sorted({row.id for row in rows})
            conn.execute(
                "INSERT INTO rule_library_entries (user_id, library_version, rule_id, rule_version)"
                " SELECT user_id, ?, rule_id, rule_version FROM rule_library_entries"
                " WHERE user_id = ? AND library_version = ? AND NOT (rule_id = ANY(?))",
                (new, user_id, base, changed),
            )
            for row in rows:
                conn.execute(
                    "INSERT INTO rules (id, user_id, scope, project, created_at) VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (id) DO NOTHING",
                    (row.id, user_id, row.scope, row.project, stamp),
                )
                owner = conn.execute("SELECT user_id FROM rules WHERE id = ?", (row.id,)).fetchone()
                if owner is None or owner["user_id"] != user_id:
                    raise StoreError("a rule id belongs to another user")
                conn.execute(
                    "INSERT INTO rule_versions (rule_id, version, user_id, text, condition, exceptions, evidence,"
                    " status, check_spec, op, reason, source_text, supersedes, superseded_by, library_version,"
                    " created_at, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        row.id,
                        row.version,
                        user_id,
                        row.text,
                        row.condition,
                        json.dumps(row.exceptions),
                        json.dumps(row.evidence),
                        row.status,
                        None if row.check_spec is None else json.dumps(row.check_spec),
                        row.op,
                        row.reason,
                        row.source_text,
                        row.supersedes,
                        row.superseded_by,
                        new,
                        stamp,
                        None if row.embedding is None else _blob(row.embedding),
                    ),
                )
                conn.execute(
                    "INSERT INTO rule_library_entries (user_id, library_version, rule_id, rule_version)"
                    " VALUES (?, ?, ?, ?)",
                    (user_id, new, row.id, row.version),
                )
        return new

    def undo(self, user_id: str) -> tuple[int, int] | None:
        """Restore the snapshot before the latest change not yet undone: (undone, new version)."""
        with self.db.transaction() as conn:
            self.db.lock(conn, library_lock(user_id))
            row = conn.execute(
                "SELECT version, base_version FROM rule_library_versions WHERE user_id = ? AND kind != 'undo'"
                " AND undone_by IS NULL ORDER BY version DESC LIMIT 1",
                (user_id,),
            ).fetchone()
            if row is None:
                return None
            target, base = int(row["version"]), int(row["base_version"])
            new = self.latest_version(user_id) + 1
            conn.execute(
                "INSERT INTO rule_library_versions (user_id, version, base_version, kind, summary, created_at)"
                " VALUES (?, ?, ?, 'undo', ?, ?)",
                (user_id, new, base, f"undo of library version {target}", now_text()),
            )
            conn.execute(
                "INSERT INTO rule_library_entries (user_id, library_version, rule_id, rule_version)"
                " SELECT user_id, ?, rule_id, rule_version FROM rule_library_entries"
                " WHERE user_id = ? AND library_version = ?",
                (new, user_id, base),
            )
            conn.execute(
                "UPDATE rule_library_versions SET undone_by = ? WHERE user_id = ? AND version = ?",
                (new, user_id, target),
            )
        return target, new

    # -- turn pins -----------------------------------------------------------------------------
    def pin(self, user_id: str, session_id: str, turn: str) -> int:
        """The library version for this turn: adopted at the first call, kept for the turn."""
        with self.db.transaction() as conn:
            self.db.lock(conn, library_lock(user_id))
            version = self.latest_version(user_id)
            conn.execute(
                "INSERT INTO rule_turn_pins (user_id, session_id, turn, library_version, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, session_id, turn) DO NOTHING",
                (user_id, session_id, turn, version, now_text()),
            )
            pinned = self.pinned(user_id, session_id, turn)
        assert pinned is not None  # written or found in this transaction
        return pinned

    def pinned(self, user_id: str, session_id: str, turn: str) -> int | None:
        row = self.db.fetchone(
            "SELECT library_version FROM rule_turn_pins WHERE user_id = ? AND session_id = ? AND turn = ?",
            (user_id, session_id, turn),
        )
        return None if row is None else int(row["library_version"])
