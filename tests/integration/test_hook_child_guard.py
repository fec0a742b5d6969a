"""A model call heedful makes through an agent's own CLI (`claude-cli`, `codex-cli`) runs that CLI with
`HEEDFUL_CHILD=1`: the hook must neither judge nor learn from the child run, even when the CLI has no
switch that turns its hooks off. The real hook command, as a subprocess, on a real home."""

from __future__ import annotations

from pathlib import Path

from heedful.api import Heedful
from heedful.integrations.payloads import claude, claude_bash, hook_env, run_hook
from pg_backend import count_rows


def _sessions(home: Path) -> tuple[int, int]:
    return count_rows(home, "enforce_sessions"), count_rows(home, "jobs")


def test_the_hook_ignores_a_child_run_and_still_judges_the_parent(home: Path, tmp_path: Path) -> None:
    project = (tmp_path / "app").resolve()
    (project / ".git").mkdir(parents=True)
    with Heedful.open(home, embedder="hashing") as hf:
        assert hf.rules.learn("me", "use uv, not pip, in this repo", project=project).actions
    before = _sessions(home)

    child = {**hook_env(home, user="me"), "HEEDFUL_CHILD": "1"}
    code, out, err, _ = run_hook("claude-code", claude_bash("child", str(project), "pip install x"), child)
    assert code == 0 and out == "", err
    code, out, err, _ = run_hook(
        "claude-code", claude("UserPromptSubmit", "child", str(project), prompt="never use npm"), child
    )
    assert code == 0 and out == "", err
    assert _sessions(home) == before  # nothing recorded, nothing queued for learning

    parent = {**hook_env(home, user="me"), "HEEDFUL_CHILD": "0"}
    code, out, err, _ = run_hook("claude-code", claude_bash("parent", str(project), "pip install x"), parent)
    assert code == 0 and '"deny"' in out, err
