"""Files, lists and required commands named the way people write them: extensionless project documents, what is
committed from a folder, options counted as list items, a required command due after a fix or during development,
and the build tool's wrapper script. Each with the near-miss that must not become a blocking check.

Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest

from compile_cases import compiled, edit
from heedful.rules.checks import evaluate


def bash(kind: str, params: dict[str, Any], command: str) -> str:
    return evaluate(kind, params, "pre_action", {"action": {"tool": "Bash", "command": command}}).result


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("never edit the CHANGELOG", "CHANGELOG.md", "docs/changes.md"),
        ("Don't touch the README.", "README.rst", "src/readme_parser.py"),
        ("pls do not modify the Makefile", "Makefile", "scripts/build.sh"),
    ],
)
def test_a_project_document_named_without_extension(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_path", rule
    assert edit(params, violating) == "violated"
    assert edit(params, compliant) == "pass"


@pytest.mark.parametrize(
    "rule",
    [
        "Do not create README files in every folder.",
        "don't add a CHANGELOG for each package",
        "never put a Makefile in all the subdirectories",
    ],
)
def test_a_rule_about_every_folder_is_not_a_ban_on_the_file(rule: str) -> None:
    assert compiled(rule)[0] != "forbidden_path", rule


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("Don't commit anything in build/.", "git add build/app.js", "git add src/app.js"),
        ("never git add anything from dist/", "git add dist/index.html", "git add README.md"),
    ],
)
def test_what_is_committed_from_a_folder_is_a_staged_path(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "staged_path", rule
    assert bash(kind, params, violating) == "violated"
    assert bash(kind, params, compliant) == "pass"


@pytest.mark.parametrize("rule", ["never push to origin/main", "don't push straight to main"])
def test_where_a_push_goes_is_not_a_staged_path(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command" and params["subcommand"] == ["push"], rule


@pytest.mark.parametrize(
    ("rule", "limit"),
    [
        ("List at most three options.", 3),
        ("give me no more than 4 suggestions", 4),
        ("Don't offer more than 2 alternatives.", 2),
        ("never propose more than five ideas", 5),
    ],
)
def test_options_are_counted_as_list_items(rule: str, limit: int) -> None:
    assert compiled(rule) == ("reply_count_limit", {"unit": "bullets", "limit": limit})


def test_options_of_something_other_than_the_reply_are_not_counted() -> None:
    assert compiled("Only test at most 3 options of the CLI")[0] is None


@pytest.mark.parametrize(
    ("rule", "condition", "command"),
    [
        ("run pytest when fixing bugs", None, "pytest"),
        ("Run `make test` during development.", None, "make test"),
        ("Run at least ./gradlew test lint.", "when fixing bugs", "./gradlew test lint detekt"),
        ("always run cargo test when implementing features", None, "cargo test --workspace"),
    ],
)
def test_a_command_due_after_code_changes_named_by_kind(rule: str, condition: str | None, command: str) -> None:
    kind, params = compiled(rule, condition)
    assert kind == "required_event", rule
    edit_event = {"kind": "edit", "path": "src/a.py"}
    ran = {"events": [edit_event, {"kind": "command", "command": command}]}
    skipped = {"events": [edit_event, {"kind": "command", "command": "git status"}]}
    assert evaluate(kind, params, "delivery", ran).result == "pass"
    assert evaluate(kind, params, "delivery", skipped).result == "violated"


def test_running_only_some_tests_is_not_a_required_command() -> None:
    assert compiled("Run only the relevant tests (pytest -k) for small fixes instead of the full suite.")[0] is None


def test_a_build_tool_wrapper_script_runs_the_tool() -> None:
    kind, params = compiled("Never run gradle clean.")
    assert kind == "forbidden_command"
    assert bash(kind, params, "./gradlew clean") == "violated"
    kind, params = compiled("Use ./gradlew, never the system gradle.")
    assert bash(kind, params, "gradle build") == "violated"
    assert bash(kind, params, "./gradlew build") == "pass"


@pytest.mark.parametrize(
    ("rule", "command", "gate"),
    [
        ("type-check with mypy before pushing", "mypy src", "git push"),
        ("Typecheck with `tsc --noEmit` before committing.", "tsc --noEmit", "git commit -m x"),
        ("always lint with ruff before you commit", "ruff check .", "git commit -m y"),
    ],
)
def test_a_check_named_by_its_verb_is_due_before_the_git_action(rule: str, command: str, gate: str) -> None:
    kind, params = compiled(rule)
    assert kind == "required_event", rule
    ran = {"action": {"tool": "Bash", "command": gate}, "events": [{"kind": "command", "command": command}]}
    skipped = {"action": {"tool": "Bash", "command": gate}, "events": []}
    assert evaluate(kind, params, "pre_action", ran).result == "pass"
    assert evaluate(kind, params, "pre_action", skipped).result == "violated"


@pytest.mark.parametrize("rule", ["Test with a small dataset first.", "Build with care.", "verify with a screenshot"])
def test_a_verb_with_no_command_after_it_is_not_a_required_command(rule: str) -> None:
    assert compiled(rule)[0] != "required_event", rule


@pytest.mark.parametrize(
    ("rule", "staged", "fine"),
    [
        ("Don't commit compiled Python files.", "app/__pycache__/x.cpython-311.pyc", "app/x.py"),
        ("don't commit certificates", "deploy/tls.crt", "deploy/README.md"),
        ("Never commit env files.", ".env.local", "env.example.md"),
        ("Never commit IDE settings.", ".idea/workspace.xml", "src/ide.py"),
        ("Don't commit source maps.", "dist/app.js.map", "src/map.ts"),
        ("Never commit database files.", "data/dev.sqlite3", "db/schema.sql"),
    ],
)
def test_a_kind_of_file_named_in_prose_is_staged_by_its_globs(rule: str, staged: str, fine: str) -> None:
    kind, params = compiled(rule)
    assert kind == "staged_path", rule
    assert bash(kind, params, f"git add {staged}") == "violated"
    assert bash(kind, params, f"git add {fine}") == "pass"


@pytest.mark.parametrize(
    ("rule", "violating"),
    [
        ("Never edit minified files.", "static/app.min.js"),
        ("never hand-edit the Xcode project", "App.xcodeproj/project.pbxproj"),
    ],
)
def test_a_kind_of_file_named_in_prose_is_protected(rule: str, violating: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_path", rule
    assert edit(params, violating) == "violated"
    assert edit(params, "src/app.js") == "pass"


@pytest.mark.parametrize(
    "rule", ["never edit terraform files", "Don't commit compiled Python files.", "no python files in the root"]
)
def test_a_language_named_before_files_is_not_the_program(rule: str) -> None:
    assert compiled(rule)[0] != "forbidden_command", rule
