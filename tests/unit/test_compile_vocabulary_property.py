"""Compile cases generated from the command vocabulary itself, not written one sentence at a time.

Every program, family alternative and flag concept in `rules/data/commands.toml` is phrased the ways people
phrase bans ("never X", "no X", "X is banned", "stop using X, use Y" ...) and each phrasing must compile to a
check that blocks the command and lets the alternative or a neighbouring command through. A program added to the
vocabulary is covered by these tests without a test of its own.
"""

from __future__ import annotations

import pytest

from compile_cases import compiled, run
from heedful.rules import vocabulary as vocab
from heedful.rules.checks import evaluate
from heedful.rules.compile.english import _ENGLISH_FIRST
from heedful.rules.shell import _WRAPPERS

# Bans of a program named alone. A phrasing without a command cue ("no X", "avoid X") is not asked of a program
# whose name is first an English word ("no code", "no go", "avoid more").
CUED = ("never use {x}", "don't use {x} for anything", "stop using {x}", "Do not run {x}.", "never run `{x}`")
UNCUED = (
    "no {x}",
    "{x} is banned",
    "avoid {x}",
    "{x} should never be used",
    "Quit using {x}",
    "Avoid {x} at all costs",
)
# Programs a ban of which is not a command check by design: wrappers the shell reader removes to see the command
# they run (`nohup`, `xargs`), and git, which a rule names as the place ("never commit weights to git").
NOT_BANNED_ALONE = frozenset({*_WRAPPERS, "git"})


def _programs() -> list[str]:
    return sorted(name for name in vocab.vocabulary().programs if name not in NOT_BANNED_ALONE)


def _blocks_only(params: dict[str, object], program: str) -> bool:
    """The check blocks the program (as typed) and nothing else."""
    return run(params, f"{program} example") == "violated" and run(params, "echo done") == "pass"


@pytest.mark.parametrize("phrasing", CUED + UNCUED)
def test_every_program_banned_alone_compiles_to_a_command_check(phrasing: str) -> None:
    failures = []
    for program in _programs():
        if phrasing in UNCUED and program in _ENGLISH_FIRST:
            continue
        rule = phrasing.format(x=program)
        kind, params = compiled(rule)
        if kind != "forbidden_command" or not _blocks_only(params, program):
            failures.append((rule, kind, params))
    assert failures == []


def _alternatives() -> list[tuple[str, str]]:
    """(forbidden, alternative) for every tool the vocabulary says replaces another (its family's default)."""
    pairs = []
    for name in vocab.vocabulary().programs:
        forbidden = vocab.family_default(name)
        if forbidden and name not in vocab.AMBIGUOUS and name not in _WRAPPERS:
            pairs.append((forbidden, name))
    return sorted(pairs)


CONTRASTS = (
    "stop using {x}, use {y}",
    "use {y} instead of {x}",
    "{x} is banned, use {y}",
    "not {x} - {y}",
    "Replace {x} with {y}",
    "Switch from {x} to {y}",
    "stop using {x} and use {y}",
    "Prefer {y} over {x}",
)


@pytest.mark.parametrize("phrasing", CONTRASTS)
def test_a_named_alternative_is_allowed_and_carried_into_the_deny_message(phrasing: str) -> None:
    failures = []
    for forbidden, alternative in _alternatives():
        rule = phrasing.format(x=forbidden, y=alternative)
        kind, params = compiled(rule)
        verdict = evaluate(
            kind or "forbidden_command", params, "pre_action", {"action": {"tool": "Bash", "command": forbidden}}
        )
        if (
            kind != "forbidden_command"
            or verdict.result != "violated"
            or alternative not in verdict.reason
            or run(params, f"{alternative} example") != "pass"
        ):
            failures.append((rule, kind, params))
    assert failures == []


def test_the_pairs_cover_every_family_with_a_usual_tool() -> None:
    pairs = _alternatives()
    assert {"pip", "npm", "rm", "grep", "find"} <= {forbidden for forbidden, _ in pairs}
    assert len(pairs) >= 15


def test_a_stated_project_tool_forbids_the_usual_one_and_names_itself_in_the_message() -> None:
    for forbidden, alternative in [("pip", "uv"), ("npm", "pnpm"), ("rm", "trash"), ("grep", "rg"), ("find", "fd")]:
        kind, params = compiled(f"we use {alternative}")
        verdict = evaluate(kind or "", params, "pre_action", {"action": {"tool": "Bash", "command": forbidden}})
        assert verdict.result == "violated" and alternative in verdict.reason, (alternative, params)


