"""A violation the hook can see is never let through; with nothing visible, a broken home allows.

Every case runs the real hook command (`python -m heedful.hookmain claude-code|codex`) as a
subprocess on payloads shaped like the platform's, against a real SQLite home:

- another process, or another connection, holds the write lock (`BEGIN IMMEDIATE`) for longer
  than the hook's busy timeout: forbidden actions are still denied, the repair budget still
  counts, delivery checks still see the turn's events, and once the lock is gone a later event
  stores everything that was decided (nothing is lost);
- lone surrogates and bytes that are not UTF-8 in any field: still denied;
- a 10 MB command: answered well inside the 30 s hook timeout, denied when the violation is in
  the part read;
- a corrupt database, a home that is a file: allowed (fail open: no violation is known).
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from heedful.api import Heedful
from heedful.enforce.runtime import HOOK_BUSY_TIMEOUT_MS
from heedful.integrations.payloads import claude, claude_bash, codex, hook_env, run_hook

HOOK_TIMEOUT_S = 30  # what Claude Code and Codex give a command hook by default
PLATFORMS = ("claude-code", "codex")
BIG = 10 * 1024 * 1024

HOLD_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
conn.execute("ROLLBACK")
"""


@pytest.fixture
def project(home: Path, tmp_path: Path) -> Path:
    path = (tmp_path / "app").resolve()
    (path / ".git").mkdir(parents=True)
    with Heedful.open(home, embedder="hashing") as hf:
        for text in (
            "use uv, not pip, in this repo",
            "never push to main",
            "always run pytest before saying you are done",
        ):
            assert hf.rules.learn("me", text, project=path).actions
    return path


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return hook_env(home, user="me")


def bash(
    platform: str, session: str, cwd: str, command: str, event: str = "PreToolUse", turn: str = "turn-1", **fields: Any
) -> dict[str, Any]:
    if platform == "codex":
        return codex(event, session, cwd, turn=turn, tool_name="Bash", tool_input={"command": command}, **fields)
    return claude_bash(session, cwd, command, event=event, **fields)


def event(platform: str, name: str, session: str, cwd: str, turn: str = "turn-1", **fields: Any) -> dict[str, Any]:
    return (
        codex(name, session, cwd, turn=turn, **fields) if platform == "codex" else claude(name, session, cwd, **fields)
    )


def hook(platform: str, payload: dict[str, Any] | str | bytes, env: dict[str, str]) -> tuple[str, float]:
    code, out, err, elapsed = run_hook(platform, payload, env, timeout=HOOK_TIMEOUT_S)
    assert code == 0, err
    return out, elapsed


def denied(out: str) -> bool:
    return bool(out) and json.loads(out).get("hookSpecificOutput", {}).get("permissionDecision") == "deny"


