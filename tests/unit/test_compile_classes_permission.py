"""Classes of rules that wait for the user's word, ask for a commit trailer, or name a command after "with".

- a ban that holds until the user asks ("without an explicit request", "unless specifically prompted",
  "without first confirming") is a block: the block is what makes the agent ask;
- "ask before pushing", "double-check with me before committing": the gerund is the blocked command;
- "do not use git (commands)": git itself, where "commit weights to git" stays a rule about what is committed;
- a commit trailer the message must carry, a subject that must end with a full stop, an upper-case keyword
  the message must not carry;
- "run the tests with `go test ./...`": the command after "with", due when the condition says;
  "before human review" is the moment the work is handed over.

Every phrasing is written for this test (none is a corpus sentence); each class has one that must stay
guidance or stay narrow.
"""

from __future__ import annotations

from typing import Any

import pytest

from compile_cases import compiled, run
from heedful.rules.checks import evaluate


@pytest.mark.parametrize(
    ("rule", "condition", "params"),
    [
        ("never run git rebase without an explicit request", None, {"program": "git", "subcommand": ["rebase"]}),
        ("don't push without the user's request", None, {"program": "git", "subcommand": ["push"]}),
        (
            "never use git push --force without first confirming with the user",
            None,
            {"program": "git", "subcommand": ["push"], "flags": [["--force", "-f"]]},
        ),
        (
            "Do not run terraform apply unless specifically prompted.",
            None,
            {"program": "terraform", "subcommand": ["apply"]},
        ),
        (
            "Never run docker system prune.",
            "unless explicitly directed",
            {"program": "docker", "subcommand": ["system", "prune"]},
        ),
        ("never run git tag without an explicit instruction to tag", None, {"program": "git", "subcommand": ["tag"]}),
        ("never amend commits unless the user explicitly says so", None, {"subcommand": ["commit"]}),
        ("never run bundle exec rake directly on the host; use the dev container", None, {"program": "bundle"}),
    ],
)
def test_a_ban_until_the_user_asks_is_a_block(rule: str, condition: str | None, params: dict[str, Any]) -> None:
    kind, got = compiled(rule, condition)
    assert kind == "forbidden_command"
    assert {k: got[k] for k in params} == params


