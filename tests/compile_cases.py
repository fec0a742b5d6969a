"""What the compiler tests share: a rule compiled offline, and a check run on one shell command."""

from __future__ import annotations

from typing import Any

from heedful.llm import OfflineModel
from heedful.rules.checks import evaluate
from heedful.rules.library import compile_candidate
from heedful.rules.models import Candidate

MODEL = OfflineModel()


def compiled(text: str, condition: str | None = None) -> tuple[str | None, dict[str, Any]]:
    """The validated check the offline compiler makes of a rule's words, or (None, {}) when it stays guidance."""
    outcome = compile_candidate(MODEL, Candidate(text=text, condition=condition, evidence=[text]))
    if outcome.status != "checked" or outcome.check is None:
        return None, {}
    return outcome.check.kind, dict(outcome.check.params)


def run(params: dict[str, Any], command: str, kind: str = "forbidden_command") -> str:
    """The check's result on one Bash command before it runs."""
    return evaluate(kind, params, "pre_action", {"action": {"tool": "Bash", "command": command}}).result


def edit(params: dict[str, Any], path: str) -> str:
    """The path check's result on one file edit in a project at /srv/app."""
    evidence = {"project": "/srv/app", "action": {"tool": "Edit", "file_path": path}}
    return evaluate("forbidden_path", params, "pre_action", evidence).result
