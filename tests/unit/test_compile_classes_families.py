"""Things named by family rather than spelled out: the main lines a push rule lists together, what is published
(a gem, a crate, an image), files named by what they are for (workflows, Gradle scripts), markdown constructs in a
reply, and commands due last, run with an environment setting or followed by what they are for. Each with the
near-miss that must not become a blocking check.

Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest

from compile_cases import compiled, edit, run
from heedful.rules.checks import evaluate


def deliver(params: dict[str, Any], reply: str) -> str:
    return evaluate("reply_forbidden_text", params, "delivery", {"delivery": reply}).result


def finish(params: dict[str, Any], commands: list[str]) -> str:
    events = [{"kind": "edit", "path": "src/app.py"}, *({"kind": "command", "command": c} for c in commands)]
    return evaluate("required_event", params, "delivery", {"events": events}).result


@pytest.mark.parametrize(
    "rule",
    [
        "never force-push onto main/master",
        "No force pushes to main or master, please.",
        "don't force push to master/main",
    ],
)
def test_main_lines_named_together_are_each_protected(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(params, "git push --force origin main") == "violated"
    assert run(params, "git push -f origin master") == "violated"
    assert run(params, "git push --force origin fix/login") == "pass"


def test_a_branch_with_a_slash_in_its_name_stays_one_branch() -> None:
    kind, params = compiled("never push to release/2.x")
    assert kind == "forbidden_command"
    assert run(params, "git push origin release/2.x") == "violated"
    assert run(params, "git push origin release") == "pass"


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("don't ever release the crate yourself", "cargo publish --dry-run", "cargo build --release"),
        ("Never publish our gem.", "gem push pkg/app-1.0.gem", "gem install rake"),
        ("no pushing container images to the registry", "docker push ghcr.io/acme/app:1", "docker build -t app ."),
    ],
)
def test_what_is_published_names_the_command_that_publishes_it(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"


def test_pushing_what_another_program_built_is_not_a_git_push() -> None:
    kind, params = compiled("Build the image locally but never push it.")
    assert not (kind == "forbidden_command" and params.get("program") == "git")


def test_a_subcommand_typed_after_another_is_read_as_typed() -> None:
    kind, params = compiled("never run docker image prune")
    assert kind == "forbidden_command"
    assert run(params, "docker image prune -a") == "violated"
    assert run(params, "docker image ls") == "pass"


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("please don't touch the GitHub workflows", ".github/workflows/ci.yml", "src/ci.py"),
        ("never modify the gradle build files", "app/build.gradle.kts", "app/src/Main.kt"),
        ("do not edit our shell scripts", "scripts/deploy.sh", "scripts/deploy.py"),
    ],
)
def test_a_family_of_files_is_protected_by_its_spellings(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_path", rule
    assert edit(params, violating) == "violated"
    assert edit(params, compliant) == "pass"


@pytest.mark.parametrize(
    "rule",
    [
        "Don't hand-edit the generated proto files; change the schema and regenerate.",
        "do not swap these imports for java.util.logging",
        "Do not change the version field in package.json unless asked.",
    ],
)
def test_outputs_modules_and_parts_of_a_file_are_not_a_file_ban(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind != "forbidden_path" or edit(params, "proto/api.proto") == "pass", (rule, params)
    assert kind != "forbidden_path" or edit(params, "package.json") == "pass", (rule, params)
    assert kind != "forbidden_path" or "java.util.logging" not in params.get("globs", []), (rule, params)


@pytest.mark.parametrize(
    ("rule", "violating"),
    [
        ("no markdown links in your answers, ever", "See the [guide](https://example.com/guide)."),
        ("In replies, never use markdown tables.", "| a | b |\n|---|---|\n| 1 | 2 |"),
        ("Avoid tables in your responses.", "| name | size |\n| :-- | --: |\n| x | 1 |"),
    ],
)
def test_a_markdown_construct_banned_in_replies_is_spelled_as_it_is_written(rule: str, violating: str) -> None:
    kind, params = compiled(rule)
    assert kind == "reply_forbidden_text", rule
    assert deliver(params, violating) == "violated"
    assert deliver(params, "The guide is at docs/guide.md; sizes: a=1, b=2.") == "pass"


def test_markdown_in_a_document_is_not_a_reply_rule() -> None:
    assert compiled("Never put tables in the README; in replies keep it short.")[0] != "reply_forbidden_text"


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("Wrap up every task by running just check.", "just check"),
        ("As the final step, run npm run lint.", "npm run lint"),
        ("After editing, run yarn lint:fix to clean up formatting and imports.", "yarn lint:fix"),
        ("Finish by running .\\scripts\\verify.ps1", "./scripts/verify.ps1"),
    ],
)
def test_a_command_due_last_or_followed_by_its_purpose(rule: str, command: str) -> None:
    kind, params = compiled(rule)
    assert kind == "required_event", rule
    assert finish(params, [command]) == "pass"
    assert finish(params, ["git status"]) == "violated"


def test_an_environment_setting_before_the_command_is_not_its_program() -> None:
    kind, params = compiled("Run the suite (CI=1 npm test) before you commit.")
    assert kind == "required_event"
    assert params.get("before") == "commit"
    gate = {"tool": "Bash", "command": "git commit -m wip"}
    ran = {"action": gate, "events": [{"kind": "command", "command": "CI=1 npm test"}]}
    assert evaluate(kind, params, "pre_action", ran).result == "pass"
    assert evaluate(kind, params, "pre_action", {"action": gate, "events": []}).result == "violated"
