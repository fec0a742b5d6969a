"""Complaints that state the rule ("you keep using pip", "why do you keep running git push --force?") compile like
the rule they state; a complaint that names no command, file or text stays guidance.

Every phrasing is written for this test.
"""

from __future__ import annotations

import pytest

from compile_cases import compiled
from heedful.rules.checks import evaluate


@pytest.mark.parametrize(
    ("complaint", "violating", "compliant"),
    [
        ("why do you keep using npm? this is a bun project", "npm install zod", "bun add zod"),
        ("you keep running git push --force, stop", "git push --force origin x", "git push origin x"),
        ("you keep using pip. stop.", "pip install rich", "uv add rich"),
        ("Why are you using sudo again?", "sudo make install", "make install"),
        ("why do you keep doing git add -A", "git add -A", "git add src/a.py"),
        ("ugh you're still calling pytest directly", "pytest -q", "ls"),
    ],
)
def test_a_complaint_that_names_a_command(complaint: str, violating: str, compliant: str) -> None:
    kind, params = compiled(complaint)
    assert kind == "forbidden_command", complaint
    action = {"tool": "Bash", "command": violating}
    assert evaluate(kind, params, "pre_action", {"action": action}).result == "violated"
    action = {"tool": "Bash", "command": compliant}
    assert evaluate(kind, params, "pre_action", {"action": action}).result == "pass"


def test_a_complaint_that_names_a_file() -> None:
    kind, params = compiled("you keep editing package-lock.json")
    assert (kind, params["globs"]) == ("forbidden_path", ["package-lock.json"])


def test_a_complaint_about_commit_messages() -> None:
    assert compiled("you keep adding emojis to commit messages") == ("commit_message", {"forbid": ["emoji"]})


@pytest.mark.parametrize(
    "complaint",
    [
        "you keep using the wrong approach",
        "why are you running tests?",
        "you keep doing this",
        "why do you keep asking?",
    ],
)
def test_a_complaint_that_names_nothing_checkable_stays_guidance(complaint: str) -> None:
    assert compiled(complaint) == (None, {}), complaint
