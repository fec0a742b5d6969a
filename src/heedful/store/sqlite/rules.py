"""Rules, their revisions, immutable library versions and per-turn pins. Every query names a user.

A change is committed as one new library version: a copy of the previous version's entries
with the changed rules pointing at their new revisions. Nothing is rewritten; undo is a new
version that restores an older snapshot.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from heedful.errors import StoreError
from heedful.timeutil import now_text

if TYPE_CHECKING:
    from heedful.store.records import LibraryVersionRow, RuleRow
    from heedful.store.sqlite.db import Database


def _vector(blob: bytes) -> Any:
    import numpy as np  # only when embeddings are read: the hook path never loads numpy

    return np.frombuffer(blob, dtype=np.float32)


def _blob(vector: Any) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype=np.float32).tobytes()


_COLUMNS = (
    "r.id, r.user_id, r.scope, r.project, r.created_at AS rule_created_at, v.version, v.text, v.condition,"
    " v.exceptions, v.evidence, v.status, v.check_spec, v.op, v.reason, v.source_text, v.supersedes,"
    " v.superseded_by, v.library_version, v.created_at, v.embedding"
)
_SELECT = f"SELECT {_COLUMNS}"
_IN_LIBRARY = (
    " FROM rule_library_entries e JOIN rules r ON r.id = e.rule_id AND r.user_id = e.user_id"
    " JOIN rule_versions v ON v.rule_id = e.rule_id AND v.version = e.rule_version AND v.user_id = e.user_id"
    " WHERE e.user_id = ? AND e.library_version = ?"
)
# What a hook reads of a rule: no evidence, provenance or embedding.
ACTIVE_COLUMNS = "r.id, r.scope, r.project, v.version, v.text, v.condition, v.exceptions, v.status, v.check_spec"


def library_rows(
    conn: sqlite3.Connection,
    user_id: str,
    library_version: int,
    project: str | None = None,
    statuses: Sequence[str] | None = None,
    any_project: bool = False,
    columns: str = _COLUMNS,
) -> list[sqlite3.Row]:
    """Rules in one library version: global ones and those of `project` (or of every project), oldest first.

    The one query of a library's rules; the rule repository and the hook's enforcement reads share it.
    """
    sql = f"SELECT {columns}{_IN_LIBRARY}"
    params: list[object] = [user_id, library_version]
    if not any_project:
        sql += " AND (r.scope = 'global' OR (r.scope = 'project' AND r.project = ?))"
        params.append(project)
    if statuses is not None:
        sql += f" AND v.status IN ({','.join('?' * len(statuses))})"
        params.extend(statuses)
    return conn.execute(sql + " ORDER BY r.created_at, r.id", params).fetchall()


def _row(row: sqlite3.Row, with_embedding: bool) -> RuleRow:
    from heedful.store.records import RuleRow  # here, not at import: the hook reads rules without `dataclasses`

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
        embedding=_vector(blob) if with_embedding and blob is not None else None,
    )


class SQLiteRuleRepo:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- library versions ----------------------------------------------------------------------
    def latest_version(self, user_id: str) -> int:
        row = self.db.conn.execute(
            "SELECT MAX(version) FROM rule_library_versions WHERE user_id = ?", (user_id,)
        ).fetchone()
        return int(row[0] or 0)

    def library_versions(self, user_id: str) -> list[LibraryVersionRow]:
        rows = self.db.conn.execute(
            "SELECT version, base_version, kind, summary, created_at, undone_by FROM rule_library_versions"
            " WHERE user_id = ? ORDER BY version",
            (user_id,),
        ).fetchall()
        from heedful.store.records import LibraryVersionRow

        return [LibraryVersionRow(*tuple(row)) for row in rows]

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
        rows = library_rows(self.db.conn, user_id, library_version, project, statuses, any_project)
        return [_row(row, with_embeddings) for row in rows]

    def rule_at(self, user_id: str, rule_id: str, library_version: int) -> RuleRow | None:
        row = self.db.conn.execute(
            f"{_SELECT}{_IN_LIBRARY} AND e.rule_id = ?", (user_id, library_version, rule_id)
        ).fetchone()
        return None if row is None else _row(row, False)

    def history(self, user_id: str, rule_id: str) -> list[RuleRow]:
        rows = self.db.conn.execute(
            f"{_SELECT} FROM rule_versions v JOIN rules r ON r.id = v.rule_id"
            " WHERE v.user_id = ? AND r.user_id = ? AND v.rule_id = ? ORDER BY v.version",
            (user_id, user_id, rule_id),
        ).fetchall()
        return [_row(row, False) for row in rows]

    def next_rule_version(self, user_id: str, rule_id: str) -> int:
        row = self.db.conn.execute(
            "SELECT MAX(version) FROM rule_versions WHERE user_id = ? AND rule_id = ?", (user_id, rule_id)
        ).fetchone()
        return int(row[0] or 0) + 1

    # -- writing -------------------------------------------------------------------------------
    def commit(
        self, user_id: str, kind: str, summary: str, rows: Sequence[RuleRow], base_version: int | None = None
    ) -> int:
        """Store new rule revisions and a new library version holding them; returns its number."""
        try:
            return self._commit(user_id, kind, summary, rows, base_version)
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"the rule library changed while this change was prepared; try again ({exc})") from exc

    def _commit(self, user_id: str, kind: str, summary: str, rows: Sequence[RuleRow], base_version: int | None) -> int:
        stamp = now_text()
        with self.db.transaction() as conn:
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
                f" WHERE user_id = ? AND library_version = ? AND rule_id NOT IN ({','.join('?' * len(changed))})",
                (new, user_id, base, *changed),
            )
            for row in rows:
                conn.execute(
                    "INSERT OR IGNORE INTO rules (id, user_id, scope, project, created_at) VALUES (?, ?, ?, ?, ?)",
                    (row.id, user_id, row.scope, row.project, stamp),
                )
                owner = conn.execute("SELECT user_id FROM rules WHERE id = ?", (row.id,)).fetchone()
                if owner is None or owner[0] != user_id:
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
            row = conn.execute(
                "SELECT version, base_version FROM rule_library_versions WHERE user_id = ? AND kind != 'undo'"
                " AND undone_by IS NULL ORDER BY version DESC LIMIT 1",
                (user_id,),
            ).fetchone()
            if row is None:
                return None
            target, base = int(row[0]), int(row[1])
            latest = self.latest_version(user_id)
            new = latest + 1
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
            row = conn.execute(
                "SELECT library_version FROM rule_turn_pins WHERE user_id = ? AND session_id = ? AND turn = ?",
                (user_id, session_id, turn),
            ).fetchone()
            if row is not None:
                return int(row[0])
            version = self.latest_version(user_id)
            conn.execute(
                "INSERT INTO rule_turn_pins (user_id, session_id, turn, library_version, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (user_id, session_id, turn, version, now_text()),
            )
        return version

    def pinned(self, user_id: str, session_id: str, turn: str) -> int | None:
        row = self.db.conn.execute(
            "SELECT library_version FROM rule_turn_pins WHERE user_id = ? AND session_id = ? AND turn = ?",
            (user_id, session_id, turn),
        ).fetchone()
        return None if row is None else int(row[0])

    def pin_version(self, user_id: str, session_id: str, turn: str, version: int, at: str | None = None) -> None:
        """Pin a turn to `version` unless it is pinned already (the first pin wins, as in `pin`)."""
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO rule_turn_pins (user_id, session_id, turn, library_version, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(user_id, session_id, turn) DO NOTHING",
                (user_id, session_id, turn, version, at or now_text()),
            )
