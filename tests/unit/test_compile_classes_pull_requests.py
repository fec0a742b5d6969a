"""Classes of phrasing about pull requests, pushes of a PR's updates, and examples after a dash.

- a command due "before opening / making / submitting a PR" is judged on the command that opens one
  (`gh pr create`, `glab mr create`, `hub pull-request`), not at every final reply; with another moment
  beside it ("before presenting final changes or submitting a PR") it stays due at delivery;
- a ban on force pushes "when pushing updates to the PR" holds on every push: the push decides the condition;
- "do not hand-edit generated files — notably `x`, everything under `y/`": the examples after the dash are the
  paths the rule protects.

Every phrasing is written for this test (none is a corpus sentence).
"""

from __future__ import annotations

import pytest

from compile_cases import compiled, run
from heedful.rules.checks import evaluate
from heedful.rules.checks.required_event import cases

EDIT = {"kind": "edit", "path": "src/app/client.py"}


def at(params: dict, command: str, events: list[dict]) -> str:
    """The required_event check's result on one Bash command before it runs, after `events`."""
    evidence = {"action": {"tool": "Bash", "command": command}, "events": events}
    return evaluate("required_event", params, "pre_action", evidence).result


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("Run pnpm run lint before opening PRs.", ["pnpm", "run", "lint"]),
        ("always run `make check` before you submit a pull request", ["make", "check"]),
        ("before making a merge request, run cargo fmt", ["cargo", "fmt"]),
    ],
)
def test_a_command_due_before_a_pull_request_is_judged_on_opening_it(rule: str, command: list[str]) -> None:
    kind, params = compiled(rule)
    assert kind == "required_event" and params["before"] == "pr" and params["commands"] == [command]
    line = " ".join(command)
    assert at(params, "gh pr create --fill", [EDIT]) == "violated"
    assert at(params, "glab mr create --fill", [EDIT]) == "violated"
    assert at(params, "gh pr create --fill", [EDIT, {"kind": "command", "command": line}]) == "pass"
    assert at(params, "git push origin feature", [EDIT]) == "not_applicable"
    assert at(params, "gh pr view 12", [EDIT]) == "not_applicable"
    # a final reply is not a pull request
    delivery = evaluate("required_event", params, "delivery", {"events": [EDIT]})
    assert delivery.result == "not_applicable"


def test_a_pull_request_with_another_moment_beside_it_stays_due_at_delivery() -> None:
    kind, params = compiled("Before presenting final changes or submitting a pull request, run make audit.")
    assert kind == "required_event" and "before" not in params


def test_the_generated_cases_of_a_pull_request_gate_open_one() -> None:
    made = cases({"commands": [["make", "lint"]], "after": "always", "before": "pr"})
    commands = {c.evidence["action"]["command"] for c in made}
    assert "gh pr create --fill" in commands
    for case in made:
        got = evaluate(
            "required_event",
            {"commands": [["make", "lint"]], "after": "always", "before": "pr"},
            case.stage,
            case.evidence,
        )
        assert got.result == case.expected, case.note


@pytest.mark.parametrize(
    "condition", ["When pushing updates to the PR", "when pushing changes to a branch", "when you push updates"]
)
def test_a_force_push_ban_holds_on_every_push_of_updates(condition: str) -> None:
    kind, params = compiled("never force push", condition=condition)
    assert kind == "forbidden_command"
    assert run(params, "git push --force origin feature") == "violated"
    assert run(params, "git push origin feature") == "pass"


def test_a_force_push_ban_for_a_moment_no_push_decides_stays_guidance() -> None:
    assert compiled("never force push", condition="when the release is frozen") == (None, {})


@pytest.mark.parametrize("dash", [" — ", " – ", " - "])
def test_examples_after_a_dash_are_the_paths_protected(dash: str) -> None:
    rule = (
        f"Do not hand-edit generated files{dash}notably `**/zz_gen*.go`, everything under `api/gen/`, and `web/dist/`."
    )
    kind, params = compiled(rule)
    assert kind == "forbidden_path"
    assert params["globs"] == ["**/zz_gen*.go", "api/gen/**", "web/dist/**"]


def test_a_reason_after_a_dash_names_no_path() -> None:
    assert compiled("Do not edit generated files — they break the build.") == (None, {})
