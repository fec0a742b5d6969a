"""The enforcement store contract, on SQLite and on PostgreSQL: sessions, turns, events, the log."""

from __future__ import annotations

from typing import Any

from rule_rows import rule

from heedful.enforce.ledger import Write


def test_sessions_and_turns(store: Any) -> None:
    enforce = store.enforce
    assert enforce.session("me", "s1") is None
    opened = enforce.ensure_session("me", "s1", "claude-code", "/repo")
    assert opened["platform"] == "claude-code" and opened["project"] == "/repo" and opened["turn_count"] == 0
    assert enforce.ensure_session("me", "s1", "claude-code", None)["project"] == "/repo"  # kept
    first = enforce.start_turn("me", "s1", "t1", 3, "ship it", ["r-1", "r-2"])
    assert first["turn_id"] == "t1" and first["selected"] == ["r-1", "r-2"] and first["library_version"] == 3
    again = enforce.start_turn("me", "s1", "t1", 4, "again", [])  # idempotent: the turn as it was opened
    assert again["library_version"] == 3 and enforce.session("me", "s1")["turn_count"] == 1  # type: ignore[index]
    enforce.start_turn("me", "s1", "t2", 3, None, [])
    session = enforce.session("me", "s1")
    assert session is not None and session["current_turn"] == "t2" and session["turn_count"] == 2
    assert session["last_prompt"] == "ship it"
    assert [enforce.claim_revision("me", "s1", "t1", 2) for _ in range(3)] == [1, 2, None]
    enforce.save_reply("me", "s1", "done")
    assert enforce.session("me", "s1")["last_reply"] == "done"  # type: ignore[index]
    assert enforce.turn("me", "s1", "t9") is None and enforce.session("you", "s1") is None
    listed = enforce.sessions("me")
    assert [(s["session_id"], s["turn_count"], s["interventions"]) for s in listed] == [("s1", 2, 0)]


def test_events_and_pending_writes(store: Any) -> None:
    enforce = store.enforce
    enforce.record_events(
        "me",
        "s1",
        "t1",
        [
            {"kind": "command", "tool": "Bash", "command": "pip install x", "ok": False},
            {"kind": "edit", "tool": "Write", "path": "a.py", "created": True, "tool_use_id": "u1"},
        ],
    )
    enforce.record_events("me", "s1", "t2", [{"kind": "command", "tool": "Bash", "command": "ls"}])
    assert enforce.events("me", "s1", "t1") == [
        {"kind": "command", "tool": "Bash", "command": "pip install x", "ok": False},
        {"kind": "edit", "tool": "Write", "path": "a.py", "created": True},
    ]
    assert len(enforce.events("me", "s1")) == 3 and enforce.events("you", "s1") == []
    enforce.set_pending("me", "s1", "u1", {"a.py": False})
    enforce.set_pending("me", "s1", "u1", {"a.py": True})
    assert enforce.pending("me", "s1", "u1") == {"a.py": True}
    assert enforce.pop_pending("me", "s1", "u1") == {"a.py": True}
    assert enforce.pop_pending("me", "s1", "u1") is None
    enforce.set_pending("me", "s1", "u2", {})
    enforce.drop_pending("me", "s1", "u2")
    assert enforce.pending("me", "s1", "u2") is None


