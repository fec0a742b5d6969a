""" "Run ruff format before every commit", through the real Claude Code hook: after an edit, a commit
without the formatter is denied on the commit itself (in a turn that edited nothing too: the commit
takes what earlier turns left); once the formatter ran, the same commit passes."""

from __future__ import annotations

import json
from pathlib import Path

from heedful.api import Heedful
from heedful.integrations.payloads import claude, claude_bash, claude_write, hook_env, run_hook


def denied(out: str) -> bool:
    return bool(out.strip()) and json.loads(out).get("hookSpecificOutput", {}).get("permissionDecision") == "deny"


def test_a_command_due_before_every_commit_is_judged_on_the_commit(tmp_path: Path) -> None:
    home, project = tmp_path / "home", (tmp_path / "app").resolve()
    (project / ".git").mkdir(parents=True)
    with Heedful.open(home, embedder="hashing") as hf:
        [action] = hf.rules.learn("me", "Always run ruff format before every commit.", project=project).actions
        check = (action.rule or {}).get("check") or {}
        assert check.get("kind") == "required_event" and check.get("stage") == "pre_action"
        assert check.get("params", {}).get("before") == "commit" and check["params"].get("after") == "always"
    env = hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing")

    def hook(payload: dict[str, object]) -> str:
        code, out, err, _ = run_hook("claude-code", payload, env)
        assert code == 0, err
        return out

    where = str(project)
    hook(claude("UserPromptSubmit", "s1", where, prompt="rename the helper and commit"))
    # "before every commit": also a commit of what earlier turns left, with nothing edited in this one
    assert denied(hook(claude_bash("s1", where, "git commit -m 'earlier work'")))
    hook(claude_write("s1", where, f"{project}/app.py", "x = 1\n"))
    hook(claude_write("s1", where, f"{project}/app.py", "x = 1\n", event="PostToolUse"))
    refused = hook(claude_bash("s1", where, "git add -A && git commit -m 'rename helper'"))
    assert denied(refused) and "ruff format" in refused
    assert not denied(hook(claude_bash("s1", where, "git status")))  # not a commit: not this rule's business
    hook(claude_bash("s1", where, "ruff format ."))
    hook(claude_bash("s1", where, "ruff format .", event="PostToolUse", tool_response={"stdout": "1 file"}))
    assert not denied(hook(claude_bash("s1", where, "git commit -m 'rename helper'")))
