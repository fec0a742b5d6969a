"""The agent's own CLI as heedful's model: `heedful --model claude-cli|codex-cli rules learn "…"`
runs the real `claude -p` / `codex exec`, which asks a scripted model on 127.0.0.1.

The mock answers each learner step's prompt (admit, interpret, resolve, compile, review); the tests
assert that the learner's prompts reached the model, that its answers made the rule (wording the
offline learner would not produce), and that the child run fired none of heedful's hooks although
they are installed user-wide (and, for Codex, trusted for every run), while a normal run fires them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from agent_sandbox import BIN, RUN_TIMEOUT, Sandbox
from e2e_checks import require
from mock_models import (
    ADMIT,
    COMPILE,
    INTERPRET,
    REVIEW,
    AnthropicMock,
    ResponsesMock,
    ScriptedModel,
    call,
    learner_answers,
    say,
)

from pg_backend import count_rows

CORRECTION = "pip is banned here, we use uv"
RULE = "Never run pip; install packages with uv."  # the scripted model's wording, not the offline learner's


@dataclass
class Learned:
    box: Sandbox
    model: ScriptedModel
    env: dict[str, str]
    provider: str
    done: subprocess.CompletedProcess[str]

    @property
    def result(self) -> dict[str, Any]:
        assert self.done.returncode == 0, f"rules learn failed:\n{self.done.stdout}\n{self.done.stderr}"
        return json.loads(self.done.stdout)


def learn(box: Sandbox, env: dict[str, str], provider: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "heedful", "--model", provider, "rules", "learn", CORRECTION]
    argv += ["--project", str(box.project), "--json"]
    return subprocess.run(argv, cwd=box.project, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT * 2)


def hook_traces(box: Sandbox) -> dict[str, int]:
    """Rows only heedful's hooks write: the sessions they saw and the prompts they queued for learning."""
    if not (box.heedful_home / "heedful.db").exists() and not (box.heedful_home / "config.toml").exists():
        return {"sessions": 0, "jobs": 0}
    return {"sessions": count_rows(box.heedful_home, "enforce_sessions"), "jobs": count_rows(box.heedful_home, "jobs")}


@pytest.fixture(scope="module")
def claude_learned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Learned]:
    require("claude")
    box = Sandbox(tmp_path_factory.mktemp("claude-cli"))
    model = AnthropicMock([call("Bash", command="pip install rich", description="Install"), say("Not with pip.")])
    model.answers += learner_answers(RULE, "pip is banned here", "pip", "uv")
    box.heedful("install", "claude-code")  # user-level hooks: they would fire in any directory
    env = box.claude_env(model.url) | {"HEEDFUL_HOOK_WORKER": "0"}
    yield Learned(box, model, env, "claude-cli", learn(box, env, "claude-cli"))
    box.close()
    model.close()


@pytest.fixture(scope="module")
def codex_learned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Learned]:
    real = require("codex")
    box = Sandbox(tmp_path_factory.mktemp("codex-cli"))
    model = ResponsesMock([call("exec_command", cmd="pip install rich"), say("Not with pip.")])
    model.answers += learner_answers(RULE, "pip is banned here", "pip", "uv")
    box.configure_codex(model.url)
    box.heedful("install", "codex")
    # Codex skips hooks nobody trusted; this wrapper trusts them for every `codex exec`, the child
    # run included, so only the provider's own switches can keep heedful's hooks out of it.
    wrapper = box.root / "trusting" / "codex"
    wrapper.parent.mkdir()
    wrapper.write_text(
        f'#!/bin/sh\nif [ "$1" = exec ]; then shift; exec "{real}" exec --dangerously-bypass-hook-trust "$@"; fi\n'
        f'exec "{real}" "$@"\n'
    )
    wrapper.chmod(0o755)
    env = box.env(MOCK_MODEL_KEY="dummy", HEEDFUL_HOOK_WORKER="0")
    env["PATH"] = f"{wrapper.parent}:{env['PATH']}"
    yield Learned(box, model, env, "codex-cli", learn(box, env, "codex-cli"))
    box.close()
    model.close()


@pytest.fixture(params=["claude", "codex"])
def learned(request: pytest.FixtureRequest) -> Learned:
    return request.getfixturevalue(f"{request.param}_learned")


def test_the_learned_rule_is_the_models_answer(learned: Learned) -> None:
    (action,) = learned.result["actions"]
    rule = action["rule"]
    assert action["op"] == "new" and rule["text"] == RULE, rule
    assert rule["status"] == "checked" and rule["check"]["kind"] == "forbidden_command"
    assert rule["check"]["params"] == {"program": "pip", "alternatives": ["uv"]}
    assert rule["evidence"] == ["pip is banned here"]
    assert [r["text"] for r in learned.box.rules()] == [RULE]


def test_the_learners_prompts_reached_the_model(learned: Learned) -> None:
    for marker in (ADMIT, INTERPRET, COMPILE, REVIEW):
        assert learned.model.answered(marker), f"no request for the step that says {marker!r}"
    (interpret,) = learned.model.answered(INTERPRET)
    assert CORRECTION in json.dumps(interpret, ensure_ascii=False)
    usage = (learned.box.heedful_home / "logs" / "model-usage.jsonl").read_text().splitlines()
    providers = {json.loads(line)["provider"] for line in usage}
    assert providers == {learned.provider}, usage
    assert all(json.loads(line)["outcome"] == "ok" for line in usage), usage


def test_the_child_run_fires_no_heedful_hook(learned: Learned) -> None:
    assert learned.result["actions"]
    assert hook_traces(learned.box) == {"sessions": 0, "jobs": 0}


def test_claude_hooks_do_fire_in_a_normal_run(claude_learned: Learned) -> None:
    """The control: the same sandbox, a normal Claude Code run; its hooks record it and deny pip."""
    box = claude_learned.box
    before = len(claude_learned.model.agent_requests())
    run = box.run(
        [str(BIN / "claude"), "-p", "add rich", "--output-format", "json", "--dangerously-skip-permissions"],
        box.project,
        claude_learned.env,
    )
    assert run.returncode == 0, run.stderr
    assert hook_traces(box)["sessions"] == 1
    assert box.ran("pip") == []
    denied = claude_learned.model.sent_text(before)
    assert RULE in denied and "pip install rich" in denied


def test_codex_hooks_do_fire_in_a_normal_run(codex_learned: Learned) -> None:
    box = codex_learned.box
    before = len(codex_learned.model.agent_requests())
    argv = ["codex", "exec", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "add rich"]
    run = box.run(argv, box.project, codex_learned.env)
    assert run.returncode == 0, run.stderr
    assert hook_traces(box)["sessions"] == 1
    assert box.ran("pip") == []
    assert RULE in codex_learned.model.sent_text(before)
