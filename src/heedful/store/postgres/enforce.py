"""Enforcement state on PostgreSQL: sessions, turns, tool events, pending writes and the judgment log.

The same behaviour as `heedful.store.sqlite.enforce`, statement for statement. Every query names a
user. Where SQLite's single writer made a read-then-write safe (pinning a turn, numbering turns),
an advisory lock on the user's library or on the session does it here. It also reads the rule
library (read-only), pins a turn's library version in `rule_turn_pins` with the same semantics as
the rule repository, and queues `rules.learn` jobs in the shared job table.

The hook decides from reads only and hands its writes over afterwards as one batch (`apply`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from heedful.store.enforce_writes import apply_write
from heedful.store.postgres.db import AutoConnection, Database, Row
from heedful.store.postgres.rules import library_lock
from heedful.timeutil import now_text

if TYPE_CHECKING:
    from heedful.enforce.ledger import Write
    from heedful.store.records import ActiveRule, LogEntry, SessionState, ToolEvent, TurnState

ACTIVE = ("checked", "guidance")


def _dict(row: Row | None) -> dict[str, Any] | None:
    return None if row is None else dict(row)


def session_lock(user_id: str, session_id: str) -> str:
    return f"session:{user_id}:{session_id}"


class PostgresEnforceRepo:
    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def conn(self) -> AutoConnection:
        return self.db.conn

    def transaction(self) -> Any:
        """Group several writes into one transaction (the methods below join it)."""
        return self.db.transaction()

    def get_meta(self, key: str) -> str | None:
        return self.db.get_meta(key)

    # -- rule library (read-only) and turn pins ------------------------------------------------
    def latest_library_version(self, user_id: str) -> int:
        row = self.conn.execute(
            "SELECT MAX(version) AS version FROM rule_library_versions WHERE user_id = ?", (user_id,)
        ).fetchone()
        return int(row["version"] or 0) if row is not None else 0

    def active_rules(self, user_id: str, library_version: int, project: str | None) -> list[ActiveRule]:
        """Checked and guidance rules of one library version: global ones and those of `project`."""
        rows = self.conn.execute(
            "SELECT r.id, r.scope, r.project, v.version, v.text, v.condition, v.exceptions, v.status, v.check_spec"
            " FROM rule_library_entries e JOIN rules r ON r.id = e.rule_id AND r.user_id = e.user_id"
            " JOIN rule_versions v ON v.rule_id = e.rule_id AND v.version = e.rule_version"
            " WHERE e.user_id = ? AND e.library_version = ? AND v.user_id = ?"
            " AND (r.scope = 'global' OR (r.scope = 'project' AND r.project = ?))"
            f" AND v.status IN ({','.join('?' * len(ACTIVE))}) ORDER BY r.created_at, r.id",
            (user_id, library_version, user_id, project, *ACTIVE),
        ).fetchall()
        out = []
        for row in rows:
            item = _dict(row) or {}
            item["exceptions"] = json.loads(item["exceptions"] or "[]")
            item["check"] = json.loads(item.pop("check_spec")) if row["check_spec"] else None
            out.append(cast("ActiveRule", item))
        return out

    def pin(self, user_id: str, session_id: str, turn_id: str) -> int:
        """The library version for this turn: adopted at the first call, kept for the turn."""
        with self.db.transaction() as conn:
            self.db.lock(conn, library_lock(user_id))
            row = conn.execute(
                "SELECT library_version FROM rule_turn_pins WHERE user_id = ? AND session_id = ? AND turn = ?",
                (user_id, session_id, turn_id),
            ).fetchone()
            if row is not None:
                return int(row["library_version"])
            version = self.latest_library_version(user_id)
            conn.execute(
                "INSERT INTO rule_turn_pins (user_id, session_id, turn, library_version, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (user_id, session_id, turn_id, version, now_text()),
            )
        return version

    def pinned(self, user_id: str, session_id: str, turn_id: str) -> int | None:
        """The version a turn was pinned to, or None (a read: no lock)."""
        row = self.conn.execute(
            "SELECT library_version FROM rule_turn_pins WHERE user_id = ? AND session_id = ? AND turn = ?",
            (user_id, session_id, turn_id),
        ).fetchone()
        return None if row is None else int(row["library_version"])

    def pin_version(self, user_id: str, session_id: str, turn_id: str, version: int, at: str | None = None) -> None:
        """Pin a turn to `version` unless it is pinned already (the first pin wins, as in `pin`)."""
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO rule_turn_pins (user_id, session_id, turn, library_version, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(user_id, session_id, turn) DO NOTHING",
                (user_id, session_id, turn_id, version, at or now_text()),
            )

    def enqueue_job(self, user_id: str, kind: str, payload: dict[str, Any], max_attempts: int = 3) -> str:
        from heedful.store.postgres.jobs import PostgresJobQueue

        return PostgresJobQueue(self.db).enqueue(user_id, kind, payload, max_attempts)

    # -- sessions and turns --------------------------------------------------------------------
    def session(self, user_id: str, session_id: str) -> SessionState | None:
        row = self.conn.execute(
            "SELECT session_id, platform, project, current_turn, turn_count, last_prompt, last_reply"
            " FROM enforce_sessions WHERE user_id = ? AND session_id = ?",
            (user_id, session_id),
        ).fetchone()
        if row is None:
            return None
        return {
            "session_id": row["session_id"],
            "platform": row["platform"],
            "project": row["project"],
            "current_turn": row["current_turn"],
            "turn_count": int(row["turn_count"] or 0),
            "last_prompt": row["last_prompt"],
            "last_reply": row["last_reply"],
        }

    def ensure_session(
        self, user_id: str, session_id: str, platform: str, project: str | None, at: str | None = None
    ) -> SessionState:
        stamp = at or now_text()
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO enforce_sessions (user_id, session_id, platform, project, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(user_id, session_id) DO UPDATE SET"
                " project = COALESCE(excluded.project, enforce_sessions.project), updated_at = excluded.updated_at",
                (user_id, session_id, platform, project, stamp, stamp),
            )
        found = self.session(user_id, session_id)
        assert found is not None
        return found

    def start_turn(
        self,
        user_id: str,
        session_id: str,
        turn_id: str,
        library_version: int,
        prompt: str | None,
        selected: Sequence[str],
        at: str | None = None,
    ) -> TurnState:
        """Open a turn (idempotent for the same turn id) and make it the session's current turn."""
        stamp = at or now_text()
        with self.db.transaction() as conn:
            self.db.lock(conn, session_lock(user_id, session_id))
            existing = self.turn(user_id, session_id, turn_id)
            if existing is None:
                row = conn.execute(
                    "SELECT turn_count FROM enforce_sessions WHERE user_id = ? AND session_id = ?",
                    (user_id, session_id),
                ).fetchone()
                seq = int(row["turn_count"]) + 1 if row is not None else 1
                conn.execute(
                    "INSERT INTO enforce_turns (user_id, session_id, turn_id, seq, library_version, prompt,"
                    " selected, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (user_id, session_id, turn_id, seq, library_version, prompt, json.dumps(list(selected)), stamp),
                )
                conn.execute(
                    "UPDATE enforce_sessions SET current_turn = ?, turn_count = ?,"
                    " last_prompt = COALESCE(?, last_prompt), updated_at = ? WHERE user_id = ? AND session_id = ?",
                    (turn_id, seq, prompt, stamp, user_id, session_id),
                )
        found = self.turn(user_id, session_id, turn_id)
        assert found is not None
        return found

    def turn(self, user_id: str, session_id: str, turn_id: str) -> TurnState | None:
        row = self.conn.execute(
            "SELECT turn_id, library_version, prompt, selected, revisions FROM enforce_turns"
            " WHERE user_id = ? AND session_id = ? AND turn_id = ?",
            (user_id, session_id, turn_id),
        ).fetchone()
        if row is None:
            return None
        return {
            "turn_id": row["turn_id"],
            "library_version": int(row["library_version"]),
            "prompt": row["prompt"],
            "selected": json.loads(row["selected"] or "[]"),
            "revisions": int(row["revisions"] or 0),
        }

    def claim_revision(self, user_id: str, session_id: str, turn_id: str, budget: int) -> int | None:
        """Use one revision request of the turn's budget: the new count, or None when it is spent."""
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE enforce_turns SET revisions = revisions + 1 WHERE user_id = ? AND session_id = ?"
                " AND turn_id = ? AND revisions < ?",
                (user_id, session_id, turn_id, budget),
            )
            if cursor.rowcount != 1:
                return None
            row = conn.execute(
                "SELECT revisions FROM enforce_turns WHERE user_id = ? AND session_id = ? AND turn_id = ?",
                (user_id, session_id, turn_id),
            ).fetchone()
        assert row is not None  # updated in this transaction
        return int(row["revisions"])

    def save_reply(self, user_id: str, session_id: str, text: str, at: str | None = None) -> None:
        stamp = at or now_text()
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE enforce_sessions SET last_reply = ?, last_reply_at = ?, updated_at = ?"
                " WHERE user_id = ? AND session_id = ?",
                (text, stamp, stamp, user_id, session_id),
            )

    # -- events --------------------------------------------------------------------------------
    def record_events(
        self, user_id: str, session_id: str, turn_id: str, events: Iterable[dict[str, Any]], at: str | None = None
    ) -> None:
        stamp = at or now_text()
        with self.db.transaction() as conn:
            for event in events:
                conn.execute(
                    "INSERT INTO enforce_events (user_id, session_id, turn_id, kind, tool, command, path, created,"
                    " ok, tool_use_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        user_id,
                        session_id,
                        turn_id,
                        str(event.get("kind", "tool")),
                        str(event.get("tool", "")),
                        event.get("command"),
                        event.get("path"),
                        int(bool(event.get("created"))),
                        int(event.get("ok", True) is not False),
                        event.get("tool_use_id"),
                        stamp,
                    ),
                )

    def events(self, user_id: str, session_id: str, turn_id: str | None = None) -> list[ToolEvent]:
        sql = "SELECT * FROM enforce_events WHERE user_id = ? AND session_id = ?"
        params: list[Any] = [user_id, session_id]
        if turn_id is not None:
            sql += " AND turn_id = ?"
            params.append(turn_id)
        rows = self.conn.execute(sql + " ORDER BY id", params).fetchall()
        out: list[ToolEvent] = []
        for row in rows:
            event: ToolEvent = {"kind": row["kind"], "tool": row["tool"]}
            for key in ("command", "path"):
                if row[key] is not None:
                    event[key] = row[key]
            if row["created"]:
                event["created"] = True
            if not row["ok"]:
                event["ok"] = False
            out.append(event)
        return out

    def set_pending(
        self, user_id: str, session_id: str, tool_use_id: str, existed: dict[str, bool], at: str | None = None
    ) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO enforce_pending (user_id, session_id, tool_use_id, existed, at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(user_id, session_id, tool_use_id) DO UPDATE SET existed = excluded.existed",
                (user_id, session_id, tool_use_id, json.dumps(existed), at or now_text()),
            )

    def pending(self, user_id: str, session_id: str, tool_use_id: str) -> dict[str, bool] | None:
        """What `set_pending` stored for a tool call (a read; `pop_pending` also deletes it)."""
        row = self.conn.execute(
            "SELECT existed FROM enforce_pending WHERE user_id = ? AND session_id = ? AND tool_use_id = ?",
            (user_id, session_id, tool_use_id),
        ).fetchone()
        if row is None:
            return None
        value = json.loads(row["existed"])
        return value if isinstance(value, dict) else {}

    def drop_pending(self, user_id: str, session_id: str, tool_use_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "DELETE FROM enforce_pending WHERE user_id = ? AND session_id = ? AND tool_use_id = ?",
                (user_id, session_id, tool_use_id),
            )

    def pop_pending(self, user_id: str, session_id: str, tool_use_id: str) -> dict[str, bool] | None:
        with self.db.transaction() as conn:
            row = conn.execute(
                "SELECT existed FROM enforce_pending WHERE user_id = ? AND session_id = ? AND tool_use_id = ?",
                (user_id, session_id, tool_use_id),
            ).fetchone()
            if row is None:
                return None
            conn.execute(
                "DELETE FROM enforce_pending WHERE user_id = ? AND session_id = ? AND tool_use_id = ?",
                (user_id, session_id, tool_use_id),
            )
        value = json.loads(row["existed"])
        return value if isinstance(value, dict) else {}

    # -- judgment log --------------------------------------------------------------------------
    def log(
        self, user_id: str, session_id: str, turn_id: str, entries: Iterable[dict[str, Any]], at: str | None = None
    ) -> None:
        stamp = at or now_text()
        with self.db.transaction() as conn:
            for entry in entries:
                conn.execute(
                    "INSERT INTO enforce_log (user_id, session_id, turn_id, stage, candidate, rule_id, rule_text,"
                    " kind, result, action, reason, quotes, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                    " ?)",
                    (
                        user_id,
                        session_id,
                        turn_id,
                        entry["stage"],
                        entry.get("candidate", ""),
                        entry.get("rule_id"),
                        entry.get("rule_text"),
                        entry.get("kind"),
                        entry.get("result"),
                        entry["action"],
                        entry.get("reason", ""),
                        json.dumps(entry.get("quotes", [])),
                        entry.get("detail", ""),
                        stamp,
                    ),
                )

    def turn_log(self, user_id: str, session_id: str, turn_id: str) -> list[LogEntry]:
        """The turn's judgment log in order: stage, candidate, rule_id, action, result, detail (what settling reads)."""
        rows = self.conn.execute(
            "SELECT stage, candidate, rule_id, action, result, detail FROM enforce_log WHERE user_id = ?"
            " AND session_id = ? AND turn_id = ? ORDER BY id",
            (user_id, session_id, turn_id),
        ).fetchall()
        return [
            {
                "stage": row["stage"],
                "candidate": row["candidate"],
                "rule_id": row["rule_id"],
                "action": row["action"],
                "result": row["result"],
                "detail": row["detail"],
            }
            for row in rows
        ]

    def standing(self, user_id: str, session_id: str, turn_id: str, stage: str, candidate: str) -> dict[str, str]:
        """rule id -> the latest standing outcome on this candidate: violated, cleared or overturned."""
        rows = self.conn.execute(
            "SELECT rule_id, action, result FROM enforce_log WHERE user_id = ? AND session_id = ? AND turn_id = ?"
            " AND stage = ? AND candidate = ? AND rule_id IS NOT NULL ORDER BY id",
            (user_id, session_id, turn_id, stage, candidate),
        ).fetchall()
        out: dict[str, str] = {}
        for row in rows:
            if row["action"] == "appeal_overturned":
                out[row["rule_id"]] = "overturned"
            elif row["action"] == "cleared":
                out[row["rule_id"]] = "cleared"
            elif row["result"] == "violated":
                out[row["rule_id"]] = "violated"
        return out

    def noted_unknown(self, user_id: str, session_id: str, turn_id: str) -> set[str]:
        """Rules already reported as unknown in this turn (reminded and logged once per turn)."""
        rows = self.conn.execute(
            "SELECT DISTINCT rule_id FROM enforce_log WHERE user_id = ? AND session_id = ? AND turn_id = ?"
            " AND action = 'unknown'",
            (user_id, session_id, turn_id),
        ).fetchall()
        return {row["rule_id"] for row in rows}

    def appeals(self, user_id: str, session_id: str, turn_id: str, rule_id: str) -> int:
        row = self.conn.execute(
            "SELECT COUNT(*) AS n FROM enforce_log WHERE user_id = ? AND session_id = ? AND turn_id = ?"
            " AND rule_id = ?"
            " AND action LIKE 'appeal_%' AND action != 'appeal_refused'",
            (user_id, session_id, turn_id, rule_id),
        ).fetchone()
        return int(row["n"]) if row is not None else 0

    # -- deferred writes -----------------------------------------------------------------------
    def apply(self, writes: Sequence[Write]) -> None:
        """Apply a hook's writes in order, in one transaction (each keeps the time it was decided at)."""
        if not writes:
            return
        with self.db.transaction() as conn:
            for write in writes:
                apply_write(self, conn, write)

    def entries(self, user_id: str, session_id: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        sql = "SELECT * FROM enforce_log WHERE user_id = ?"
        params: list[Any] = [user_id]
        if session_id is not None:
            sql += " AND session_id = ?"
            params.append(session_id)
        rows = self.conn.execute(sql + " ORDER BY id DESC LIMIT ?", [*params, limit]).fetchall()
        out = []
        for row in reversed(rows):
            item = _dict(row) or {}
            item["quotes"] = json.loads(item["quotes"] or "[]")
            out.append(item)
        return out

    def sessions(self, user_id: str, limit: int = 50) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT s.session_id, s.platform, s.project, s.turn_count, s.created_at, s.updated_at,"
            " (SELECT COUNT(*) FROM enforce_log l WHERE l.user_id = s.user_id AND l.session_id = s.session_id"
            "  AND l.action IN ('deny', 'feedback', 'revise')) AS interventions,"
            " (SELECT COUNT(*) FROM enforce_log l WHERE l.user_id = s.user_id AND l.session_id = s.session_id"
            "  AND l.action = 'unresolved') AS unresolved"
            " FROM enforce_sessions s WHERE s.user_id = ? ORDER BY s.updated_at DESC LIMIT ?",
            (user_id, limit),
        ).fetchall()
        return [_dict(row) or {} for row in rows]
