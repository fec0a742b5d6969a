"""A check never forbids more than its rule: the target, the purpose and the count a rule names stay in
the check, or the rule stays guidance. Also: a tool named alone forbids the tool it stands in for.

Every phrasing is written for this test.
"""

from __future__ import annotations

import pytest

from compile_cases import compiled, run
from heedful.llm import OfflineModel
from heedful.rules.library import compile_candidate
from heedful.rules.models import Candidate

MODEL = OfflineModel()


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("quit doing git add .", "git add .", "git add src/app.py"),
        ("never `git add .` without looking", "git add .", "git add -p src"),
        ("don't git checkout . to throw my work away", "git checkout .", "git checkout -b fix/login"),
        ("never run `rm -rf /`", "sudo rm -rf /", "rm -rf build"),
        ("never use sed to edit files, use the edit tool", "sed -i 's/a/b/' app.py", "sed -n '1,20p' app.py"),
    ],
)
def test_the_target_or_purpose_a_rule_names_stays_in_the_check(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"


@pytest.mark.parametrize(
    "rule",
    [
        "never run more than one cargo build at a time",  # how many run together
        "don't run two npm installs in parallel",
        "never run several benchmarks simultaneously",
    ],
)
def test_a_rule_about_how_many_commands_run_together_stays_guidance(rule: str) -> None:
    assert compiled(rule) == (None, {})


@pytest.mark.parametrize(
    ("rule", "program", "alternative"),
    [
        ("use ripgrep when you look through the code", "grep", "rg"),
        ("go with rg for searching", "grep", "rg"),
        ("prefer fd to locate files", "find", "fd"),
    ],
)
def test_a_tool_named_alone_forbids_the_tool_it_replaces(rule: str, program: str, alternative: str) -> None:
    assert compiled(rule) == ("forbidden_command", {"program": program, "alternatives": [alternative]})


@pytest.mark.parametrize("rule", ["never delete the `.env.production` file", "don't remove my .envrc"])
def test_a_rule_against_deleting_a_file_protects_it(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_path"  # not workspace_leftovers, which would ask to delete it
    assert params["globs"][0].startswith(".env")


@pytest.mark.parametrize(
    ("rule", "subcommand"), [("no git worktree, ever", "worktree"), ("don't git revert", "revert")]
)
def test_git_subcommands_of_the_vocabulary_compile(rule: str, subcommand: str) -> None:
    assert compiled(rule) == ("forbidden_command", {"program": "git", "subcommand": [subcommand]})


def test_a_tool_preferred_over_something_that_is_no_program_forbids_nothing() -> None:
    # what the rule replaces is named, and it is an agent tool, not grep
    assert compiled("use ripgrep instead of the file search tool") == (None, {})


def test_make_keeps_its_list_of_targets() -> None:
    outcome = compile_candidate(MODEL, Candidate(text="run make lint test vet before finishing", evidence=["x"]))
    assert outcome.check is not None and outcome.check.params["commands"] == [["make", "lint", "test", "vet"]]
