"""How far a compiled command check reaches: a phrase after the command that narrows it to one use keeps the rule
guidance unless the command decides it; the next clause's flags and paths are not the forbidden command's; a
command line spelled out keeps all its words. Each near-miss is a rule about X that must not forbid Y.

Every phrasing is written for this test.
"""

from __future__ import annotations

import pytest

from compile_cases import compiled, run


@pytest.mark.parametrize(
    "rule",
    [
        "use gh instead of curl against the GitHub API",  # curl elsewhere is fine
        "Never use grep on JSON output; use jq.",
        "don't use npx for tools that are already devDependencies",
        "Please avoid wget against our partners' APIs",
        "no docker on the build agents",
        "never run gcloud delete commands",  # which gcloud command deletes, no command line says
        "Don't run aws commands against the billing account.",
        "never run jest in watch mode",  # a mode no command line check spells
        "never run `npm run build` in the root",  # a folder, not the command
        "don't run npm install inside the packages folder",
    ],
)
def test_a_phrase_that_narrows_the_command_to_one_use_keeps_the_rule_guidance(rule: str) -> None:
    assert compiled(rule) == (None, {}), rule


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("use rg instead of grep for searching code", "grep -rn foo src", "rg foo src"),
        ("never use pip to install packages, use uv", "pip install requests", "uv pip install requests"),
        ("stop using rm -rf on directories", "rm -rf build", "rm build/a.txt"),
        ("Never push directly to the main branch.", "git push origin main", "git push origin feature/x"),
        ("never run open to launch a browser", "open http://localhost:3000", "ls"),
    ],
)
def test_a_phrase_the_command_itself_decides_keeps_the_check(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("Don't use git add .; add files by name.", "git add .", "git add src/app.py"),
        ("never run git add . ; stage the files you changed", "git add .", "git add README.md"),
        ("Never run az group delete.", "az group delete --name rg1", "az group list"),
        ("don't ever run gh repo delete", "gh repo delete me/app --yes", "gh repo view me/app"),
        ("Don't run `npx prisma db push`.", "npx prisma db push", "npx prisma migrate dev"),
        ("Don't kill processes with kill -9.", "kill -9 4242", "kill 4242"),
        ("never kill -9 anything", "kill -9 1", "kill -TERM 1"),
    ],
)
def test_a_command_line_keeps_every_word_the_rule_spells(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"


@pytest.mark.parametrize(
    "rule",
    [
        "Do not use `git push --force`; use `--force-with-lease` instead.",
        "Never use git push --force, use --force-with-lease",
        "no force pushing, use --force-with-lease",
    ],
)
def test_the_flag_the_rule_prefers_is_the_alternative_not_a_second_forbidden_flag(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert run(params, "git push --force origin feat") == "violated"
    assert run(params, "git push --force-with-lease origin feat") == "pass"


def test_the_preferred_flag_is_named_in_the_deny() -> None:
    _, params = compiled("Do not use `git push --force`; use `--force-with-lease` instead.")
    assert params["alternatives"] == ["git push --force-with-lease"]


@pytest.mark.parametrize(
    ("rule", "condition", "violating", "compliant"),
    [
        ("stop using --force", "when pushing", "git push --force", "git push"),
        ("never use -f when you push", None, "git push -f origin x", "git push origin x"),
        ("Don't use --hard when resetting", None, "git reset --hard HEAD~1", "git reset --soft HEAD~1"),
        ("no --amend while committing", None, "git commit --amend -m x", "git commit -m x"),
    ],
)
def test_a_flag_whose_git_action_is_in_the_condition(
    rule: str, condition: str | None, violating: str, compliant: str
) -> None:
    kind, params = compiled(rule, condition)
    assert kind == "forbidden_command", rule
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"


@pytest.mark.parametrize("rule", ["never use --force when installing", "don't use -f when you copy files"])
def test_a_flag_with_an_action_that_names_no_one_program_stays_guidance(rule: str) -> None:
    assert compiled(rule) == (None, {})


@pytest.mark.parametrize(
    "rule",
    [
        "**Empty slices**: `var t []string` (nil slice), not `t := []string{}`",
        "Avoid adding new `# pragma: no cover` comments",
        "Do not use `Date.now` or `new Date`; use `Clock`.",
        "Do not use `expect` from Jest; use `assert` from `node:assert`.",
        "never write `x = []` as a default argument",
    ],
)
def test_code_in_backticks_is_not_a_command(rule: str) -> None:
    assert compiled(rule)[0] != "forbidden_command", rule


@pytest.mark.parametrize(
    ("rule", "alternative"),
    [
        ("NEVER use `find` - use `fd` instead", "fd"),
        ("never use pip — we use uv", "uv"),
    ],
)
def test_a_dash_between_clauses_ends_the_command(rule: str, alternative: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command" and params["alternatives"] == [alternative], rule
    assert "args" not in params and "subcommand" not in params


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("IMPORTANT: never run `git checkout -- <file>`", "git checkout -- src/a.py", "git checkout main"),
        ("never git checkout -- .", "git checkout .", "git checkout -b fix"),
        ("Ask before discarding changes with git checkout -- .", "git checkout -- .", "git checkout feature/x"),
    ],
)
def test_discarding_changes_with_checkout_keeps_its_separator_or_target(
    rule: str, violating: str, compliant: str
) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("ALWAYS use `uv run` to run python scripts", "python scripts/seed.py", "uv run python scripts/seed.py"),
        ("always use poetry run for pytest", "pytest -q", "poetry run pytest -q"),
    ],
)
def test_a_runner_named_first_forbids_the_program_run_bare(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"
    assert run(params, "pip install rich") == "pass"  # a runner replaces no package manager


@pytest.mark.parametrize(
    "rule",
    [
        "Do not modify files outside the `src/` directory.",  # everything but src/: never a ban on src/
        "Don't edit anything outside of app/",
        "never touch files other than docs/",
    ],
)
def test_outside_a_folder_is_never_read_as_the_folder(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind != "forbidden_path" or params.get("outside_project") is True, (rule, params)


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        (
            "Do not create an unsigned commit when GPG signing blocks a commit.",
            "git commit --no-gpg-sign -m x",
            "git commit -m x",
        ),
        ("If a pre-commit hook fails, don't use --no-verify.", "git commit --no-verify -m x", "git commit -m x"),
        ("Don't force push when the push is rejected.", "git push --force", "git pull --rebase"),
        ("never skip hooks when they fail", "git push --no-verify", "git push"),
    ],
)
def test_the_failure_a_bypass_flag_answers_does_not_keep_the_ban_guidance(
    rule: str, violating: str, compliant: str
) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"


