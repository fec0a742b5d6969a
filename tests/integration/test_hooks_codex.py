"""Codex hooks through the real `python -m heedful.hookmain codex` subprocess.

Codex payloads carry `model` and `turn_id`; apply_patch puts the patch in `tool_input.command`.
Answers use only fields Codex accepts: no `ask`, `continue`, `stopReason` or `suppressOutput` on
PreToolUse, no `hookSpecificOutput` on Stop, and Stop always prints JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from heedful.api import Heedful
from heedful.integrations.payloads import codex, hook_env, run_hook

PRE_TOOL_FIELDS = {"hookEventName", "permissionDecision", "permissionDecisionReason", "additionalContext"}


@pytest.fixture
def project(home: Path, tmp_path: Path) -> Path:
    path = (tmp_path / "svc").resolve()
    path.mkdir()
    with Heedful.open(home, embedder="hashing") as hf:
        for text in (
            "in this repo use pnpm, not npm",
            "never touch the .env file",
            "always run pytest before saying you are done",
        ):
            assert hf.rules.learn("me", text, project=path).actions
    return path


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing")


def hook(env: dict[str, str], payload: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    code, out, err, _ = run_hook("codex", payload, env)
    assert code == 0, err
    return out, (json.loads(out) if out.strip() else None)


def test_bash_deny_uses_only_accepted_fields(project: Path, env: dict[str, str]) -> None:
    _, answer = hook(
        env, codex("PreToolUse", "c1", str(project), tool_name="Bash", tool_input={"command": "npm install left-pad"})
    )
    assert set(answer) == {"hookSpecificOutput"}
    out = answer["hookSpecificOutput"]
    assert set(out) <= PRE_TOOL_FIELDS and out["permissionDecision"] == "deny"
    assert "pnpm install left-pad" in out["permissionDecisionReason"]
    raw, allowed = hook(
        env, codex("PreToolUse", "c1", str(project), tool_name="Bash", tool_input={"command": "pnpm install left-pad"})
    )
    assert raw == "" and allowed is None


def test_apply_patch_paths_are_checked_and_the_patch_is_not_read_as_a_command(
    project: Path, env: dict[str, str]
) -> None:
    touching_env = "*** Begin Patch\n*** Update File: .env\n@@\n-A=1\n+A=2\n*** End Patch\n"
    _, answer = hook(
        env, codex("PreToolUse", "c1", str(project), tool_name="apply_patch", tool_input={"command": touching_env})
    )
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert ".env" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    mentions_npm = "*** Begin Patch\n*** Add File: docs/setup.md\n+Run npm install first.\n*** End Patch\n"
    raw, _ = hook(
        env, codex("PreToolUse", "c1", str(project), tool_name="apply_patch", tool_input={"command": mentions_npm})
    )
    assert raw == ""


def test_stop_always_prints_json_and_blocks_with_decision_only(project: Path, env: dict[str, str]) -> None:
    cwd = str(project)
    raw, answer = hook(env, codex("UserPromptSubmit", "c1", cwd, turn="t1", prompt="fix the handler and its tests"))
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "Always run pytest" in answer["hookSpecificOutput"]["additionalContext"]
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-x\n+y\n*** End Patch\n"
    hook(
        env,
        codex(
            "PostToolUse",
            "c1",
            cwd,
            turn="t1",
            tool_name="apply_patch",
            tool_input={"command": patch},
            tool_response="Success. Updated the following files:\nM app.py",
        ),
    )
    raw, answer = hook(env, codex("Stop", "c1", cwd, turn="t1", last_assistant_message="Fixed."))
    assert set(answer) == {"decision", "reason"} and answer["decision"] == "block"
    hook(
        env,
        codex(
            "PostToolUse",
            "c1",
            cwd,
            turn="t1",
            tool_name="Bash",
            tool_input={"command": "pytest -q"},
            tool_response="3 passed",
        ),
    )
    raw, answer = hook(
        env, codex("Stop", "c1", cwd, turn="t1", last_assistant_message="Fixed; tests pass.", stop_hook_active=True)
    )
    assert raw == "{}" and answer == {}


def test_turn_id_keeps_the_library_version_for_the_turn(home: Path, project: Path, env: dict[str, str]) -> None:
    cwd = str(project)
    hook(env, codex("UserPromptSubmit", "c2", cwd, turn="t1", prompt="never use yarn in this repo"))
    done = subprocess.run(
        [sys.executable, "-m", "heedful", "jobs", "drain", "--home", str(env["HEEDFUL_HOME"])],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    yarn = {"command": "yarn add lodash"}
    raw, _ = hook(env, codex("PreToolUse", "c2", cwd, turn="t1", tool_name="Bash", tool_input=yarn))
    assert raw == ""  # t1 adopted the library before the rule existed
    hook(env, codex("UserPromptSubmit", "c2", cwd, turn="t2", prompt="add lodash"))
    _, answer = hook(env, codex("PreToolUse", "c2", cwd, turn="t2", tool_name="Bash", tool_input=yarn))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_session_start_and_artifact_feedback_use_hook_specific_context(
    home: Path, project: Path, env: dict[str, str]
) -> None:
    with Heedful.open(home, embedder="hashing") as hf:
        assert hf.rules.learn("me", "`debug` must never be `true` in config.json files", project=project).actions
    _, started = hook(env, codex("SessionStart", "c3", str(project)))
    assert set(started) == {"hookSpecificOutput"}
    assert set(started["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert started["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    (project / "config.json").write_text('{"debug": true}')
    patch = '*** Begin Patch\n*** Add File: config.json\n+{"debug": true}\n*** End Patch\n'
    _, answer = hook(
        env,
        codex(
            "PostToolUse",
            "c3",
            str(project),
            turn="t1",
            tool_name="apply_patch",
            tool_input={"command": patch},
            tool_response="Success.",
        ),
    )
    assert set(answer) == {"hookSpecificOutput"}
    out = answer["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUse" and set(out) == {"hookEventName", "additionalContext"}
    assert "debug" in out["additionalContext"] and "already run" in out["additionalContext"]
