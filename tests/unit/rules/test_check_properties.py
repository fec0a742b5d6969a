"""Checks never raise, whatever the evidence and parameters (and always return a known result)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.rules.checks import KINDS
from heedful.rules.checks import evaluate as run_check
from heedful.rules.shell import simple_commands

RESULTS = {"pass", "violated", "not_applicable", "unknown"}
STAGES = st.sampled_from(["pre_action", "artifact", "delivery", "", "bogus"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
shellish = st.lists(
    st.sampled_from([*"ab -=|&;()$`'\"\\\n#<>*/.~", "pip ", "git ", "sudo ", "rm ", "push ", "main", "-rf ", "-m "]),
    max_size=30,
).map("".join)
evidence = st.fixed_dictionaries(
    {},
    optional={
        "action": st.one_of(json_values, st.fixed_dictionaries({"tool": st.text(max_size=8), "command": shellish})),
        "artifact": json_values,
        "delivery": st.one_of(st.text(max_size=80), json_values),
        "events": st.one_of(
            json_values,
            st.lists(
                st.fixed_dictionaries(
                    {"kind": st.sampled_from(["edit", "create", "command", "delete", "x"])},
                    optional={"path": st.text(max_size=20), "command": shellish},
                ),
                max_size=5,
            ),
        ),
        "workspace": json_values,
        "project": st.one_of(st.text(max_size=20), json_values),
    },
)
params = st.dictionaries(
    st.sampled_from(
        [
            "program",
            "subcommand",
            "flags",
            "args",
            "alternatives",
            "implicit_target",
            "globs",
            "outside_project",
            "limit",
            "fields",
            "target",
            "path",
            "op",
            "value",
            "commands",
            "after",
            "edit_globs",
            "forbid",
            "require",
            "max_subject",
            "unit",
            "patterns",
        ]
    ),
    json_values,
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(sorted(KINDS)), params=params, stage=STAGES, evidence=st.one_of(evidence, json_values))
def test_checks_never_raise(kind: str, params: dict, stage: str, evidence: object) -> None:
    verdict = KINDS[kind].evaluate(params, stage, evidence)
    assert verdict.result in RESULTS
    assert verdict.reason


@settings(max_examples=300, deadline=None)
@given(line=st.one_of(st.text(max_size=80), shellish))
def test_reading_arbitrary_command_lines_never_raises(line: str) -> None:
    for command in simple_commands(line):
        assert isinstance(command.program, str)


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(sorted(KINDS)), line=shellish, text=st.text(max_size=60))
def test_valid_params_on_arbitrary_strings(kind: str, line: str, text: str) -> None:
    valid = {
        "forbidden_command": {"program": "pip", "alternatives": ["uv"]},
        "forbidden_path": {"globs": ["migrations/", "*.lock"], "outside_project": True},
        "reply_word_limit": {"limit": 10},
        "reply_json_fields": {"fields": ["a"]},
        "field_value": {"target": "delivery", "path": ["a"], "op": "equals", "value": "b"},
        "required_event": {"commands": [["pytest"]]},
        "workspace_leftovers": {"globs": ["*.tmp"]},
        "staged_path": {"globs": [".envrc", "secrets/**"]},
        "commit_message": {"forbid": ["Co-Authored-By", "emoji"], "require": "^(feat|fix): ", "max_subject": 50},
        "reply_count_limit": {"unit": "bullets", "limit": 3},
        "reply_forbidden_text": {"patterns": ["emoji", "As an AI"]},
    }[kind]
    evidence = {
        "project": text,
        "action": {"tool": "Bash", "command": line, "file_path": text},
        "artifact": {"path": text, "content": line},
        "delivery": line,
        "events": [{"kind": "create", "path": text}, {"kind": "command", "command": line}],
    }
    for stage in ("pre_action", "artifact", "delivery"):
        assert run_check(kind, valid, stage, evidence).result in RESULTS
