"""The real Codex CLI (`codex exec`) with heedful's hooks, against a scripted Responses API.

Codex runs commands through `bash -lc` (the sandbox's ~/.bash_profile puts the fake pip/uv first
again) and runs hooks only once trusted (`--dangerously-bypass-hook-trust` here).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agent_sandbox import AgentRun, Sandbox
from e2e_checks import require
from mock_models import ResponsesMock, Turn, call, say

LONG = (
    "Here is a thorough summary of everything I changed in the project today, including the "
    "parser, the tests, the documentation and the release notes, with every detail spelled out."
)
SHORT = "Updated parser, tests and docs."


@dataclass
class Played:
    box: Sandbox
    model: ResponsesMock
    runs: list[AgentRun]

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.model.agent_requests()


@pytest.fixture(scope="module", autouse=True)
def codex_cli() -> Path:
    return require("codex")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Makes scenarios: a fresh sandbox (Codex configured for the mock) and mock model each."""
    opened: list[tuple[Sandbox, ResponsesMock]] = []

    def make(turns: list[Turn], user_hooks: bool = False) -> tuple[Sandbox, ResponsesMock]:
        box = Sandbox(tmp_path_factory.mktemp("codex"))
        model = ResponsesMock(turns)
        opened.append((box, model))
        box.configure_codex(model.url)
        box.heedful("install", "codex", *([] if user_hooks else ["--project", str(box.project)]))
        return box, model

    yield make
    for box, model in opened:
        box.close()
        model.close()


def shell(command: str) -> Turn:
    return call("exec_command", cmd=command)


def outputs(request: dict[str, Any]) -> list[str]:
    """The outputs of the tool calls answered in this request (the latest turn's)."""
    items = request["input"]
    last_user = max((i for i, item in enumerate(items) if item.get("role") == "user"), default=-1)
    return [str(item.get("output")) for item in items[last_user + 1 :] if item.get("type", "").endswith("_output")]


def messages_after_last_reply(request: dict[str, Any]) -> str:
    """What the client added after the model's last answer (tool outputs, hook feedback)."""
    items = request["input"]
    model_items = ("function_call", "custom_tool_call")
    last = max(
        (i for i, item in enumerate(items) if item.get("type") in model_items or item.get("role") == "assistant"),
        default=-1,
    )
    return json.dumps(items[last + 1 :], ensure_ascii=False)


def final_message(run: AgentRun) -> str:
    assert run.returncode == 0, f"codex exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    return run.stdout.strip()


# -- 1. deny, then the allowed alternative ---------------------------------------------------------
@pytest.fixture(scope="module")
def pip_denied(world: Any) -> Played:
    box, model = world([shell("pip install requests"), shell("uv pip install requests"), say("Installed requests.")])
    box.learn("never use pip, we use uv")
    return Played(box, model, [box.codex("add requests to the project")])


def test_pip_is_denied_and_uv_runs(pip_denied: Played) -> None:
    assert final_message(pip_denied.runs[0]) == "Installed requests."
    assert pip_denied.box.ran("pip") == []
    assert pip_denied.box.ran("uv") == ["pip install requests"]
    assert len(pip_denied.requests) == 3 and pip_denied.model.overrun == 0
    assert any("uv: ok" in out for out in outputs(pip_denied.requests[2]))


def test_the_deny_reason_reaches_the_model(pip_denied: Played) -> None:
    (reason,) = outputs(pip_denied.requests[1])
    assert "Never use pip, we use uv." in reason and "pip install requests" in reason, reason
    entries = [e for e in pip_denied.box.log_entries() if e["action"] == "deny"]
    assert [e["quotes"] for e in entries] == [["pip install requests"]]


# -- 2. learning through UserPromptSubmit ------------------------------------------------------------
@pytest.fixture(scope="module")
def learned_in_session(world: Any) -> Played:
    box, model = world(
        [
            say("Understood: uv from now on."),
            shell("pip install httpx"),
            shell("uv pip install httpx"),
            say("Installed httpx with uv."),
            shell("pip install rich"),
            say("Not using pip."),
        ]
    )
    first = box.codex("don't use pip in this repo, we use uv")
    box.wait_for_rule("pip")
    second = box.codex("add httpx", resume=True)
    third = box.codex("add rich")
    return Played(box, model, [first, second, third])


def test_a_correction_is_learned_by_the_detached_worker(learned_in_session: Played) -> None:
    assert final_message(learned_in_session.runs[0]) == "Understood: uv from now on."
    texts = [rule["text"] for rule in learned_in_session.box.rules()]
    assert any("pip" in text and "uv" in text for text in texts), texts


def test_the_learned_rule_applies_in_the_next_turn_of_the_same_session(learned_in_session: Played) -> None:
    assert final_message(learned_in_session.runs[1]) == "Installed httpx with uv."
    assert "pip install httpx" in learned_in_session.box.ran("uv")
    assert "install httpx" not in learned_in_session.box.ran("pip")
    (denied,) = outputs(learned_in_session.requests[2])
    assert "pip install httpx" in denied, denied


