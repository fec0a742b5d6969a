"""Classes the command vocabulary states: privilege tools, global installs, runners, git's narrowing words,
commands due before finishing, commit trailers, leftovers and lock files, ask-first conditions.

Every phrasing is written for this test (none is a corpus sentence); each class has several, and each
class has a phrasing that must stay guidance because a check would forbid more than the rule says.
"""

from __future__ import annotations

from typing import Any

import pytest

from compile_cases import compiled, run
from heedful.rules.checks import evaluate


# -- privilege tools: the command they run is the forbidden one --------------------------------------------
@pytest.mark.parametrize(
    ("rule", "params"),
    [
        ("no sudo apt-get, I manage system packages myself", {"program": "sudo", "args": ["apt-get"]}),
        ("never put sudo in front of cargo", {"program": "sudo", "args": ["cargo"]}),
        ("don't use sudo for gem", {"program": "sudo", "args": ["gem"]}),
        ("stop running doas npm", {"program": "doas", "args": ["npm"]}),
        ("pkexec is off the table", {"program": "pkexec"}),
    ],
)
def test_privilege_tools_compile_to_the_command_they_run(rule: str, params: dict[str, Any]) -> None:
    assert compiled(rule) == ("forbidden_command", params)


def test_the_flags_after_a_privilege_tool_belong_to_the_command_it_runs() -> None:
    kind, params = compiled("never sudo rm -rf anything")
    assert kind == "forbidden_command" and params["program"] == "sudo" and params["args"] == ["rm"]
    assert run(params, "sudo rm --recursive --force /var/cache/app") == "violated"
    assert run(params, "sudo rm /var/cache/app/stale.lock") == "pass"  # rm without -rf is not the rule
    assert run(params, "rm -rf build") == "pass"  # without privileges


# -- global installs, by each package manager's own spelling -------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "params", "violating", "compliant"),
    [
        (
            "quit installing go tools globally",
            {"program": "go", "subcommand": ["install"]},
            "go install golang.org/x/tools/gopls@latest",
            "go build ./...",
        ),
        (
            "never install binaries globally with cargo",
            {"program": "cargo", "subcommand": ["install"]},
            "cargo install ripgrep",
            "cargo build --release",
        ),
        (
            "never uv tool install anything",
            {"program": "uv", "subcommand": ["tool"], "args": ["install"]},
            "uv tool install ruff",
            "uv add ruff",
        ),
        (
            "no --break-system-packages, ever",
            {"program": "pip", "flags": [["--break-system-packages"]]},
            "pip install --break-system-packages requests",
            "pip install requests",
        ),
    ],
)
def test_global_installs_compile_per_package_manager(
    rule: str, params: dict[str, Any], violating: str, compliant: str
) -> None:
    assert compiled(rule) == ("forbidden_command", params)
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"


# -- containers: --privileged under either engine -------------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "params"),
    [
        ("no --privileged please", {"program": "docker", "flags": [["--privileged"]]}),
        (
            "never run podman with --privileged",
            {"program": "podman", "flags": [["--privileged"]]},
        ),
    ],
)
def test_privileged_containers_compile(rule: str, params: dict[str, Any]) -> None:
    assert compiled(rule) == ("forbidden_command", params)
    assert run(params, f"sudo {params['program']} run --rm --privileged alpine true") == "violated"
    assert run(params, f"{params['program']} run --rm --cap-add=NET_ADMIN alpine true") == "pass"


