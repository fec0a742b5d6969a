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

pytest.importorskip("openai")

from recorded_endpoint import RecordedEndpoint, openai_chat, recorded_endpoint


@pytest.fixture
def endpoint() -> Iterator[RecordedEndpoint]:
    with recorded_endpoint() as server:
        yield server


def open_with_model(home: Path, url: str) -> Heedful:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[model]\nname = "openai:recorded-model"\nbase_url = "{url}/v1"\nretry_budget_seconds = 1.0\n'
        '[embedder]\nname = "hashing"\n'
    )
    return Heedful.open(home)


def answer(payload: dict[str, Any]) -> dict[str, Any]:
    return openai_chat(json.dumps(payload))


def test_recorded_quotes_that_are_not_the_users_words_store_nothing(home: Path, endpoint: RecordedEndpoint) -> None:
    endpoint.queue(200, answer({"decision": "persist", "scope": "global", "reasons": ["lasting"]}))
    endpoint.queue(200, answer({"candidates": [
        {"text": "Never use npm.", "polarity": "dont", "evidence": ["never ever use npm"]},
    ]}))
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
    endpoint.queue(200, answer({"candidates": [{"text": "Never use yarn.", "polarity": "dont",
                                                "evidence": ["never use yarn"]}]}))
    endpoint.queue(200, answer({"op": "supersede", "target_id": "r-invented", "reason": "made up"}))
    endpoint.queue(200, answer({"proposals": [{"kind": "telepathy", "stage": "pre_action", "params": {}}]}))
    with open_with_model(home, endpoint.url) as hf:
        result = hf.rules.learn("alice", text)
        (action,) = result.actions
        assert action.op == "new"  # the made-up target is ignored: nothing is superseded
        assert action.rule is not None and action.rule["status"] == "guidance"  # unknown kind: no check
        statuses = {rule["id"]: rule["status"] for rule in hf.rules.list("alice")}
        assert statuses[existing["id"]] == "checked"
    assert len(endpoint.requests) == 4
