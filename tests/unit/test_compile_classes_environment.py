"""A command forbidden in one environment: "never kubectl apply against production". The condition is decided
by the command line (`--context prod-eu`, `-n shared`, `--project acme-production`): `forbidden_command` with
`mentions` fires there, passes in another environment, and is unknown when the command names none.

Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compile_cases import compiled, run
from heedful.rules.checks import KINDS, CheckParamsError, evaluate, validate_check
from heedful.rules.compile.environments import environment_of


@pytest.mark.parametrize(
    ("rule", "condition", "violating", "elsewhere"),
    [
        (
            "Never run kubectl apply against production.",
            None,
            "kubectl --context prod-eu apply -f a.yaml",
            "kubectl --context staging apply -f a.yaml",
        ),
        (
            "no kubectl delete",
            "in the shared namespace",
            "kubectl delete pod x -n shared",
            "kubectl delete pod x -n dev",
        ),
        (
            "never ever kubectl exec into prod pods",
            None,
            "kubectl exec -it api-0 --context=production -- sh",
            "kubectl exec -it api-0 --context=local -- sh",
        ),
        (
            "Never run gcloud against the prod project.",
            None,
            "gcloud sql instances delete db --project acme-prod",
            "gcloud sql instances delete db --project acme-sandbox",
        ),
        (
            "dont run terraform apply on prod",
            None,
            "terraform -chdir=envs/prod apply",
            "terraform -chdir=envs/dev apply",
        ),
    ],
)
def test_a_command_forbidden_in_one_environment(
    rule: str, condition: str | None, violating: str, elsewhere: str
) -> None:
    kind, params = compiled(rule, condition)
    assert kind == "forbidden_command" and params["mentions"], rule
    assert run(params, violating) == "violated"
    assert run(params, elsewhere) == "pass"
    assert run(params, "ls -la") == "pass"


def test_a_command_that_names_no_environment_is_unknown_not_blocked() -> None:
    _, params = compiled("Never run kubectl apply against production.")
    assert run(params, "kubectl apply -f a.yaml") == "unknown"


@pytest.mark.parametrize(
    ("condition", "environment"),
    [
        ("against the production cluster", "production"),
        ("in the shared namespace", "shared"),
        ("on prod", "prod"),
        ("into staging pods", "staging"),
        ("on the build box", None),  # a machine the command line does not name
        ("in yolo mode", None),
        ("against the prod database when it is busy", None),  # says more than the environment
    ],
)
def test_which_conditions_name_an_environment(condition: str, environment: str | None) -> None:
    assert environment_of(condition) == environment


@pytest.mark.parametrize(
    "rule",
    ["Use wget, not curl, on the build box.", "Avoid direct git operations in yolo mode.", "never deploy on fridays"],
)
def test_a_place_or_mode_the_command_does_not_name_stays_guidance(rule: str) -> None:
    assert compiled(rule) == (None, {}), rule


ENVIRONMENT = [
    {"program": "kubectl", "subcommand": ["apply"], "mentions": ["prod", "production"]},
    {"program": "kubectl", "subcommand": ["delete"], "mentions": ["shared"]},
    {"program": "gcloud", "mentions": ["staging", "stage", "stg"]},
    {"program": "git", "subcommand": ["push"], "flags": [["--force", "-f"]], "mentions": ["prod"]},
]


@pytest.mark.parametrize("params", ENVIRONMENT)
def test_generated_cases_validate(params: dict[str, Any]) -> None:
    kind = KINDS["forbidden_command"]
    cases = kind.cases(params)
    assert 3 <= len(cases) <= 9 and any(c.expected == "not_applicable" for c in cases)
    assert any(c.note == "the same command in another environment" and c.expected == "pass" for c in cases)
    for case in cases:
        assert evaluate("forbidden_command", params, case.stage, case.evidence).result == case.expected, case
        assert kind.review(params, case.stage, case.evidence) == case.expected, case


@pytest.mark.parametrize("mentions", ["prod", ["Prod"], ["prod eu"], [""], [3]])
def test_mentions_are_lower_case_words(mentions: Any) -> None:
    with pytest.raises(CheckParamsError, match="forbidden_command parameters: mentions"):
        validate_check("forbidden_command", {"program": "kubectl", "mentions": mentions})


anything = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
    max_leaves=10,
)
lines = st.lists(
    st.sampled_from(["kubectl ", "apply ", "-n ", "--context=", "prod", "-eu ", "shared ", "&& ", "| ", "sudo ", "'"]),
    max_size=12,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(
    params=st.one_of(
        st.sampled_from(ENVIRONMENT), st.fixed_dictionaries({"program": st.just("kubectl"), "mentions": anything})
    ),
    line=st.one_of(lines, st.text(max_size=40)),
)
def test_evaluate_never_raises(params: dict[str, Any], line: str) -> None:
    verdict = KINDS["forbidden_command"].evaluate(params, "pre_action", {"action": {"tool": "Bash", "command": line}})
    assert verdict.result in ("pass", "violated", "not_applicable", "unknown") and verdict.reason


def test_a_network_command_against_an_environment() -> None:
    kind, params = compiled("Please avoid wget against our staging servers")
    assert kind == "forbidden_command" and "staging" in params["mentions"]
    assert run(params, "wget https://staging.example.com/dump.sql") == "violated"
    assert run(params, "wget https://prod.example.com/health") == "pass"
