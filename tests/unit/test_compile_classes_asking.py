"""Classes of phrasing this round's compiler reads (each phrasing written for this test, none a corpus sentence):

- a list of paths after a colon is the rule's object ("do not hand-edit generated files: a/, b/*.go");
- a condition that is the asking itself ("ask first", "ask the user to confirm before running it") is decided by a
  check that blocks: the block is what makes the agent ask; a condition asking about something else is not;
- "vendored files, code or dependencies" are the files under vendor/;
- a hook manager's hooks run by its own subcommand (`pre-commit run`);
- what a program is, said after its name ("the ruff linter", "the pytest suite"), is not a subcommand: a required
  `ruff linter` could never run, so every commit would be blocked.
"""

from __future__ import annotations

import pytest

from compile_cases import compiled, edit, run
from heedful.rules.checks import evaluate


@pytest.mark.parametrize(
    ("rule", "inside", "outside"),
    [
        ("Do not hand-edit generated files: pkg/gen/, web/static/.", "/srv/app/web/static/app.js", "/srv/app/src/a.ts"),
        ("Never edit these files: package-lock.json, yarn.lock.", "/srv/app/yarn.lock", "/srv/app/package.json"),
        ("Don't modify the following folders: dist/ and build/.", "/srv/app/build/x.o", "/srv/app/src/x.c"),
    ],
)
def test_a_list_of_paths_after_a_colon_is_what_the_rule_keeps_unedited(rule: str, inside: str, outside: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_path"
    assert edit(params, inside) == "violated"
    assert edit(params, outside) == "pass"


def test_a_colon_list_of_committed_files_keeps_them_out_of_commits() -> None:
    kind, params = compiled("Never commit these files: .env, secrets.json.")
    assert (kind, sorted(params["globs"])) == ("staged_path", [".env", "secrets.json"])


@pytest.mark.parametrize("rule", ["Note: see docs/README.md.", "Title: keep it short, e.g. docs/x.md."])
def test_a_colon_before_a_path_without_a_rule_stays_guidance(rule: str) -> None:
    assert compiled(rule) == (None, {})


@pytest.mark.parametrize(
    ("rule", "condition", "blocked", "allowed"),
    [
        ("Never run terraform destroy.", "ask first", "terraform destroy -auto-approve", "terraform plan"),
        ("Do not run git remote rename.", "ask the user to confirm first", "git remote rename a b", "git remote -v"),
        ("Never publish to npm.", "confirm with me before publishing", "npm publish", "npm pack"),
        ("Never push.", "without showing me first", "git push origin feature", "git status"),
    ],
)
def test_a_condition_that_is_the_asking_is_decided_by_the_block(
    rule: str, condition: str, blocked: str, allowed: str
) -> None:
    kind, params = compiled(rule, condition)
    assert kind == "forbidden_command"
    assert run(params, blocked) == "violated"
    assert run(params, allowed) == "pass"


@pytest.mark.parametrize(
    "condition", ["ask whether the plan looks right", "ask for the plan", "without showing the diff"]
)
def test_a_condition_asking_about_something_else_stays_guidance(condition: str) -> None:
    assert compiled("Never run terraform apply.", condition) == (None, {})


def test_an_ask_first_rule_on_a_kind_of_files_blocks_their_edits() -> None:
    kind, params = compiled("Ask first before modifying GitHub Actions workflows.", "ask first")
    assert kind == "forbidden_path"
    assert edit(params, "/srv/app/.github/workflows/ci.yml") == "violated"
    assert edit(params, "/srv/app/src/main.py") == "pass"


@pytest.mark.parametrize(
    "rule", ["Never edit vendored files.", "Don't touch vendored code.", "Do not modify vendored libraries."]
)
def test_vendored_files_are_the_vendor_folder(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_path"
    assert edit(params, "/srv/app/vendor/github.com/x/y.go") == "violated"
    assert edit(params, "/srv/app/internal/y.go") == "pass"


def test_running_the_hooks_of_a_hook_manager_is_its_run_subcommand() -> None:
    kind, params = compiled("Run the pre-commit hooks before committing.")
    assert (kind, params["commands"]) == ("required_event", [["pre-commit", "run"]])
    gate = {"tool": "Bash", "command": "git commit -m wip"}
    edited = [{"kind": "edit", "path": "a.py"}]
    ran = [*edited, {"kind": "command", "command": "pre-commit run --all-files"}]
    assert evaluate(kind, params, "pre_action", {"action": gate, "events": edited}).result == "violated"
    assert evaluate(kind, params, "pre_action", {"action": gate, "events": ran}).result == "pass"


@pytest.mark.parametrize(
    ("rule", "program", "satisfies"),
    [
        ("Run the ruff linter before committing.", ["ruff"], "ruff check ."),
        ("Run the pytest suite before committing.", ["pytest"], "pytest -q"),
        ("Run eslint checks before committing.", ["eslint"], "eslint src"),
    ],
)
def test_what_a_program_is_is_not_its_subcommand(rule: str, program: list[str], satisfies: str) -> None:
    kind, params = compiled(rule)
    assert (kind, params["commands"]) == ("required_event", [program])
    gate = {"tool": "Bash", "command": "git commit -m wip"}
    ran = [{"kind": "edit", "path": "a.py"}, {"kind": "command", "command": satisfies}]
    assert evaluate(kind, params, "pre_action", {"action": gate, "events": ran}).result == "pass"


def test_a_target_runner_keeps_any_word_as_its_target() -> None:
    kind, params = compiled("Run make tests before committing.")
    assert (kind, params["commands"]) == ("required_event", [["make", "tests"]])
