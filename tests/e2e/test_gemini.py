"""The real Gemini CLI (`gemini -p`) with heedful's hooks, against a scripted Gemini API.

Gemini CLI reads `GOOGLE_GEMINI_BASE_URL`; with an API key it needs `security.auth.selectedType`
in its settings, and a model named on the command line (`-m`) so that it does not first ask a
classifier which model to use. `--yolo` approves tool calls (the hooks still run before them).
Folder trust is off in the sandbox's settings, as after the user trusted the folder: Gemini CLI
runs settings hooks only in a trusted folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agent_sandbox import BIN, AgentRun, Sandbox
from e2e_checks import require
from gemini_mock import GeminiMock, function_responses, last_user_text
from mock_models import Turn, call, say

LONG = (
    "Here is a thorough summary of everything I changed in the project today, including the "
    "parser, the tests, the documentation and the release notes, with every detail spelled out."
)
SHORT = "Updated parser, tests and docs."
MODEL = "gemini-2.5-flash"


@dataclass
class Played:
    box: Sandbox
    model: GeminiMock
    runs: list[AgentRun]

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.model.agent_requests()


@pytest.fixture(scope="module", autouse=True)
def gemini_cli() -> Path:
    return require("gemini")


def configure(box: Sandbox) -> None:
    settings = box.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        json.dumps(
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
                "general": {"disableAutoUpdate": True},
                "privacy": {"usageStatisticsEnabled": False},
            }
        )
    )


def gemini(box: Sandbox, model: GeminiMock, prompt: str, cwd: Path | None = None) -> AgentRun:
    argv = [str(BIN / "gemini"), "-m", MODEL, "--yolo", "--output-format", "json", "-p", prompt]
    env = box.env(GEMINI_API_KEY="e2e-dummy", GOOGLE_GEMINI_BASE_URL=model.url, NO_COLOR="1")
    return box.run(argv, cwd or box.project, env)


def response(run: AgentRun) -> str:
    """The reply `--output-format json` printed (one pretty-printed object)."""
    assert run.returncode == 0, f"gemini exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    start = run.stdout.find("{")
    assert start >= 0, f"no JSON on stdout:\n{run.stdout}\n{run.stderr}"
    result, _ = json.JSONDecoder().raw_decode(run.stdout[start:])
    return str(result["response"]).strip()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Makes scenarios: a fresh sandbox (Gemini CLI configured, heedful's hooks installed) and mock model."""
    opened: list[tuple[Sandbox, GeminiMock]] = []

    def make(turns: list[Turn], user_hooks: bool = True) -> tuple[Sandbox, GeminiMock]:
        box = Sandbox(tmp_path_factory.mktemp("gemini"))
        model = GeminiMock(turns)
        opened.append((box, model))
        configure(box)
        box.heedful("install", "gemini", "--no-import", *([] if user_hooks else ["--project", str(box.project)]))
        return box, model

    yield make
    for box, model in opened:
        box.close()
        model.close()


def shell(command: str) -> Turn:
    return call("run_shell_command", command=command, description="Run a command")


# -- 1. deny, then the allowed alternative ---------------------------------------------------------
@pytest.fixture(scope="module")
def pip_denied(world: Any) -> Played:
    box, model = world([shell("pip install requests"), shell("uv pip install requests"), say("Installed requests.")])
    box.learn("never use pip, we use uv")
    return Played(box, model, [gemini(box, model, "add requests to the project")])


def test_pip_is_denied_and_uv_runs(pip_denied: Played) -> None:
    assert response(pip_denied.runs[0]) == "Installed requests."
    assert pip_denied.box.ran("pip") == []
    assert pip_denied.box.ran("uv") == ["pip install requests"]
    assert len(pip_denied.requests) == 3 and pip_denied.model.overrun == 0


def test_the_deny_reason_reaches_the_model_as_the_tool_error(pip_denied: Played) -> None:
    (reason,) = function_responses(pip_denied.requests[1])
    assert "Never use pip, we use uv." in reason and "pip install requests" in reason, reason
    entries = [e for e in pip_denied.box.log_entries() if e["action"] == "deny"]
    assert [e["quotes"] for e in entries] == [["pip install requests"]]


