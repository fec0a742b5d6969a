"""Named proposers and critics: what each name runs, and what a missing CLI or an empty command says."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from heedful.errors import InputError
from heedful.evolve.agents import CRITICS, PROPOSERS, SCRIPTED, child_environment, critic_command, proposer_command


def fake_cli(folder: Path, name: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_the_default_proposer_is_the_offline_script_and_no_critic_means_the_static_check_only() -> None:
    assert proposer_command(None) == SCRIPTED == proposer_command("scripted")
    assert critic_command(None) is None


def test_a_name_expands_to_its_cli_with_only_the_tools_its_step_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("claude", "codex"):
        fake_cli(tmp_path, name)
    monkeypatch.setenv("PATH", str(tmp_path))
    claude = proposer_command("claude")
    assert claude == PROPOSERS["claude"] and "--tools Read,Edit,Glob,Grep" in claude and "Bash" not in claude
    assert "--safe-mode" in claude and claude.endswith("< BRIEF.md")
    assert "--sandbox workspace-write" in proposer_command("codex") and "--disable hooks" in proposer_command("codex")
    assert "--sandbox read-only" in str(critic_command("codex")) and "Edit" not in str(critic_command("claude"))
    assert critic_command("claude") == CRITICS["claude"]


def test_any_other_text_is_a_command_of_the_users_own() -> None:
    assert proposer_command("python my_proposer.py --fast") == "python my_proposer.py --fast"
    assert critic_command("./review.sh") == "./review.sh"


def test_a_named_cli_that_is_not_installed_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(InputError, match=r"--proposer claude needs the `claude` CLI on PATH"):
        proposer_command("claude")
    with pytest.raises(InputError, match=r"--critic codex needs the `codex` CLI"):
        critic_command("codex")
    with pytest.raises(InputError, match="the critic command is empty"):
        critic_command("  ")


def test_steps_run_marked_as_heedfuls_child_so_its_hooks_stay_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_SETTING", "kept")
    env = child_environment()
    assert env["HEEDFUL_CHILD"] == "1" and env["SOME_SETTING"] == "kept"
    assert "HEEDFUL_CHILD" not in os.environ


def test_by_default_the_agent_cli_proposes_when_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from heedful.evolve.agents import default_critic, default_proposer

    monkeypatch.setenv("PATH", str(tmp_path))
    assert default_proposer() == "scripted" and default_critic("scripted") is None
    fake_cli(tmp_path, "claude")
    assert default_proposer() == "claude" and proposer_command(None) == PROPOSERS["claude"]
    assert default_critic("claude") is None  # no codex: the static check alone
    fake_cli(tmp_path, "codex")
    assert default_critic("claude") == "codex" and default_critic("scripted") is None
