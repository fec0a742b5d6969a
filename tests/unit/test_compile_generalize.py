"""The compiler on instruction-file wording and unseen programs; the check parameters it added; precision."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compile_cases import compiled
from heedful.rules.checks import KINDS, evaluate


@pytest.mark.parametrize(
    ("text", "condition", "commands", "extra"),
    [
        ("Run `make lint` before committing.", None, [["make", "lint"]], {"before": "commit", "after": "always"}),
        ("Always run `cargo test` after changing code.", None, [["cargo", "test"]], {}),
        (
            "Run `just f` and `just l` before committing.",
            "before committing",
            [["just", "f"], ["just", "l"]],
            {"every": True, "before": "commit", "after": "always"},
        ),
        (
            "After changing any .go file, run make format and make lint.",
            None,
            [["make", "format"], ["make", "lint"]],
            {"every": True, "edit_globs": ["*.go"]},
        ),
        ("Run buf lint after editing files under proto/.", None, [["buf", "lint"]], {"edit_globs": ["proto/**"]}),
        ("Run mise exec -- make tidy after changing go.mod.", None, [["make", "tidy"]], {"edit_globs": ["go.mod"]}),
        ("Run ./check.sh when you're done.", None, [["./check.sh"]], {}),
        ("Run `make py-check` for Python style.", None, [["make", "py-check"]], {}),
        ("Run uv run --only-group dev prek at the end of a task.", None, [["prek"]], {}),
        (
            "Always add a changeset with pnpm run changeset:add when changing packages/.",
            None,
            [["pnpm", "run", "changeset:add"]],
            {"edit_globs": ["packages/**"]},
        ),
    ],
)
def test_instruction_file_commands_become_required_events(
    text: str, condition: str | None, commands: list[list[str]], extra: dict[str, Any]
) -> None:
    kind, params = compiled(text, condition)
    assert kind == "required_event", params
    assert params["commands"] == commands and params["after"] == extra.get("after", "edit")
    for key, value in extra.items():
        assert params[key] == value
    assert "every" in params or "every" not in extra


@pytest.mark.parametrize(
    ("text", "condition", "expected"),
    [
        ("Never open a PR.", None, {"program": "gh", "subcommand": ["pr", "create"]}),
        ("Don't create pull requests autonomously.", None, {"program": "gh", "subcommand": ["pr", "create"]}),
        ("Never merge your own pull requests.", None, {"program": "gh", "subcommand": ["pr", "merge"]}),
        (
            "Never delete remote branches.",
            None,
            {"program": "git", "subcommand": ["push"], "flags": [["--delete", "-d"]]},
        ),
        ("Never prune Docker volumes.", None, {"program": "docker", "subcommand": ["volume", "prune"]}),
        ("Use `pnpm` (never `npm`).", None, {"program": "npm", "alternatives": ["pnpm"]}),
        (
            "Use git push --force-with-lease instead of --force.",
            None,
            {
                "program": "git",
                "subcommand": ["push"],
                "flags": [["--force", "-f"]],
                "alternatives": ["git push --force-with-lease"],
            },
        ),
        ("Never run `prek autoupdate`.", None, {"program": "prek", "subcommand": ["autoupdate"]}),
        ("Never run heroku pg:reset.", None, {"program": "heroku", "subcommand": ["pg:reset"]}),
        ("Never run sudo pip install.", None, {"program": "sudo", "args": ["pip", "install"]}),
        ("Never run scripts/reindex.sh without asking.", None, {"program": "scripts/reindex.sh"}),
        ("Never chmod files to 777.", None, {"program": "chmod", "args": ["777"]}),
        ("Do not install system packages with dnf.", None, {"program": "dnf", "subcommand": ["install"]}),
        ("Ask before running git clean.", None, {"program": "git", "subcommand": ["clean"]}),
        ("Do not run git commit unless explicitly asked.", None, {"program": "git", "subcommand": ["commit"]}),
        (
            "Never run kubectl scale.",
            "without explicit confirmation from the user",
            {"program": "kubectl", "subcommand": ["scale"]},
        ),
    ],
)
def test_commands_named_by_action_backticks_or_path(text: str, condition: str | None, expected: dict[str, Any]) -> None:
    kind, params = compiled(text, condition)
    assert kind == "forbidden_command", params
    assert params == expected


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        # a generated folder sits beside the code it belongs to, like migrations/: named alone, at any depth
        (
            "Do not edit files in `generated/`.",
            "forbidden_path",
            {"globs": ["**/generated/**"], "outside_project": False},
        ),
        (
            "Do not edit files in `src/generated/`.",
            "forbidden_path",
            {"globs": ["src/generated/**"], "outside_project": False},
        ),
        ("Never hand-edit pnpm-lock.yaml.", "forbidden_path", {"globs": ["pnpm-lock.yaml"], "outside_project": False}),
        ("Treat infra/prod/ as read-only.", "forbidden_path", {"globs": ["infra/prod/**"], "outside_project": False}),
        ("Never commit Jupyter notebooks.", "staged_path", {"globs": ["*.ipynb"]}),
        ("Never commit .DS_Store files.", "staged_path", {"globs": [".DS_Store"]}),
        ("Commit types are feat, fix, docs.", "commit_message", {"require": "^(feat|fix|docs)(\\(.+\\))?!?: "}),
        ("Do not use fixup or squash! commit subjects.", "commit_message", {"forbid": ["fixup!", "squash!"]}),
        (
            "Start each commit subject with its Jira ticket key.",
            "commit_message",
            {"require": "^[A-Z][A-Z0-9]+-[0-9]+"},
        ),
        ("Keep replies under 20 lines.", "reply_count_limit", {"unit": "lines", "limit": 19}),
        ("Do not leave out.txt behind.", "workspace_leftovers", {"globs": ["out.txt"]}),
    ],
)
def test_paths_commits_counts_and_leftovers(text: str, kind: str, expected: dict[str, Any]) -> None:
    assert compiled(text) == (kind, expected)


@pytest.mark.parametrize(
    "text",
    [
        "Never commit model weights or datasets to git; use the artifact store.",
        "Preserve unrelated worktree changes; never revert or rewrite changes you did not make.",
        "Never import expect from vitest; use the test context expect.",
        "Do not run DROP or TRUNCATE statements without approval of the exact statement.",
        "Do not run database migrations locally; use the CI job.",
        "Do not change the signatures of public APIs in pkg/.",
        "Do not add logging, I/O or allocations in loops in pricing/engine.py.",
        "Never commit directly on main; create a branch first.",
        "Always run pnpm i from the repo root, not from the package directory.",
        "Run the tests after every change.",
        "never push to main unless I say so",
        "Never open a PR without running the tests first.",
        "Do not use emojis in source, comments, commits, issues, or PR communication.",
        "Raise explicit errors for unsupported features — never silently skip or degrade.",
    ],
)
def test_labelled_guidance_stays_guidance(text: str) -> None:
    assert compiled(text) == (None, {})


def _events(*events: dict[str, Any]) -> dict[str, Any]:
    return {"events": list(events)}


EDIT = {"kind": "edit", "path": "src/app.go"}


def test_every_command_must_run_after_the_last_edit() -> None:
    params = {"commands": [["make", "format"], ["make", "lint"]], "every": True, "after": "edit"}
    run = lambda line: {"kind": "command", "command": line}  # noqa: E731
    assert evaluate("required_event", params, "delivery", _events(EDIT, run("make format"))).result == "violated"
    assert evaluate("required_event", params, "delivery", _events(EDIT, run("make lint && make format"))).result == (
        "pass"
    )
    assert evaluate(
        "required_event", params, "delivery", _events(run("make lint"), EDIT, run("make format"))
    ).result == ("violated")
    either = {**params, "every": False}
    assert evaluate("required_event", either, "delivery", _events(EDIT, run("make format"))).result == "pass"


@pytest.mark.parametrize(
    ("command", "line"),
    [
        (["prek"], "uv run --only-group dev --locked prek"),
        (["make", "tidy"], "mise exec -- make tidy"),
        (["./bin/brew", "lgtm"], "./bin/brew lgtm"),
        (["./check.sh"], "./check.sh --fast"),
    ],
)
def test_wrapped_and_path_named_commands_count(command: list[str], line: str) -> None:
    params = {"commands": [command], "after": "edit"}
    events = _events(EDIT, {"kind": "command", "command": line})
    assert evaluate("required_event", params, "delivery", events).result == "pass"


def test_privileged_command_with_its_wrapped_command() -> None:
    params = {"program": "sudo", "args": ["pip", "install"]}
    assert (
        evaluate(
            "forbidden_command", params, "pre_action", {"action": {"tool": "Bash", "command": "sudo pip install x"}}
        ).result
        == "violated"
    )
    assert (
        evaluate(
            "forbidden_command", params, "pre_action", {"action": {"tool": "Bash", "command": "pip install x"}}
        ).result
        == "pass"
    )
    assert (
        evaluate(
            "forbidden_command", params, "pre_action", {"action": {"tool": "Bash", "command": "sudo apt update"}}
        ).result
        == "pass"
    )


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("required_event", {"commands": [["make", "format"], ["make", "lint"]], "every": True, "after": "edit"}),
        ("required_event", {"commands": [["./bin/brew", "lgtm"]], "after": "edit", "edit_globs": ["*.rb"]}),
        ("forbidden_command", {"program": "sudo", "args": ["pip", "install"]}),
        ("forbidden_command", {"program": "scripts/reindex.sh"}),
        ("forbidden_command", {"program": "gh", "subcommand": ["pr", "create"]}),
        ("commit_message", {"forbid": ["feat:", "fix:"]}),
    ],
)
def test_new_parameters_validate_on_their_generated_cases(kind: str, params: dict[str, Any]) -> None:
    module = KINDS[kind]
    for case in module.cases(params):
        assert evaluate(kind, params, case.stage, case.evidence).result == case.expected, case
        assert module.review(params, case.stage, case.evidence) == case.expected, case


anything = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
    max_leaves=10,
)
commandish = st.lists(
    st.sampled_from(
        [
            "sudo ",
            "pip ",
            "install ",
            "uv ",
            "run ",
            "--group ",
            "dev ",
            "mise ",
            "exec ",
            "-- ",
            "make ",
            "lint ",
            "./bin/brew ",
            "&& ",
            "| ",
            "'",
            '"',
            "$(",
            ")",
            "x",
        ]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(
    every=anything,
    commands=st.lists(st.lists(st.text(max_size=8), max_size=3), max_size=3) | anything,
    lines=st.lists(commandish, max_size=4),
)
def test_required_event_never_raises(every: Any, commands: Any, lines: list[str]) -> None:
    events = [EDIT, *({"kind": "command", "command": line} for line in lines)]
    params = {"commands": commands, "every": every, "after": "edit"}
    assert evaluate("required_event", params, "delivery", {"events": events}).result in (
        "pass",
        "violated",
        "not_applicable",
        "unknown",
    )


@settings(max_examples=150, deadline=None)
@given(
    program=st.sampled_from(["sudo", "doas", "scripts/x.sh", "./bin/brew"]) | anything, args=anything, line=commandish
)
def test_command_check_with_wrapped_or_path_programs_never_raises(program: Any, args: Any, line: str) -> None:
    params = {"program": program, "args": args}
    result = evaluate("forbidden_command", params, "pre_action", {"action": {"tool": "Bash", "command": line}})
    assert result.result in ("pass", "violated", "not_applicable", "unknown")


def test_a_parenthesised_list_of_the_allowed_commands_is_not_split() -> None:
    from heedful.rules.interpret import interpret

    line = "Use uv, not pip, for every Python dependency (`uv add`, `uv pip install`)."
    assert [c.text for c in interpret(line)] == [line]
    forbidden = "Do not run `git push --force`, `git reset --hard`, or `rm -rf`."
    assert len(interpret(forbidden)) == 3


SHELLS = ["sh", "bash", "zsh", "dash", "ksh", "fish"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Not use sudo with pip, it is breaking the system python", [{"program": "sudo", "args": ["pip"]}]),
        ("never run npm with sudo", [{"program": "sudo", "args": ["npm"]}]),
        # a pipeline: curl only when its output goes into a shell; banning curl would block downloads
        ("Dont pipe curl into sh.", [{"program": "curl", "piped_into": SHELLS, "synonyms": ["wget"]}]),
        ("never pipe wget output to bash", [{"program": "wget", "piped_into": SHELLS, "synonyms": ["curl"]}]),
        ("do not use sudo", [{"program": "sudo"}]),
    ],
)
def test_a_rule_relating_two_programs_never_bans_one_of_them_alone(
    text: str, expected: list[dict[str, object]]
) -> None:
    from heedful.rules.compile.commands import command_checks

    assert [check.params for check in command_checks(text)] == expected
