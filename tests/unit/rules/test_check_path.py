"""forbidden_path: globs relative to the project, and 'outside the repo'."""

from __future__ import annotations

import pytest

from heedful.rules.checks import path

PROJECT = "/home/u/app"


def run(params: dict, file_path: str, stage: str = "pre_action") -> str:
    if stage == "artifact":
        evidence = {"project": PROJECT, "artifact": {"path": file_path, "content": "x"}}
    else:
        evidence = {"project": PROJECT, "action": {"tool": "Edit", "file_path": file_path}}
    return path.evaluate(params, stage, evidence).result


@pytest.mark.parametrize(
    ("pattern", "file_path", "expected"),
    [
        ("migrations/", "migrations/0001_init.py", "violated"),
        ("migrations/", "app/migrations/0001_init.py", "violated"),
        ("migrations/", f"{PROJECT}/migrations/x.py", "violated"),
        ("migrations/", "src/migration_helpers.py", "pass"),
        ("package-lock.json", "package-lock.json", "violated"),
        ("package-lock.json", "web/package-lock.json", "violated"),
        ("src/generated/", "src/generated/api/client.ts", "violated"),
        ("src/generated/", "lib/src/generated/x.ts", "pass"),
        ("*.lock", "poetry.lock", "violated"),
        ("docs/**/*.md", "docs/a/b/c.md", "violated"),
        ("docs/**/*.md", "docs/c.md", "violated"),
        ("docs/**/*.md", "src/c.md", "pass"),
    ],
)
def test_globs(pattern: str, file_path: str, expected: str) -> None:
    assert run({"globs": [pattern]}, file_path) == expected


@pytest.mark.parametrize(
    ("file_path", "expected"),
    [
        ("/etc/hosts", "violated"),
        ("../other/x.py", "violated"),
        ("~/.bashrc", "violated"),
        (f"{PROJECT}/src/x.py", "pass"),
        ("src/x.py", "pass"),
        (f"{PROJECT}-evil/x.py", "violated"),
    ],
)
def test_outside_the_project(file_path: str, expected: str) -> None:
    assert run({"globs": [], "outside_project": True}, file_path) == expected


def test_artifact_stage_and_unknowns() -> None:
    assert run({"globs": ["migrations/"]}, "migrations/a.py", stage="artifact") == "violated"
    params = {"globs": [], "outside_project": True}
    assert path.evaluate(params, "pre_action", {"action": {"tool": "Write", "file_path": "/x"}}).result == "unknown"
    assert path.evaluate(params, "pre_action", {"action": {"tool": "Bash", "command": "ls"}}).result == (
        "not_applicable"
    )
    assert path.evaluate(params, "delivery", {"delivery": "x"}).result == "not_applicable"


def test_apply_patch_paths_are_read() -> None:
    patch = "*** Begin Patch\n*** Update File: migrations/0002.py\n@@\n-a\n+b\n*** End Patch"
    evidence = {"project": PROJECT, "action": {"tool": "apply_patch", "input": {"patch": patch}}}
    assert path.evaluate({"globs": ["migrations/"]}, "pre_action", evidence).result == "violated"


def test_generated_cases_match_the_check() -> None:
    kinds = ({"globs": ["migrations/"]}, {"globs": ["package-lock.json"]}, {"globs": [], "outside_project": True})
    for params in kinds:
        for case in path.cases(params):
            assert path.evaluate(params, case.stage, case.evidence).result == case.expected, case
