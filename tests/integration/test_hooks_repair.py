"""Repair budget (3 per user turn, shared across rules and stages) and appeals, through the real hooks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heedful.api import Heedful
from heedful.integrations.payloads import claude, claude_bash, hook_env, run_hook


@pytest.fixture
def project(home: Path, tmp_path: Path) -> Path:
    path = (tmp_path / "app").resolve()
    path.mkdir()
    with Heedful.open(home, embedder="hashing") as hf:
        for text in (
            "never push to main",
            "keep replies under 50 words",
            "always run pytest before saying you are done",
        ):
            assert hf.rules.learn("me", text, project=path).actions
    return path


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return hook_env(home, user="me")


def hook(env: dict[str, str], payload: dict[str, Any]) -> dict[str, Any] | None:
    code, out, err, _ = run_hook("claude-code", payload, env)
    assert code == 0, err
    return json.loads(out) if out.strip() else None


def log(home: Path, session: str) -> list[dict[str, Any]]:
    with Heedful.open(home, embedder="hashing") as hf:
        return hf.store.enforce.entries("me", session)


LONG = " ".join(["word"] * 80)


def test_budget_is_shared_across_stages_and_resets_each_turn(home: Path, project: Path, env: dict[str, str]) -> None:
    cwd = str(project)
    hook(env, claude("UserPromptSubmit", "s1", cwd, prompt="ship it"))
    first = hook(env, claude_bash("s1", cwd, "git push origin main"))
    assert "Correction 1 of 3" in first["hookSpecificOutput"]["permissionDecisionReason"]
    second = hook(env, claude("Stop", "s1", cwd, last_assistant_message=LONG))
    assert second["decision"] == "block" and "revision 2 of 3" in second["reason"]
    third = hook(env, claude_bash("s1", cwd, "git push origin main"))
    assert "Correction 3 of 3" in third["hookSpecificOutput"]["permissionDecisionReason"]
    # Budget spent: a reply's violation is recorded as unresolved and let through...
    assert hook(env, claude("Stop", "s1", cwd, last_assistant_message=LONG, stop_hook_active=True)) is None
    # ...but a forbidden action is still denied.
    fourth = hook(env, claude_bash("s1", cwd, "git push origin main"))
    assert fourth["hookSpecificOutput"]["permissionDecision"] == "deny"
    actions = [e["action"] for e in log(home, "s1")]
    assert actions == ["deny", "revise", "deny", "unresolved", "deny"]
    # A new user turn has a fresh budget.
    hook(env, claude("UserPromptSubmit", "s1", cwd, prompt="now the docs"))
    denied = hook(env, claude_bash("s1", cwd, "git push origin main"))
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_all_violations_of_one_reply_go_into_one_request(home: Path, project: Path, env: dict[str, str]) -> None:
    cwd = str(project)
    hook(env, claude("UserPromptSubmit", "s1", cwd, prompt="fix it"))
    hook(
        env,
        claude(
            "PostToolUse",
            "s1",
            cwd,
            tool_name="Edit",
            tool_input={"file_path": str(project / "a.py"), "old_string": "a", "new_string": "b"},
            tool_response={"filePath": str(project / "a.py")},
        ),
    )
    answer = hook(env, claude("Stop", "s1", cwd, last_assistant_message=LONG))
    assert answer["decision"] == "block"
    assert "breaks 2 rules" in answer["reason"] and "50 words" not in answer["reason"].split("1.")[0]
    assert "pytest" in answer["reason"] and "at most 50 words" in answer["reason"]
    assert [e["action"] for e in log(home, "s1")] == ["revise", "revise"]


def test_appeal_is_reviewed_by_recheck_and_allowed_once(home: Path, project: Path, env: dict[str, str]) -> None:
    cwd = str(project)
    hook(env, claude("UserPromptSubmit", "s1", cwd, prompt="fix it"))
    edit = claude(
        "PostToolUse",
        "s1",
        cwd,
        tool_name="Edit",
        tool_input={"file_path": str(project / "a.py"), "old_string": "a", "new_string": "b"},
        tool_response={"filePath": str(project / "a.py")},
    )
    hook(env, edit)
    reply = "Fixed the bug."
    first = hook(env, claude("Stop", "s1", cwd, last_assistant_message=reply))
    rule_id = first["reason"].split("[")[1].split("]")[0]
    # Appeal without new evidence: the re-check still fails, so the judgment is upheld.
    appealed = f"{reply}\nheedful-appeal {rule_id}: the tests ran in CI"
    upheld = hook(env, claude("Stop", "s1", cwd, last_assistant_message=appealed, stop_hook_active=True))
    assert upheld["decision"] == "block"
    # A second appeal of the same rule in this delivery is refused.
    hook(env, claude_bash("s1", cwd, "pytest -q", event="PostToolUse"))
    again = hook(env, claude("Stop", "s1", cwd, last_assistant_message=appealed, stop_hook_active=True))
    assert again is None  # the re-check now passes on its own (tests ran after the edit)
    actions = [(e["action"], e["rule_id"]) for e in log(home, "s1")]
    assert ("appeal_upheld", rule_id) in actions and ("appeal_refused", rule_id) in actions
    assert ("cleared", rule_id) in actions


def test_appeal_overturns_only_when_the_recheck_passes(home: Path, project: Path, env: dict[str, str]) -> None:
    cwd = str(project)
    hook(env, claude("UserPromptSubmit", "s1", cwd, prompt="fix it"))
    hook(
        env,
        claude(
            "PostToolUse",
            "s1",
            cwd,
            tool_name="Edit",
            tool_input={"file_path": str(project / "a.py"), "old_string": "a", "new_string": "b"},
            tool_response={"filePath": str(project / "a.py")},
        ),
    )
    first = hook(env, claude("Stop", "s1", cwd, last_assistant_message="Done."))
    rule_id = first["reason"].split("[")[1].split("]")[0]
    hook(env, claude_bash("s1", cwd, "pytest", event="PostToolUse"))
    appealed = f"Done.\nheedful-appeal {rule_id}: I ran pytest"
    answer = hook(env, claude("Stop", "s1", cwd, last_assistant_message=appealed, stop_hook_active=True))
    assert answer is None
    entries = [e for e in log(home, "s1") if e["action"] == "appeal_overturned"]
    assert [e["rule_id"] for e in entries] == [rule_id]


def test_unknown_never_clears_an_earlier_violation_of_an_unchanged_candidate(
    home: Path, project: Path, env: dict[str, str]
) -> None:
    cwd = str(project)
    hook(env, claude("UserPromptSubmit", "s1", cwd, prompt="ship"))
    # No branch in the evidence: `git push` with no target is unknown on its own.
    assert hook(env, claude_bash("s1", cwd, "git push")) is not None  # a reminder, not a deny
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    denied = hook(env, claude_bash("s1", cwd, "git push"))
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    (project / ".git" / "HEAD").write_text("deadbeef\n")  # detached: the branch is unknown again
    still = hook(env, claude_bash("s1", cwd, "git push"))
    assert still["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "stands" in still["hookSpecificOutput"]["permissionDecisionReason"]
