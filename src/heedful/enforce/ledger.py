"""Writes the engine decided on but has not stored yet, and the session as they will leave it (pure).

The hook answers from reads only. What it would have written (a pinned turn, a judgment, a used
repair, a tool event) becomes a `Write`, applied after the answer is printed; when the database
is locked, the writes wait in a spool file (`heedful.enforce.spool`) until a later event or the
worker folds them in. `SessionView` reads one session through those waiting writes, so that the
next event of the session sees its own turn, its events and its spent budget before they land:

    view = SessionView(repo, "me", "s1", spooled, this_event)
    view.turn("t1")["revisions"]          # stored revisions + claims still waiting
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, get_args

if TYPE_CHECKING:
    from heedful.store.enforce_records import LogEntry, SessionState, Standing, ToolEvent, TurnState
    from heedful.store.protocols import EnforceStore

WriteOp = Literal["session", "pin", "turn", "claim", "reply", "events", "pending", "unpend", "log", "job"]
OPS: frozenset[str] = frozenset(get_args(WriteOp))


class Write(NamedTuple):
    """One deferred write: `op` names what it does (see `SQLiteEnforceRepo.apply`), `at` when it was decided.

    A NamedTuple rather than a dataclass: the hook's start-up path stays off `dataclasses`/`inspect`.
    """

    op: WriteOp
    user: str
    session: str
    at: str
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self._asdict()

    @classmethod
    def from_json(cls, value: Any) -> Write | None:
        """A write read back from a spool file; None for anything malformed."""
        if not isinstance(value, dict) or value.get("op") not in OPS:
            return None
        user, session, at = (value.get(key) for key in ("user", "session", "at"))
        if not (isinstance(user, str) and isinstance(session, str) and isinstance(at, str)):
            return None
        if not isinstance(value.get("data"), dict):
            return None
        return cls(op=value["op"], user=user, session=session, at=at, data=value["data"])


class SessionView:
    """One session read from the database plus the writes still waiting (oldest first), never writing.

    `spooled` are earlier events' writes left in the spool; `fresh` is the list this event appends to.
    """

    def __init__(
        self, repo: EnforceStore, user: str, session_id: str, spooled: Sequence[Write], fresh: Sequence[Write] = ()
    ) -> None:
        self.repo = repo
        self.user = user
        self.session_id = session_id
        self.spooled = spooled
        self.fresh = fresh

    @property
    def waiting(self) -> list[Write]:
        return [*self.spooled, *self.fresh]  # `fresh` grows while the event runs: read it afresh

    def _mine(self, op: str) -> list[Write]:
        return [w for w in self.waiting if w.op == op and w.user == self.user and w.session == self.session_id]

    def session(self) -> SessionState | None:
        found = self.repo.session(self.user, self.session_id)
        state = found.copy() if found is not None else None
        for write in self.waiting:
            if write.user != self.user or write.session != self.session_id:
                continue
            if write.op == "session":
                if state is None:
                    state = {
                        "session_id": self.session_id,
                        "platform": write.data.get("platform"),
                        "project": write.data.get("project"),
                        "current_turn": None,
                        "turn_count": 0,
                        "last_prompt": None,
                        "last_reply": None,
                    }
                elif write.data.get("project") and not state["project"]:
                    state["project"] = write.data["project"]
            elif write.op == "turn" and state is not None and self._is_new_turn(write):
                state["current_turn"] = write.data["turn"]
                state["turn_count"] = int(state["turn_count"] or 0) + 1
                if write.data.get("prompt") is not None:
                    state["last_prompt"] = write.data["prompt"]
            elif write.op == "reply" and state is not None:
                state["last_reply"] = write.data.get("text")
        return state

    def _is_new_turn(self, write: Write) -> bool:
        """Whether this `turn` write opens its turn (start_turn is idempotent: only the first one counts)."""
        turn_id = write.data.get("turn")
        first = next(w for w in self._mine("turn") if w.data.get("turn") == turn_id)
        return first is write and self.repo.turn(self.user, self.session_id, str(turn_id)) is None

    def turn(self, turn_id: str) -> TurnState | None:
        found = self.repo.turn(self.user, self.session_id, turn_id)
        if found is None:
            opened = next((w for w in self._mine("turn") if w.data.get("turn") == turn_id), None)
            if opened is None:
                return None
            found = {
                "turn_id": turn_id,
                "library_version": int(opened.data["version"]),
                "prompt": opened.data.get("prompt"),
                "selected": list(opened.data.get("selected") or []),
                "revisions": 0,
            }
        claims = [w for w in self._mine("claim") if w.data.get("turn") == turn_id]
        if claims:  # the stored UPDATE stops at the budget; so does the view
            budget = max(int(claim.data.get("budget", 0)) for claim in claims)
            stored = int(found["revisions"] or 0)
            found["revisions"] = max(stored, min(stored + len(claims), budget))
        return found

    def pinned(self, turn_id: str) -> int | None:
        stored = self.repo.pinned(self.user, self.session_id, turn_id)
        if stored is not None:
            return int(stored)
        pin = next((w for w in self._mine("pin") if w.data.get("turn") == turn_id), None)
        return None if pin is None else int(pin.data["version"])

    def events(self, turn_id: str) -> list[ToolEvent]:
        found = list(self.repo.events(self.user, self.session_id, turn_id))
        for write in self._mine("events"):
            if write.data.get("turn") == turn_id:
                found += [_stored_event(event) for event in write.data.get("events") or []]
        return found

    def pending(self, tool_use_id: str) -> dict[str, bool] | None:
        state = self.repo.pending(self.user, self.session_id, tool_use_id)
        for write in self.waiting:
            if write.user != self.user or write.session != self.session_id:
                continue
            if write.data.get("tool_use_id") != tool_use_id:
                continue
            if write.op == "pending":
                state = dict(write.data.get("existed") or {})
            elif write.op == "unpend":
                state = None
        return state

    def _log(self, turn_id: str) -> list[LogEntry]:
        rows = list(self.repo.turn_log(self.user, self.session_id, turn_id))
        for write in self._mine("log"):
            if write.data.get("turn") == turn_id:
                rows += list(write.data.get("entries") or [])
        return rows

    def standing(self, turn_id: str, stage: str, candidate: str) -> dict[str, Standing]:
        """rule id -> the latest standing outcome on this candidate: violated, cleared or overturned."""
        out: dict[str, Standing] = {}
        for row in self._log(turn_id):
            rule_id = row.get("rule_id")
            if not rule_id or row.get("stage") != stage or row.get("candidate", "") != candidate:
                continue
            if row.get("action") == "appeal_overturned":
                out[rule_id] = "overturned"
            elif row.get("action") == "cleared":
                out[rule_id] = "cleared"
            elif row.get("result") == "violated":
                out[rule_id] = "violated"
        return out

    def noted_unknown(self, turn_id: str) -> set[str]:
        """Rules already reported as unknown in this turn (reminded and logged once per turn)."""
        return {
            str(row["rule_id"]) for row in self._log(turn_id) if row.get("action") == "unknown" and row.get("rule_id")
        }

    def filed_appeals(self, turn_id: str) -> list[tuple[str, str]]:
        """(rule id, evidence) of appeals filed with a tool call this turn and not decided since."""
        filed: dict[str, str] = {}
        for row in self._log(turn_id):
            rule_id = row.get("rule_id")
            if not isinstance(rule_id, str):
                continue
            if row.get("action") == "filed_appeal":
                filed[rule_id] = str(row.get("detail") or "(filed with heedful-appeal)")
            elif str(row.get("action", "")).startswith("appeal_"):
                filed.pop(rule_id, None)
        return list(filed.items())

    def appeals(self, turn_id: str, rule_id: str) -> int:
        return sum(
            1
            for row in self._log(turn_id)
            if row.get("rule_id") == rule_id
            and str(row.get("action", "")).startswith("appeal_")
            and row.get("action") != "appeal_refused"
        )


def _stored_event(event: dict[str, Any]) -> ToolEvent:
    """An event as `events()` returns it once stored (no tool_use_id; flags only when set)."""
    out: ToolEvent = {"kind": str(event.get("kind", "tool")), "tool": str(event.get("tool", ""))}
    if event.get("command") is not None:
        out["command"] = event["command"]
    if event.get("path") is not None:
        out["path"] = event["path"]
    if event.get("created"):
        out["created"] = True
    if event.get("ok", True) is False:
        out["ok"] = False
    return out
