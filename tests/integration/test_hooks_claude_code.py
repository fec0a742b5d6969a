"""Claude Code hooks through the real `python -m heedful.hookmain claude-code` subprocess.

Payloads are shaped like Claude Code's (session_id, transcript_path, cwd, permission_mode,
hook_event_name, tool_name, tool_input, tool_use_id, tool_response, stop_hook_active,
last_assistant_message); answers are checked field by field.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from heedful.api import Heedful
from heedful.integrations.payloads import claude, claude_bash, claude_write, hook_env, run_hook


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "app"
    path.mkdir()
    return path.resolve()


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing")


def hook(env: dict[str, str], payload: dict[str, Any]) -> dict[str, Any] | None:
    code, out, err, _ = run_hook("claude-code", payload, env)
    assert code == 0, err
    return json.loads(out) if out.strip() else None


def teach(home: Path, project: Path, *texts: str, user: str = "me") -> None:
    with Heedful.open(home, embedder="hashing") as hf:
        for text in texts:
            result = hf.rules.learn(user, text, project=project)
            assert result.actions, (text, result.reasons)


def drain(home: Path, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "heedful", "jobs", "drain", "--json", "--home", str(home)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_pre_tool_use_denies_pip_and_allows_uv(home: Path, project: Path, env: dict[str, str]) -> None:
    teach(home, project, "use uv, not pip, in this repo")
    answer = hook(env, claude_bash("s1", str(project), "pip install x"))
    assert answer is not None
    out = answer["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
    reason = out["permissionDecisionReason"]
    assert "Use uv, not pip." in reason and "pip install x" in reason and "uv pip install x" in reason
    assert set(answer) == {"hookSpecificOutput"}
    assert hook(env, claude_bash("s1", str(project), "uv pip install x")) is None


def test_project_rule_is_not_enforced_in_another_project(
    home: Path, project: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    teach(home, project, "use uv, not pip, in this repo")
    other = tmp_path / "other"
    other.mkdir()
    assert hook(env, claude_bash("s1", str(other), "pip install x")) is None


def test_rules_are_per_user(home: Path, project: Path, env: dict[str, str]) -> None:
    teach(home, project, "never push to main", user="alice")
    assert hook(env, claude_bash("s1", str(project), "git push origin main")) is None
    alice = {**env, "HEEDFUL_USER": "alice"}
    assert (
        hook(alice, claude_bash("s1", str(project), "git push origin main"))["hookSpecificOutput"]["permissionDecision"]
        == "deny"
    )


def test_prompt_is_learned_in_the_background_and_enforced_next_turn(
    home: Path, project: Path, env: dict[str, str]
) -> None:
    cwd = str(project)
    assert hook(env, claude("UserPromptSubmit", "s1", cwd, prompt="add requests to the project")) is None
    assert hook(env, claude_bash("s1", cwd, "pip install requests")) is None
    assert hook(env, claude("Stop", "s1", cwd, last_assistant_message="I ran pip install requests.")) is None
    assert hook(env, claude("UserPromptSubmit", "s1", cwd, prompt="don't use pip in this repo, use uv instead")) is None
    with Heedful.open(home, embedder="hashing") as hf:
        jobs = hf.store.jobs.list(user_id="me")
        payload = next(j.payload for j in jobs if "uv instead" in j.payload["text"])
        assert payload["project"] == cwd and payload["source"] == "user"
        assert {"role": "assistant", "text": "I ran pip install requests."} in payload["context"]
        assert {"role": "user", "text": "add requests to the project"} in payload["context"]
    assert drain(home, env)["done"] == 2
    # The turn that taught the rule keeps the library version it adopted.
    assert hook(env, claude_bash("s1", cwd, "pip install httpx")) is None
    answer = hook(env, claude("UserPromptSubmit", "s2", cwd, prompt="install httpx for the client"))
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "Don't use pip in this repo, use uv instead." in context and "take precedence" in context
    denied = hook(env, claude_bash("s2", cwd, "pip install httpx"))
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_session_start_injects_a_compact_index(home: Path, project: Path, env: dict[str, str]) -> None:
    assert hook(env, claude("SessionStart", "s1", str(project))) is None
    teach(home, project, "never push to main", "use uv, not pip, in this repo")
    answer = hook(env, claude("SessionStart", "s2", str(project)))
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Never push to main." in context and "Use uv, not pip. [this project]" in context
    assert len(context) < 10_000


def test_stop_asks_for_a_revision_until_tests_ran(home: Path, project: Path, env: dict[str, str]) -> None:
    teach(home, project, "always run pytest before saying you are done")
    cwd = str(project)
    hook(env, claude("UserPromptSubmit", "s1", cwd, prompt="fix the parser"))
    target = str(project / "parser.py")
    hook(env, claude_write("s1", cwd, target, "x = 1\n"))
    (project / "parser.py").write_text("x = 1\n")
    hook(env, claude_write("s1", cwd, target, "x = 1\n", event="PostToolUse"))
    answer = hook(env, claude("Stop", "s1", cwd, last_assistant_message="Fixed the parser."))
    assert answer is not None and answer["decision"] == "block" and set(answer) == {"decision", "reason"}
    assert "pytest" in answer["reason"] and "revision 1 of 3" in answer["reason"]
    hook(env, claude_bash("s1", cwd, "pytest -q", event="PostToolUse"))
    assert (
        hook(env, claude("Stop", "s1", cwd, last_assistant_message="Fixed; tests pass.", stop_hook_active=True)) is None
    )


def test_post_tool_use_records_created_files_for_the_leftover_check(
    home: Path, project: Path, env: dict[str, str]
) -> None:
    teach(home, project, "always remove scratch files you create")
    cwd = str(project)
    hook(env, claude("UserPromptSubmit", "s1", cwd, prompt="try the idea in a scratch file"))
    scratch = project / "scratch_try.py"
    hook(env, claude_write("s1", cwd, str(scratch), "print(1)\n", tool_use_id="toolu_w1"))
    scratch.write_text("print(1)\n")
    hook(env, claude_write("s1", cwd, str(scratch), "print(1)\n", event="PostToolUse", tool_use_id="toolu_w1"))
    answer = hook(env, claude("Stop", "s1", cwd, last_assistant_message="The idea works."))
    assert answer["decision"] == "block" and "scratch_try.py" in answer["reason"]
    scratch.unlink()
    assert hook(env, claude("Stop", "s1", cwd, last_assistant_message="The idea works.", stop_hook_active=True)) is None


def test_artifact_violation_answers_with_feedback(home: Path, project: Path, env: dict[str, str]) -> None:
    teach(home, project, "`debug` must never be `true` in config.json files")
    cwd = str(project)
    target = project / "config.json"
    target.write_text('{"debug": true}')
    answer = hook(env, claude_write("s1", cwd, str(target), '{"debug": true}', event="PostToolUse"))
    assert answer["decision"] == "block" and "debug" in answer["reason"]
    target.write_text('{"debug": false}')
    assert hook(env, claude_write("s1", cwd, str(target), '{"debug": false}', event="PostToolUse")) is None


def test_log_shows_what_was_blocked_and_why(home: Path, project: Path, env: dict[str, str]) -> None:
    teach(home, project, "never push to main")
    hook(env, claude_bash("s-log", str(project), "git push origin main"))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from heedful.commands.log import app; app()",
            "--json",
            "--session",
            "s-log",
            "--home",
            str(home),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    (entry,) = data["entries"]
    assert entry["action"] == "deny" and entry["rule_text"] == "Never push to main."
    assert entry["quotes"] == ["git push origin main"] and entry["stage"] == "pre_action"


def test_user_prompt_starts_a_detached_worker_that_learns_and_exits(home: Path, project: Path) -> None:
    import contextlib
    import os
    import time

    env = hook_env(home, user="me", worker=True, HEEDFUL_EMBEDDER="hashing", HEEDFUL_WORKER_IDLE_EXIT="1")
    assert hook(env, claude("UserPromptSubmit", "s1", str(project), prompt="never push to main")) is None
    pid = int((home / "run" / "worker.pid").read_text())
    deadline = time.monotonic() + 90
    learned = False
    while time.monotonic() < deadline and not learned:
        with Heedful.open(home, embedder="hashing") as hf:
            learned = [r["text"] for r in hf.rules.list("me")] == ["Never push to main."]
        time.sleep(0.2)
    assert learned
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            break
        with contextlib.suppress(ChildProcessError):  # not our child: it runs in its own session
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.2)
    else:
        raise AssertionError("the worker did not exit after its idle time")
