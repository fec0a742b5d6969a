"""Gemini CLI hooks through the real `python -m heedful.hookmain gemini` subprocess, with payloads in the
shapes of Gemini CLI's hooks reference (the real CLI is driven in tests/e2e/test_gemini.py).

Every answer is JSON (Gemini CLI parses stderr when stdout is empty): a deny is `decision: "deny"`
with the reason, feedback and context go in `hookSpecificOutput.additionalContext`, a reply
revision is AfterAgent's `decision: "deny"`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heedful.integrations.payloads import gemini, hook_env, run_hook
from hook_fixtures import LONG, SHORT, taught_project


@pytest.fixture
def project(home: Path, tmp_path: Path) -> Path:
    return taught_project(home, tmp_path)


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing")


def hook(env: dict[str, str], payload: dict[str, Any] | str) -> dict[str, Any]:
    code, out, err, _ = run_hook("gemini", payload, env)
    assert code == 0, err
    return json.loads(out)  # always JSON


def shell(session: str, cwd: str, command: str, **fields: Any) -> dict[str, Any]:
    return gemini("BeforeTool", session, cwd, tool_name="run_shell_command", tool_input={"command": command, **fields})


def test_a_forbidden_command_is_denied_with_the_reason_and_the_alternative_allowed(
    project: Path, env: dict[str, str]
) -> None:
    answer = hook(env, shell("g1", str(project), "pip install requests", description="Install requests"))
    assert set(answer) == {"decision", "reason"} and answer["decision"] == "deny"
    assert "Never use pip, we use uv." in answer["reason"] and "uv pip install requests" in answer["reason"]
    assert hook(env, shell("g1", str(project), "uv pip install requests")) == {}


def test_a_command_run_in_a_subdirectory_is_judged_for_the_same_project(project: Path, env: dict[str, str]) -> None:
    (project / "src").mkdir()
    answer = hook(env, shell("g1", str(project), "pip install requests", dir_path="src"))
    assert answer["decision"] == "deny" and "Never use pip" in answer["reason"], answer


def test_write_file_and_replace_are_checked_as_writes(project: Path, env: dict[str, str]) -> None:
    cwd = str(project)
    write = gemini("BeforeTool", "g1", cwd, tool_name="write_file", tool_input={"file_path": ".env", "content": "A=1"})
    assert hook(env, write)["decision"] == "deny"
    edit = {"file_path": str(project / ".env"), "old_string": "A=1", "new_string": "A=2", "instruction": "bump"}
    assert hook(env, gemini("BeforeTool", "g1", cwd, tool_name="replace", tool_input=edit))["decision"] == "deny"
    fine = gemini("BeforeTool", "g1", cwd, tool_name="write_file", tool_input={"file_path": "app.py", "content": ""})
    assert hook(env, fine) == {}


def test_before_agent_adds_the_selected_rules_as_context(project: Path, env: dict[str, str]) -> None:
    answer = hook(env, gemini("BeforeAgent", "g1", str(project), prompt="install the requests package"))
    out = answer["hookSpecificOutput"]
    assert out["hookEventName"] == "BeforeAgent" and "uv" in out["additionalContext"]


def test_after_tool_feeds_an_artifact_violation_back_beside_the_result(project: Path, env: dict[str, str]) -> None:
    cwd = str(project)
    hook(env, gemini("BeforeAgent", "g2", cwd, prompt="write the config"))
    tool_input = {"file_path": str(project / "config.json"), "content": '{"debug": true}\n'}
    (project / "config.json").write_text(tool_input["content"])
    answer = hook(env, gemini("AfterTool", "g2", cwd, tool_name="write_file", tool_input=tool_input))
    out = answer["hookSpecificOutput"]
    assert set(answer) == {"hookSpecificOutput"} and out["hookEventName"] == "AfterTool"
    assert "`debug` is `true`" in out["additionalContext"] and "True" not in out["additionalContext"]


def test_a_failed_tool_is_recorded_without_feedback(project: Path, env: dict[str, str]) -> None:
    response = {"llmContent": "Error: command failed", "returnDisplay": "", "error": {"message": "exit 1"}}
    payload = gemini(
        "AfterTool",
        "g3",
        str(project),
        tool_name="run_shell_command",
        tool_input={"command": "false"},
        tool_response=response,
    )
    assert hook(env, payload) == {}


def test_after_agent_denies_a_long_reply_and_judges_only_the_revision(project: Path, env: dict[str, str]) -> None:
    cwd = str(project)
    hook(env, gemini("BeforeAgent", "g4", cwd, prompt="summarise what you changed"))
    answer = hook(env, gemini("AfterAgent", "g4", cwd, prompt="summarise what you changed", prompt_response=LONG))
    assert set(answer) == {"decision", "reason"} and answer["decision"] == "deny"
    assert "20 words" in answer["reason"] and "revision 1 of 3" in answer["reason"]
    # Gemini CLI sends the retry's reason as a prompt (not the user's word), then both replies joined.
    assert hook(env, gemini("BeforeAgent", "g4", cwd, prompt=answer["reason"])) == {}
    retry = gemini(
        "AfterAgent",
        "g4",
        cwd,
        prompt="summarise what you changed",
        prompt_response=f"{LONG}\n{SHORT}",
        stop_hook_active=True,
    )
    assert hook(env, retry) == {}


def test_malformed_and_unknown_events_allow_with_json(project: Path, env: dict[str, str]) -> None:
    assert hook(env, "not json") == {}
    assert hook(env, gemini("Notification", "g5", str(project), notification_type="ToolPermission")) == {}
    assert hook(env, gemini("BeforeTool", "g5", str(project), tool_name="run_shell_command")) == {}