# The concept in prose, for a program whose flag for it needs no subcommand ("never rm recursively").
PROSE = {"force": "never use {x} with force", "recursive": "never {x} recursively"}


def _flag_concepts() -> list[tuple[str, str, vocab.FlagRule]]:
    found = []
    for name, program in vocab.vocabulary().programs.items():
        for concept, rule in program.flags.items():
            if concept in vocab.STRICT_CONCEPTS and (rule.flags or rule.subcommand_words):
                found.append((name, concept, rule))
    return sorted(found, key=lambda f: (f[0], f[1]))


def test_every_flag_concept_compiles_from_its_command_and_from_its_flag() -> None:
    failures = []
    for name, concept, rule in _flag_concepts():
        words = list(rule.subcommand_words) or (rule.subcommand.split() if rule.subcommand else [])
        flag = rule.flags[0][0] if rule.flags and not rule.subcommand_words else ""
        command = " ".join([name, *words, *([flag] if flag else [])])
        without = " ".join([name, *words, "example"]) if flag else f"{name} run example"
        cases = [(f"never run `{command}`", command, without)]
        if flag:
            cases.append((f"don't use {flag} with {' '.join([name, *words])}", command, without))
        if concept in PROSE and not words:
            cases.append((PROSE[concept].format(x=name), command, without))
        if concept == "global" and flag and not words:  # "no global npm installs": the install that is global
            cases.append((f"no global {name} installs", f"{name} install {flag}", f"{name} install"))
        for rule_text, violating, compliant in cases:
            kind, params = compiled(rule_text)
            if (
                kind != "forbidden_command"
                or run(params, f"{violating} example") != "violated"
                or run(params, f"{compliant} example".replace("example example", "example")) != "pass"
            ):
                failures.append((rule_text, kind, params))
    assert failures == []
    assert len(_flag_concepts()) >= 30


# Conditions the command itself decides: the check only fires when the program runs, which is the activity.
@pytest.mark.parametrize(
    ("rule", "condition", "program", "alternative"),
    [
        ("use fd instead of find", "when you look for files", "find", "fd"),
        ("use rg instead of grep", "when searching the code", "grep", "rg"),
        ("use rg, not grep", "for code searches", "grep", "rg"),
        ("don't use sudo", "for installs", "sudo", ""),
        ("use pnpm, not npm", "when adding dependencies", "npm", "pnpm"),
        ("use uv, not pip", "for dependency management", "pip", "uv"),
        ("use trash instead of rm", "when deleting files", "rm", "trash"),
        ("don't use curl", "when downloading files", "curl", ""),
        ("use wget, not curl", "for downloads", "curl", "wget"),
        ("never use npm", "in this project", "npm", ""),
        ("use vitest instead of jest", "for unit tests", "jest", "vitest"),
        ("use ruff, not black", "when formatting", "black", "ruff"),
    ],
)
def test_a_condition_the_command_decides_does_not_block_compilation(
    rule: str, condition: str, program: str, alternative: str
) -> None:
    kind, params = compiled(rule, condition)
    assert kind == "forbidden_command" and run(params, f"{program} example") == "violated", params
    if alternative:
        assert run(params, f"{alternative} example") == "pass"


@pytest.mark.parametrize(
    ("rule", "condition"),
    [
        ("never use npm", "when the build is slow"),
        ("don't use curl", "for large files"),
        ("use rg instead of grep", "unless I say so"),
    ],
)
def test_a_condition_no_command_line_shows_keeps_the_rule_guidance(rule: str, condition: str) -> None:
    assert compiled(rule, condition) == (None, {})


STAGED = (
    "never commit {p}",
    "do not add {p} to git",
    "don't add {p} to the repo",
    "never stage {p}",
    "keep {p} out of git",
    "{p} must never be committed",
    "never check in {p}",
    "{p} should not be committed",
    "never push {p}",
    "{p} doesn't belong in git",
    "never include {p} in a commit",
    "do not track {p} in git",
    "make sure {p} is never committed",
    "you committed {p} again, don't",
)
PATHS = (
    (".envrc", "the .envrc"),
    (".env", ".env files"),
    ("node_modules/a.js", "node_modules"),
    ("dist/app.js", "the dist folder"),
    ("secrets.json", "secrets.json"),
    (".DS_Store", ".DS_Store files"),
    ("id_rsa", "id_rsa"),
    ("build/out.o", "build/"),
    ("debug.log", "*.log files"),
    ("venv/bin/python", "the venv"),
)


