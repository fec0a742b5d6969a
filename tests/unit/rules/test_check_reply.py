"""Reply checks: word limit, required JSON fields, field equal / not equal to a literal."""

from __future__ import annotations

import json

from heedful.rules.checks import field_value, json_fields, word_limit


def test_word_limit_counts_whitespace_tokens() -> None:
    params = {"limit": 5}
    assert word_limit.evaluate(params, "delivery", {"delivery": "one two three four five"}).result == "pass"
    verdict = word_limit.evaluate(params, "delivery", {"delivery": "one two three four five six"})
    assert verdict.result == "violated"
    assert verdict.quotes == ["six"]
    assert word_limit.evaluate(params, "delivery", {}).result == "unknown"
    assert word_limit.evaluate(params, "pre_action", {"delivery": "x " * 10}).result == "not_applicable"
    assert word_limit.evaluate({"limit": 0}, "delivery", {"delivery": "x"}).result == "unknown"
    assert word_limit.evaluate({"limit": True}, "delivery", {"delivery": "x"}).result == "unknown"


def test_json_fields() -> None:
    params = {"fields": ["status", "summary"]}
    ok = json.dumps({"status": "ok", "summary": "done", "extra": 1})
    assert json_fields.evaluate(params, "delivery", {"delivery": ok}).result == "pass"
    assert json_fields.evaluate(params, "delivery", {"delivery": f"```json\n{ok}\n```"}).result == "pass"
    missing = json_fields.evaluate(params, "delivery", {"delivery": json.dumps({"status": "ok"})})
    assert missing.result == "violated"
    assert "summary" in missing.reason
    assert json_fields.evaluate(params, "delivery", {"delivery": "All done!"}).result == "violated"
    assert json_fields.evaluate(params, "delivery", {"delivery": "[1, 2]"}).result == "violated"


def test_field_value_equals_and_not_equals() -> None:
    equals = {"target": "delivery", "path": ["meta", "lang"], "op": "equals", "value": "en"}
    reply = {"delivery": json.dumps({"meta": {"lang": "en"}})}
    assert field_value.evaluate(equals, "delivery", reply).result == "pass"
    wrong = {"delivery": json.dumps({"meta": {"lang": "de"}})}
    assert field_value.evaluate(equals, "delivery", wrong).result == "violated"
    not_equals = {**equals, "op": "not_equals"}
    assert field_value.evaluate(not_equals, "delivery", wrong).result == "pass"
    assert field_value.evaluate(not_equals, "delivery", reply).result == "violated"


def test_field_value_is_type_strict_and_reports_unknowns() -> None:
    params = {"target": "delivery", "path": ["count"], "op": "equals", "value": 1}
    assert field_value.evaluate(params, "delivery", {"delivery": '{"count": "1"}'}).result == "violated"
    assert field_value.evaluate(params, "delivery", {"delivery": '{"count": true}'}).result == "violated"
    assert field_value.evaluate(params, "delivery", {"delivery": '{"other": 1}'}).result == "unknown"
    assert field_value.evaluate(params, "delivery", {"delivery": '{"count": [1]}'}).result == "unknown"
    assert field_value.evaluate(params, "delivery", {"delivery": "plain prose"}).result == "not_applicable"
    assert field_value.evaluate(params, "pre_action", {"delivery": '{"count": 1}'}).result == "not_applicable"


def test_field_value_on_actions_and_artifacts() -> None:
    action = {"target": "action", "path": ["timeout"], "op": "not_equals", "value": 0}
    assert field_value.evaluate(action, "pre_action", {"action": {"tool": "T", "input": {"timeout": 0}}}).result == (
        "violated"
    )
    artifact = {"target": "artifact", "path": ["version"], "op": "equals", "value": "2"}
    evidence = {"artifact": {"path": "a.json", "content": '{"version": "2"}'}}
    assert field_value.evaluate(artifact, "artifact", evidence).result == "pass"


def test_generated_cases_match_the_checks() -> None:
    kinds = [
        (word_limit, {"limit": 50}),
        (json_fields, {"fields": ["a", "b"]}),
        (field_value, {"target": "delivery", "path": ["x"], "op": "equals", "value": "y"}),
        (field_value, {"target": "action", "path": ["x"], "op": "not_equals", "value": 3}),
    ]
    for module, params in kinds:
        for case in module.cases(params):
            assert module.evaluate(params, case.stage, case.evidence).result == case.expected, (params, case)
