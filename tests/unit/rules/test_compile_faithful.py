"""A compiled command check must forbid what the rule forbids, never more."""

from __future__ import annotations

import pytest

from heedful.llm import OfflineModel
from heedful.rules.checks import evaluate
from heedful.rules.library import compile_candidate
from heedful.rules.models import Candidate


def compiled(text: str) -> tuple[str, dict[str, object] | None]:
    outcome = compile_candidate(OfflineModel(), Candidate(text=text, polarity="dont", evidence=[text]))
    return outcome.status, None if outcome.check is None else outcome.check.params


def verdict(params: dict[str, object], command: str) -> str:
    return evaluate("forbidden_command", params, "pre_action", {"action": {"tool": "Bash", "command": command}}).result


@pytest.mark.parametrize(
    ("rule", "forbidden", "allowed"),
    [
        ("Never run git push --force.", "git push -f origin feat", "git status"),
        ("Never run docker system prune.", "docker system prune -a", "docker ps"),
        ("Never use rm -rf.", "rm -rf build", "rm build/old.txt"),
    ],
)
def test_subcommands_and_flags_named_in_the_rule_are_kept(rule: str, forbidden: str, allowed: str) -> None:
    status, params = compiled(rule)
    assert status == "checked" and params is not None
    assert verdict(params, forbidden) == "violated"
    assert verdict(params, allowed) == "pass"


def test_a_rule_that_says_more_than_a_command_stays_guidance() -> None:
    # Where it runs is a condition no command check can state; forbidding all `pip install` would overreach.
    assert compiled("Never run pip install inside the container.") == ("guidance", None)
    # A flag concept the program has no spelling for cannot be stated either.
    assert compiled("Never run cargo build recursively.") == ("guidance", None)


@pytest.mark.parametrize("line", ["pytest -q", "uv run pytest", "poetry run pytest tests", "python -m pytest"])
def test_required_test_run_is_seen_through_runners(line: str) -> None:
    params = {"commands": [["pytest"]], "after": "edit"}
    events = [{"kind": "edit", "path": "src/a.py"}, {"kind": "command", "command": line}]
    assert evaluate("required_event", params, "delivery", {"events": events}).result == "pass"


def test_a_reversed_tool_preference_supersedes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from heedful.api import Heedful

    with Heedful.open(tmp_path / "home", embedder="hashing") as hf:
        hf.rules.learn("u", "in this repo use pnpm, not npm", project=tmp_path)
        (action,) = hf.rules.learn("u", "in this repo use npm, not pnpm", project=tmp_path).actions
        assert action.op == "supersede"
        (again,) = hf.rules.learn("u", "in this repo use npm, not pnpm", project=tmp_path).actions
        assert again.op == "noop"
