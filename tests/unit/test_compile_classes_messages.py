"""Classes of phrasing about commit messages, commands due before a moment, and git's verbs (each phrasing
written for this test, none a corpus sentence):

- a CI marker (`[skip ci]`, `[ci skip]`) kept out is a commit-message rule without the word "commit";
- a literal the subject must start with ("prefix the commit title with `[bot]`");
- sign-off lines or trailers kept out are the `Signed-off-by` trailer as git writes it;
- a list of allowed commit types ending in "and"; a subject "less than" or "fewer than" N characters;
- "<activity> after changes (`cmd`)", "ensure the tests pass (`cmd`) before …", "tests must pass with `cmd` …",
  "`cmd` must report no …": the command is due;
- "get confirmation from the user before committing" blocks the commit until the user says yes;
- "stage" is `git add`; "on your own" names no branch.
"""

from __future__ import annotations

import pytest

from compile_cases import compiled, run
from heedful.rules.checks import evaluate


def commit(params: dict[str, object], message: str) -> str:
    return run(params, f'git commit -m "{message}"', kind="commit_message")


@pytest.mark.parametrize("rule", ["Do not use `[skip ci]`; releases use it.", "Never put [ci skip] in a message."])
def test_a_ci_marker_kept_out_is_a_commit_message_rule(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "commit_message"
    marker = params["forbid"][0]
    assert commit(params, f"docs: typo {marker}") == "violated"
    assert commit(params, "docs: typo") == "pass"


def test_a_literal_prefix_of_the_subject_is_required() -> None:
    kind, params = compiled("Prefix the commit title with `[bot]`.")
    assert kind == "commit_message"
    assert commit(params, "[bot] bump deps") == "pass"
    assert commit(params, "bump deps") == "violated"


@pytest.mark.parametrize(
    "rule", ["Never add sign-off lines to commit messages.", "Don't add sign-off trailers to commits."]
)
def test_sign_off_lines_kept_out_are_the_signed_off_by_trailer(rule: str) -> None:
    kind, params = compiled(rule)
    assert (kind, params) == ("commit_message", {"forbid": ["Signed-off-by"]})
    assert run(params, 'git commit -s -m "fix: x"', kind="commit_message") == "violated"
    assert commit(params, "fix: x") == "pass"


def test_a_list_of_commit_types_ending_in_and_names_every_type() -> None:
    kind, params = compiled("Use only the commit types feat, fix, docs and ci.")
    assert kind == "commit_message"
    assert commit(params, "ci: cache deps") == "pass"
    assert commit(params, "chore: cache deps") == "violated"


@pytest.mark.parametrize(
    "rule", ["Commit subjects must be less than 60 characters.", "Keep commit titles fewer than 60 chars."]
)
def test_less_than_n_characters_limits_the_subject(rule: str) -> None:
    kind, params = compiled(rule)
    assert (kind, params.get("max_subject")) == ("commit_message", 60)


@pytest.mark.parametrize(
    ("rule", "condition", "command"),
    [
        ("Lint after making changes (`make lint-ci`).", None, "make lint-ci"),
        ("Ensure all tests pass (`swift test`) before submitting changes.", None, "swift test"),
        ("All tests must pass with `go test -race ./...` before work is done.", None, "go test -race ./..."),
        ("`cargo audit` must report no vulnerabilities.", "before you finish", "cargo audit"),
    ],
)
def test_a_command_due_said_otherwise_is_required(rule: str, condition: str | None, command: str) -> None:
    kind, params = compiled(rule, condition)
    assert kind == "required_event"
    edited = [{"kind": "edit", "path": "a.go"}]
    assert evaluate(kind, params, "delivery", {"events": edited}).result == "violated"
    ran = [*edited, {"kind": "command", "command": command}]
    assert evaluate(kind, params, "delivery", {"events": ran}).result == "pass"


def test_tests_that_must_pass_with_no_moment_stay_guidance() -> None:
    assert compiled("Tests must pass with `pytest`.") == (None, {})


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("Get confirmation from the user before committing.", "git commit -m x"),
        ("Get approval from me before pushing.", "git push"),
    ],
)
def test_getting_the_users_word_first_blocks_the_action(rule: str, command: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert run(params, command) == "violated"
    assert run(params, "git status") == "pass"


@pytest.mark.parametrize("rule", ["Never stage files unless explicitly asked.", "Don't stage anything without asking."])
def test_staging_is_git_add(rule: str) -> None:
    kind, params = compiled(rule)
    assert (kind, params["program"], params["subcommand"]) == ("forbidden_command", "git", ["add"])
    assert run(params, "git add -A") == "violated"


@pytest.mark.parametrize("rule", ["Never deploy to the staging environment.", "Don't touch the staging server."])
def test_staging_the_environment_is_not_git_add(rule: str) -> None:
    assert compiled(rule)[1].get("subcommand") != ["add"]


def test_on_your_own_names_no_branch() -> None:
    kind, params = compiled("Never push on your own.")
    assert (kind, params.get("args")) == ("forbidden_command", None)
    assert run(params, "git push origin feature") == "violated"
