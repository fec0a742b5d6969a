"""A forbidden list of commands becomes one rule per command, so that every command of it is enforced.

Before this, "never run git push --force or git reset --hard" became one rule whose check matched only
`git push --force` (and once offered `git reset --hard` as the way to go)."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heedful.api import Heedful
from heedful.llm import ChatMessage
from heedful.llm.prompts.interpret_rule import InterpretResponse
from heedful.rules.command_lists import split_command_list
from heedful.rules.interpret import interpret
from heedful.rules.models import Candidate

ResponseT = TypeVar("ResponseT")


def texts(message: str) -> list[str]:
    return [c.text for c in interpret(message)]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "From now on never run git push --force or git reset --hard.",
            ["Never run git push --force.", "Never run git reset --hard."],
        ),
        (
            "Never run git push --force, git reset --hard, or git clean -fdx without asking.",
            [
                "Never run git push --force without asking.",
                "Never run git reset --hard without asking.",
                "Never run git clean -fdx without asking.",
            ],
        ),
        (
            "Going forward avoid git rebase -i and git commit --amend.",
            ["Avoid git rebase -i.", "Avoid git commit --amend."],
        ),
        (
            "Never run destructive commands like git reset --hard or rm -rf.",
            ["Never run destructive commands like git reset --hard.", "Never run destructive commands like rm -rf."],
        ),
        ("Never use sudo or rm -rf in this repo.", ["Never use sudo.", "Never use rm -rf."]),
        (
            "From now on never run npm publish or git push --tags.",
            ["Never run npm publish.", "Never run git push --tags."],
        ),
        ("Don't run make deploy or make release.", ["Don't run make deploy.", "Don't run make release."]),
        (
            "Never run git clean -fd, git reset --hard, or git checkout . without asking me.",
            [
                "Never run git clean -fd without asking me.",
                "Never run git reset --hard without asking me.",
                "Never run git checkout . without asking me.",
            ],
        ),
        (
            "Do not run `git push --force`, `git reset --hard`, or `rm -rf`.",
            ["Do not run `git push --force`.", "Do not run `git reset --hard`.", "Do not run `rm -rf`."],
        ),
    ],
)
def test_each_command_of_a_forbidden_list_is_its_own_rule(message: str, expected: list[str]) -> None:
    assert texts(message) == expected


@pytest.mark.parametrize(
    "message",
    [
        "No npm or yarn.",  # bare programs: one rule whose check names both
        "Use pnpm, not npm or yarn.",
        "Never git push --force or --force-with-lease.",  # a choice of flags of one command
        "Use uv, not pip, for every Python dependency (`uv add`, `uv pip install`).",  # examples of the allowed way
        "Don't go and make a mess.",  # English words that name programs
        "Run git fetch and git rebase before you push.",  # nothing forbidden
    ],
)
def test_what_is_not_a_forbidden_list_of_commands_stays_one_rule(message: str) -> None:
    assert len(interpret(message)) == 1


@given(st.text(max_size=80))
def test_splitting_never_raises_and_keeps_the_evidence(text: str) -> None:
    candidate = Candidate(text=text or "x", evidence=["quote"])
    for part in split_command_list(candidate):
        assert part.evidence == ["quote"]


def test_every_command_of_a_taught_list_is_blocked(tmp_path: Path) -> None:
    with Heedful.open(tmp_path / "home", embedder="hashing") as hf:
        hf.rules.learn("alice", "From now on never run git push --force, git reset --hard, or rm -rf.")
        for command in ("git push --force origin feature", "git reset --hard HEAD~1", "rm -rf build"):
            report = hf.rules.check("alice", "pre_action", {"action": {"tool": "Bash", "command": command}})
            assert report.blocked, command
        for command in ("git push origin feature", "git reset --soft HEAD~1", "rm build/out.txt"):
            report = hf.rules.check("alice", "pre_action", {"action": {"tool": "Bash", "command": command}})
            assert not report.blocked, command
        for rule in hf.rules.list("alice"):
            check = rule.get("check") or {}
            assert "rm -rf" not in " ".join(check.get("params", {}).get("alternatives") or []), rule


class BundlingModelAnswer:
    """A test double for a model's answer: it keeps a forbidden list of commands as one candidate and
    otherwise answers as the offline learner does."""

    name = "scripted-bundling"
    offline = False

    def structured(self, messages: list[ChatMessage], response_model: type[ResponseT]) -> ResponseT:
        assert response_model is InterpretResponse
        quote = "never run git push --force or git reset --hard"
        bundled = Candidate(text="Never run git push --force or git reset --hard.", polarity="dont", evidence=[quote])
        return cast(ResponseT, InterpretResponse(candidates=[bundled]))


def test_a_scripted_model_answer_that_bundles_a_command_list_is_split_too() -> None:
    from heedful.rules.steps import interpreted

    parts = interpreted(BundlingModelAnswer(), "From now on never run git push --force or git reset --hard.")
    assert [p.text for p in parts] == ["Never run git push --force.", "Never run git reset --hard."]
    assert all(p.evidence == ["never run git push --force or git reset --hard"] for p in parts)


@pytest.mark.parametrize(
    ("message", "command"),
    [("never git add .", "git add ."), ("Never run git checkout . without asking me.", "git checkout .")],
)
def test_a_dot_after_a_command_is_its_path_not_a_full_stop(tmp_path: Path, message: str, command: str) -> None:
    with Heedful.open(tmp_path / "home", embedder="hashing") as hf:
        hf.rules.learn("alice", f"From now on: {message}")
        assert hf.rules.check("alice", "pre_action", {"action": {"tool": "Bash", "command": command}}).blocked
        other = command.replace(" .", " src/app.py")
        assert not hf.rules.check("alice", "pre_action", {"action": {"tool": "Bash", "command": other}}).blocked
