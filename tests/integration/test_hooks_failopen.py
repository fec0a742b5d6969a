"""The hooks fail open: bad input, a read-only home or a broken store allow, exit 0; a locked database does not."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.integrations.payloads import claude, claude_bash, codex, hook_env, run_hook


@pytest.fixture
def taught(home: Path, tmp_path: Path) -> Path:
    project = (tmp_path / "app").resolve()
    project.mkdir()
    with Heedful.open(home, embedder="hashing") as hf:
        hf.rules.learn("me", "never push to main", project=project)
    return project


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1, 2]", b'{"hook_event_name": 3}', b"\xff\xfe\x00", b"{" * 5000])
@pytest.mark.parametrize("platform", ["claude-code", "codex"])
def test_garbage_stdin_allows(home: Path, raw: bytes, platform: str) -> None:
    code, out, _, _ = run_hook(platform, raw, hook_env(home))
    assert code == 0
    assert out == ("{}" if platform == "codex" else "")


@pytest.mark.parametrize(
    "payload",
    [
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push origin main"}},
        {"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash"},
        {"session_id": "s", "hook_event_name": "PreToolUse", "tool_input": "git push origin main"},
        {"session_id": "s", "hook_event_name": "UserPromptSubmit"},
        {"session_id": "s", "hook_event_name": "SomethingNew", "cwd": "/"},
        {"session_id": ["s"], "hook_event_name": "Stop"},
    ],
)
def test_missing_or_odd_fields_allow(home: Path, taught: Path, payload: dict) -> None:
    code, out, _, _ = run_hook("claude-code", {"cwd": str(taught), **payload}, hook_env(home))
    assert code == 0 and out == ""


def test_codex_stop_with_missing_fields_still_prints_json(home: Path) -> None:
    code, out, _, _ = run_hook("codex", {"hook_event_name": "Stop"}, hook_env(home))
    assert code == 0 and json.loads(out) == {}


def _allowed_or_denied(out: str) -> bool:
    return out == "" or json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.sqlite_only(reason="makes the SQLite file read-only")
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_home_allows(home: Path, taught: Path) -> None:
    os.chmod(home / "heedful.db", stat.S_IRUSR)
    os.chmod(home, stat.S_IRUSR | stat.S_IXUSR)
    try:
        push = claude_bash("s1", str(taught), "git push origin main")
        code, out, _, _ = run_hook("claude-code", push, hook_env(home))
        code2, out2, _, _ = run_hook(
            "claude-code", claude("UserPromptSubmit", "s1", str(taught), prompt="hi"), hook_env(home)
        )
    finally:
        os.chmod(home, stat.S_IRWXU)
        os.chmod(home / "heedful.db", stat.S_IRUSR | stat.S_IWUSR)
    assert code == 0 and _allowed_or_denied(out)
    assert code2 == 0 and out2 == ""


def test_home_that_cannot_be_created_allows(tmp_path: Path) -> None:
    """A home below a regular file can be neither created nor written (also when running as root)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    env = hook_env(blocker / "home")
    for payload in (
        claude_bash("s1", str(tmp_path), "git push origin main"),
        claude("UserPromptSubmit", "s1", str(tmp_path), prompt="never push to main"),
        claude("Stop", "s1", str(tmp_path), last_assistant_message="done"),
    ):
        code, out, err, _ = run_hook("claude-code", payload, env)
        assert code == 0 and out == ""
        assert "heedful hook" in err  # the log could not be written either: one line on stderr instead


@pytest.mark.sqlite_only(reason="makes the SQLite file unwritable")
def test_unwritable_database_file_allows_and_logs(home: Path, taught: Path) -> None:
    """A database that cannot be opened: allow, and the error goes to HEEDFUL_HOME/logs/hooks.log."""
    db = home / "heedful.db"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.unlink()
    db.mkdir()  # a directory where the database file should be
    code, out, _, _ = run_hook("claude-code", claude_bash("s1", str(taught), "git push origin main"), hook_env(home))
    assert code == 0 and out == ""
    assert "failed open" in (home / "logs" / "hooks.log").read_text()


@pytest.mark.sqlite_only(reason="holds SQLite's file lock")
def test_locked_database_answers_from_reads_and_stores_later(home: Path, taught: Path) -> None:
    """A writer holding the lock delays the record, never the answer (the writes wait in the spool)."""
    conn = sqlite3.connect(home / "heedful.db", isolation_level=None, timeout=1)
    conn.execute("BEGIN EXCLUSIVE")
    try:
        code, out, _, _ = run_hook(
            "claude-code", claude_bash("s1", str(taught), "git push origin main"), hook_env(home)
        )
        assert code == 0 and json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
        code, out, _, _ = run_hook(
            "claude-code", claude("UserPromptSubmit", "s2", str(taught), prompt="hello"), hook_env(home)
        )
        assert code == 0 and "heedful rule library v1" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
        assert len(list((home / "spool" / "enforce").glob("*.json"))) == 2
    finally:
        conn.execute("ROLLBACK")
        conn.close()
    code, out, _, _ = run_hook("claude-code", claude_bash("s3", str(taught), "ls"), hook_env(home))
    assert code == 0 and out == ""
    assert list((home / "spool" / "enforce").glob("*.json")) == []
    with Heedful.open(home, embedder="hashing") as hf:
        assert [e["action"] for e in hf.store.enforce.entries("me", "s1")] == ["deny"]
        assert hf.store.enforce.session("me", "s2")["last_prompt"] == "hello"
        assert hf.store.jobs.pending_exists("me", "rules.learn")


@pytest.mark.sqlite_only(reason="breaks the SQLite file")
def test_codex_fails_open_with_json_on_stop(home: Path, taught: Path) -> None:
    db = home / "heedful.db"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.unlink()
    db.mkdir()
    code, out, _, _ = run_hook("codex", codex("Stop", "s1", str(taught), last_assistant_message="done"), hook_env(home))
    assert code == 0 and json.loads(out) == {}
