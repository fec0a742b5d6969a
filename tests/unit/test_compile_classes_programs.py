"""Classes of phrasing about programs the vocabulary does not describe, and about when the user's word is awaited.

- a program listed in `program_names` (beyond `commands.toml`) named after a command cue or as all a short ban
  names is banned; a listed name that modifies a noun, and English words, are not;
- a flag with a value joined by a colon (`--tl:off`, `-p:Version=2`) is the flag as typed;
- the word after a program whose verbs the vocabulary does not list is its subcommand when a cue ("run", "with")
  comes before the program, never when the program word modifies a noun;
- a build tool's options before its goal (`mvn -q package`) leave the goal as the command's word;
- a condition that only waits for the user's word, in any wording ("unless the user asks in this chat");
- an activity named with its command in parentheses, and a command run on the files of a kind one edits.

Every phrasing is written for this test (none is a corpus sentence); each class has one that must stay guidance.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compile_cases import compiled, run
from heedful.rules.checks import evaluate
from heedful.rules.compile.qualifiers import waits_for_permission
from heedful.rules.program_names import is_program_name, known_names, page_title, program_names


def test_listed_names_hold_programs_and_leave_english_words_out() -> None:
    assert len(known_names()) > 3000
    for name in ("mkdocs", "lerna", "hadolint", "rubocop", "k9s"):
        assert is_program_name(name), name
    for word in ("make", "black", "the", "find", "build", "help"):
        assert not is_program_name(word), word


def test_the_list_is_built_from_one_program_titles_less_english_words(tmp_path: Path) -> None:
    pages = tmp_path / "pages" / "common"
    pages.mkdir(parents=True)
    titles = {"zorbctl": "zorbctl", "zorbctl-push": "zorbctl push", "sort": "sort", "qux.py": "qux.py"}
    for name, title in titles.items():
        (pages / f"{name}.md").write_text(f"# {title}\n\n> A tool.\n", encoding="utf-8")
    titles = [page_title(p.read_text(encoding="utf-8")) for p in sorted(pages.glob("*.md"))]
    assert program_names(titles, is_english=lambda word: word == "sort") == ["zorbctl"]


@pytest.mark.parametrize(
    ("rule", "program"),
    [
        ("do not use mkdocs", "mkdocs"),
        ("Avoid lerna.", "lerna"),
        ("No rubocop here, please.", "rubocop"),
        ("never use hadolint for anything", "hadolint"),
    ],
)
def test_a_listed_program_named_in_a_ban_is_forbidden(rule: str, program: str) -> None:
    kind, params = compiled(rule)
    assert (kind, params.get("program")) == ("forbidden_command", program)
    assert run(params, f"{program} --version") == "violated"
    assert run(params, "ls -la") == "pass"


@pytest.mark.parametrize("rule", ["avoid lerna workspaces", "do not use mkdocs material themes", "never use foobarqux"])
def test_a_listed_name_that_modifies_a_noun_or_an_unknown_word_stays_guidance(rule: str) -> None:
    assert compiled(rule) == (None, {})


@pytest.mark.parametrize(
    ("rule", "allowed", "blocked"),
    [
        ("Do not pass --tl:off to dotnet test.", "dotnet test", "dotnet test --tl:off"),
        ("never run dotnet build with -p:TreatWarningsAsErrors=false", "dotnet build", None),
        ("Don't use --verbosity:quiet with dotnet restore.", "dotnet restore", "dotnet restore --verbosity:quiet"),
    ],
)
def test_a_flag_with_a_joined_value_is_the_flag_as_typed(rule: str, allowed: str, blocked: str | None) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert any(":" in flag for group in params["flags"] for flag in group)
    assert run(params, allowed) == "pass"
    if blocked:
        assert run(params, blocked) == "violated"


@pytest.mark.parametrize(
    ("rule", "subcommand", "other"),
    [
        ("never run mvn deploy", "deploy", "mvn test"),
        ("Do not use dotnet publish.", "publish", "dotnet build"),
        ("don't ever invoke bazel clean", "clean", "bazel build //..."),
    ],
)
def test_the_word_after_a_program_without_listed_verbs_is_its_subcommand(
    rule: str, subcommand: str, other: str
) -> None:
    kind, params = compiled(rule)
    assert (kind, params.get("subcommand")) == ("forbidden_command", [subcommand])
    program = params["program"]
    assert run(params, f"{program} {subcommand}") == "violated"
    assert run(params, other) == "pass"


@pytest.mark.parametrize(
    "rule",
    ["Never use the prod aws profile.", "don't assume clippy warnings are old", "Stop writing sed pipelines."],
)
def test_a_program_word_that_modifies_a_noun_names_no_subcommand(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind is None or not params.get("subcommand") or params["subcommand"][0] not in ("profile", "warnings")


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("Before every commit, run mvn -B verify.", ["mvn", "verify"]),
        ("run make -j8 check before pushing", ["make", "check"]),
        ("Before you push, run gradle --offline build.", ["gradle", "build"]),
    ],
)
def test_a_build_tools_options_before_its_goal_leave_the_goal(rule: str, command: list[str]) -> None:
    kind, params = compiled(rule)
    assert kind == "required_event"
    assert params["commands"] == [command]


@pytest.mark.parametrize(
    "qualifier",
    [
        "unless the user asks in the current message",
        "without explicit user approval",
        "until I have signed off on it in this chat",
        "without a direct instruction from me",
        "unless the owner okays it",
    ],
)
def test_a_qualifier_that_waits_for_the_users_word(qualifier: str) -> None:
    assert waits_for_permission(qualifier)


@pytest.mark.parametrize(
    "qualifier",
    ["unless the tests pass", "without running the linter", "until the release is tagged", "unless it is urgent"],
)
def test_a_qualifier_about_anything_else_does_not_wait_for_the_user(qualifier: str) -> None:
    assert not waits_for_permission(qualifier)


@pytest.mark.parametrize(
    ("rule", "subcommand"),
    [
        ("Never push unless I ask for it in this conversation.", "push"),
        ("never rebase without explicit maintainer approval", "rebase"),
        ("Do not run git tag unless the user has okayed it.", "tag"),
    ],
)
def test_a_ban_that_waits_for_the_users_word_is_a_block(rule: str, subcommand: str) -> None:
    kind, params = compiled(rule)
    assert (kind, params.get("program"), params.get("subcommand")) == ("forbidden_command", "git", [subcommand])


def test_a_ban_that_waits_for_something_else_stays_guidance() -> None:
    assert compiled("Never push unless the nightly build is green.") == (None, {})


def _after_edit(params: dict[str, object], path: str, command: str | None) -> str:
    events = [{"kind": "edit", "path": path}, *([{"kind": "command", "command": command}] if command else [])]
    return evaluate("required_event", params, "delivery", {"events": events}).result


@pytest.mark.parametrize(
    ("rule", "command", "ran"),
    [
        ("Lint (`yarn lint`) before you finish.", ["yarn", "lint"], "yarn lint"),
        ("Typecheck (pnpm run check:types) once you are done with your changes.", ["pnpm", "run", "check:types"], None),
        ("Format the code (go fmt ./...) when you are done.", ["go", "fmt"], "go fmt ./..."),
    ],
)
def test_an_activity_with_its_command_in_parentheses_requires_the_command(
    rule: str, command: list[str], ran: str | None
) -> None:
    kind, params = compiled(rule)
    assert (kind, params["commands"]) == ("required_event", [command])
    assert _after_edit(params, "src/a.ts", None) == "violated"
    if ran:
        assert _after_edit(params, "src/a.ts", ran) == "pass"


@pytest.mark.parametrize(
    ("rule", "program", "edited", "other"),
    [
        ("Run black on every Python file you change.", "black", "app/x.py", "web/x.ts"),
        ("use rustfmt on all the Rust files you touch", "rustfmt", "src/lib.rs", "README.md"),
        ("Always run shellcheck against any .sh files you edit.", "shellcheck", "bin/run.sh", "bin/run.py"),
    ],
)
def test_a_command_on_the_files_of_a_kind_one_edits_is_due_after_those_edits(
    rule: str, program: str, edited: str, other: str
) -> None:
    kind, params = compiled(rule)
    assert (kind, params["commands"]) == ("required_event", [[program]])
    assert _after_edit(params, edited, None) == "violated"
    assert _after_edit(params, edited, f"{program} {edited}") == "pass"
    assert _after_edit(params, other, None) == "not_applicable"  # an edit of another kind asks for nothing


def test_a_command_on_files_named_by_no_kind_stays_guidance() -> None:
    assert compiled("Run prettier on the files that matter.") == (None, {})


@pytest.mark.parametrize("rule", ["don't ever pull unless I tell you to", "No pulling from the remote, please."])
def test_pulling_alone_is_git_pull(rule: str) -> None:
    kind, params = compiled(rule)
    assert (kind, params.get("program"), params.get("subcommand")) == ("forbidden_command", "git", ["pull"])
    assert run(params, "git pull --rebase") == "violated"
    assert run(params, "git fetch origin") == "pass"


@pytest.mark.parametrize("rule", ["Don't pull in another logging library.", "never pull together a release alone"])
def test_pull_as_another_verb_is_not_git_pull(rule: str) -> None:
    _, params = compiled(rule)
    assert params.get("subcommand") != ["pull"]


def test_a_programs_things_after_it_are_not_its_subcommand() -> None:
    # the hooks are not a subcommand; the hook manager runs them with `pre-commit run`
    kind, params = compiled("Run pre-commit hooks before every commit.")
    assert (kind, params["commands"]) == ("required_event", [["pre-commit", "run"]])
    installed = {"action": {"tool": "Bash", "command": "git commit -m x"}, "events": [{"kind": "edit", "path": "a.py"}]}
    installed["events"].append({"kind": "command", "command": "pre-commit install"})
    assert evaluate("required_event", params, "pre_action", installed).result == "violated"
    evidence = {"action": {"tool": "Bash", "command": "git commit -m x"}, "events": [{"kind": "edit", "path": "a.py"}]}
    assert evaluate("required_event", params, "pre_action", evidence).result == "violated"
    evidence["events"].append({"kind": "command", "command": "pre-commit run --all-files"})
    assert evaluate("required_event", params, "pre_action", evidence).result == "pass"
