"""The rule learner with a model, against recorded OpenAI-compatible responses (a test double
for a paid API): quotes that are not the user's words, invented rule ids and invented check
kinds each take the documented path, and nothing unfounded is stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from heedful.api import Heedful
from pg_backend import add_settings

pytest.importorskip("openai")

from recorded_endpoint import RecordedEndpoint, openai_chat, recorded_endpoint


@pytest.fixture
def endpoint() -> Iterator[RecordedEndpoint]:
    with recorded_endpoint() as server:
        yield server


def open_with_model(home: Path, url: str) -> Heedful:
    add_settings(
        home,
        f'[model]\nname = "openai:recorded-model"\nbase_url = "{url}/v1"\nretry_budget_seconds = 1.0\n'
        '[embedder]\nname = "hashing"\n',
    )
    return Heedful.open(home)


def answer(payload: dict[str, Any]) -> dict[str, Any]:
    return openai_chat(json.dumps(payload))


def test_recorded_quotes_that_are_not_the_users_words_store_nothing(home: Path, endpoint: RecordedEndpoint) -> None:
    endpoint.queue(200, answer({"decision": "persist", "scope": "global", "reasons": ["lasting"]}))
    endpoint.queue(
        200,
        answer(
            {
                "candidates": [
                    {"text": "Never use npm.", "polarity": "dont", "evidence": ["never ever use npm"]},
                ]
            }
        ),
    )
    with open_with_model(home, endpoint.url) as hf:
        result = hf.rules.learn("alice", "From now on don't use npm.")
        assert result.decision == "underspecified" and result.actions == []
        assert "grounded" in " ".join(result.reasons)
        assert hf.rules.list("alice") == []


def test_recorded_invented_rule_id_and_check_kind(home: Path, endpoint: RecordedEndpoint) -> None:
    with Heedful.open(home, embedder="hashing") as offline:  # an existing rule, learned offline
        offline.rules.learn("alice", "From now on, never use pnpm.")
        (existing,) = offline.rules.list("alice")
    text = "From now on, never use yarn."
    endpoint.queue(200, answer({"decision": "persist", "scope": "global"}))
    endpoint.queue(
        200, answer({"candidates": [{"text": "Never use yarn.", "polarity": "dont", "evidence": ["never use yarn"]}]})
    )
    endpoint.queue(200, answer({"op": "supersede", "target_id": "r-invented", "reason": "made up"}))
    endpoint.queue(200, answer({"proposals": [{"kind": "telepathy", "stage": "pre_action", "params": {}}]}))
    too_few = {
        "stage": "pre_action",
        "cases": [
            {
                "stage": "pre_action",
                "evidence": {"action": {"tool": "Bash", "command": "yarn add x"}},
                "expected": "violated",
            }
        ],
    }
    for _ in range(3):  # then three rounds of semantic cases, each too few to validate anything
        endpoint.queue(200, answer(too_few))
    with open_with_model(home, endpoint.url) as hf:
        result = hf.rules.learn("alice", text)
        (action,) = result.actions
        assert action.op == "new"  # the made-up target is ignored: nothing is superseded
        assert action.rule is not None and action.rule["status"] == "guidance"  # unknown kind: no check
        statuses = {rule["id"]: rule["status"] for rule in hf.rules.list("alice")}
        assert statuses[existing["id"]] == "checked"
    assert len(endpoint.requests) == 7


SEMANTIC_RULE = "From now on, never apologise in your final replies."


def semantic_cases() -> dict[str, Any]:
    return {
        "stage": "delivery",
        "cases": [
            {"stage": "delivery", "evidence": {"delivery": "Done: the parser is fixed."}, "expected": "pass"},
            {
                "stage": "delivery",
                "evidence": {"delivery": "Sorry for the delay, the parser is fixed."},
                "expected": "violated",
            },
            {
                "stage": "pre_action",
                "evidence": {"action": {"tool": "Bash", "command": "ls"}},
                "expected": "not_applicable",
            },
        ],
    }


def judgment(rule_id: str, result: str, quotes: list[str]) -> dict[str, Any]:
    return answer({"judgments": [{"rule_id": rule_id, "result": result, "reason": "recorded", "quotes": quotes}]})


def test_recorded_semantic_check_is_validated_then_judged(home: Path, endpoint: RecordedEndpoint) -> None:
    endpoint.queue(200, answer({"decision": "persist", "scope": "global"}))
    endpoint.queue(
        200,
        answer(
            {
                "candidates": [
                    {
                        "text": "Never apologise in final replies.",
                        "polarity": "dont",
                        "evidence": ["never apologise in your final replies"],
                    }
                ]
            }
        ),
    )
    endpoint.queue(200, answer({"op": "new", "reason": "nothing like it"}))
    endpoint.queue(200, answer({"proposals": []}))  # no programmatic check states it
    endpoint.queue(200, answer(semantic_cases()))
    endpoint.queue(
        200,
        answer(
            {
                "approved": True,
                "meaning_clear": True,
                "reason": "faithful",
                "labels": ["pass", "violated", "not_applicable"],
            }
        ),
    )
    endpoint.queue(200, judgment("candidate", "pass", []))
    endpoint.queue(200, judgment("candidate", "violated", ["Sorry for the delay"]))
    with open_with_model(home, endpoint.url) as hf:
        (action,) = hf.rules.learn("alice", SEMANTIC_RULE).actions
        rule = action.rule
        assert rule is not None and rule["status"] == "checked" and rule["check"]["kind"] == "semantic"
        rule_id = rule["id"]

        # At run time: a grounded violation blocks; an invented rule id and an ungrounded quote do not.
        endpoint.queue(200, judgment(rule_id, "violated", ["I apologise"]))
        report = hf.rules.check("alice", "delivery", {"delivery": "I apologise, the tests failed."})
        assert report.blocked and report.judgments[0].quotes == ["I apologise"]
        endpoint.queue(
            200,
            answer(
                {
                    "judgments": [
                        {"rule_id": "r-invented", "result": "violated", "reason": "made up", "quotes": ["tests"]},
                        {
                            "rule_id": rule_id,
                            "result": "violated",
                            "reason": "no evidence",
                            "quotes": ["I am so sorry"],
                        },
                    ]
                }
            ),
        )
        report = hf.rules.check("alice", "delivery", {"delivery": "All tests pass."})
        assert not report.blocked
        assert [(j.rule_id, j.result) for j in report.judgments] == [(rule_id, "unknown")]

    with Heedful.open(home, model="offline") as offline:  # offline, a semantic check never blocks
        report = offline.rules.check("alice", "delivery", {"delivery": "I apologise."})
        assert [j.result for j in report.judgments] == ["unknown"]
