"""Complaints that state the rule ("you keep using pip", "why do you keep running git push --force?") compile like
the rule they state; a complaint that names no command, file or text stays guidance.

Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest

from heedful.llm import OfflineModel
from heedful.rules.checks import evaluate
from heedful.rules.library import compile_candidate
from heedful.rules.models import Candidate

MODEL = OfflineModel()


def compiled(text: str) -> tuple[str | None, dict[str, Any]]:
    outcome = compile_candidate(MODEL, Candidate(text=text, evidence=[text]))
    if outcome.status != "checked" or outcome.check is None:
        return None, {}
    return outcome.check.kind, dict(outcome.check.params)


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


@pytest.mark.parametrize(
    ("rule", "said", "fine"),
    [
        ("STOP SAYING YOU'RE ABSOLUTELY RIGHT", "You're absolutely right! Fixed.", "Fixed the parser."),
        ("stop saying you're absolutely right all the time", "you're absolutely right, sorry", "Done."),
        ("please stop saying great question", "Great question! The answer is 4.", "The answer is 4."),
    ],
)
def test_a_phrase_the_agent_keeps_saying_unquoted(rule: str, said: str, fine: str) -> None:
    kind, params = compiled(rule)
    assert kind == "reply_forbidden_text", rule
    assert evaluate(kind, params, "delivery", {"delivery": said}).result == "violated"
    assert evaluate(kind, params, "delivery", {"delivery": fine}).result == "pass"


@pytest.mark.parametrize(
    "rule",
    ["never say that", "don't say things like that", "Never say done without running the tests.", "never say never"],
)
def test_saying_with_no_phrase_or_with_a_condition_is_no_forbidden_text(rule: str) -> None:
    assert compiled(rule)[0] != "reply_forbidden_text", rule
