"""The real hook subprocess on PostgreSQL: a rule learned into the database denies, the compliant call
passes, the turn's state and judgment are written there, and an unreachable server fails open with a
logged reason (nothing the hook could see was let through: it could see no rules)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.integrations.payloads import claude, claude_bash, hook_env, run_hook

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")


def decision(out: str) -> str | None:
    if not out.strip():
        return None
    reply = json.loads(out)
    return str(reply.get("hookSpecificOutput", {}).get("permissionDecision") or reply.get("decision") or "")


def test_a_rule_learned_into_postgresql_is_enforced_by_the_hook(pg_url: str, tmp_path: Path) -> None:
    home, project = tmp_path / "home", (tmp_path / "shop").resolve()
    (project / ".git").mkdir(parents=True)
    with Heedful.open(home, embedder="hashing", store_url=pg_url) as hf:
        assert hf.rules.learn("me", "never use pip, we use uv", project=project).actions
    assert not (home / "heedful.db").exists()  # the rule went to PostgreSQL, not a local file
    env = hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing", HEEDFUL_DATABASE_URL=pg_url)
    prompt = claude("UserPromptSubmit", "s1", str(project), prompt="add rich")
    code, _, err, _ = run_hook("claude-code", prompt, env)
    assert code == 0, err
    code, denied, err, _ = run_hook("claude-code", claude_bash("s1", str(project), "pip install rich"), env)
    assert code == 0, err
    assert decision(denied) == "deny" and "uv" in denied
    code, allowed, err, _ = run_hook("claude-code", claude_bash("s1", str(project), "uv add rich"), env)
    assert code == 0, err
    assert decision(allowed) != "deny"
    with psycopg.connect(pg_url) as conn:
        sessions = conn.execute("SELECT platform FROM enforce_sessions WHERE user_id = 'me'").fetchall()
        actions = [row[0] for row in conn.execute("SELECT action FROM enforce_log WHERE user_id = 'me'")]
    assert sessions == [("claude-code",)] and "deny" in actions


def test_an_unreachable_database_fails_open_and_says_why(tmp_path: Path) -> None:
    home, project = tmp_path / "home", (tmp_path / "shop").resolve()
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    env = hook_env(home, user="me", HEEDFUL_DATABASE_URL="postgresql://heedful@127.0.0.1:1/heedful")
    code, out, err, _ = run_hook("claude-code", claude_bash("s1", str(project), "pip install rich"), env)
    assert code == 0 and decision(out) != "deny", err  # no rule could be read: the action goes on
    logged = "\n".join(p.read_text() for p in (home / "logs").glob("*") if p.is_file())
    assert "127.0.0.1:1" in logged or "database" in logged
