"""Scope from what a check names: a project's own commands and folders make a project rule."""

from __future__ import annotations

from typing import Any

import pytest

from heedful.rules.models import CheckSpec
from heedful.rules.scope_grounding import project_bound


def spec(kind: str, stage: str = "pre_action", **params: Any) -> CheckSpec:
    return CheckSpec(kind=kind, stage=stage, params=params)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "check",
    [
        spec("required_event", "delivery", commands=[["make", "lint"], ["make", "validate"]], before="push"),
        spec("required_event", "delivery", commands=["pnpm run typecheck"]),
        spec("required_event", "delivery", commands=["./scripts/check.sh"]),
        spec("required_event", "delivery", commands=["tools/gen.py --all"]),
        spec("required_event", "delivery", commands=["just fmt"]),
        spec("required_event", "delivery", commands=["cargo xtask codegen"]),
        spec("forbidden_command", program="make", subcommand=["deploy"]),
        spec("forbidden_command", program="npm", subcommand=["run", "release"]),
        spec("forbidden_path", globs=["docs/v*/**"]),
        spec("forbidden_path", globs=["infra/terraform/**"]),
        spec("staged_path", "pre_action", globs=["src/generated/**"]),
    ],
)
def test_a_check_naming_the_projects_own_commands_or_folders_is_bound_to_it(check: CheckSpec) -> None:
    reason = project_bound(check)
    assert reason is not None and "project" in reason


@pytest.mark.parametrize(
    "check",
    [
        spec("forbidden_command", program="pip", subcommand=["install"], alternatives=["uv pip install"]),
        spec("forbidden_command", program="git", subcommand=["push"], args=["main"]),
        spec("forbidden_command", program="npm", subcommand=["install"], flags=["-g"]),
        spec("forbidden_command", program="sudo"),
        spec("required_event", "delivery", commands=["pytest"]),
        spec("required_event", "delivery", commands=["npm test"]),
        # a folder or a pair of words with a slash runs nothing
        spec("required_event", "delivery", commands=["dist/"]),
        spec("forbidden_command", program="async/await"),
        # one generic command among the alternatives: the rule holds wherever that command exists
        spec("required_event", "delivery", commands=[["make", "lint"], ["ruff", "check"]]),
        spec("forbidden_path", globs=[".env", "*.pem"]),
        spec("forbidden_path", globs=["node_modules/**", "dist/**"]),
        spec("forbidden_path", globs=["tests/**"]),
        spec("forbidden_path", globs=["/etc/**"]),
        spec("forbidden_path", globs=["~/.ssh/**"]),
        spec("forbidden_path", globs=["infra/**"], outside_project=True),
        spec("forbidden_path", globs=["docs/v*/**", "*.lock"]),
        spec("commit_message", forbid=["Co-authored-by"]),
        spec("reply_word_limit", "delivery", limit=100),
    ],
)
def test_generic_commands_files_and_other_kinds_stay_as_admission_read_them(check: CheckSpec) -> None:
    assert project_bound(check) is None
