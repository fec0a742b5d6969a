"""A shell write is judged where it lands: after a `cd` in the same command, and from the directory
the command runs in (Claude Code started in a subdirectory, Gemini CLI's `dir_path`). The real hook
command as a subprocess, on a real SQLite home."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.integrations.payloads import claude_bash, hook_env, run_hook


@pytest.fixture
def project(home: Path, tmp_path: Path) -> Path:
    path = (tmp_path / "app").resolve()
    (path / ".git").mkdir(parents=True)
    (path / "migrations").mkdir()
    (path / "src").mkdir()
    with Heedful.open(home, embedder="hashing") as hf:
        learned = hf.rules.learn("me", "Never edit files under migrations/ in this repo", project=path)
        assert any(a.rule and a.rule.get("status") == "checked" for a in learned.actions)
    return path


def _denied(home: Path, cwd: Path, command: str) -> bool:
    code, out, err, _ = run_hook("claude-code", claude_bash("s1", str(cwd), command), hook_env(home, user="me"))
    assert code == 0, err
    return bool(out) and json.loads(out).get("hookSpecificOutput", {}).get("permissionDecision") == "deny"


@pytest.mark.parametrize(
    ("where", "command", "denied"),
    [
        (".", "cd migrations && touch 0002_add.sql", True),
        (".", "cd src && cd ../migrations && echo 'select 1;' > 0003.sql", True),
        ("migrations", "touch 0004.sql", True),  # run inside the protected folder
        ("src", "echo x > ../migrations/0005.sql", True),
        (".", "touch notes.txt", False),
        ("src", "cd ../docs 2>/dev/null; touch guide.md", False),
    ],
)
def test_a_shell_write_is_judged_where_it_lands(
    home: Path, project: Path, where: str, command: str, denied: bool
) -> None:
    assert _denied(home, (project / where).resolve(), command) is denied
