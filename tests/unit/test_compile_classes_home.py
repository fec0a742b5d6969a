"""Paths in the user's home directory: "never touch ~/.ssh", "don't edit my .zshrc". A `forbidden_path` glob
under `~/` matches the path however it is spelled (`~/`, `/home/NAME/`, `/Users/NAME/`, `/root/`) and never the
project's own file of the same name; its cases validate and it never raises.

Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compile_cases import compiled
from heedful.rules.checks import KINDS, evaluate

PROJECT = "/home/ana/code/app"


def edit(params: dict[str, Any], path: str) -> str:
    evidence = {"project": PROJECT, "action": {"tool": "Edit", "file_path": path}}
    return evaluate("forbidden_path", params, "pre_action", evidence).result


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("Never modify ~/.bashrc.", "/home/ana/.bashrc", f"{PROJECT}/.bashrc"),
        ("never touch ~/.ssh", "/home/ana/.ssh/id_ed25519", f"{PROJECT}/docs/ssh.md"),
        ("don't edit my dotfiles like .zshrc or .bashrc", "/Users/ana/.zshrc", f"{PROJECT}/.zshrc"),
        ("Do not modify shell configuration files such as .bash_profile.", "~/.bash_profile", "/tmp/profile"),
        ("dont touch my ~/.gitconfig pls", "/root/.gitconfig", f"{PROJECT}/.gitconfig"),
        ("never write to $HOME/.config/", "~/.config/fish/config.fish", f"{PROJECT}/.config/app.toml"),
    ],
)
def test_a_home_path_is_forbidden_wherever_the_home_is(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_path", rule
    assert all(g.startswith("~/") for g in params["globs"]) and not params["outside_project"]
    assert edit(params, violating) == "violated"
    assert edit(params, compliant) == "pass"


def test_a_dotfile_staged_in_the_repository_is_the_projects_own() -> None:
    assert compiled("Don't commit .ssh keys") == ("staged_path", {"globs": [".ssh"]})


def test_a_home_write_through_the_shell_is_seen() -> None:
    _, params = compiled("Never modify ~/.bashrc.")
    evidence = {"project": PROJECT, "action": {"tool": "Bash", "command": "echo 'alias k=kubectl' >> ~/.bashrc"}}
    assert evaluate("forbidden_path", params, "pre_action", evidence).result == "violated"


HOME = [{"globs": ["~/.bashrc", "~/.zshrc"]}, {"globs": ["~/.ssh/**"]}, {"globs": ["~/.config/"]}]


@pytest.mark.parametrize("params", HOME)
def test_generated_cases_validate(params: dict[str, Any]) -> None:
    kind = KINDS["forbidden_path"]
    cases = kind.cases(params)
    assert 3 <= len(cases) <= 9 and any(c.expected == "not_applicable" for c in cases)
    for case in cases:
        assert evaluate("forbidden_path", params, case.stage, case.evidence).result == case.expected, case
        assert kind.review(params, case.stage, case.evidence) == case.expected, case


paths = st.lists(
    st.sampled_from(["~", "/home/", "/Users/", "/root", "$HOME", "ana", "/", ".ssh", ".bashrc", "..", "*", "\\"]),
    max_size=8,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(
    globs=st.lists(st.one_of(paths, st.text(max_size=12)), max_size=3),
    path=st.one_of(paths, st.text(max_size=30)),
    project=st.one_of(st.none(), st.just(PROJECT), st.text(max_size=10)),
)
def test_evaluate_never_raises(globs: list[str], path: str, project: str | None) -> None:
    evidence = {"project": project, "action": {"tool": "Edit", "file_path": path}}
    verdict = KINDS["forbidden_path"].evaluate({"globs": globs}, "pre_action", evidence)
    assert verdict.result in ("pass", "violated", "not_applicable", "unknown") and verdict.reason
