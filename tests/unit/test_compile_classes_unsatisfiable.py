"""Checks that could never pass or that block the wrong thing: prose read as a required command, a project's
own script named by one word, a script run through its interpreter, a script name read as a commit type, a plural
noun read as a subcommand, a negation inside a quoted message, a tool's version, and commits as the place
something is added. Each with the reading that must stay.

Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest

from compile_cases import compiled, run
from heedful.rules.checks import evaluate


def before_push(params: dict[str, Any], commands: list[str]) -> str:
    events = [{"kind": "edit", "path": "src/app.ts"}, *({"kind": "command", "command": c} for c in commands)]
    evidence = {"action": {"tool": "Bash", "command": "git push origin feature"}, "events": events}
    return evaluate("required_event", params, "pre_action", evidence).result


@pytest.mark.parametrize(
    "rule",
    [
        "Never say you're done without proper manual verification.",
        "Run npm run dev in the background, otherwise the terminal hangs.",
        "After changing the public API, run Contoso.Api.Baseline.Tests.",
    ],
)
def test_prose_read_as_a_required_command_stays_guidance(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind != "required_event", (rule, params)


def test_an_aside_in_parentheses_is_not_another_required_command() -> None:
    kind, params = compiled("Before pushing, run make e2e (slow, cluster required).")
    assert kind != "required_event" or all(c[0] != "cluster" for c in params["commands"]), params
    if kind == "required_event":
        assert before_push(params, ["make e2e"]) == "pass"


def test_a_one_word_script_is_run_through_the_projects_runner() -> None:
    kind, params = compiled("Run lint and typecheck before you push.")
    assert kind == "required_event"
    assert before_push(params, ["pnpm lint", "pnpm typecheck"]) == "pass"
    assert before_push(params, ["npm run lint", "make typecheck"]) == "pass"
    assert before_push(params, ["pnpm lint"]) == "violated"
    assert before_push(params, ["git status"]) == "violated"


def test_a_script_run_through_its_interpreter_is_also_the_script_run_directly() -> None:
    kind, params = compiled("Run bash tools/check-links.sh before every push.")
    assert kind == "required_event"
    assert before_push(params, ["./tools/check-links.sh"]) == "pass"
    assert before_push(params, ["sh tools/check-links.sh"]) == "pass"
    assert before_push(params, ["bash tools/other.sh"]) == "violated"


def test_a_windows_script_and_a_commit_named_by_the_verb_alone() -> None:
    kind, params = compiled("Always run Prepare.ps1 and commit before pushing.")
    assert kind == "required_event"
    assert before_push(params, ["pwsh ./eng/Prepare.ps1", "git commit -m wip"]) == "pass"
    assert before_push(params, ["pwsh ./eng/Prepare.ps1"]) == "violated"


def test_a_script_named_after_a_commit_type_is_no_commit_rule() -> None:
    kind, params = compiled("Use pnpm test:e2e to run the browser tests.")
    assert kind != "commit_message", params
    assert not (kind == "forbidden_command" and params.get("program") == "npm"), params


@pytest.mark.parametrize("rule", ["Never tag docker images as latest.", "Don't build docker images on the host."])
def test_a_plural_noun_after_docker_is_not_its_subcommand(rule: str) -> None:
    kind, params = compiled(rule)
    assert not (kind == "forbidden_command" and params.get("subcommand") == ["image"]), (rule, params)


def test_pruning_images_is_image_prune() -> None:
    kind, params = compiled("never prune the docker images")
    assert kind == "forbidden_command"
    assert run(params, "docker image prune -af") == "violated"
    assert run(params, "docker image ls") == "pass"


def test_a_negation_inside_a_quoted_message_is_the_messages() -> None:
    kind, params = compiled('"Module not found" in Jest: reinstall the dependencies.')
    assert not (kind == "forbidden_command" and params.get("program") == "jest"), params


def test_a_tools_version_is_not_the_tool() -> None:
    kind, params = compiled("Don't change the Node or npm versions.")
    assert kind != "forbidden_command", params
    kind, params = compiled("Never run npm version.")
    assert kind == "forbidden_command"
    assert run(params, "npm version patch") == "violated"
    assert run(params, "npm install") == "pass"


def test_what_is_added_to_commits_is_no_ban_on_committing() -> None:
    kind, params = compiled("Never add your name to commits or PRs.")
    assert not (kind == "forbidden_command" and params.get("subcommand") == ["commit"]), params


@pytest.mark.parametrize(
    ("rule", "each"),
    [
        (
            "Never run pip install with --user or --break-system-packages.",
            ["pip install --user x", "pip install --break-system-packages x"],
        ),
        ("don't use git commit --amend or --no-verify", ["git commit --amend", "git commit --no-verify -m x"]),
        (
            "No `--no-verify`, `--no-gpg-sign` or `-n` on git commit.",
            ["git commit -n -m x", "git commit --no-gpg-sign -m x"],
        ),
    ],
)
def test_flags_named_as_a_choice_each_forbid_the_command(rule: str, each: list[str]) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    for command in each:
        assert run(params, command) == "violated", (rule, command, params)
    assert run(params, f"{each[0].split(' -')[0]} ok") == "pass"


def test_flags_written_together_are_all_required() -> None:
    kind, params = compiled("never rm -r -f anything")
    assert kind == "forbidden_command"
    assert run(params, "rm -rf build") == "violated"
    assert run(params, "rm -r build") == "pass"


@pytest.mark.parametrize("rule", ["don't push on fridays", "never force push to main over the weekend"])
def test_a_time_the_check_cannot_see_keeps_the_rule_guidance(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind is None, (rule, params)


def test_the_deny_names_every_flag_of_a_choice() -> None:
    from heedful.rules.checks import evaluate

    kind, params = compiled("Never run pip install with --user or --break-system-packages.")
    evidence = {"action": {"tool": "Bash", "command": "pip install --break-system-packages rich"}}
    verdict = evaluate(str(kind), params, "pre_action", evidence)
    assert verdict.result == "violated" and "--break-system-packages" in verdict.reason


@pytest.mark.parametrize(
    ("rule", "kind_not"),
    [
        ("Keep route handlers to at most 30 lines.", "reply_count_limit"),
        ("Never write `import * as fs from 'fs'` in new modules.", "reply_forbidden_text"),
        ("Use the yarn version pinned in package.json.", "forbidden_command"),
    ],
)
def test_code_and_a_tools_version_are_not_the_reply_or_a_ban(rule: str, kind_not: str) -> None:
    kind, params = compiled(rule)
    assert kind != kind_not, (rule, params)


@pytest.mark.parametrize(
    ("rule", "kind_not"),
    [
        (
            'Log without the error text: `log.error("Timeout")`, not `log.error(f"Timeout {e}")`.',
            "reply_forbidden_text",
        ),
        ("Don't write helpers that call npm install at import time.", "forbidden_command"),
    ],
)
def test_quotes_in_code_and_code_that_runs_a_command_are_not_the_agents(rule: str, kind_not: str) -> None:
    kind, params = compiled(rule)
    assert kind != kind_not, (rule, params)
