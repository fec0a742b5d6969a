"""Check kinds are classes in one registry; a proposed check's parameters are validated by its model."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from heedful.llm import OfflineModel
from heedful.rules.checks import KINDS, CheckKind, CheckParamsError, evaluate, stage_of, validate_check
from heedful.rules.checks.params import MODELS
from heedful.rules.models import CheckSpec
from heedful.rules.validate import validate

GOOD: dict[str, dict[str, Any]] = {
    "forbidden_command": {"program": "git", "subcommand": ["push"], "args": ["main"], "implicit_target": True},
    "forbidden_path": {"globs": [], "outside_project": True},
    "staged_path": {"globs": ["*.pem"]},
    "workspace_leftovers": {"globs": ["scratch*"]},
    "commit_message": {"require": "^(feat|fix): ", "max_subject": 50},
    "reply_word_limit": {"limit": 10},
    "reply_count_limit": {"unit": "bullets", "limit": 3},
    "reply_forbidden_text": {"patterns": ["emoji"]},
    "reply_json_fields": {"fields": ["summary"]},
    "field_value": {"target": "artifact", "path": ["debug"], "op": "not_equals", "value": True},
    "required_event": {"commands": [["pytest"]], "after": "edit"},
}

BAD: list[tuple[str, Any, str]] = [
    ("reply_word_limit", {"limit": 0}, "limit"),
    ("reply_word_limit", {"limit": "10"}, "limit"),  # no coercion: the hook would not read "10" as a limit
    ("reply_word_limit", {"limit": True}, "limit"),
    ("reply_count_limit", {"unit": "words", "limit": 3}, "unit"),
    ("forbidden_command", {"program": "pip", "alternative": ["uv"]}, "alternative"),  # a typo, not a parameter
    ("forbidden_path", {"globs": []}, "outside_project"),
    ("commit_message", {"require": "("}, "regular expression"),
    ("commit_message", {}, "forbid, require or max_subject"),
    ("field_value", {"target": "reply", "path": ["a"], "op": "equals"}, "target"),
    ("required_event", {"commands": []}, "commands"),
    ("reply_json_fields", ["summary"], "parameters"),
]


def test_the_registry_holds_one_instance_per_kind_each_with_a_parameter_model() -> None:
    assert set(KINDS) == set(MODELS) == set(GOOD)
    for name, kind in KINDS.items():
        assert isinstance(kind, CheckKind) and kind.name == name
        assert kind.summary.startswith(name)  # the compiler's prompt describes each kind by its documentation
        assert kind.stage_for(GOOD[name]) == stage_of(name, GOOD[name])
    with pytest.raises(TypeError):
        KINDS["other"] = KINDS["staged_path"]  # type: ignore[index]


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_parameters_validate_and_give_cases_the_check_agrees_with(name: str) -> None:
    params = GOOD[name]
    validate_check(name, params)
    kind = KINDS[name]
    cases = kind.cases(params)
    assert cases
    for case in cases:
        assert evaluate(name, params, case.stage, case.evidence).result == case.expected


@pytest.mark.parametrize(("name", "params", "named"), BAD)
def test_bad_parameters_are_one_clear_error(name: str, params: Any, named: str) -> None:
    with pytest.raises(CheckParamsError) as raised:
        KINDS[name].cases(params)
    message = str(raised.value)
    assert message.startswith(f"{name} parameters: ") and named in message and "\n" not in message


def test_an_unknown_kind_is_one_clear_error_naming_the_kinds() -> None:
    with pytest.raises(CheckParamsError, match=r"^unknown check kind 'shell_regex'; one of: commit_message, "):
        validate_check("shell_regex", {})
    with pytest.raises(CheckParamsError):
        stage_of("shell_regex", {})
    assert evaluate("shell_regex", {}, "delivery", {}).result == "unknown"  # a hook still never raises


def test_the_validator_rejects_a_proposal_with_bad_parameters_and_says_why() -> None:
    proposal = CheckSpec(kind="reply_word_limit", stage="delivery", params={"limit": "ten"}, evidence=["delivery"])
    outcome = validate(OfflineModel(), "Keep replies under ten words.", [proposal], None, [], vague=False)
    assert outcome.status == "guidance" and outcome.check is None
    assert outcome.rounds[0]["rejected"].startswith("unusable parameters: reply_word_limit parameters: limit: ")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@example(name="commit_message", params={"max_subject": 1})  # shorter than any sample subject
@example(name="commit_message", params={"max_subject": 5, "require": "(?im)^Signed-off-by: "})  # and a trailer
@given(
    name=st.sampled_from(sorted(KINDS)),
    params=st.dictionaries(
        st.sampled_from(sorted({key for model in MODELS.values() for key in model.model_fields})), json_values
    ),
)
def test_parameters_the_model_accepts_give_cases_the_check_agrees_with(name: str, params: dict[str, Any]) -> None:
    try:
        validate_check(name, params)
    except CheckParamsError:
        return
    assert KINDS[name].cases(params)
    for case in KINDS[name].cases(params):
        assert evaluate(name, params, case.stage, case.evidence).result == case.expected, case
