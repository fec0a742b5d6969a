"""How instruction files word a workflow: committing left to the user, git as a whole, commands followed by
"and make sure they pass" or a clause after a semicolon, a build tool's `--opt=value`, the tests run "with" a
command, "validate changes by running", shipping as a hand-over, replies "like" a quoted phrase; and the near-misses
that must not ban a file or a tool (a part of a file, files "that" do something, a tool's features, code that
shells out).

Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest

from compile_cases import compiled, run
from heedful.rules.checks import evaluate


def finish(params: dict[str, Any], commands: list[str]) -> str:
    events = [{"kind": "edit", "path": "src/app.py"}, *({"kind": "command", "command": c} for c in commands)]
    gate = params.get("before")
    if gate:
        line = {"commit": "git commit -m x", "push": "git push origin topic", "pr": "gh pr create"}[gate]
        evidence = {"action": {"tool": "Bash", "command": line}, "events": events}
        return evaluate("required_event", params, "pre_action", evidence).result
    return evaluate("required_event", params, "delivery", {"events": events}).result


@pytest.mark.parametrize(
    "rule", ["Don't commit anything yourself; the user commits.", "Never commit the patch, leave committing to me."]
)
def test_committing_left_to_the_user_bans_git_commit(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(params, "git commit -am wip") == "violated"
    assert run(params, "git status") == "pass"


def test_git_operations_are_git_as_a_whole() -> None:
    kind, params = compiled("Never use git operations, those are mine.")
    assert kind == "forbidden_command"
    assert run(params, "git stash") == "violated"
    assert run(params, "ls") == "pass"


@pytest.mark.parametrize(
    ("rule", "ran", "wanted"),
    [
        ("Before pushing, run go vet ./... and go test ./... and make sure both pass.", ["go vet", "go test"], 2),
        ("Before committing, run tools/lint.py; never skip it.", ["python tools/lint.py"], 1),
        ("Before pushing, run ./gradlew --offline lintDebug.", ["./gradlew lintDebug"], 1),
    ],
)
def test_the_command_ends_where_the_prose_begins(rule: str, ran: list[str], wanted: int) -> None:
    kind, params = compiled(rule)
    assert kind == "required_event", rule
    assert len(params["commands"]) == wanted, params
    assert finish(params, ran) == "pass"
    assert finish(params, ["git status"]) == "violated"


@pytest.mark.parametrize(
    ("rule", "condition", "command"),
    [
        ("When you are done, run the whole suite with pytest -x.", None, "pytest -x"),
        ("Verify your changes by running just check.", None, "just check"),
        ("Run the suite with mix test before shipping.", None, "mix test"),
    ],
)
def test_a_suite_run_with_a_command_or_changes_verified_by_one(rule: str, condition: str | None, command: str) -> None:
    kind, params = compiled(rule, condition)
    assert kind == "required_event", rule
    assert finish(params, [command]) == "pass"
    assert finish(params, ["ls"]) == "violated"


def test_replies_like_a_quoted_phrase_forbid_the_phrase() -> None:
    kind, params = compiled('No replies like "Happy coding!" at the end.')
    assert kind == "reply_forbidden_text"
    evidence = {"delivery": "Fixed the import. Happy coding!"}
    assert evaluate(kind, params, "delivery", evidence).result == "violated"
    assert evaluate(kind, params, "delivery", {"delivery": "Fixed the import."}).result == "pass"


@pytest.mark.parametrize(
    "rule",
    [
        "Never change the layout or properties of appsettings.json unless asked.",
        "Don't create utils.py files that only re-export other modules.",
        "Do not impl Deref<Target = str> for the id types.",
    ],
)
def test_a_part_or_a_kind_of_a_file_is_no_file_ban(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind != "forbidden_path", (rule, params)


@pytest.mark.parametrize(
    "rule",
    ["Prefer Deno built-ins and APIs wherever you can.", "Do not shell out with subprocess to run git operations."],
)
def test_a_tools_features_or_code_that_runs_it_bans_no_command(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind != "forbidden_command", (rule, params)


def test_yarn_install_is_the_install_the_rule_forbids() -> None:
    kind, params = compiled("Use pnpm install instead of yarn install.")
    assert kind == "forbidden_command"
    assert run(params, "yarn install") == "violated"
    assert run(params, "yarn add zod") == "violated"
    assert run(params, "yarn build") == "pass"


def _message(params: dict[str, Any], message: str) -> str:
    command = f'git commit -m "{message}"'
    return evaluate("commit_message", params, "pre_action", {"action": {"tool": "Bash", "command": command}}).result


def test_an_issue_reference_every_commit_must_carry() -> None:
    kind, params = compiled("Always reference the issue number in your commit messages.")
    assert kind == "commit_message"
    assert _message(params, "fix: parse empty files (#481)") == "pass"
    assert _message(params, "fix: parse empty files") == "violated"
    kind, params = compiled("Include the Jira ticket key at the start of every commit message.")
    assert kind == "commit_message"
    assert _message(params, "CORE-12 parse empty files") == "pass"
    assert _message(params, "parse empty files for CORE-12") == "violated"


def test_every_vendor_a_rule_keeps_out_of_commit_messages() -> None:
    kind, params = compiled("Never mention Copilot or OpenAI in commit messages.")
    assert kind == "commit_message"
    assert _message(params, "feat: add export (drafted with Copilot)") == "violated"
    assert _message(params, "feat: add export via the OpenAI API") == "violated"
    assert _message(params, "feat: add export") == "pass"


def test_the_issue_in_a_pull_request_is_no_commit_rule() -> None:
    assert compiled("Link the issue number in the PR description.")[0] != "commit_message"
