"""A list of programs after a contrast is banned whole: "use pnpm instead of yarn, bun, or npm".

Before, only the first program of the list was banned and a program after "or" could even become the
alternative the deny message offers. Every phrasing is written for this test (none is a corpus sentence).
"""

from __future__ import annotations

import pytest

from compile_cases import compiled, run
from heedful.rules import vocabulary as vocab


@pytest.mark.parametrize(
    ("rule", "banned", "preferred"),
    [
        ("use pnpm instead of npm or yarn", {"npm", "yarn"}, "pnpm"),
        ("Always use pnpm as the package manager instead of yarn, bun, or npm.", {"yarn", "bun", "npm"}, "pnpm"),
        ("prefer uv rather than pip, poetry and pipenv", {"pip", "poetry", "pipenv"}, "uv"),
    ],
)
def test_every_program_listed_after_the_contrast_is_banned(rule: str, banned: set[str], preferred: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert {params["program"], *params.get("synonyms", [])} == banned
    assert params["alternatives"] == [preferred]
    for program in banned:
        assert run(params, f"{program} add left-pad") == "violated", program
    assert run(params, f"{preferred} add left-pad") == "pass"


@pytest.mark.parametrize(
    ("text", "roles"),
    [
        ("instead of npm, pnpm is what we use", [("npm", "forbid"), ("pnpm", "neutral")]),
        ("use pnpm or yarn", [("pnpm", "prefer"), ("yarn", "prefer")]),
        ("instead of npm, use pnpm", [("npm", "forbid"), ("pnpm", "prefer")]),
    ],
)
def test_a_program_after_the_list_or_in_a_new_clause_keeps_its_own_role(text: str, roles: list) -> None:
    assert [(m.program, m.role) for m in vocab.read_commands(text)] == roles