@pytest.mark.parametrize("phrasing", STAGED)
def test_a_path_kept_out_of_git_compiles_to_a_staged_path_check(phrasing: str) -> None:
    failures = []
    for staged, named in PATHS:
        rule = phrasing.format(p=named)
        kind, params = compiled(rule)

        def add(path: str, kind: str | None = kind, params: dict[str, object] = params) -> str:
            action = {"tool": "Bash", "command": f"git add {path}"}
            return evaluate(kind or "", params, "pre_action", {"action": action}).result

        if kind != "staged_path" or add(staged) != "violated" or add("src/app.py") != "pass":
            failures.append((rule, kind, params))
    assert failures == []


@pytest.mark.parametrize(
    "rule",
    [
        "never commit the api keys",  # which commits: no command line shows it
        "Do not write comments that restate the code.",
        "no code changes outside the ticket",
        "avoid more than three retries",
        "make sure the tests pass",
        "keep the tree clean",
        "never cut corners",
        "prefer fd to locate files",  # `locate` is the verb here, fd the program
    ],
)
def test_english_words_and_objects_of_git_verbs_stay_words(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind is None or params.get("program") not in ("git", "code", "more", "make", "tree", "cut", "locate")


@pytest.mark.parametrize(
    "rule",
    ["don't run anything as root", "never run commands as root", "do not escalate privileges", "Never run as root."],
)
def test_running_as_root_is_any_privilege_tool(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert [run(params, c) for c in ("sudo ls", "doas ls", "pkexec ls", "ls")] == ["violated"] * 3 + ["pass"]


def test_a_force_push_by_refspec_is_a_force_push() -> None:
    kind, params = compiled("No force pushes. Ever.")
    assert kind == "forbidden_command"
    assert run(params, "git push origin +main") == "violated"
    assert run(params, "git -C repo push origin +HEAD:main") == "violated"
    assert run(params, "git push origin main") == "pass"


@pytest.mark.parametrize(
    ("rule", "typed", "other"),
    [("never use nvim", "nvim", "vim"), ("don't use mamba", "mamba", "conda"), ("avoid egrep", "egrep", "rg")],
)
def test_another_executable_of_a_tool_is_checked_by_the_name_typed(rule: str, typed: str, other: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert run(params, f"{typed} x") == "violated" and run(params, f"{other} x") == "pass"


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("no global pnpm installs", "pnpm add -g x", "pnpm add x"),
        ("no global yarn installs", "yarn global add x", "yarn add x"),
        ("never install npm packages globally", "npm install -g x", "npm install x"),
        ("never bun add -g", "bun add -g x", "bun add x"),
        ("no global deno installs", "deno install -g x", "deno run x"),
        ("never composer global require", "composer global require x", "composer require x"),
        ("never install cargo crates globally", "cargo install x", "cargo build"),
        ("no uv tool installs", "uv tool install x", "uv add x"),
    ],
)
def test_global_installs_are_each_managers_own_spelling(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert run(params, violating) == "violated" and run(params, compliant) == "pass"


@pytest.mark.parametrize("rule", ["never install python packages with pip", "never install python modules with pip"])
def test_a_language_before_packages_is_the_language_not_its_interpreter(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command" and params["program"] == "pip"
    assert run(params, "python script.py") == "pass"


def test_every_activity_of_a_family_is_a_condition_its_programs_decide() -> None:
    """ "never use rm when cleaning up", "never use pip for installs": the family's activities, as the vocabulary
    lists them, never block the ban of one of its programs (git is left out: a bare git ban is never made)."""
    from heedful.rules.compile.words import GENERIC

    failures = []
    families = vocab.vocabulary().families.values()
    for family in families:
        members = [p for p in family.programs if p not in vocab.AMBIGUOUS and p != "git"][:2]
        for program in members:
            for activity in sorted(family.activities - GENERIC):
                kind, params = compiled(f"never use {program}", f"when {activity}")
                if kind != "forbidden_command" or not _blocks_only(params, program):
                    failures.append((program, activity, kind))
    assert failures == []
    assert sum(len(f.activities) for f in families) > 300