@pytest.mark.parametrize(
    "rule",
    [
        "never use pip when the build fails",  # not a bypass: which installs the rule means, no command tells
        "Don't run npm install when the lockfile is broken",
    ],
)
def test_a_failure_condition_on_a_plain_command_stays_guidance(rule: str) -> None:
    assert compiled(rule) == (None, {}), rule


@pytest.mark.parametrize(
    "rule",
    [
        "Do not amend commits that were already pushed.",  # which commits: not every amend
        "never force push branches that other people work on",
        "Never modify global git hooks or templates.",  # `git config --global` is not what it names
        "Never delete, drop, reset or truncate any database, table or data store.",  # truncate the verb
    ],
)
def test_a_rule_about_some_uses_does_not_forbid_the_command(rule: str) -> None:
    assert compiled(rule) == (None, {}), rule


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("Never run manage.py migrate.", "python manage.py migrate", "python manage.py runserver"),
        ("don't run ./manage.py flush", "python3 ./manage.py flush --noinput", "python3 manage.py check"),
        ("never run scripts/reset_db.sh", "bash scripts/reset_db.sh", "bash scripts/seed.sh"),
    ],
)
def test_a_script_is_forbidden_however_it_is_started(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"


def test_upgrading_the_package_manager_itself() -> None:
    kind, params = compiled("Do not upgrade pip itself.")
    assert kind == "forbidden_command"
    assert run(params, "python -m pip install --upgrade pip") == "violated"
    assert run(params, "pip install -U requests") == "pass"


@pytest.mark.parametrize(
    "rule", ["don't upgrade pip packages", "Don't upgrade terraform providers.", "never bump cargo deps"]
)
def test_an_action_verb_before_a_program_is_not_a_ban_on_the_program(rule: str) -> None:
    kind, params = compiled(rule)
    assert not (kind == "forbidden_command" and set(params) <= {"program", "alternatives"}), (rule, params)