# -- 2. AfterAgent: the reply is rejected and revised -----------------------------------------------
# Gemini CLI 0.61 has already printed the rejected draft (`-p` output holds the draft, then the
# revision), and on the retry sends both replies as `prompt_response`: only the revision is judged.
@pytest.fixture(scope="module")
def revised(world: Any) -> Played:
    box, model = world([say(LONG), say(SHORT)])
    box.learn("keep final replies under 20 words")
    return Played(box, model, [gemini(box, model, "summarise what you changed")])


def test_a_long_reply_is_rejected_and_the_revision_delivered(revised: Played) -> None:
    assert response(revised.runs[0]).endswith(SHORT)
    assert len(revised.requests) == 2 and revised.model.overrun == 0
    feedback = last_user_text(revised.requests[1])
    assert "20 words" in feedback and "revision 1 of 3" in feedback, feedback
    actions = [e["action"] for e in revised.box.log_entries()]
    assert actions.count("revise") == 1 and "unresolved" not in actions


def test_the_budget_lets_the_reply_through_after_three_revisions(world: Any) -> None:
    box, model = world([say(LONG)] * 6)
    box.learn("keep final replies under 20 words")
    assert response(gemini(box, model, "summarise what you changed")).endswith(LONG)
    assert len(model.agent_requests()) == 4 and len(model.turns) == 2
    assert "revision 3 of 3" in last_user_text(model.agent_requests()[3])
    actions = [e["action"] for e in box.log_entries()]
    assert actions.count("revise") == 3 and "unresolved" in actions


# -- 3. AfterTool: a written file's check is fed back with the tool's result ------------------------
@pytest.fixture(scope="module")
def artifact(world: Any) -> Played:
    write = call("write_file", file_path="config.json", content='{"debug": true}\n')
    fix = call("write_file", file_path="config.json", content='{"debug": false}\n')
    box, model = world([write, fix, say("Config written.")])
    box.learn("`debug` must never be `true` in config.json files")
    return Played(box, model, [gemini(box, model, "write the config")])


def test_a_written_file_is_judged_and_the_fix_passes(artifact: Played) -> None:
    assert response(artifact.runs[0]) == "Config written."
    assert json.loads((artifact.box.project / "config.json").read_text()) == {"debug": False}
    (result,) = function_responses(artifact.requests[1])
    assert "must never be" in result and "`debug` is `true`" in result, result


# -- 4. learning through BeforeAgent, enforced in the next session ----------------------------------
@pytest.fixture(scope="module")
def learned(world: Any) -> Played:
    box, model = world([say("Understood: uv from now on."), shell("pip install rich"), say("Not using pip.")])
    first = gemini(box, model, "don't use pip in this repo, we use uv")
    box.wait_for_rule("pip")
    second = gemini(box, model, "add rich")
    return Played(box, model, [first, second])


def test_a_correction_is_learned_and_enforced_in_a_new_session(learned: Played) -> None:
    assert response(learned.runs[0]) == "Understood: uv from now on."
    assert response(learned.runs[1]) == "Not using pip."
    assert learned.box.ran("pip") == []
    (denied,) = function_responses(learned.requests[-1])
    assert "pip install rich" in denied, denied


# -- 5. project settings -----------------------------------------------------------------------------
def test_project_hooks_deny_too(world: Any) -> None:
    box, model = world([shell("pip install requests"), say("Left pip alone.")], user_hooks=False)
    box.learn("never use pip, we use uv")
    assert response(gemini(box, model, "add requests")) == "Left pip alone."
    assert box.ran("pip") == []


# -- 6. the rules already written in GEMINI.md, imported by `install --import` -----------------------
GEMINI_MD = """# Project notes

This service ships every Friday.

## Rules
- Never use pip; we use uv.
- Keep final replies under 20 words.
"""


def test_install_import_enforces_the_projects_gemini_md(world: Any) -> None:
    box, model = world([shell("pip install requests"), shell("uv pip install requests"), say("Installed.")])
    (box.project / "GEMINI.md").write_text(GEMINI_MD)
    done = box.heedful("install", "gemini", "--project", str(box.project), "--import", "--json")
    imported = json.loads(done.stdout)["import"]
    assert imported["imported"] is True and imported["report"]["counts"]["checked"] >= 2, imported
    assert response(gemini(box, model, "add requests")) == "Installed."
    assert box.ran("pip") == [] and box.ran("uv") == ["pip install requests"]
