"""`heedful install gemini|cursor` round trips, and `install --import/--no-import` of instruction files.

Everything runs as a real subprocess with its own HOME and heedful home.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from heedful.integrations.install import EVENTS, SCRIPT
from heedful.integrations.payloads import gemini, hook_env, run_hook

CLAUDE_MD = """# Working on this service

We deploy on Fridays.

## Rules
- Never use pip; we use uv.
- Never touch the .env file.
"""


def run(*args: str, user_home: Path, home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HOME": str(user_home), "HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing"})
    return subprocess.run(
        [sys.executable, "-m", "heedful", *args], capture_output=True, text=True, env=env, input=stdin, timeout=120
    )


def commands(handlers: list[Any]) -> list[str]:
    return [h.get("command", "") for h in handlers]


def test_gemini_user_settings_keep_their_keys_and_round_trip(tmp_path: Path, home: Path) -> None:
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    other = {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh", "timeout": 5000}]}
    settings.write_text(
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}, "hooks": {"BeforeTool": [other]}})
    )
    done = run("install", "gemini", "--json", user_home=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changed"] == list(EVENTS["gemini"])
    data = json.loads(settings.read_text())
    assert data["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    assert data["hooks"]["BeforeTool"][0] == other
    (group,) = data["hooks"]["AfterAgent"]
    (handler,) = group["hooks"]
    assert (
        handler["timeout"] == 30_000
        and handler["name"] == "heedful"
        and "heedful.hookmain gemini" in handler["command"]
    )
    again = run("install", "gemini", "--json", user_home=tmp_path, home=home)
    assert json.loads(again.stdout)["changed"] == []
    removed = run("uninstall", "gemini", "--json", user_home=tmp_path, home=home)
    assert sorted(json.loads(removed.stdout)["removed"]) == sorted(EVENTS["gemini"])
    assert json.loads(settings.read_text()) == {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "hooks": {"BeforeTool": [other]},
    }


def test_gemini_project_settings_use_the_portable_command(tmp_path: Path, home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    done = run("install", "gemini", "--project", str(project), user_home=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    assert "trusted folder" in done.stdout
    data = json.loads((project / ".gemini" / "settings.json").read_text())
    start = data["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert start.startswith(f"command -v {SCRIPT}") and str(sys.executable) not in start
    # Without heedful-hook on PATH, SessionStart prints a notice Gemini CLI reads as JSON.
    notice = subprocess.run(["sh", "-c", start], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    answer = json.loads(notice.stdout)
    assert "not on PATH" in answer["systemMessage"] and answer["hookSpecificOutput"]["additionalContext"]


def test_cursor_hooks_json_is_flat_keeps_other_hooks_and_round_trips(tmp_path: Path, home: Path) -> None:
    hooks = tmp_path / ".cursor" / "hooks.json"
    hooks.parent.mkdir(parents=True)
    theirs = {"command": "./hooks/audit.sh"}
    hooks.write_text(json.dumps({"version": 1, "hooks": {"beforeShellExecution": [theirs], "stop": [theirs]}}))
    done = run("install", "cursor", "--json", user_home=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    data = json.loads(hooks.read_text())
    assert data["version"] == 1 and set(data["hooks"]) == set(EVENTS["cursor"])
    assert data["hooks"]["beforeShellExecution"][0] == theirs
    assert "heedful.hookmain cursor" in commands(data["hooks"]["beforeShellExecution"])[1]
    (pre,) = data["hooks"]["preToolUse"]
    assert pre["matcher"] == "Write|StrReplace|Edit|MultiEdit|Delete|EditNotebook" and pre["timeout"] == 30
    assert json.loads(run("install", "cursor", "--json", user_home=tmp_path, home=home).stdout)["changed"] == []
    run("uninstall", "cursor", user_home=tmp_path, home=home)
    assert json.loads(hooks.read_text()) == {
        "version": 1,
        "hooks": {"beforeShellExecution": [theirs], "stop": [theirs]},
    }


def test_cursor_project_session_start_notice_is_cursor_json(tmp_path: Path, home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    run("install", "cursor", "--project", str(project), user_home=tmp_path, home=home)
    data = json.loads((project / ".cursor" / "hooks.json").read_text())
    start = data["hooks"]["sessionStart"][0]["command"]
    notice = subprocess.run(["sh", "-c", start], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert set(json.loads(notice.stdout)) == {"additional_context"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    project = (tmp_path / "svc").resolve()
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_text(CLAUDE_MD)
    return project


def test_install_import_enforces_the_project_instructions(tmp_path: Path, home: Path, repo: Path) -> None:
    done = run("install", "claude-code", "--project", str(repo), "--import", "--json", user_home=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    imported = json.loads(done.stdout)["import"]
    assert imported["found"] == [str(repo / "CLAUDE.md")] and imported["imported"] is True
    assert imported["report"]["counts"]["checked"] >= 2 and imported["report"]["library_version"]
    env = hook_env(home, HEEDFUL_EMBEDDER="hashing")
    _, out, err, _ = run_hook(
        "gemini",
        gemini(
            "BeforeTool", "s1", str(repo), tool_name="run_shell_command", tool_input={"command": "pip install requests"}
        ),
        env,
    )
    assert json.loads(out)["decision"] == "deny", (out, err)
    # The same files again: nothing changes.
    again = run("install", "cursor", "--project", str(repo), "--import", "--json", user_home=tmp_path, home=home)
    assert json.loads(again.stdout)["import"]["report"]["library_version"] is None


def test_install_without_a_terminal_skips_the_import_with_a_hint(tmp_path: Path, home: Path, repo: Path) -> None:
    done = run("install", "codex", "--project", str(repo), user_home=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    assert "CLAUDE.md: not imported (not asked: no terminal)" in done.stdout
    assert f"heedful install codex --project {repo} --import" in done.stdout
    skipped = run("install", "codex", "--project", str(repo), "--no-import", "--json", user_home=tmp_path, home=home)
    data = json.loads(skipped.stdout)["import"]
    assert data["imported"] is False and "--no-import" in data["hint"]
    listed = run("rules", "list", "--project", str(repo), "--json", user_home=tmp_path, home=home)
    assert json.loads(listed.stdout) == []


def test_user_install_offers_the_agents_home_file_as_global_rules(tmp_path: Path, home: Path) -> None:
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "GEMINI.md").write_text("- Never use pip; we use uv.\n")
    (tmp_path / "AGENTS.md").write_text("- Never use npm.\n")  # not an agent's home file: not offered
    done = run("install", "gemini", "--import", "--json", user_home=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    imported = json.loads(done.stdout)["import"]
    assert imported["found"] == [str(tmp_path / ".gemini" / "GEMINI.md")]
    (file,) = imported["report"]["files"]
    assert file["scope"] == "global"


def test_install_asks_on_a_terminal(tmp_path: Path, home: Path, repo: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HOME": str(tmp_path), "HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing", "TERM": "dumb"})
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "heedful", "install", "cursor", "--project", str(repo)],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        close_fds=True,
    )
    os.close(follower)
    seen, answered, deadline = b"", False, time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 1)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        if not answered and b"[Y/n]" in seen:
            os.write(leader, b"y\n")
            answered = True
        if process.poll() is not None and not ready:
            break
    process.wait(timeout=30)
    os.close(leader)
    text = seen.decode("utf-8", "replace")
    assert answered and process.returncode == 0, text
    assert "Import the rules written in" in text and "imported 2 directives" in text, text