def test_the_learned_rule_applies_in_a_new_session(learned_in_session: Played) -> None:
    assert final_message(learned_in_session.runs[2]) == "Not using pip."
    assert learned_in_session.box.ran("pip") == []
    (denied,) = outputs(learned_in_session.requests[-1])
    assert "pip install rich" in denied, denied


# -- 3. Stop: revision requests, then compliance; and the repair budget ---------------------------
@pytest.fixture(scope="module")
def revised(world: Any) -> Played:
    box, model = world([say(LONG), say(SHORT)])
    box.learn("keep final replies under 20 words")
    return Played(box, model, [box.codex("summarise what you changed")])


def test_a_long_reply_is_sent_back_and_the_revision_delivered(revised: Played) -> None:
    assert final_message(revised.runs[0]) == SHORT
    assert len(revised.requests) == 2
    feedback = messages_after_last_reply(revised.requests[1])
    assert "20 words" in feedback and "revision 1 of 3" in feedback, feedback
    actions = [e["action"] for e in revised.box.log_entries()]
    assert actions.count("revise") == 1 and "unresolved" not in actions


@pytest.fixture(scope="module")
def over_budget(world: Any) -> Played:
    box, model = world([say(LONG)] * 6)
    box.learn("keep final replies under 20 words")
    return Played(box, model, [box.codex("summarise what you changed")])


def test_the_budget_lets_the_reply_through_after_three_revisions(over_budget: Played) -> None:
    assert final_message(over_budget.runs[0]) == LONG
    assert len(over_budget.requests) == 4 and len(over_budget.model.turns) == 2
    assert "revision 3 of 3" in messages_after_last_reply(over_budget.requests[3])
    actions = [e["action"] for e in over_budget.box.log_entries()]
    assert actions.count("revise") == 3 and "unresolved" in actions


# -- 4. artifact checks on a JSON file written with a shell-wrapped patch ----------------------------
# Codex applies `apply_patch <<'EOF'` sent as a shell command itself and sends no PostToolUse for it
# (only PreToolUse), so heedful judges the file the patch would leave before it is applied.
ADD_CONFIG = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: config.json\n+{\"debug\": true}\n*** End Patch\nEOF\n"
FIXED_CONFIG = ADD_CONFIG.replace("true", "false")


@pytest.fixture(scope="module")
def artifact(world: Any) -> Played:
    box, model = world([shell(ADD_CONFIG), shell(FIXED_CONFIG), say("Config written.")])
    box.learn("`debug` must never be `true` in config.json files")
    return Played(box, model, [box.codex("write the config")])


def test_a_patched_file_is_judged_before_it_is_applied_and_the_fix_passes(artifact: Played) -> None:
    assert final_message(artifact.runs[0]) == "Config written."
    assert json.loads((artifact.box.project / "config.json").read_text()) == {"debug": False}
    assert len(artifact.requests) == 3
    (reason,) = outputs(artifact.requests[1])
    assert "must never be" in reason and "`debug` is `true`" in reason, reason
    assert "True" not in reason  # JSON spelling
    actions = [e["action"] for e in artifact.box.log_entries()]
    assert actions == ["deny"], actions


# -- 7. a shell-wrapped patch touching a forbidden path ----------------------------------------------
MIGRATION = (
    "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: migrations/001.sql\n"
    "+CREATE TABLE t (id INTEGER);\n*** End Patch\nEOF\n"
)


def test_a_shell_wrapped_patch_to_a_forbidden_path_is_denied(world: Any) -> None:
    box, model = world([shell(MIGRATION), say("Left migrations alone.")])
    box.learn("Never edit files under migrations/")
    run = box.codex("add the first migration")
    assert final_message(run) == "Left migrations alone."
    assert not (box.project / "migrations" / "001.sql").exists()
    (denied,) = outputs(model.agent_requests()[1])
    assert "migrations/" in denied


def test_redirections_to_a_forbidden_path_are_denied(world: Any) -> None:
    box, _model = world(
        [
            shell("mkdir -p migrations && echo 'CREATE TABLE t (id INTEGER);' > migrations/001.sql"),
            say("Left migrations alone."),
        ]
    )
    box.learn("Never edit files under migrations/")
    assert final_message(box.codex("add the first migration")) == "Left migrations alone."
    assert not (box.project / "migrations" / "001.sql").exists()


# -- hooks that are not trusted ------------------------------------------------------------------------
def test_doctor_reports_untrusted_codex_hooks(world: Any) -> None:
    box, _model = world([shell("pip install requests"), say("Done.")], user_hooks=True)
    box.learn("never use pip, we use uv")
    run = box.codex("add requests", trust_hooks=False)
    assert final_message(run) == "Done."
    assert box.ran("pip") == ["install requests"]  # Codex skipped the untrusted hooks: nothing enforced
    doctor = box.heedful("doctor", "--json", check=False)
    (codex,) = [c for c in json.loads(doctor.stdout)["checks"] if c["part"] == "codex hooks"]
    assert doctor.returncode == 1 and codex["ok"] is False and "not trusted" in codex["detail"], codex
