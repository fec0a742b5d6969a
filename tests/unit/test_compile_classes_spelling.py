"""Two names of one program: "use python3, not python" forbids only the spelling the rule names
(`forbidden_command` with `spelled`), validated on its generated cases and never raising.

Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compile_cases import compiled, run
from heedful.rules.checks import KINDS, CheckParamsError, evaluate, validate_check
from heedful.rules.shell import simple_commands


@pytest.mark.parametrize(
    ("rule", "violating", "compliant"),
    [
        ("Use python3, not python.", "python manage.py test", "python3 manage.py test"),
        ("always call python3 instead of python", "/usr/bin/python -V", "python3 -V"),
        ("run python3 rather than plain python pls", "cd app && python run.py", "cd app && python3 run.py"),
        ("use python, never python3", "python3 x.py", "python x.py"),
        ("use pip3 not pip", "pip install rich", "pip3 install rich"),
        ("Use python3, not python.", "python -m pytest -q", "python3 -m pytest -q"),
    ],
)
def test_only_the_spelling_the_rule_forbids_is_blocked(rule: str, violating: str, compliant: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command", rule
    assert params["spelled"] and params["alternatives"]
    assert run(params, violating) == "violated"
    assert run(params, compliant) == "pass"


def test_the_deny_names_the_allowed_spelling() -> None:
    _, params = compiled("Use python3, not python.")
    verdict = evaluate("forbidden_command", params, "pre_action", {"action": {"tool": "Bash", "command": "python x"}})
    assert "python3" in verdict.reason


def test_a_rule_against_the_program_itself_is_not_narrowed_to_a_spelling() -> None:
    _, params = compiled("never use python for scripts here, use node")
    assert "spelled" not in params


def test_the_shell_reader_keeps_the_name_as_typed() -> None:
    assert [(c.program, c.typed) for c in simple_commands("FOO=1 sudo /usr/bin/python3.11 -V | py x.py")] == [
        ("python", "python3.11"),
        ("python", "py"),
    ]


SPELLED = [
    {"program": "python", "spelled": ["python"], "alternatives": ["python3"]},
    {"program": "python", "spelled": ["python3"], "alternatives": ["python"]},
    {"program": "pip", "spelled": ["pip"], "alternatives": ["pip3"]},
    {"program": "python", "spelled": ["python", "py"]},
]


@pytest.mark.parametrize("params", SPELLED)
def test_generated_cases_validate(params: dict[str, Any]) -> None:
    kind = KINDS["forbidden_command"]
    cases = kind.cases(params)
    assert 3 <= len(cases) <= 9 and any(c.expected == "not_applicable" for c in cases)
    assert any(c.expected == "pass" and "typed by the name" in (c.note or "") for c in cases)
    for case in cases:
        assert evaluate("forbidden_command", params, case.stage, case.evidence).result == case.expected, case
        assert kind.review(params, case.stage, case.evidence) == case.expected, case


@pytest.mark.parametrize("spelled", ["python", [1], [["python"]], None])
def test_spelled_must_be_a_list_of_names(spelled: Any) -> None:
    with pytest.raises(CheckParamsError, match="forbidden_command parameters: spelled"):
        validate_check("forbidden_command", {"program": "python", "spelled": spelled})


anything = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
    max_leaves=10,
)
lines = st.lists(
    st.sampled_from(["python ", "python3 ", "py ", "-m ", "pytest ", "sudo ", "/usr/bin/", "&& ", "| ", "x.py ", "'"]),
    max_size=12,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(
    params=st.one_of(
        st.sampled_from(SPELLED),
        st.fixed_dictionaries({"program": st.text(max_size=8), "spelled": anything}),
    ),
    line=st.one_of(lines, st.text(max_size=40)),
)
def test_evaluate_never_raises(params: dict[str, Any], line: str) -> None:
    verdict = KINDS["forbidden_command"].evaluate(params, "pre_action", {"action": {"tool": "Bash", "command": line}})
    assert verdict.result in ("pass", "violated", "not_applicable", "unknown") and verdict.reason
