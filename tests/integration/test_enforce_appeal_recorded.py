"""Appeal review with a model (API path), against recorded OpenAI-compatible responses (a test
double for a paid API). The hook path never calls a model and keeps the offline review."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heedful.api import Heedful
from pg_backend import add_settings

pytest.importorskip("openai")

from recorded_endpoint import openai_chat, recorded_endpoint

LONG = " ".join(["word"] * 30)


def test_recorded_appeal_is_reviewed_by_the_model(home: Path, tmp_path: Path) -> None:
    with Heedful.open(home, embedder="hashing") as offline:
        offline.rules.learn("me", "From now on keep your replies under 10 words.")
    with recorded_endpoint() as endpoint:
        add_settings(
            home,
            f'[model]\nname = "openai:recorded-model"\nbase_url = "{endpoint.url}/v1"\nretry_budget_seconds = 1.0\n'
            '[embedder]\nname = "hashing"\n',
        )
        with Heedful.open(home) as hf:
            enforcer = hf.enforce
            enforcer.user_prompt("s1", "summarise the change", str(tmp_path))
            first = enforcer.stop("s1", LONG, str(tmp_path))
            assert first.decision == "revise"
            rule_id = first.violations[0]["rule_id"]
            endpoint.queue(200, openai_chat(json.dumps({"overturn": True, "reason": "the user asked for detail"})))
            appealed = enforcer.stop(
                "s1", f"{LONG}\nheedful-appeal {rule_id}: the user asked for detail", str(tmp_path)
            )
            assert appealed.decision != "revise"
            actions = [e["action"] for e in hf.store.enforce.entries("me", "s1")]
            assert "appeal_overturned" in actions
    sent = endpoint.requests[0]["body"]["messages"][-1]["content"]
    assert "the user asked for detail" in sent and rule_id in sent
