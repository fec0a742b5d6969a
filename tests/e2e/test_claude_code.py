"""The real Claude Code CLI (`claude -p`) with heedful's hooks, against a scripted Messages API.

Each scenario runs once per module (a fixture); its tests assert on what the CLI printed, what
the fake `pip`/`uv` recorded, what heedful logged and what Claude Code sent back to the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agent_sandbox import AgentRun, Sandbox
from e2e_checks import known_defect, require
from mock_models import AnthropicMock, Turn, call, say

MCP = "mcp__plugin_heedful_heedful__"
PLUGIN = Path(__file__).resolve().parents[2] / "plugin"
LONG = (
    "Here is a thorough summary of everything I changed in the project today, including the "
    "parser, the tests, the documentation and the release notes, with every detail spelled out."
)
SHORT = "Updated parser, tests and docs."


@dataclass
class Played:
    box: Sandbox
    model: AnthropicMock
    runs: list[AgentRun]

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.model.agent_requests()


@pytest.fixture(scope="module", autouse=True)
def claude_cli() -> Path:
    return require("claude")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Makes scenarios: a fresh sandbox and mock model each, closed at the end of the module."""
    opened: list[tuple[Sandbox, AnthropicMock]] = []

    def make(turns: list[Turn]) -> tuple[Sandbox, AnthropicMock]:
        box = Sandbox(tmp_path_factory.mktemp("claude"))
        model = AnthropicMock(turns)
        opened.append((box, model))
        return box, model

    yield make
    for box, model in opened:
        box.close()
        model.close()