# -- a program only through its runner ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "program", "alternative"),
    [
        ("always run mypy through uv", "mypy", "uv run mypy"),
        ("invoke vitest only via npx", "vitest", "npx vitest"),
        ("call black with poetry run", "black", "poetry run black"),
    ],
)
def test_a_program_only_through_a_runner_bans_the_bare_program(rule: str, program: str, alternative: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert params == {"program": program, "alternatives": [alternative]}
    assert run(params, f"{program} src") == "violated"
    assert run(params, f"{alternative} src") == "pass"


# -- git: a word before a subcommand that narrows it keeps the rule guidance --------------------------------
@pytest.mark.parametrize(
    ("rule", "params"),
    [
        ("don't make unsigned commits", {"program": "git", "subcommand": ["commit"], "flags": [["--no-gpg-sign"]]}),
        ("never commit without signing", {"program": "git", "subcommand": ["commit"], "flags": [["--no-gpg-sign"]]}),
        ("no hard resets please", {"program": "git", "subcommand": ["reset"], "flags": [["--hard"]]}),
    ],
)
def test_git_concepts_compile(rule: str, params: dict[str, Any]) -> None:
    assert compiled(rule) == ("forbidden_command", params)


@pytest.mark.parametrize("rule", ["no empty commits", "never make merge commits", "don't delete docker images"])
def test_a_narrowing_word_the_vocabulary_cannot_spell_keeps_guidance(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind is None or params.get("flags") or params.get("args"), params  # never the bare subcommand


# -- commands due before finishing, written as a quality and its command ---------------------------------------
@pytest.mark.parametrize(
    ("rule", "condition", "commands"),
    [
        ("Types must check: npx tsc --noEmit", None, [["tsc"]]),  # npx is peeled off, as the check sees through it
        ("the build has to succeed: cargo build --workspace", None, [["cargo", "build"]]),
        ("make sure `pnpm lint` passes before you hand it back", None, [["pnpm", "lint"]]),
        ("For backend changes run go vet and go test", "for backend changes", [["go", "vet"], ["go", "test"]]),
        ("For schema edits, run a targeted pnpm test-db", "for schema edits", [["pnpm", "test-db"]]),
    ],
)
def test_commands_due_before_finishing_compile(rule: str, condition: str | None, commands: list[list[str]]) -> None:
    kind, params = compiled(rule, condition)
    assert kind == "required_event"
    assert params["commands"] == commands


# -- commit trailers named by their key -------------------------------------------------------------------
def test_a_required_trailer_is_a_line_of_its_own() -> None:
    kind, params = compiled("every commit needs a Change-Id trailer")
    assert (kind, params) == ("commit_message", {"require": "(?m)^Change-Id: "})
    line = 'git commit -m "fix: x" -m "Change-Id: I1234"'
    assert evaluate(kind, params, "pre_action", {"action": {"tool": "Bash", "command": line}}).result == "pass"
    bare = 'git commit -m "fix: x"'
    assert evaluate(kind, params, "pre_action", {"action": {"tool": "Bash", "command": bare}}).result == "violated"


def test_a_forbidden_trailer_is_forbidden_text() -> None:
    assert compiled("do not add a Reported-by trailer to commits") == ("commit_message", {"forbid": ["Reported-by"]})


# -- leftovers by extension, lock files, ask-first conditions -------------------------------------------------
def test_files_of_an_extension_left_behind_compile() -> None:
    assert compiled("never leave .rej files lying around") == ("workspace_leftovers", {"globs": ["*.rej"]})


@pytest.mark.parametrize(
    ("rule", "kind"), [("hands off the lock files", "forbidden_path"), ("don't commit lockfiles", "staged_path")]
)
def test_lock_files_name_every_manager_lock(rule: str, kind: str) -> None:
    got_kind, params = compiled(rule)
    assert got_kind == kind
    assert set(params["globs"]) == {"*.lock", "package-lock.json", "pnpm-lock.yaml"}


@pytest.mark.parametrize(
    ("rule", "condition"),
    [
        ("don't deploy with fly", "until I have approved it"),
        ("never run terraform apply", "without my okay"),
        ("no git push", "before the user has reviewed and approved the diff"),
    ],
)
def test_a_condition_that_waits_for_the_user_is_decided_by_the_block(rule: str, condition: str) -> None:
    assert compiled(rule, condition)[0] == "forbidden_command"


@pytest.mark.parametrize(
    ("rule", "params"),
    [
        ("no Acked-by lines in my commits", {"forbid": ["Acked-by"]}),
        ("put a Tested-by line on every commit", {"require": "(?m)^Tested-by: "}),
    ],
)
def test_known_trailer_keys_name_the_commit_message(rule: str, params: dict[str, Any]) -> None:
    assert compiled(rule) == ("commit_message", params)


@pytest.mark.parametrize(
    ("rule", "globs"),
    [
        ("don't ever commit screen shots", ["*.png", "*.jpg", "*.jpeg"]),
        ("private keys never go into git", None),  # not a staging verb the reader knows: stays as it is
        ("never commit ssh key files", ["*.pem", "*.key"]),
    ],
)
def test_kinds_of_files_named_by_what_they_are(rule: str, globs: list[str] | None) -> None:
    kind, params = compiled(rule)
    if globs is not None:
        assert (kind, params) == ("staged_path", {"globs": globs})


def test_a_reply_verb_makes_a_count_about_the_reply() -> None:
    assert compiled("summarize diffs in at most 4 sentences") == (
        "reply_count_limit",
        {"unit": "sentences", "limit": 4},
    )


@pytest.mark.parametrize(
    ("rule", "require"),
    [
        ("start every subject with one of feat:, fix:, perf:", "^(feat|fix|perf)(\\(.+\\))?!?: "),
        ("use ci: and docs: prefixes too", "^(ci|docs)(\\(.+\\))?!?: "),
    ],
)
def test_a_list_of_type_prefixes_names_the_subject_form(rule: str, require: str) -> None:
    assert compiled(rule) == ("commit_message", {"require": require})


def test_a_place_to_move_files_to_is_not_a_forbidden_path() -> None:
    kind, params = compiled("never delete anything, move it to ./attic instead")
    assert kind != "forbidden_path" or "attic" not in str(params)


def test_required_commands_with_shell_operators_in_a_word_are_refused() -> None:
    from heedful.rules.checks import KINDS, CheckParamsError

    with pytest.raises(CheckParamsError, match="shell operator"):
        KINDS["required_event"].cases({"commands": [["make", "lint;rm"]]})
    assert KINDS["required_event"].cases({"commands": [["pnpm", "-F", "@scope/kit", "test:unit"]]})


# -- the way to run something, given as a whole command line through a runner -------------------------------
@pytest.mark.parametrize(
    ("rule", "program", "alternative"),
    [
        ("Run the unit tests using `uv run pytest -q tests/unit`", "pytest", "uv run pytest"),
        ("lint with `pnpm exec eslint .`", "eslint", "pnpm exec eslint"),
        ("Use `bundle exec rspec` to run the specs", "rspec", "bundle exec rspec"),
        ("run the type check via `poetry run mypy src`", "mypy", "poetry run mypy"),
    ],
)
def test_a_command_line_through_a_runner_forbids_the_bare_program(rule: str, program: str, alternative: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert params["program"] == program and params["alternatives"] == [alternative]
    assert run(params, f"{program} --help") == "violated"
    assert run(params, f"{alternative} --help") == "pass"


@pytest.mark.parametrize(
    "rule",
    [
        "Run the tests with `yarn test`",  # a package script as often as a program
        "Run the build using `uv run` when you can",  # no program after the runner
    ],
)
def test_a_runner_line_that_names_no_program_stays_guidance(rule: str) -> None:
    assert compiled(rule) == (None, {})
