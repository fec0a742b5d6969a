"""Enforcement state: sessions, turns, tool events, pending writes and the judgment log.

Every query names a user. This module imports nothing heavy (no numpy, no pydantic): the hook
processes load it on their start-up path. It reads the rule library and pins a turn's library
version through the rule repository's own queries, and queues `rules.learn` jobs in the shared
job table.

The hook decides from reads only and hands its writes over afterwards as one batch (`apply`), so
that a writer holding the database lock can delay the record of a decision but never the decision.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from heedful.store.enforce_writes import apply_write
from heedful.store.sqlite.rules import ACTIVE_COLUMNS, SQLiteRuleRepo, library_rows
from heedful.timeutil import now_text

if TYPE_CHECKING:
    from heedful.enforce.ledger import Write
    from heedful.store.enforce_records import ActiveRule, LogEntry, SessionState, ToolEvent, TurnState
    from heedful.store.sqlite.db import Database

ACTIVE = ("checked", "guidance")


def _dict(row: sqlite3.Row | None) -> dict[str, Any] | None:
    return None if row is None else {key: row[key] for key in row.keys()}  # noqa: SIM118


class SQLiteEnforceRepo:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.rules = SQLiteRuleRepo(db)

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    def transaction(self) -> Any:
        """Group several writes into one transaction (the methods below join it)."""
        return self.db.transaction()

    def get_meta(self, key: str) -> str | None:
        return self.db.get_meta(key)

    # -- rule library (read-only) and turn pins: the rule repository's queries -------------------
    def latest_library_version(self, user_id: str) -> int:
        return self.rules.latest_version(user_id)

    def active_rules(self, user_id: str, library_version: int, project: str | None) -> list[ActiveRule]:
        """Checked and guidance rules of one library version: global ones and those of `project`."""
        rows = library_rows(self.conn, user_id, library_version, project, ACTIVE, columns=ACTIVE_COLUMNS)
        return [
            {
                "id": row["id"],
                "scope": row["scope"],
                "project": row["project"],
                "version": int(row["version"]),
                "text": row["text"],
                "condition": row["condition"],
                "exceptions": json.loads(row["exceptions"] or "[]"),
                "status": row["status"],
                "check": json.loads(row["check_spec"]) if row["check_spec"] else None,
            }
            for row in rows
        ]

    def pin(self, user_id: str, session_id: str, turn_id: str) -> int:
        """The library version for this turn: adopted at the first call, kept for the turn."""
        return self.rules.pin(user_id, session_id, turn_id)

    def pinned(self, user_id: str, session_id: str, turn_id: str) -> int | None:
        """The version a turn was pinned to, or None (a read: no lock)."""
        return self.rules.pinned(user_id, session_id, turn_id)

    def pin_version(self, user_id: str, session_id: str, turn_id: str, version: int, at: str | None = None) -> None:
        self.rules.pin_version(user_id, session_id, turn_id, version, at)

    def enqueue_job(self, user_id: str, kind: str, payload: dict[str, Any], max_attempts: int = 3) -> str:
        from heedful.store.sqlite.jobs import SQLiteJobQueue

        return SQLiteJobQueue(self.db).enqueue(user_id, kind, payload, max_attempts)

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
            existing = self.turn(user_id, session_id, turn_id)
            if existing is None:
                row = conn.execute(
                    "SELECT turn_count FROM enforce_sessions WHERE user_id = ? AND session_id = ?",
                    (user_id, session_id),
                ).fetchone()
                seq = int(row[0]) + 1 if row is not None else 1
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
        return int(row[0])

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
        self, user_id: str, session_id: str, turn_id: str, events: Iterable[ToolEvent], at: str | None = None
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
        out = []
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
        value = json.loads(row[0])
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
        value = json.loads(row[0])
        return value if isinstance(value, dict) else {}

    # -- judgment log --------------------------------------------------------------------------
    def log(
        self, user_id: str, session_id: str, turn_id: str, entries: Iterable[LogEntry], at: str | None = None
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
        return {row[0] for row in rows}

    def appeals(self, user_id: str, session_id: str, turn_id: str, rule_id: str) -> int:
        row = self.conn.execute(
            "SELECT COUNT(*) FROM enforce_log WHERE user_id = ? AND session_id = ? AND turn_id = ? AND rule_id = ?"
            " AND action LIKE 'appeal_%' AND action != 'appeal_refused'",
            (user_id, session_id, turn_id, rule_id),
        ).fetchone()
        return int(row[0])

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
