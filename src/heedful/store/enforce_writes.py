"""Applying one deferred hook write (`heedful.enforce.ledger.Write`) to an enforcement store.

Both backends replay a hook's writes the same way, in one transaction they open: each write maps
to one of the store's own methods (which join that transaction), or to one statement on the
transaction's connection (written with `?` placeholders, which the PostgreSQL layer converts).
Standard library only: the hook path imports it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from heedful.enforce.ledger import Write


class Connection(Protocol):
    def execute(self, sql: str, parameters: Sequence[Any], /) -> Any: ...


class WritableEnforceStore(Protocol):
    """The writing methods a backend's enforcement store offers, each keeping the time it is given."""

    def ensure_session(
        self, user_id: str, session_id: str, platform: str, project: str | None, at: str | None = None
    ) -> Any: ...
    def pin_version(self, user_id: str, session_id: str, turn_id: str, version: int, at: str | None = None) -> None: ...
    def start_turn(
        self,
        user_id: str,
        session_id: str,
        turn_id: str,
        library_version: int,
        prompt: str | None,
        selected: Sequence[str],
        at: str | None = None,
    ) -> Any: ...
    def save_reply(self, user_id: str, session_id: str, text: str, at: str | None = None) -> None: ...
    def record_events(
        self, user_id: str, session_id: str, turn_id: str, events: Any, at: str | None = None
    ) -> None: ...
    def set_pending(
        self, user_id: str, session_id: str, tool_use_id: str, existed: dict[str, bool], at: str | None = None
    ) -> None: ...
    def drop_pending(self, user_id: str, session_id: str, tool_use_id: str) -> None: ...
    def log(self, user_id: str, session_id: str, turn_id: str, entries: Any, at: str | None = None) -> None: ...


def apply_write(store: WritableEnforceStore, conn: Connection, write: Write) -> None:
    """Apply one write inside the caller's transaction (`conn` is that transaction's connection)."""
    user, session, at, data = write.user, write.session, write.at, write.data
    if write.op == "session":
        store.ensure_session(user, session, str(data["platform"]), data.get("project"), at=at)
    elif write.op == "pin":
        store.pin_version(user, session, str(data["turn"]), int(data["version"]), at=at)
    elif write.op == "turn":
        turn = str(data["turn"])
        store.start_turn(
            user, session, turn, int(data["version"]), data.get("prompt"), list(data.get("selected") or []), at=at
        )
    elif write.op == "claim":
        conn.execute(
            "UPDATE enforce_turns SET revisions = revisions + 1 WHERE user_id = ? AND session_id = ?"
            " AND turn_id = ? AND revisions < ?",
            (user, session, str(data["turn"]), int(data["budget"])),
        )
    elif write.op == "reply":
        store.save_reply(user, session, str(data["text"]), at=at)
    elif write.op == "events":
        store.record_events(user, session, str(data["turn"]), list(data["events"]), at=at)
    elif write.op == "pending":
        store.set_pending(user, session, str(data["tool_use_id"]), dict(data["existed"]), at=at)
    elif write.op == "unpend":
        store.drop_pending(user, session, str(data["tool_use_id"]))
    elif write.op == "log":
        store.log(user, session, str(data["turn"]), list(data["entries"]), at=at)
    elif write.op == "job":  # the id was given at decision time: applying the same write twice adds one job
        payload, attempts = json.dumps(data["payload"]), int(data.get("attempts", 3))
        conn.execute(
            "INSERT INTO jobs (id, user_id, kind, payload, state, max_attempts, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT(id) DO NOTHING",
            (str(data["id"]), user, str(data["kind"]), payload, attempts, at, at),
        )
    else:
        raise ValueError(f"unknown enforcement write {write.op!r}")
