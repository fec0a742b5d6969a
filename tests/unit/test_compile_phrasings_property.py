"""The ways people phrase a rule, crossed with the things rules name: every combination compiles the same way.

Each test is a grammar of phrasings (subject first, verb first, a complaint, a contrast) times a set of objects
(programs, paths, commands); a phrasing that works for one object and not another is a gap in the grammar, not
a missing sentence.
"""

from __future__ import annotations

import pytest

from compile_cases import compiled, run
from heedful.rules.checks import evaluate
from heedful.rules.coverage import same_params

BANS = (
    "Please don't ever run {x}",
    "{x} should never be used",
    "We don't use {x} here",
    "Do not invoke {x}",
    "{x} is not allowed",
    "Stay away from {x}",
    "Quit using {x}",
    "Refrain from using {x}",
    "{x} is off-limits",
    "NEVER use {x}!!",
    "you must not use {x}",
    "do not use {x} under any circumstances",
    "stop running {x}",
    "{x}: never",
    "Avoid {x} at all costs",
    "dont use {x}",
    "you keep using {x}, stop",
    "Using {x} is not allowed",
)
PREFERENCES = (
    "Prefer {y} over {x}",
    "Use {y} rather than {x}",
    "Switch from {x} to {y}",
    "Replace {x} with {y}",
    "We use {y}, not {x}",
    "Always use {y} instead of {x}",
    "{y} instead of {x}",
    "don't use {x}, use {y}",
    "stop using {x} and use {y}",
    "{x} is banned, use {y}",
    "not {x} - {y}",
    "Use {y} in place of {x}",
    "we've moved from {x} to {y}",
)
PAIRS = (
    ("pip", "uv"),
    ("npm", "pnpm"),
    ("grep", "rg"),
    ("find", "fd"),
    ("rm", "trash"),
    ("cat", "bat"),
    ("docker", "podman"),
    ("black", "ruff"),
    ("jest", "vitest"),
    ("sudo", "doas"),
    ("ls", "eza"),
    ("terraform", "tofu"),
)


@pytest.mark.parametrize("phrasing", BANS)
def test_a_ban_reads_the_same_whichever_program_it_names(phrasing: str) -> None:
    failures = []
    for program, _ in PAIRS:
        rule = phrasing.format(x=program)
        kind, params = compiled(rule)
        if (
            kind != "forbidden_command"
            or run(params, f"{program} foo") != "violated"
            or run(params, "echo x") != "pass"
        ):
            failures.append((rule, kind, params))
    assert failures == []


@pytest.mark.parametrize("phrasing", PREFERENCES)
def test_a_preference_forbids_one_program_and_allows_the_other(phrasing: str) -> None:
    failures = []
    for program, alternative in PAIRS:
        rule = phrasing.format(x=program, y=alternative)
        kind, params = compiled(rule)
        if (
            kind != "forbidden_command"
            or run(params, f"{program} foo") != "violated"
            or run(params, f"{alternative} foo") != "pass"
            # the deny message names it ("uv pip" for pip: the same job by the preferred tool)
            or not any(str(a).split()[0] == alternative for a in params.get("alternatives") or [])
        ):
            failures.append((rule, kind, params))
    assert failures == []


EDITS = (
    "never edit {p}",
    "don't touch {p}",
    "leave {p} alone",
    "{p} is read-only",
    "{p}: do not touch",
    "keep your hands off {p}",
    "{p} must not be modified",
    "{p} should never be edited",
    "no changes to {p}",
    "stay out of {p}",
    "Do not make changes to {p}.",
    "Never update {p} by hand",
    "you edited {p} again, don't",
    "{p} is generated, do not edit it",
)
EDITED = (
    ("src/generated/api.ts", "src/generated/"),
    ("vendor/x/a.go", "the vendor folder"),
    ("package-lock.json", "package-lock.json"),
    ("app.min.js", "*.min.js files"),
    (".github/workflows/ci.yml", ".github/workflows/"),
    ("CHANGELOG.md", "CHANGELOG.md"),
    ("dist/a.js", "the dist directory"),
    ("docs/api/x.md", "docs/api"),
)


@pytest.mark.parametrize("phrasing", EDITS)
def test_a_path_not_to_edit_compiles_to_a_path_check(phrasing: str) -> None:
    failures = []
    for path, named in EDITED:
        rule = phrasing.format(p=named)
        kind, params = compiled(rule)

        def edit(file: str, kind: str | None = kind, params: dict[str, object] = params) -> str:
            evidence = {"project": "/repo", "action": {"tool": "Edit", "file_path": f"/repo/{file}"}}
            return evaluate(kind or "", params, "pre_action", evidence).result

        if kind != "forbidden_path" or edit(path) != "violated" or edit("src/app.py") != "pass":
            failures.append((rule, kind, params))
    assert failures == []


REMINDERS = (
    "don't forget to run {c}",
    "remember to run {c}",
    "do not skip {c}",
    "you forgot to run {c} again",
    "always run {c} before committing",
    "run {c} after every change",
    "before you commit, run {c}",
    "never commit without running {c}",
    "{c} must pass before pushing",
    "`{c}` before every commit",
)
COMMANDS = ("pytest", "npm test", "cargo clippy", "ruff check", "mypy", "pnpm typecheck", "tox", "./scripts/check.sh")


@pytest.mark.parametrize("phrasing", REMINDERS)
def test_a_command_that_must_run_is_required_never_forbidden(phrasing: str) -> None:
    failures = []
    for command in COMMANDS:
        rule = phrasing.format(c=command)
        kind, params = compiled(rule)
        if kind != "required_event" or not same_params("required_event", {"commands": [command]}, params):
            failures.append((rule, kind, params))
    assert failures == []


