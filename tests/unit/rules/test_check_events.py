"""Delivery checks over the event log: a required command after the last edit, and leftovers."""

from __future__ import annotations

from heedful.rules.checks import leftovers, required_event

TESTS = {"commands": [["pytest"], ["npm", "test"]], "after": "edit"}


def events(*items: tuple[str, str]) -> dict:
    out = []
    for kind, value in items:
        out.append({"kind": kind, "command": value} if kind == "command" else {"kind": kind, "path": value})
    return {"events": out}


def test_tests_after_the_last_edit() -> None:
    assert required_event.evaluate(TESTS, "delivery", events(("edit", "a.py"), ("command", "pytest -q"))).result == (
        "pass"
    )
    assert required_event.evaluate(TESTS, "delivery", events(("command", "pytest"), ("edit", "a.py"))).result == (
        "violated"
    )
    assert (
        required_event.evaluate(
            TESTS, "delivery", events(("edit", "a.py"), ("command", "cd web && npm test -- --watch=false"))
        ).result
        == "pass"
    )
    assert (
        required_event.evaluate(TESTS, "delivery", events(("edit", "a.py"), ("command", "python -m pytest"))).result
        == "pass"
    )
    assert (
        required_event.evaluate(TESTS, "delivery", events(("edit", "a.py"), ("command", "echo pytest"))).result
        == "violated"
    )


def test_nothing_edited_is_not_applicable_and_no_log_is_unknown() -> None:
    assert required_event.evaluate(TESTS, "delivery", events(("command", "ls"))).result == "not_applicable"
    assert required_event.evaluate(TESTS, "delivery", {}).result == "unknown"
    always = {**TESTS, "after": "always"}
    assert required_event.evaluate(always, "delivery", events(("command", "ls"))).result == "violated"


def test_edit_globs_limit_which_edits_count() -> None:
    params = {**TESTS, "edit_globs": ["*.py"]}
    assert required_event.evaluate(params, "delivery", events(("edit", "README.md"))).result == "not_applicable"


def test_leftovers() -> None:
    params = {"globs": ["*.tmp", "debug_*"]}
    made = {"kind": "create", "path": "debug_parse.py"}
    assert leftovers.evaluate(params, "delivery", {"events": [made]}).result == "violated"
    assert (
        leftovers.evaluate(params, "delivery", {"events": [made, {"kind": "delete", "path": "debug_parse.py"}]}).result
        == "pass"
    )
    removed = {"kind": "command", "command": "rm debug_parse.py"}
    assert leftovers.evaluate(params, "delivery", {"events": [made, removed]}).result == "pass"
    assert leftovers.evaluate(params, "delivery", {"events": [made], "workspace": ["src/a.py"]}).result == "pass"
    assert leftovers.evaluate(params, "delivery", {"events": [made], "workspace": ["./debug_parse.py"]}).result == (
        "violated"
    )
    existing = {"kind": "edit", "path": "debug_old.py"}
    assert leftovers.evaluate(params, "delivery", {"events": [existing]}).result == "not_applicable"
    assert leftovers.evaluate(params, "delivery", {}).result == "unknown"


def test_generated_cases_match_the_checks() -> None:
    kinds = ((required_event, TESTS), (leftovers, {"globs": ["*.tmp"]}), (leftovers, {"globs": ["tmp/"]}))
    for module, params in kinds:
        for case in module.cases(params):
            assert module.evaluate(params, case.stage, case.evidence).result == case.expected, (params, case)