def bash(command: str) -> Turn:
    return call("Bash", command=command, description="Run a command")


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of the latest user message that has any (system notes may follow it)."""
    for message in reversed(request["messages"]):
        content = message["content"]
        if message["role"] != "user" or isinstance(content, str):
            continue
        blocks = [block for block in content if isinstance(block, dict) and block.get("type") == "tool_result"]
        if blocks:
            return blocks
    return []


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(part.get("text") or part.get("tool_name", "") for part in content if isinstance(part, dict))
    return str(content)


def last_user_text(request: dict[str, Any]) -> str:
    """Everything in the last user message (text blocks, tool results, reminders) as one string."""
    return json.dumps(request["messages"][-1]["content"], ensure_ascii=False)


def succeeded(run: AgentRun) -> dict[str, Any]:
    assert run.returncode == 0, f"claude exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    result = run.json()
    assert result["is_error"] is False, result
    return result


# -- 1. deny, then the allowed alternative ---------------------------------------------------------
@pytest.fixture(scope="module")
def pip_denied(world: Any) -> Played:
    box, model = world([bash("pip install requests"), bash("uv pip install requests"), say("Installed requests.")])
    box.heedful("install", "claude-code", "--project", str(box.project))
    box.learn("never use pip, we use uv")
    run = box.claude("add requests to the project", model.url)
    return Played(box, model, [run])


def test_pip_is_denied_and_uv_runs(pip_denied: Played) -> None:
    assert succeeded(pip_denied.runs[0])["result"] == "Installed requests."
    assert pip_denied.box.ran("pip") == []
    assert pip_denied.box.ran("uv") == ["pip install requests"]
    assert len(pip_denied.requests) == 3 and pip_denied.model.overrun == 0
    (ran,) = tool_results(pip_denied.requests[2])
    assert "uv: ok" in result_text(ran)


def test_the_deny_reason_reaches_the_model(pip_denied: Played) -> None:
    (denied,) = tool_results(pip_denied.requests[1])
    reason = result_text(denied)
    assert denied["is_error"] is True
    assert "Never use pip, we use uv." in reason and "pip install requests" in reason, reason
    entries = [e for e in pip_denied.box.log_entries() if e["action"] == "deny"]
    assert [e["quotes"] for e in entries] == [["pip install requests"]]


def test_the_deny_names_the_rules_alternative(pip_denied: Played) -> None:
    reason = result_text(tool_results(pip_denied.requests[1])[0])
    known_defect(
        "uv pip install requests" in reason,
        "Messages: the deny's 'Instead:' does not name the alternative the rule gives",
        reason,
    )


# -- 2. learning through UserPromptSubmit, enforced in the same session's next turn and a new one ---
@pytest.fixture(scope="module")
def learned_in_session(world: Any) -> Played:
    box, model = world(
        [
            say("Understood: uv from now on."),
            bash("pip install httpx"),
            bash("uv pip install httpx"),
            say("Installed httpx with uv."),
            bash("pip install rich"),
            say("Not using pip."),
        ]
    )
    box.heedful("install", "claude-code", "--project", str(box.project))
    first = box.claude("don't use pip in this repo, we use uv", model.url)
    box.wait_for_rule("pip")
    session = first.json()["session_id"]
    second = box.claude("add httpx", model.url, args=("--resume", session))
    third = box.claude("add rich", model.url)
    return Played(box, model, [first, second, third])


def test_a_correction_is_learned_by_the_detached_worker(learned_in_session: Played) -> None:
    assert succeeded(learned_in_session.runs[0])["result"] == "Understood: uv from now on."
    texts = [rule["text"] for rule in learned_in_session.box.rules()]
    assert any("pip" in text and "uv" in text for text in texts), texts


def test_the_learned_rule_applies_in_the_next_turn_of_the_same_session(learned_in_session: Played) -> None:
    assert succeeded(learned_in_session.runs[1])["result"] == "Installed httpx with uv."
    assert "pip install httpx" in learned_in_session.box.ran("uv")
    assert "install httpx" not in learned_in_session.box.ran("pip")
    (denied,) = tool_results(learned_in_session.requests[2])
    assert denied["is_error"] is True and "pip install httpx" in result_text(denied)


def test_a_rule_taught_in_this_session_is_not_called_earlier(learned_in_session: Played) -> None:
    reason = result_text(tool_results(learned_in_session.requests[2])[0])
    assert "earlier session" not in reason, reason


def test_the_learned_rule_applies_in_a_new_session(learned_in_session: Played) -> None:
    run = learned_in_session.runs[2]
    assert succeeded(run)["result"] == "Not using pip."
    assert learned_in_session.box.ran("pip") == []
    (denied,) = tool_results(learned_in_session.requests[-1])
    assert denied["is_error"] is True and "pip install rich" in result_text(denied)
    # The new session's first request carried the rule in (SessionStart / UserPromptSubmit context).
    rule = learned_in_session.box.wait_for_rule("pip")["text"]
    first_request = next(r for r in learned_in_session.requests if "add rich" in json.dumps(r["messages"]))
    assert rule in json.dumps(first_request["messages"], ensure_ascii=False)


# -- 3. Stop: revision requests, then compliance; and the repair budget ---------------------------
@pytest.fixture(scope="module")
def revised(world: Any) -> Played:
    box, model = world([say(LONG), say(SHORT)])
    box.heedful("install", "claude-code", "--project", str(box.project))
    box.learn("keep final replies under 20 words")
    return Played(box, model, [box.claude("summarise what you changed", model.url)])


def test_a_long_reply_is_sent_back_and_the_revision_delivered(revised: Played) -> None:
    assert succeeded(revised.runs[0])["result"] == SHORT
    assert len(revised.requests) == 2
    feedback = last_user_text(revised.requests[1])
    assert "20 words" in feedback and "revision 1 of 3" in feedback, feedback
    actions = [e["action"] for e in revised.box.log_entries()]
    assert actions.count("revise") == 1 and "unresolved" not in actions


@pytest.fixture(scope="module")
def over_budget(world: Any) -> Played:
    box, model = world([say(LONG)] * 6)
    box.heedful("install", "claude-code", "--project", str(box.project))
    box.learn("keep final replies under 20 words")
    return Played(box, model, [box.claude("summarise what you changed", model.url)])


def test_the_budget_lets_the_reply_through_after_three_revisions(over_budget: Played) -> None:
    assert succeeded(over_budget.runs[0])["result"] == LONG
    assert len(over_budget.requests) == 4 and len(over_budget.model.turns) == 2
    assert "revision 3 of 3" in last_user_text(over_budget.requests[3])
    actions = [e["action"] for e in over_budget.box.log_entries()]
    assert actions.count("revise") == 3 and "unresolved" in actions


def test_revision_requests_do_not_repeat_the_appeal_invitation(over_budget: Played) -> None:
    later = [last_user_text(request) for request in over_budget.requests[2:]]
    assert "heedful-appeal" in last_user_text(over_budget.requests[1])  # said with the first request only
    assert not any("heedful-appeal" in text for text in later), later[-1]


@pytest.fixture(scope="module")
def user_override(world: Any) -> Played:
    box, model = world([say(LONG), say(LONG)])
    box.heedful("install", "claude-code", "--project", str(box.project))
    box.learn("keep final replies under 20 words")
    run = box.claude("give me a 30-word summary of what you changed; longer than usual is fine this time", model.url)
    return Played(box, model, [run])


def test_an_explicit_user_request_overrides_the_rule_for_the_turn(user_override: Played) -> None:
    assert succeeded(user_override.runs[0])["result"] == LONG
    assert len(user_override.requests) == 1, last_user_text(user_override.requests[-1])  # no round trip
    actions = [e["action"] for e in user_override.box.log_entries()]
    assert actions == ["yielded"], actions


# -- 4. PostToolUse feedback on a written JSON file -------------------------------------------------
@pytest.fixture(scope="module")
def artifact(world: Any) -> Played:
    box, model = world([])
    target = str(box.project / "config.json")
    model.turns += [
        call("Write", file_path=target, content='{"debug": true}\n'),
        call("Write", file_path=target, content='{"debug": false}\n'),
        say("Config written."),
    ]
    box.heedful("install", "claude-code", "--project", str(box.project))
    box.learn("`debug` must never be `true` in config.json files")
    return Played(box, model, [box.claude("write the config", model.url)])


def test_a_written_file_gets_feedback_and_the_fix_passes(artifact: Played) -> None:
    assert succeeded(artifact.runs[0])["result"] == "Config written."
    assert json.loads((artifact.box.project / "config.json").read_text()) == {"debug": False}
    assert len(artifact.requests) == 3
    feedback = last_user_text(artifact.requests[1])
    assert "debug" in feedback and "config.json" in feedback, feedback
    assert "debug" not in last_user_text(artifact.requests[2]).replace('\\"debug\\": false', "")
    actions = [e["action"] for e in artifact.box.log_entries()]
    assert actions.count("feedback") == 1


def test_json_feedback_uses_json_spelling(artifact: Played) -> None:
    feedback = last_user_text(artifact.requests[1])
    assert "`debug` is `true`" in feedback, feedback
    assert "True" not in feedback and "False" not in feedback, feedback


# -- 5. the plugin, from the local marketplace ------------------------------------------------------
@pytest.fixture(scope="module")
def plugin(world: Any) -> Played:
    # The plugin's MCP server is still connecting at the first request: the model finds its tools
    # through ToolSearch (as Claude Code tells it to), calls one, then tries pip.
    box, model = world(
        [
            call("ToolSearch", query="+heedful", max_results=10),
            call(f"{MCP}list_rules"),
            bash("pip install requests"),
            say("Stopped: pip is not allowed."),
        ]
    )
    env = box.claude_env(model.url)
    claude = str(require("claude"))
    added = box.run([claude, "plugin", "marketplace", "add", str(PLUGIN)], box.project, env)
    installed = box.run([claude, "plugin", "install", "heedful@heedful"], box.project, env)
    box.learn("never use pip, we use uv")
    run = box.claude("add requests", model.url)
    return Played(box, model, [added, installed, run])


def test_the_plugin_installs_from_the_local_marketplace(plugin: Played) -> None:
    for step in plugin.runs[:2]:
        assert step.returncode == 0, f"{step.stdout}\n{step.stderr}"
    settings = json.loads((plugin.box.home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"].get("heedful@heedful") is True, settings


def test_the_plugins_mcp_server_offers_its_tools(plugin: Played) -> None:
    assert succeeded(plugin.runs[2])["result"] == "Stopped: pip is not allowed."
    found = result_text(tool_results(plugin.requests[1])[0])
    names = set(re.findall(rf"{MCP}(\w+)", found))
    assert names == {"remember", "recall", "forget", "list_rules", "learn_rule", "retract_rule", "check"}, found
    listed = result_text(tool_results(plugin.requests[2])[0])
    assert "Never use pip, we use uv." in listed, listed


def test_mcp_results_are_structured_not_json_strings_in_json(plugin: Played) -> None:
    listed = json.loads(result_text(tool_results(plugin.requests[2])[0]))
    assert isinstance(listed, dict) and isinstance(listed.get("rules"), list), json.dumps(listed)[:200]
    assert not isinstance(listed.get("result"), str)


def test_the_plugin_hooks_deny(plugin: Played) -> None:
    assert plugin.box.ran("pip") == []
    (denied,) = tool_results(plugin.requests[3])
    assert denied["is_error"] is True and "Never use pip" in result_text(denied)


def test_the_plugin_says_so_when_heedful_hook_is_missing(world: Any) -> None:
    box, model = world([say("Hello.")])
    env = box.claude_env(model.url, with_tools=False)
    claude = str(require("claude"))
    for argv in (["plugin", "marketplace", "add", str(PLUGIN)], ["plugin", "install", "heedful@heedful"]):
        step = box.run([claude, *argv], box.project, env)
        assert step.returncode == 0, step.stderr
    run = box.claude("hello", model.url, with_tools=False)
    assert succeeded(run)["result"] == "Hello."
    first = json.dumps(model.agent_requests()[0]["messages"])
    assert "heedful-hook is not on PATH" in first, first[-500:]


# -- 6. started in a subdirectory, with user-level hooks -------------------------------------------
def test_rules_apply_when_started_in_a_subdirectory(world: Any) -> None:
    box, model = world([bash("pip install requests"), bash("uv pip install requests"), say("Installed.")])
    box.heedful("install", "claude-code")
    box.learn("never use pip, we use uv")
    run = box.claude("add requests", model.url, cwd=box.project / "src")
    assert succeeded(run)["result"] == "Installed."
    assert box.ran("pip") == [], f"pip ran: {box.ran('pip')}"
    (denied,) = tool_results(model.agent_requests()[1])
    assert denied["is_error"] is True
    # The rule commands resolve a subdirectory to the project as well.
    assert [rule["text"] for rule in box.rules(box.project / "src")] == [rule["text"] for rule in box.rules()]


# -- a narrower command than the rule names -------------------------------------------------------
def test_force_with_lease_is_not_forbidden_by_a_no_force_push_rule(world: Any) -> None:
    box, model = world([bash("git push --force-with-lease origin main"), say("Pushed.")])
    box.heedful("install", "claude-code", "--project", str(box.project))
    box.learn("never run git push --force")
    assert succeeded(box.claude("push the branch", model.url))["result"] == "Pushed."
    (pushed,) = tool_results(model.agent_requests()[1])
    assert not pushed.get("is_error"), result_text(pushed)
    assert "up-to-date" in result_text(pushed).lower()