@pytest.mark.parametrize(
    "rule",
    ["Don't leave `console.log` statements in code.", "don't leave `print()` calls behind"],
)
def test_code_left_behind_is_not_a_leftover_file(rule: str) -> None:
    assert compiled(rule)[0] != "workspace_leftovers"


@pytest.mark.parametrize(
    ("rule", "program", "alternative"),
    [
        ("ugh, stop using npm. it's pnpm here", "npm", "pnpm"),
        ("can you not use find? fd is faster", "find", "fd"),
        ("why did you run rm -rf again?? use trash", "rm", "trash"),
        ("no more yarn. we use bun now", "yarn", "bun"),
    ],
)
def test_the_tool_of_the_same_job_named_in_the_next_sentence_is_the_alternative(
    rule: str, program: str, alternative: str
) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command" and params["program"] == program
    assert params.get("alternatives") == [alternative]


def test_two_programs_banned_together_are_not_each_others_alternative() -> None:
    kind, params = compiled("never use npm or yarn")
    assert kind == "forbidden_command" and not params.get("alternatives")


@pytest.mark.parametrize(
    ("rule", "glob"),
    [
        ("Generated code lives in gen/; don't edit it.", "gen/**"),
        ("The files in `gen/` are generated. Do not edit them.", "gen/**"),
        ("`dist/` is build output — never edit it by hand", "dist/**"),
        ("Anything under vendor/ comes from upstream; leave it alone", "vendor/**"),
    ],
)
def test_a_pronoun_points_to_the_path_named_before_it(rule: str, glob: str) -> None:
    assert compiled(rule) == ("forbidden_path", {"globs": [glob], "outside_project": False})


@pytest.mark.parametrize("rule", ["The config is fine, leave it alone", "I know it's tempting but don't edit it"])
def test_a_pronoun_with_no_path_before_it_stays_guidance(rule: str) -> None:
    assert compiled(rule) == (None, {})


@pytest.mark.parametrize(
    ("rule", "commands", "before"),
    [
        ("`make check` runs the linters and tests; run it before committing.", ["make check"], "commit"),
        ("Before committing: `ruff check . && ruff format .`", ["ruff check", "ruff format"], "commit"),
        ("Pre-commit: run `just lint`.", ["just lint"], "commit"),
        ("Pre-push: `npm test`", ["npm test"], "push"),
        ("Tests: `go test ./...` (run before every commit)", ["go test"], "commit"),
        ("All tests must pass before pushing (`pytest -q`).", ["pytest"], "push"),
    ],
)
def test_required_commands_as_instruction_files_write_them(rule: str, commands: list[str], before: str) -> None:
    kind, params = compiled(rule)
    assert kind == "required_event" and params.get("before") == before
    assert same_params("required_event", {"commands": commands}, params)


@pytest.mark.parametrize(
    ("rule", "banned", "allowed"),
    [
        ("Use `pnpm` — not npm or yarn.", ["npm i", "yarn add x"], ["pnpm add x"]),
        ("no pip, poetry or pipenv; we use uv", ["pip install x", "poetry add x", "pipenv install"], ["uv add x"]),
        ("don't use grep, rg, or ag", ["grep x", "rg x", "ag x"], ["fd x"]),
        ("Do not use `poetry`: this project migrated to uv.", ["poetry add x"], ["uv add x"]),
    ],
)
def test_every_program_a_rule_bans_is_checked(rule: str, banned: list[str], allowed: list[str]) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert [run(params, c) for c in banned] == ["violated"] * len(banned)
    assert [run(params, c) for c in allowed] == ["pass"] * len(allowed)


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("Never tag releases.", "git tag v1.2.0", "git push"),
        ("don't create git tags", "git tag -a v1 -m x", "git commit -m x"),
        ("Never reboot the machine.", "sudo shutdown -r now", "ls"),
    ],
)
def test_actions_named_by_what_they_do(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert run(params, violating) == "violated" and run(params, compliant) == "pass"


@pytest.mark.parametrize(
    ("rule", "insecure", "secure"),
    [
        ("never disable ssl verification with curl", "curl -k https://x", "curl https://x"),
        ("don't skip certificate checks with curl", "curl --insecure https://x", "curl https://x"),
        ("don't use wget without certificate checking", "wget --no-check-certificate https://x", "wget https://x"),
    ],
)
def test_turning_off_certificate_checks_is_the_clients_insecure_switch(rule: str, insecure: str, secure: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert run(params, insecure) == "violated" and run(params, secure) == "pass"


@pytest.mark.parametrize("rule", ["never uninstall node", "never restart docker", "never install docker"])
def test_an_action_on_the_program_itself_is_not_a_ban_on_running_it(rule: str) -> None:
    assert compiled(rule) == (None, {})


@pytest.mark.parametrize(
    ("rule", "program"),
    [
        ("don't stop the postgres container with docker", None),  # one use of docker, not every use
        ("never mock the database with docker", None),
        ("never search with grep", "grep"),  # what grep is for: every use
        ("never format code with black", "black"),
        ("never download files with curl", "curl"),
        ("never do anything with sudo", "sudo"),
    ],
)
def test_something_done_with_a_program_bans_it_only_when_that_is_what_it_is_for(rule: str, program: str | None) -> None:
    kind, params = compiled(rule)
    assert (kind, params.get("program")) == ((None, None) if program is None else ("forbidden_command", program))