def reason(out: str) -> str:
    return str(json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"])


def blocked(out: str) -> bool:
    return bool(out) and json.loads(out).get("decision") == "block"


@contextmanager
def lock_held_by_another_process(home: Path) -> Iterator[None]:
    """Another process holds BEGIN IMMEDIATE for at least the hook's busy timeout (plus a margin)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(home / "heedful.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        started = time.monotonic()
        yield
        time.sleep(max(0.0, HOOK_BUSY_TIMEOUT_MS / 1000 + 0.3 - (time.monotonic() - started)))
        assert holder.poll() is None  # still holding the lock when the hooks had run
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


@contextmanager
def lock_held_by_a_connection(home: Path) -> Iterator[None]:
    conn = sqlite3.connect(home / "heedful.db", isolation_level=None, timeout=1)
    conn.execute("BEGIN IMMEDIATE")
    started = time.monotonic()
    try:
        yield
        time.sleep(max(0.0, HOOK_BUSY_TIMEOUT_MS / 1000 + 0.3 - (time.monotonic() - started)))
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def spooled(home: Path) -> list[Path]:
    return sorted((home / "spool" / "enforce").glob("*.json"))


# -- the write lock is held elsewhere ------------------------------------------------------------------
@pytest.mark.sqlite_only(reason="holds SQLite's file lock")
@pytest.mark.parametrize("platform", PLATFORMS)
def test_denied_while_another_process_holds_the_write_lock(
    home: Path, project: Path, env: dict[str, str], platform: str
) -> None:
    cwd = str(project)
    with lock_held_by_another_process(home):
        answers = [hook(platform, bash(platform, "s1", cwd, "pip install requests"), env)[0] for _ in range(5)]
        assert all(denied(out) for out in answers)
        # the budget is read through the writes still waiting: 1, 2, 3, then spent (and still denied)
        assert [reason(out).rsplit("(Correction ", 1)[1] for out in answers] == [
            "1 of 3 this turn.)",
            "2 of 3 this turn.)",
            "3 of 3 this turn.)",
            "3 of 3 this turn.)",
            "3 of 3 this turn.)",
        ]
        assert len(spooled(home)) == 5
    out, _ = hook(platform, bash(platform, "s2", cwd, "uv pip install requests"), env)  # folds the spool in
    assert out == "" and spooled(home) == []
    with Heedful.open(home, embedder="hashing") as hf:
        entries = hf.store.enforce.entries("me", "s1")
        assert [e["action"] for e in entries] == ["deny"] * 5
        assert "budget spent" in entries[-1]["detail"]
        turn = hf.store.enforce.turn("me", "s1", entries[0]["turn_id"])
        assert turn is not None and turn["revisions"] == 3
        assert hf.store.rules.pinned("me", "s1", entries[0]["turn_id"]) == turn["library_version"]


@pytest.mark.sqlite_only(reason="holds SQLite's file lock")
@pytest.mark.parametrize("platform", PLATFORMS)
def test_denied_while_a_connection_holds_begin_immediate(
    home: Path, project: Path, env: dict[str, str], platform: str
) -> None:
    cwd = str(project)
    with lock_held_by_a_connection(home):
        context, _ = hook(platform, event(platform, "UserPromptSubmit", "s1", cwd, prompt="ship the release"), env)
        assert "heedful rule library v" in json.loads(context)["hookSpecificOutput"]["additionalContext"]
        out, _ = hook(platform, bash(platform, "s1", cwd, "git push origin main"), env)
        assert denied(out) and "push" in reason(out)
    hook(platform, bash(platform, "s1", cwd, "ls"), env)
    with Heedful.open(home, embedder="hashing") as hf:
        assert [e["action"] for e in hf.store.enforce.entries("me", "s1")] == ["deny"]
        assert hf.store.enforce.session("me", "s1")["last_prompt"] == "ship the release"
        assert hf.store.jobs.pending_exists("me", "rules.learn")  # the prompt still gets learned from


@pytest.mark.sqlite_only(reason="holds SQLite's file lock")
@pytest.mark.parametrize("platform", PLATFORMS)
def test_delivery_checks_see_the_turns_events_while_the_lock_is_held(
    home: Path, project: Path, env: dict[str, str], platform: str
) -> None:
    cwd = str(project)
    with lock_held_by_another_process(home):
        hook(platform, event(platform, "UserPromptSubmit", "s1", cwd, prompt="fix the parser"), env)
        edit = event(
            platform,
            "PostToolUse",
            "s1",
            cwd,
            tool_name="Edit",
            tool_use_id="call-1",
            tool_input={"file_path": str(project / "parser.py"), "old_string": "a", "new_string": "b"},
            tool_response={"filePath": str(project / "parser.py")},
        )
        hook(platform, edit, env)
        out, _ = hook(platform, event(platform, "Stop", "s1", cwd, last_assistant_message="Fixed the parser."), env)
        assert blocked(out) and "pytest" in json.loads(out)["reason"]
        hook(
            platform,
            bash(
                platform,
                "s1",
                cwd,
                "python -m pytest -q",
                event="PostToolUse",
                tool_response={"stdout": "3 passed", "stderr": "", "interrupted": False},
            ),
            env,
        )
        out, _ = hook(platform, event(platform, "Stop", "s1", cwd, last_assistant_message="Fixed; tests pass."), env)
        assert not blocked(out)
    hook(platform, bash(platform, "s1", cwd, "ls"), env)
    with Heedful.open(home, embedder="hashing") as hf:
        assert [e["kind"] for e in hf.store.enforce.events("me", "s1")] == ["edit", "command"]
        assert [e["action"] for e in hf.store.enforce.entries("me", "s1")] == ["revise"]


@pytest.mark.sqlite_only(reason="holds SQLite's file lock")
def test_a_write_that_cannot_be_stored_or_spooled_still_denies(home: Path, project: Path, env: dict[str, str]) -> None:
    (home / "spool").write_text("not a folder")  # nowhere to spool, and the database is locked
    with lock_held_by_another_process(home):
        out, _ = hook("claude-code", claude_bash("s1", str(project), "pip install requests"), env)
    assert denied(out)
    assert "could be neither stored nor spooled" in (home / "logs" / "hooks.log").read_text()


# -- any string the platform can send ------------------------------------------------------------------
def _with_surrogate(platform: str, project: Path, field: str) -> dict[str, Any]:
    payload = bash(platform, "s1", str(project), "pip install requests")
    odd = "\udfff"
    if field == "command":
        payload["tool_input"]["command"] = f"pip install requests{odd}"
    elif field == "description":
        payload["tool_input"]["description"] = f"Install{odd}"
    elif field == "session_id":
        payload["session_id"] = f"s{odd}1"
    elif field == "cwd":
        payload["cwd"] = str(project / f"sub{odd}dir")  # not a directory: the project is found from its parent
    elif field == "nested key":
        payload["tool_input"][f"env{odd}"] = {f"K{odd}": [f"v{odd}"]}
    elif field == "every field":
        payload = {
            key: f"{value}{odd}" if isinstance(value, str) and key != "hook_event_name" else value
            for key, value in payload.items()
        }
        payload["tool_name"] = "Bash"
        payload["cwd"] = str(project / f"sub{odd}")
        payload["tool_input"] = {"command": f"pip install requests{odd}", "description": odd, f"k{odd}": odd}
    return payload


SURROGATE_CASES = [
    ("claude-code", "command"),
    ("claude-code", "description"),
    ("claude-code", "session_id"),
    ("claude-code", "cwd"),
    ("claude-code", "nested key"),
    ("claude-code", "every field"),
    ("codex", "command"),
    ("codex", "session_id"),
    ("codex", "every field"),
]


@pytest.mark.parametrize(("platform", "field"), SURROGATE_CASES)
def test_lone_surrogates_never_let_a_violation_through(
    home: Path, project: Path, env: dict[str, str], platform: str, field: str
) -> None:
    payload = _with_surrogate(platform, project, field)
    raw = json.dumps(payload)  # ASCII JSON with a \\udfff escape, as a JSON encoder writes a lone surrogate
    assert "\\udfff" in raw
    out, _ = hook(platform, raw, env)
    assert denied(out)
    assert "uv pip install requests" in reason(out)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_bytes_that_are_not_utf8_never_let_a_violation_through(
    home: Path, project: Path, env: dict[str, str], platform: str
) -> None:
    payload = bash(platform, "s1", str(project), "pip install requests MARK")
    raw = json.dumps(payload, ensure_ascii=False).encode("utf-8").replace(b"MARK", b"caf\xe9 \xff")
    out, _ = hook(platform, raw, env)
    assert denied(out)


# -- huge input ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_10_mb_command_is_denied_in_time_when_the_violation_is_in_the_part_read(
    home: Path, project: Path, env: dict[str, str], platform: str
) -> None:
    cwd = str(project)
    out, elapsed = hook(platform, bash(platform, "s1", cwd, "pip install requests && echo " + "a" * BIG), env)
    assert denied(out) and elapsed < HOOK_TIMEOUT_S * 1000 / 3
    out, elapsed = hook(platform, bash(platform, "s2", cwd, "echo " + "a" * BIG + " && git push origin main"), env)
    assert denied(out) and elapsed < HOOK_TIMEOUT_S * 1000 / 3
    padded = "echo " + "a" * BIG + ";" + " " * 5_000 + "pip install requests"  # blanks do not hide the program
    out, elapsed = hook(platform, bash(platform, "s3", cwd, padded), env)
    assert denied(out) and elapsed < HOOK_TIMEOUT_S * 1000 / 3
    prefixed = "echo " + "a" * BIG + "; PIP_X=" + "b" * 5_000 + " sudo pip install requests"  # nor do assignments
    out, elapsed = hook(platform, bash(platform, "s4", cwd, prefixed), env)
    assert denied(out) and elapsed < HOOK_TIMEOUT_S * 1000 / 3


def test_a_10_mb_session_stays_within_the_hook_timeout(home: Path, project: Path, env: dict[str, str]) -> None:
    """The long command is allowed, recorded bounded, and the delivery check after it reads the record in time."""
    cwd = str(project)
    command = "echo " + "a b " * (BIG // 4) + " && python -m pytest -q"
    hook("claude-code", claude("UserPromptSubmit", "s1", cwd, prompt="fix the parser"), env)
    out, _ = hook("claude-code", claude_bash("s1", cwd, command), env)
    assert out == ""
    hook(
        "claude-code",
        claude(
            "PostToolUse",
            "s1",
            cwd,
            tool_name="Edit",
            tool_input={"file_path": str(project / "parser.py"), "old_string": "a", "new_string": "b"},
        ),
        env,
    )
    hook("claude-code", claude_bash("s1", cwd, command, event="PostToolUse"), env)
    out, elapsed = hook("claude-code", claude("Stop", "s1", cwd, last_assistant_message="Done."), env)
    assert out == "" and elapsed < HOOK_TIMEOUT_S * 1000 / 3  # pytest ran: its step was kept in the record


# -- a broken home, nothing visible: allow -------------------------------------------------------------
@pytest.mark.sqlite_only(reason="corrupts the SQLite file")
@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_corrupt_database_allows(home: Path, project: Path, env: dict[str, str], platform: str) -> None:
    db = home / "heedful.db"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database " * 512)
    out, _ = hook(platform, bash(platform, "s1", str(project), "pip install requests"), env)
    assert out == ""
    out, _ = hook(platform, event(platform, "Stop", "s1", str(project), last_assistant_message="done"), env)
    assert out == ("{}" if platform == "codex" else "")
    assert "failed open" in (home / "logs" / "hooks.log").read_text()


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_home_that_is_a_file_allows(tmp_path: Path, platform: str) -> None:
    home = tmp_path / "home-file"
    home.write_text("x")
    out, _ = hook(platform, bash(platform, "s1", str(tmp_path), "pip install requests"), hook_env(home))
    assert out == ""


@pytest.mark.sqlite_only(reason="makes the SQLite file unreadable")
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_database_allows(home: Path, project: Path, env: dict[str, str]) -> None:
    db = home / "heedful.db"
    os.chmod(db, 0)
    try:
        out, _ = hook("claude-code", claude_bash("s1", str(project), "pip install requests"), env)
    finally:
        os.chmod(db, stat.S_IRUSR | stat.S_IWUSR)
    assert out == ""
