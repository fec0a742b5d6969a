"""Actions on the forge and in the repository named by what they do ("never reply to an issue", "don't rerun CI"),
what to do instead carried into the deny, an agent's co-author trailer, and skipping hooks.

Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest

from compile_cases import compiled
from heedful.rules.checks import evaluate


def run(kind: str, params: dict[str, Any], command: str) -> str:
    return evaluate(kind, params, "pre_action", {"action": {"tool": "Bash", "command": command}}).result


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("Never reply to an issue.", "gh issue comment 12 --body hi", "gh issue view 12"),
        ("pls dont comment on github issues", "gh issue comment 3 -b ok", "gh issue list"),
        ("Do not post comments on PRs yourself.", "gh pr comment 7 --body lgtm", "gh pr view 7"),
        ("Don't close issues.", "gh issue close 9", "gh issue view 9"),
        ("Do not rerun CI jobs.", "gh run rerun 123 --failed", "gh run view 123"),
        ("never re-trigger failing workflows", "gh run rerun 55", "gh run list"),
        ("Never approve PRs.", "gh pr review 4 --approve", "gh pr review 4 --comment -b x"),
        ("Never merge main into the feature branch; rebase instead.", "git merge main", "git rebase main"),
        ("don't merge master into your branch", "git merge origin/master", "git merge feature/y"),
        ("never skip hooks", "git commit --no-verify -m x", "git commit -m x"),
        ("Never skip pre-commit hooks.", "git push --no-verify", "git push"),
        ("don't bypass the git hooks", "git commit --no-verify -m y", "git commit -m y"),
    ],
)
def test_an_action_named_by_what_it_does(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(kind, params, violating) == "violated"
    assert run(kind, params, compliant) == "pass"


@pytest.mark.parametrize(
    "rule",
    [
        "Never reply to an issue without reading the whole thread.",  # says more than the command
        "don't rerun CI jobs until you have read the failure log",
        "Never merge main into the release branch on Fridays",
        "skip the hooks only in the CI config",
    ],
)
def test_an_action_with_more_said_after_it_stays_guidance(rule: str) -> None:
    assert compiled(rule)[0] != "forbidden_command", rule


@pytest.mark.parametrize(
    ("rule", "alternative"),
    [
        ("Never delete files; move them to ./attic/ instead.", "mv to ./attic/"),
        ("never delete files, move them to the trash", "trash"),
        ("Never merge main into your branch; rebase instead", "rebase"),
        ("never open a PR; instead, push the branch", "push the branch"),
    ],
)
def test_what_to_do_instead_is_named_in_the_deny(rule: str, alternative: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert params["alternatives"] == [alternative]
    verdict = evaluate(kind, params, "pre_action", {"action": {"tool": "Bash", "command": _example(params)}})
    assert verdict.result == "violated" and alternative in verdict.reason


def _example(params: dict[str, Any]) -> str:
    return " ".join([params["program"], *params.get("subcommand", []), *params.get("args", []), "x"])


@pytest.mark.parametrize(
    ("rule", "trailer"),
    [
        ("Never include Co-authored-by Claude lines.", "Co-authored-by: Claude"),
        ("no co-authored-by: Copilot trailers in commits", "Co-authored-by: Copilot"),
        ("don't add Co-Authored-By Codex to commit messages", "Co-authored-by: Codex"),
    ],
)
def test_an_agents_coauthor_trailer_is_forbidden_and_a_humans_is_not(rule: str, trailer: str) -> None:
    kind, params = compiled(rule)
    assert (kind, params) == ("commit_message", {"forbid": [trailer]})
    agent = trailer.split(": ")[1]
    assert run(kind, params, f'git commit -m "fix" -m "Co-Authored-By: {agent} <bot@example.com>"') == "violated"
    assert run(kind, params, 'git commit -m "fix" -m "Co-authored-by: Ana Lima <ana@example.com>"') == "pass"


def test_a_coauthor_trailer_named_without_an_agent_forbids_every_coauthor() -> None:
    assert compiled("Do not add Co-Authored-By trailers") == ("commit_message", {"forbid": ["Co-Authored-By"]})


@pytest.mark.parametrize(
    ("rule", "trailer"),
    [
        ("Don't add Claude as a co-author.", "Co-authored-by: Claude"),
        ("do not credit Copilot as co-author in commits", "Co-authored-by: Copilot"),
    ],
)
def test_an_agent_named_as_coauthor(rule: str, trailer: str) -> None:
    assert compiled(rule) == ("commit_message", {"forbid": [trailer]})


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("Never send DELETE requests via gh api.", "gh api -X DELETE repos/o/r/issues/1", "gh api repos/o/r/issues/1"),
        (
            "don't send DELETE requests with curl",
            "curl -X DELETE https://api.example.com/u/1",
            "curl https://api.example.com",
        ),
        ("never make PUT requests with curl", "curl -X PUT -d @a.json https://x/y", "curl -X GET https://x/y"),
    ],
)
def test_an_http_method_is_the_forbidden_argument_of_its_option(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(kind, params, violating) == "violated"
    assert run(kind, params, compliant) == "pass"


@pytest.mark.parametrize(
    "rule",
    [
        "Do not add `Signed-off-by` or `Co-authored-by` trailers with your agent name.",  # a human's trailer is fine
        "never add Co-authored-by lines with the assistant's name",
    ],
)
def test_trailers_with_the_agents_name_do_not_forbid_every_trailer(rule: str) -> None:
    kind, params = compiled(rule)
    assert not (kind == "commit_message" and {"Co-Authored-By", "Signed-off-by"} & set(params.get("forbid", []))), rule


def test_a_build_with_uv_replaces_no_package_manager() -> None:
    assert compiled("For release artifacts, use `uv build`.")[0] is None
    assert compiled("use uv sync, not pip") == ("forbidden_command", {"program": "pip", "alternatives": ["uv sync"]})