def test_the_judgment_log(store: Any) -> None:
    enforce = store.enforce
    enforce.ensure_session("me", "s1", "codex", None)
    enforce.log(
        "me",
        "s1",
        "t1",
        [
            {"stage": "pre_tool", "candidate": "c1", "rule_id": "r-1", "action": "deny", "result": "violated",
             "quotes": ["pip install x"], "reason": "use uv"},
            {"stage": "pre_tool", "candidate": "c1", "rule_id": "r-2", "action": "unknown", "result": "unknown"},
            {"stage": "pre_tool", "candidate": "c1", "rule_id": "r-1", "action": "appeal_overturned"},
            {"stage": "pre_tool", "candidate": "c1", "rule_id": "r-3", "action": "cleared"},
            {"stage": "stop", "candidate": "", "rule_id": "r-1", "action": "appeal_refused"},
        ],
    )  # fmt: skip
    entries = enforce.entries("me", "s1")
    assert [e["action"] for e in entries] == ["deny", "unknown", "appeal_overturned", "cleared", "appeal_refused"]
    assert entries[0]["quotes"] == ["pip install x"] and entries[0]["reason"] == "use uv"
    assert [e["action"] for e in enforce.entries("me", "s1", limit=2)] == ["cleared", "appeal_refused"]
    assert enforce.standing("me", "s1", "t1", "pre_tool", "c1") == {"r-1": "overturned", "r-3": "cleared"}
    assert enforce.noted_unknown("me", "s1", "t1") == {"r-2"}
    assert enforce.appeals("me", "s1", "t1", "r-1") == 1  # a refused appeal does not count
    assert [e["rule_id"] for e in enforce.turn_log("me", "s1", "t1")] == ["r-1", "r-2", "r-1", "r-3", "r-1"]
    assert enforce.sessions("me")[0]["interventions"] == 1
    assert enforce.entries("you") == []


def test_active_rules_and_jobs_from_the_hook(store: Any) -> None:
    store.rules.commit(
        "me",
        "learn",
        "rules",
        [
            rule("r-1", "Use uv", exceptions=["in CI"]),
            rule("r-2", "Ask first", status="needs_user"),
            rule("r-3", "Project only", scope="project", project="/a", status="guidance", check_spec=None),
        ],
    )
    enforce = store.enforce
    assert enforce.latest_library_version("me") == 1
    active = enforce.active_rules("me", 1, "/a")
    assert [(r["id"], r["status"]) for r in active] == [("r-1", "checked"), ("r-3", "guidance")]
    assert active[0]["exceptions"] == ["in CI"] and active[0]["check"] == {"kind": "command", "pattern": "pip install"}
    assert active[1]["check"] is None
    job_id = enforce.enqueue_job("me", "rules.learn", {"text": "use uv"})
    job = store.jobs.get(job_id)
    assert job is not None and job.kind == "rules.learn" and job.payload == {"text": "use uv"}


def test_deferred_writes_apply_in_order_and_once(store: Any) -> None:
    at = "2026-01-02T03:04:05.000000Z"
    writes = [
        Write("session", "me", "s1", at, {"platform": "gemini", "project": "/p"}),
        Write("pin", "me", "s1", at, {"turn": "t1", "version": 0}),
        Write("turn", "me", "s1", at, {"turn": "t1", "version": 0, "prompt": "go", "selected": ["r-1"]}),
        Write("claim", "me", "s1", at, {"turn": "t1", "budget": 1}),
        Write("claim", "me", "s1", at, {"turn": "t1", "budget": 1}),
        Write("events", "me", "s1", at, {"turn": "t1", "events": [{"kind": "command", "tool": "Bash"}]}),
        Write("pending", "me", "s1", at, {"tool_use_id": "u1", "existed": {"x": False}}),
        Write("log", "me", "s1", at, {"turn": "t1", "entries": [{"stage": "stop", "action": "revise"}]}),
        Write("job", "me", "s1", at, {"id": "j-fixed", "kind": "rules.learn", "payload": {"a": 1}}),
        Write("job", "me", "s1", at, {"id": "j-fixed", "kind": "rules.learn", "payload": {"a": 1}}),
        Write("reply", "me", "s1", at, {"text": "ok"}),
    ]
    store.enforce.apply(writes)
    enforce = store.enforce
    session = enforce.session("me", "s1")
    assert session is not None and session["last_reply"] == "ok"
    [listed] = enforce.sessions("me")
    assert listed["created_at"] == at  # each write keeps the time it was decided at
    assert enforce.turn("me", "s1", "t1")["revisions"] == 1  # type: ignore[index]
    assert enforce.pinned("me", "s1", "t1") == 0 and enforce.pending("me", "s1", "u1") == {"x": False}
    assert [e["action"] for e in enforce.entries("me", "s1")] == ["revise"]
    assert [job.id for job in store.jobs.list()] == ["j-fixed"]