def test_a_ban_until_the_user_says_so_stays_guidance() -> None:
    # no request the agent can be blocked until: "unless it seems necessary" is the agent's own judgement
    assert compiled("never run git rebase unless it seems necessary")[0] is None


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("Ask before pushing.", "git push origin feature"),
        ("ask me before committing", "git commit -m 'wip'"),
        ("Always double-check with me before rebasing.", "git rebase main"),
    ],
)
def test_ask_before_a_git_action_blocks_that_action(rule: str, command: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command" and params["program"] == "git"
    assert run(params, command) == "violated"
    assert run(params, "git status") == "pass"


def test_asking_before_something_no_command_names_stays_guidance() -> None:
    assert compiled("ask before proceeding")[0] is None
    assert compiled("always ask before making big changes")[0] is None


def test_git_itself_when_the_rule_forbids_using_it() -> None:
    for rule in ("Do not use git.", "never run git commands", "don't use git unless I explicitly ask"):
        kind, params = compiled(rule)
        assert (kind, params) == ("forbidden_command", {"program": "git"}), rule
        assert run(params, "git log --oneline") == "violated"
        assert run(params, "ls -la") == "pass"
    # what is committed to git is the rule's subject, not git
    assert compiled("never commit build outputs to git")[0] != "forbidden_command" or (
        compiled("never commit build outputs to git")[1] != {"program": "git"}
    )


def _commit(message: str) -> str:
    return f'git commit -m "{message}"'


def _message_result(params: dict[str, Any], message: str) -> str:
    return evaluate(
        "commit_message", params, "pre_action", {"action": {"tool": "Bash", "command": _commit(message)}}
    ).result


@pytest.mark.parametrize(
    "rule",
    [
        "Agent commits must include a Co-authored-by line naming the agent.",
        "add a co-author trailer to every commit you make",
        "Credit the model with a Co-Authored-By trailer in commits.",
    ],
)
def test_a_required_co_author_trailer(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "commit_message" and params.get("require")
    assert _message_result(params, "fix: typo\n\nCo-authored-by: Bot <bot@example.com>") == "pass"
    assert _message_result(params, "fix: typo\n\nCo-Authored-By: Bot <bot@example.com>") == "pass"  # git's any case
    assert _message_result(params, "fix: typo") == "violated"


def test_a_rule_about_the_trailer_s_form_does_not_require_it() -> None:
    assert compiled("the co-author trailer should name the exact model")[0] is None


def test_a_subject_that_must_end_with_a_full_stop() -> None:
    kind, params = compiled("end every commit subject with a period")
    assert kind == "commit_message"
    assert _message_result(params, "Fix the parser.") == "pass"
    assert _message_result(params, "Fix the parser") == "violated"
    # its negation keeps the full stop out, as before
    kind, params = compiled("don't end commit subjects with a period")
    assert _message_result(params, "Fix the parser.") == "violated"


def test_an_upper_case_keyword_the_message_must_not_carry() -> None:
    kind, params = compiled("never put DO NOT MERGE: in a commit message")
    assert (kind, params) == ("commit_message", {"forbid": ["DO NOT MERGE:"]})
    assert _message_result(params, "DO NOT MERGE: experiment") == "violated"
    assert _message_result(params, "feat: experiment") == "pass"
    # an acronym in a rule about what is committed is no text of the message
    assert compiled("never commit API keys")[0] is None


@pytest.mark.parametrize(
    ("rule", "condition", "commands"),
    [
        ("Run the unit tests with `cargo nextest run` after touching Rust code.", None, [["cargo", "nextest", "run"]]),
        ("Run type checks using mypy when changing Python files.", None, [["mypy"]]),
        ("Run static checks with staticcheck ./...", "when making code changes", [["staticcheck"]]),
        ("Run buf lint", "before human review", [["buf", "lint"]]),
    ],
)
def test_the_command_after_with_is_the_one_required(
    rule: str, condition: str | None, commands: list[list[str]]
) -> None:
    kind, params = compiled(rule, condition)
    assert kind == "required_event" and params["commands"] == commands


def test_a_tip_before_a_manual_review_stays_guidance() -> None:
    assert compiled("use `eslint --fix` to clean up most issues before manual review")[0] is None


# -- second batch: phrasings of the same classes, and words that are never programs ------------------------------
def test_no_need_to_ask_is_a_permission_not_a_ban() -> None:
    assert compiled("do not ask for approval to run cargo fmt")[0] is None
    assert compiled("no need to ask before running git status")[0] is None


@pytest.mark.parametrize(
    "rule",
    [
        "never run flaky integration tests locally",  # an adjective before a noun, not a program
        "run individual lint commands one at a time",
        "run model benchmarks for performance changes",
    ],
)
def test_a_word_before_a_noun_is_never_a_program(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind is None or params.get("program") not in ("flaky", "individual", "model"), params
    assert "commands" not in params or all(c[0] not in ("individual", "model") for c in params["commands"])


def test_what_prose_does_after_the_command_is_not_another_command() -> None:
    kind, params = compiled("Run make build and verify the output before committing.")
    assert (kind, params["commands"]) == ("required_event", [["make", "build"]])


def test_a_remote_check_named_after_confirm_with() -> None:
    kind, params = compiled("Before pushing, confirm the remotes with git remote -v.")
    assert kind == "required_event" and params["commands"] == [["git", "remote"]] and params["before"] == "push"


@pytest.mark.parametrize(
    ("rule", "subject_ok", "subject_bad"),
    [
        ("Use semantic commit messages.", "perf(db): batch inserts", "batch inserts"),
        ("Commit prefixes are feat, fix, docs, build.", "build: bump deps", "chore: bump deps"),
    ],
)
def test_commit_conventions_by_other_names(rule: str, subject_ok: str, subject_bad: str) -> None:
    kind, params = compiled(rule)
    assert kind == "commit_message"
    assert _message_result(params, subject_ok) == "pass"
    assert _message_result(params, subject_bad) == "violated"


def test_a_dco_sign_off_is_met_by_git_commit_s() -> None:
    kind, params = compiled("All commits need a DCO sign-off.")
    assert (kind, params) == ("commit_message", {"require": "Signed-off-by: "})
    for signed in ('git commit -s -m "fix: x"', 'git commit --signoff -m "fix: x"', 'git commit -sm "fix: x"'):
        assert run(params, signed, "commit_message") == "pass", signed
    assert _message_result(params, "fix: x\n\nSigned-off-by: Dev <dev@example.com>") == "pass"
    assert run(params, 'git commit -am "fix: x"', "commit_message") == "violated"


# -- third batch: conditions that name files in parentheses, verbs that redo a step with a command, a part of the
# work that must pass a command, a commit due every turn ---------------------------------------------------------
def test_files_named_in_parentheses_in_a_leading_condition_are_the_edits_it_waits_for() -> None:
    kind, params = compiled("If you touch the schema (schema.graphql or resolvers/), run make codegen.")
    assert kind == "required_event" and params["commands"] == [["make", "codegen"]]
    assert set(params["edit_globs"]) == {"schema.graphql", "resolvers/**"}


def test_redoing_a_step_with_a_command() -> None:
    kind, params = compiled("When pyproject.toml changes, reinstall the project with pip install -e .")
    assert (kind, params["commands"]) == ("required_event", [["pip", "install"]])
    kind, params = compiled("After editing, re-run cargo fmt.")
    assert (kind, params["commands"]) == ("required_event", [["cargo", "fmt"]])


def test_a_part_of_the_work_that_must_pass_a_command() -> None:
    kind, params = compiled("Docs must pass `vale docs/`.", "after changing docs")
    assert (kind, params["commands"]) == ("required_event", [["vale"]])
    # a moment is not a command
    assert compiled("All CI checks must pass before merge")[0] is None


def test_a_commit_due_every_turn() -> None:
    for rule in ("Commit every turn.", "commit your changes at the end of each task"):
        kind, params = compiled(rule)
        assert (kind, params["commands"]) == ("required_event", [["git", "commit"]]), rule


# -- a command kept for when the user asks ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "params"),
    [
        ("Use `make deploy` only when the user explicitly asks.", {"program": "make", "subcommand": ["deploy"]}),
        ("Only run terraform destroy when I ask.", {"program": "terraform", "subcommand": ["destroy"]}),
        ("Ask the user to confirm before running git rebase.", {"program": "git", "subcommand": ["rebase"]}),
    ],
)
def test_a_command_kept_for_when_the_user_asks_is_blocked_until_then(rule: str, params: dict[str, Any]) -> None:
    kind, got = compiled(rule)
    assert kind == "forbidden_command"
    assert {k: got[k] for k in params} == params


def test_a_command_kept_for_another_moment_too_stays_guidance() -> None:
    assert compiled("Only run npm run build when asked or before a release.")[0] is None
    assert compiled("never push when I ask you to review")[0] is None  # "when I ask" here is a moment, not a go-ahead


def test_files_created_only_when_asked_stay_guidance() -> None:
    # a path check would block every edit of such files, not only creating them
    rule = "Never create new markdown files (*.md); only when explicitly requested."
    assert compiled(rule)[0] is None
