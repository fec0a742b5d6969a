"""Actions forbidden together under one negation ("never edit X or commit Y") are one rule each."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.rules.interpret import interpret


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "Never edit package-lock.json or commit .env files.",
            ["Never edit package-lock.json.", "Never commit .env files."],
        ),
        (
            "Avoid editing generated files or committing build output.",
            ["Avoid editing generated files.", "Avoid committing build output."],
        ),
        (
            "Please never delete tests or skip failing ones without asking.",
            ["Never delete tests without asking.", "Never skip failing ones without asking."],
        ),
        # a closing qualifier that is not the user's word stays with the action it closes
        ("Don't push to main or merge without a review.", ["Don't push to main.", "Don't merge without a review."]),
    ],
)
def test_each_forbidden_action_is_its_own_rule(message: str, expected: list[str]) -> None:
    assert [c.text for c in interpret(message)] == expected


@pytest.mark.parametrize(
    "message",
    [
        "Never add or commit .env files.",  # two verbs of one object
        "Never use npm or yarn.",  # one action, two programs
        "Never edit the lockfile by hand and run npm install instead.",  # "and": what to do instead
    ],
)
def test_one_action_stays_one_rule(message: str) -> None:
    texts = [c.text for c in interpret(message)]
    assert len(texts) == 1 or not all(t.lower().startswith(("never", "don't")) for t in texts[1:]), texts


def test_the_committed_file_is_kept_out_of_commits_and_the_edited_one_unedited(tmp_path: Path) -> None:
    with Heedful.open(tmp_path / "home", embedder="hashing") as hf:
        hf.rules.learn("alice", "From now on never edit package-lock.json or commit .env files.")

        def blocked(evidence: dict[str, object]) -> bool:
            return hf.rules.check("alice", "pre_action", {"action": evidence}).blocked

        assert blocked({"tool": "Bash", "command": "git add .env && git commit -m wip"})
        assert blocked({"tool": "Edit", "path": "package-lock.json"})
        assert not blocked({"tool": "Edit", "path": ".env"})
        assert not blocked({"tool": "Bash", "command": "git add src/app.py"})


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Never commit or push without asking.", ["Never commit without asking.", "Never push without asking."]),
        ("Don't commit and push anything.", ["Don't commit anything.", "Don't push anything."]),
        (
            "Never stage, commit or push changes on your own.",
            [
                "Never stage changes on your own.",
                "Never commit changes on your own.",
                "Never push changes on your own.",
            ],
        ),
    ],
)
def test_each_git_action_of_a_forbidden_list_is_its_own_rule(message: str, expected: list[str]) -> None:
    assert [c.text for c in interpret(message)] == expected


def test_every_git_action_a_rule_forbids_is_blocked(tmp_path: Path) -> None:
    with Heedful.open(tmp_path / "home", embedder="hashing") as hf:
        hf.rules.learn("alice", "From now on, never commit or push without asking.")
        for command in ("git commit -m wip", "git push origin feature"):
            report = hf.rules.check("alice", "pre_action", {"action": {"tool": "Bash", "command": command}})
            assert report.blocked, command
        report = hf.rules.check("alice", "pre_action", {"action": {"tool": "Bash", "command": "git status"}})
        assert not report.blocked


def test_bans_joined_by_a_comma_and_no_are_each_a_rule() -> None:
    assert [c.text for c in interpret("No force pushes, no rebases on main.")] == [
        "No force pushes.",
        "No rebases on main.",
    ]
    assert len(interpret("Use pnpm, no npm.")) <= 1  # a single word after "no" is the alternative's contrast
