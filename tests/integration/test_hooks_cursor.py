"""Cursor hooks through the real `python -m heedful.hookmain cursor` subprocess, with recorded payloads in
the shapes of Cursor's hooks documentation (no Cursor build runs here: it is a desktop app).

Allowing is `{}`, never `permission: "allow"` (which would skip Cursor's own approval); a deny is
`permission: "deny"` with `user_message` and `agent_message`; artifact feedback is postToolUse's
`additional_context`; `stop` has no reply text, so the text of `afterAgentResponse` is used, and a
revision is `followup_message`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heedful.api import Heedful
from heedful.integrations.payloads import cursor, hook_env, run_hook
from hook_fixtures import LONG, SHORT, taught_project


@pytest.fixture
def project(home: Path, tmp_path: Path) -> Path:
    return taught_project(home, tmp_path)


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing")


def hook(env: dict[str, str], payload: dict[str, Any] | str) -> dict[str, Any]:
    code, out, err, _ = run_hook("cursor", payload, env)
    assert code == 0, err
    return json.loads(out)  # always JSON


def test_before_shell_execution_denies_and_never_answers_allow(project: Path, env: dict[str, str]) -> None:
    root = str(project)
    answer = hook(env, cursor("beforeShellExecution", "c1", root, command="pip install requests"))
    assert set(answer) == {"permission", "user_message", "agent_message"} and answer["permission"] == "deny"
    assert "Never use pip, we use uv." in answer["agent_message"] and "uv pip install" in answer["agent_message"]
    assert "\n" not in answer["user_message"] and "pip" in answer["user_message"]
    assert hook(env, cursor("beforeShellExecution", "c1", root, command="uv pip install requests")) == {}


def test_pre_tool_use_checks_file_tools_as_writes(project: Path, env: dict[str, str]) -> None:
    root = str(project)
    write = cursor("preToolUse", "c1", root, tool_name="Write", tool_input={"file_path": ".env", "contents": "A=1"})
    assert hook(env, write)["permission"] == "deny"
    edit = {"file_path": str(project / ".env"), "old_string": "A=1", "new_string": "A=2"}
    assert hook(env, cursor("preToolUse", "c1", root, tool_name="StrReplace", tool_input=edit))["permission"] == "deny"
    delete = cursor("preToolUse", "c1", root, tool_name="Delete", tool_input={"file_path": ".env"})
    assert hook(env, delete)["permission"] == "deny"
    shell = cursor("preToolUse", "c1", root, tool_name="Shell", tool_input={"command": "pip install x"})
    assert hook(env, shell)["permission"] == "deny"
    fine = cursor("preToolUse", "c1", root, tool_name="Write", tool_input={"file_path": "app.py", "contents": ""})
    assert hook(env, fine) == {}


def test_post_tool_use_feeds_an_artifact_violation_back(project: Path, env: dict[str, str]) -> None:
    root = str(project)
    assert hook(env, cursor("beforeSubmitPrompt", "c2", root, prompt="write the config", attachments=[])) == {
        "continue": True
    }
    content = '{"debug": true}\n'
    (project / "config.json").write_text(content)
    tool_input = {"file_path": str(project / "config.json"), "contents": content}
    answer = hook(
        env,
        cursor("postToolUse", "c2", root, tool_name="Write", tool_input=tool_input, tool_output="ok", duration_ms=4),
    )
    assert set(answer) == {"additional_context"} and "`debug` is `true`" in answer["additional_context"]


def test_shell_results_and_file_edits_are_observed_for_the_reply_check(
    home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    project = (tmp_path / "tested").resolve()
    (project / ".git").mkdir(parents=True)
    with Heedful.open(home, embedder="hashing") as hf:
        assert hf.rules.learn("me", "always run pytest before saying you are done", project=project).actions
    root = str(project)
    for conversation, commands in (("c3", []), ("c3b", ["pytest -q"])):
        hook(env, cursor("beforeSubmitPrompt", conversation, root, prompt="fix the handler"))
        edits = [{"old_string": "x", "new_string": "y"}]
        hook(env, cursor("afterFileEdit", conversation, root, file_path=str(project / "app.py"), edits=edits))
        for command in commands:  # Cursor ignores what an after* hook prints
            hook(env, cursor("afterShellExecution", conversation, root, command=command, output="1 passed"))
        hook(env, cursor("afterAgentResponse", conversation, root, text="Fixed the handler."))
        answer = hook(env, cursor("stop", conversation, root))
        assert ("followup_message" in answer) is (not commands), answer


def test_stop_asks_for_a_revision_of_the_reply_afterwards_kept(project: Path, env: dict[str, str]) -> None:
    root = str(project)
    hook(env, cursor("beforeSubmitPrompt", "c4", root, prompt="summarise what you changed"))
    assert hook(env, cursor("afterAgentResponse", "c4", root, text=LONG)) == {}
    answer = hook(env, cursor("stop", "c4", root))
    assert set(answer) == {"followup_message"}
    assert "20 words" in answer["followup_message"] and "revision 1 of 3" in answer["followup_message"]
    # The followup comes back as a prompt (not the user's word); the revision passes.
    followup = cursor("beforeSubmitPrompt", "c4", root, generation="gen-2", prompt=answer["followup_message"])
    assert hook(env, followup) == {"continue": True}
    assert hook(env, cursor("afterAgentResponse", "c4", root, generation="gen-2", text=SHORT)) == {}
    assert hook(env, cursor("stop", "c4", root, generation="gen-2", loop_count=1)) == {}


def test_the_budget_ends_the_followups(project: Path, env: dict[str, str]) -> None:
    root = str(project)
    hook(env, cursor("beforeSubmitPrompt", "c5", root, prompt="summarise what you changed"))
    asked = []
    for loop in range(5):
        hook(env, cursor("afterAgentResponse", "c5", root, generation=f"gen-{loop}", text=LONG))
        asked.append("followup_message" in hook(env, cursor("stop", "c5", root, loop_count=loop)))
    assert asked == [True, True, True, False, False]


def test_an_aborted_stop_or_a_stop_without_a_reply_asks_nothing(project: Path, env: dict[str, str]) -> None:
    root = str(project)
    hook(env, cursor("afterAgentResponse", "c6", root, text=LONG))
    assert hook(env, cursor("stop", "c6", root, status="aborted")) == {}
    assert hook(env, cursor("stop", "c7", root)) == {}


def test_session_start_gives_context_and_odd_input_allows(project: Path, env: dict[str, str]) -> None:
    answer = hook(env, cursor("sessionStart", "c8", str(project)))
    assert set(answer) <= {"additional_context"}
    assert hook(env, "not json") == {}
    assert hook(env, {"hook_event_name": "beforeShellExecution", "command": "pip install x"}) == {}
    assert hook(env, cursor("beforeReadFile", "c8", str(project), file_path=".env", content="A=1")) == {}
