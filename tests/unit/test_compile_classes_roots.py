"""Globs anchored at the project root (`/dist`, `./build/**`) and places on the file system (`/etc/hosts`).

A path the tools report may be relative, absolute under the project or written `./x`; a rule's glob may
be written the same three ways. Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compile_cases import compiled
from heedful.rules.checks import KINDS, evaluate

PROJECT = "/home/dev/shop"


def edit(globs: list[str], path: str, project: str | None = PROJECT) -> str:
    evidence: dict[str, Any] = {"action": {"tool": "Edit", "file_path": path}}
    if project:
        evidence["project"] = project
    return evaluate("forbidden_path", {"globs": globs}, "pre_action", evidence).result


def stage(globs: list[str], command: str) -> str:
    evidence = {"project": PROJECT, "action": {"tool": "Bash", "command": command}}
    return evaluate("staged_path", {"globs": globs}, "pre_action", evidence).result


@pytest.mark.parametrize("glob", ["/dist", "/dist/", "./dist", "./dist/**", "dist/**", "/dist/**"])
@pytest.mark.parametrize("path", ["dist/app.js", f"{PROJECT}/dist/app.js", "./dist/app.js", "dist/css/site.css"])
def test_a_root_glob_matches_the_path_however_either_is_written(glob: str, path: str) -> None:
    assert edit([glob], path) == "violated"


@pytest.mark.parametrize("glob", ["/dist", "./dist/**"])
@pytest.mark.parametrize("path", ["web/dist/app.js", "distribution/notes.md", f"{PROJECT}/src/dist.py"])
def test_a_root_glob_leaves_nested_and_similar_names_alone(glob: str, path: str) -> None:
    assert edit([glob], path) == "pass"


def test_a_system_path_is_the_place_on_disk_not_a_project_folder() -> None:
    assert edit(["/etc/hosts"], "/etc/hosts") == "violated"
    assert edit(["/etc"], "/etc/nginx/nginx.conf", project=None) == "violated"
    assert edit(["/etc/hosts"], "etc/hosts") == "pass"  # the project's own etc/ folder
    assert edit(["/tmp"], "tmp/cache.json") == "pass"


@pytest.mark.parametrize(
    "command",
    ["git add dist/app.js", "git add ./dist/app.js", f"git add {PROJECT}/dist/app.js", "git commit -m x dist/app.js"],
)
def test_staged_root_globs_match_every_spelling_of_the_pathspec(command: str) -> None:
    assert stage(["/dist"], command) == "violated"
    assert stage(["./dist/**"], command) == "violated"


def test_staged_root_globs_leave_other_folders_alone() -> None:
    assert stage(["/dist"], "git add web/dist/app.js") == "pass"
    assert stage(["/dist"], "git add build/x") == "pass"
    assert stage(["./.envrc"], f"git add {PROJECT}/.envrc") == "violated"


@pytest.mark.parametrize(
    "params", [{"globs": ["/dist"]}, {"globs": ["./build/**"]}, {"globs": ["/etc/hosts"]}, {"globs": ["./x.json"]}]
)
def test_the_generated_cases_of_rooted_globs_agree(params: dict[str, Any]) -> None:
    for kind in ("forbidden_path", "staged_path"):
        if kind == "staged_path" and params["globs"][0].startswith("/etc"):
            continue
        module = KINDS[kind]
        for case in module.cases(params):
            assert evaluate(kind, params, case.stage, case.evidence).result == case.expected, case
            assert module.review(params, case.stage, case.evidence) == case.expected, case


@settings(max_examples=200, deadline=None)
@given(glob=st.text(alphabet="/.*~ab-", max_size=12), path=st.text(alphabet="/.*~ab-", max_size=16))
def test_rooted_globs_never_raise(glob: str, path: str) -> None:
    assert edit([glob], path) in {"pass", "violated", "unknown", "not_applicable"}
    assert stage([glob], f"git add {path}") in {"pass", "violated", "unknown", "not_applicable"}


@pytest.mark.parametrize(
    ("rule", "kind", "globs"),
    [
        ("hands off /dist, it is built by CI", "forbidden_path", ["/dist/**"]),
        ("never edit anything under ./build/", "forbidden_path", ["./build/**"]),
        ("don't commit ./coverage", "staged_path", ["./coverage/**"]),
        ("do not ever write to /etc/hosts", "forbidden_path", ["/etc/hosts"]),
        ("stop modifying files in /usr/local", "forbidden_path", ["/usr/local"]),
    ],
)
def test_rooted_and_system_paths_compile(rule: str, kind: str, globs: list[str]) -> None:
    extra = {"outside_project": False} if kind == "forbidden_path" else {}
    assert compiled(rule) == (kind, {"globs": globs, **extra})
