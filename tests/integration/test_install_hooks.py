"""install / uninstall round trips on settings files that already hold other hooks and settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from heedful.integrations.install import EVENTS, MARK, SCRIPT, portable_command

EXISTING: dict[str, Any] = {
    "model": "sonnet",
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "say hi"}]}],
    },
}


def run(app: str, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env["HOME"] = str(home)
    code = f"from heedful.commands.install import {app}; {app}()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=60)


def ours(data: dict[str, Any], platform: str) -> dict[str, int]:
    def mine(command: str) -> bool:
        return f"{MARK} {platform}" in command or f"{SCRIPT} {platform}" in command

    return {
        event: sum(1 for g in groups for h in g["hooks"] if mine(h.get("command", "")))
        for event, groups in data.get("hooks", {}).items()
    }


def mine_group(group: dict[str, Any], platform: str) -> bool:
    return any(f"{SCRIPT} {platform}" in h.get("command", "") for h in group.get("hooks", []))


@pytest.mark.parametrize(
    ("platform", "relative"), [("claude-code", ".claude/settings.json"), ("codex", ".codex/hooks.json")]
)
def test_project_round_trip_keeps_other_hooks(tmp_path: Path, platform: str, relative: str) -> None:
    project = tmp_path / "proj"
    settings = project / relative
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(EXISTING, indent=2))
    done = run("install_app", platform, "--project", str(project), "--json", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changed"] == list(EVENTS[platform])
    data = json.loads(settings.read_text())
    counts = ours(data, platform)
    assert all(counts[event] == 1 for event in EVENTS[platform])
    assert data["model"] == "sonnet" and data["permissions"] == EXISTING["permissions"]
    assert data["hooks"]["PreToolUse"][0] == EXISTING["hooks"]["PreToolUse"][0]
    assert data["hooks"]["Notification"] == EXISTING["hooks"]["Notification"]
    pre = [g for g in data["hooks"]["PreToolUse"] if g is not EXISTING["hooks"]["PreToolUse"][0]][-1]
    assert pre["matcher"] == ("*" if platform == "claude-code" else "Bash|apply_patch")
    # Project settings are shared: no path of this machine, `heedful-hook` found on PATH.
    assert pre["hooks"][0]["command"] == f"{SCRIPT} {platform}"
    start = next(g for g in data["hooks"]["SessionStart"] if mine_group(g, platform))
    assert start["hooks"][0]["command"] == portable_command(platform, "SessionStart")
    assert sys.executable not in settings.read_text()

    again = run("install_app", platform, "--project", str(project), "--json", home=tmp_path)
    assert json.loads(again.stdout)["changed"] == []
    assert json.loads(settings.read_text()) == data

    removed = run("uninstall_app", platform, "--project", str(project), "--json", home=tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert sorted(json.loads(removed.stdout)["removed"]) == sorted(EVENTS[platform])
    assert json.loads(settings.read_text()) == EXISTING
    nothing = run("uninstall_app", platform, "--project", str(project), "--json", home=tmp_path)
    assert json.loads(nothing.stdout)["removed"] == []


def test_user_scope_writes_the_user_settings(tmp_path: Path) -> None:
    done = run("install_app", "claude-code", "--user", "--home", str(tmp_path / "hf"), home=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    command = data["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert command.startswith("HEEDFUL_HOME=") and str(tmp_path / "hf") in command
    assert f"{sys.executable} -m {MARK}" in command  # user settings stay on this machine: this interpreter
    run("uninstall_app", "claude-code", home=tmp_path)
    assert json.loads((tmp_path / ".claude" / "settings.json").read_text()) == {}


def test_codex_and_claude_code_hooks_live_side_by_side(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    for platform in ("claude-code", "codex"):
        assert run("install_app", platform, "--project", str(project), home=tmp_path).returncode == 0
    run("uninstall_app", "codex", "--project", str(project), home=tmp_path)
    claude = json.loads((project / ".claude" / "settings.json").read_text())
    assert all(n == 1 for n in ours(claude, "claude-code").values())
    assert "hooks" not in json.loads((project / ".codex" / "hooks.json").read_text())


def test_an_outdated_heedful_handler_is_replaced_not_duplicated(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    old = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": f"/old/python -m {MARK} claude-code"},
                        {"type": "command", "command": "notify-send done"},
                    ]
                }
            ]
        }
    }
    settings.write_text(json.dumps(old))
    assert run("install_app", "claude-code", "--project", str(project), home=tmp_path).returncode == 0
    data = json.loads(settings.read_text())
    assert ours(data, "claude-code")["Stop"] == 1
    assert {"type": "command", "command": "notify-send done"} in data["hooks"]["Stop"][0]["hooks"]
    assert all("/old/python" not in h["command"] for g in data["hooks"]["Stop"] for h in g["hooks"])


def test_invalid_settings_are_refused_untouched(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{ not json")
    done = run("install_app", "claude-code", "--project", str(project), home=tmp_path)
    assert done.returncode != 0 and "not valid JSON" in done.stderr
    assert settings.read_text() == "{ not json"


@pytest.mark.parametrize("platform", ["claude-code", "codex"])
def test_session_start_says_so_when_heedful_hook_is_missing(tmp_path: Path, platform: str) -> None:
    """The shared command runs `heedful-hook` when it is on PATH and otherwise tells the user and the agent."""
    command = portable_command(platform, "SessionStart")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["sh", "-c", command], input="{}", capture_output=True, text=True, env=env, timeout=30)
    answer = json.loads(done.stdout)
    assert done.returncode == 0 and "heedful-hook is not on PATH" in answer["hookSpecificOutput"]["additionalContext"]
    assert ("systemMessage" in answer) == (platform == "claude-code")  # Codex takes only documented fields
    tools = tmp_path / "bin"
    tools.mkdir()
    fake = tools / SCRIPT
    fake.write_text('#!/bin/sh\necho "ran $*"\n')
    fake.chmod(0o755)
    env["PATH"] = f"{tools}:/usr/bin:/bin"
    done = subprocess.run(["sh", "-c", command], input="{}", capture_output=True, text=True, env=env, timeout=30)
    assert done.stdout == f"ran {platform}\n"


def test_install_output_says_where_project_settings_apply(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    done = run("install_app", "claude-code", "--project", str(project), home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "reads project settings only when it starts at the project root" in done.stdout
    assert "heedful install claude-code --user" in done.stdout
    codex = run("install_app", "codex", "--project", str(project), home=tmp_path)
    assert f'[projects."{project.resolve()}"]' in codex.stdout and 'trust_level = "trusted"' in codex.stdout
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n')
    trusted = run("install_app", "codex", "--project", str(project), "--json", home=tmp_path)
    assert json.loads(trusted.stdout)["project_trusted"] is True


def test_doctor_reports_codex_hooks_that_are_not_trusted(tmp_path: Path) -> None:
    """Codex skips untrusted hooks without a word; `heedful doctor` says so, and sees them once trusted."""
    assert run("install_app", "codex", home=tmp_path).returncode == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update(HOME=str(tmp_path), HEEDFUL_HOME=str(tmp_path / "hf"), HEEDFUL_EMBEDDER="hashing")
    doctor = [sys.executable, "-m", "heedful", "doctor", "--skip-model", "--json"]
    done = subprocess.run(doctor, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    (codex,) = [c for c in json.loads(done.stdout)["checks"] if c["part"] == "codex hooks"]
    assert done.returncode == 1 and codex["ok"] is False and "/hooks" in codex["detail"]
    hooks = tmp_path / ".codex" / "hooks.json"
    events = json.loads(hooks.read_text())["hooks"]
    states = "".join(
        f'[hooks.state."{hooks.resolve()}:{key}:0:0"]\ntrusted_hash = "sha256:0"\n'
        for key in ("session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use", "stop")
    )
    assert len(events) == 5
    (tmp_path / ".codex" / "config.toml").write_text(states)
    done = subprocess.run(doctor, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    (codex,) = [c for c in json.loads(done.stdout)["checks"] if c["part"] == "codex hooks"]
    assert codex["ok"] is True and "5 hook(s) trusted" in codex["detail"], codex


def test_doctor_says_where_each_agents_hooks_are_installed(tmp_path: Path) -> None:
    """Gemini in the user's settings, Cursor in the project's, Claude Code nowhere: doctor names each."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    assert run("install_app", "gemini", home=tmp_path).returncode == 0
    assert run("install_app", "cursor", "--project", str(project), home=tmp_path).returncode == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update(HOME=str(tmp_path), HEEDFUL_HOME=str(tmp_path / "hf"), HEEDFUL_EMBEDDER="hashing")
    doctor = [sys.executable, "-m", "heedful", "doctor", "--skip-model", "--json"]
    done = subprocess.run(doctor, capture_output=True, text=True, env=env, cwd=project, timeout=120)
    checks = {c["part"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["hooks: gemini"]["installed"] == ["user"]
    assert checks["hooks: cursor"]["installed"] == ["project"]
    assert checks["hooks: claude-code"]["installed"] == [] and checks["hooks: claude-code"]["detail"] == "not installed"
