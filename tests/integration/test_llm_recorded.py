"""Provider paths against recorded responses from a loopback server (test doubles for the paid
OpenAI and Anthropic APIs): malformed JSON, schema violations, truncation, rate limits, server
errors, timeouts and failover each take their documented path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from heedful.llm.protocol import ChatMessage
from heedful.llm.structured import ModelError, UsageLog

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from heedful.llm.anthropic import AnthropicModel
from heedful.llm.factory import FailoverModel
from heedful.llm.openai_compat import OpenAICompatModel
from recorded_endpoint import anthropic_tool_use, openai_chat, recorded_endpoint


class Answer(BaseModel):
    city: str
    confidence: float


ASK = [ChatMessage(role="system", content="Answer in JSON."), ChatMessage(role="user", content="Where?")]
GOOD = json.dumps({"city": "Lisbon", "confidence": 0.9})


def openai_model(url: str, tmp_path: Path, **kwargs: object) -> OpenAICompatModel:
    options: dict[str, object] = {"retry_budget_seconds": 3.0, "timeout_seconds": 5.0}
    options.update(kwargs)
    return OpenAICompatModel(
        "recorded-model",
        base_url=f"{url}/v1",
        usage=UsageLog(tmp_path / "usage.jsonl"),
        **options,  # type: ignore[arg-type]
    )


def test_recorded_openai_valid_answer_and_usage_log(tmp_path: Path) -> None:
    with recorded_endpoint() as endpoint:
        endpoint.queue(200, openai_chat(GOOD))
        answer = openai_model(endpoint.url, tmp_path).structured(ASK, Answer)
    assert answer == Answer(city="Lisbon", confidence=0.9)
    request = endpoint.requests[0]["body"]
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["schema"]["properties"]["city"]["maxLength"] > 0
    (entry,) = [json.loads(line) for line in (tmp_path / "usage.jsonl").read_text().splitlines()]
    assert entry["prompt_tokens"] == 11 and entry["completion_tokens"] == 7 and entry["outcome"] == "ok"


def test_recorded_openai_malformed_json_is_retried_once_with_the_error(tmp_path: Path) -> None:
    with recorded_endpoint() as endpoint:
        endpoint.queue(200, openai_chat('{"city": "Lisb'))
        endpoint.queue(200, openai_chat(GOOD))
        answer = openai_model(endpoint.url, tmp_path).structured(ASK, Answer)
    assert answer.city == "Lisbon"
    retry = endpoint.requests[1]["body"]["messages"]
    assert "invalid" in retry[-1]["content"] and "not JSON" in retry[-1]["content"]


def test_recorded_openai_schema_violation_twice_is_a_clear_failure(tmp_path: Path) -> None:
    with recorded_endpoint() as endpoint:
        endpoint.queue(200, openai_chat('{"town": "Lisbon"}'))
        endpoint.queue(200, openai_chat('{"city": "Lisbon", "confidence": "high"}'))
        with pytest.raises(ModelError, match="invalid answer twice"):
            openai_model(endpoint.url, tmp_path).structured(ASK, Answer)


def test_recorded_openai_truncated_answer_counts_as_invalid(tmp_path: Path) -> None:
    with recorded_endpoint() as endpoint:
        endpoint.queue(200, openai_chat('{"city": "Lisbon", "confid', finish_reason="length"))
        endpoint.queue(200, openai_chat(GOOD))
        assert openai_model(endpoint.url, tmp_path).structured(ASK, Answer).city == "Lisbon"
    assert "cut off" in endpoint.requests[1]["body"]["messages"][-1]["content"]


def test_recorded_openai_rate_limit_backs_off_then_succeeds(tmp_path: Path) -> None:
    with recorded_endpoint() as endpoint:
        endpoint.queue(429, {"error": {"message": "slow down", "type": "rate_limit"}})
        endpoint.queue(200, openai_chat(GOOD))
        assert openai_model(endpoint.url, tmp_path).structured(ASK, Answer).city == "Lisbon"
    assert len(endpoint.requests) == 2


def test_recorded_openai_server_errors_exhaust_the_budget(tmp_path: Path) -> None:
    with recorded_endpoint() as endpoint:
        endpoint.default = (503, {"error": {"message": "overloaded"}}, 0.0)
        with pytest.raises(ModelError, match="kept failing"):
            openai_model(endpoint.url, tmp_path, retry_budget_seconds=1.5).structured(ASK, Answer)
    assert len(endpoint.requests) >= 2


def test_recorded_openai_timeout_is_transient(tmp_path: Path) -> None:
    with recorded_endpoint() as endpoint:
        endpoint.queue(200, openai_chat(GOOD), delay=2.0)
        endpoint.queue(200, openai_chat(GOOD))
        model = openai_model(endpoint.url, tmp_path, timeout_seconds=0.5, retry_budget_seconds=5.0)
        assert model.structured(ASK, Answer).city == "Lisbon"


def test_recorded_bad_request_is_not_retried(tmp_path: Path) -> None:
    with recorded_endpoint() as endpoint:
        endpoint.queue(400, {"error": {"message": "unknown model"}})
        with pytest.raises(ModelError, match="HTTP 400"):
            openai_model(endpoint.url, tmp_path).structured(ASK, Answer)
    assert len(endpoint.requests) == 1


def test_recorded_json_object_mode_for_llama_cpp_servers(tmp_path: Path) -> None:
    with recorded_endpoint() as endpoint:
        endpoint.queue(200, openai_chat(GOOD))
        openai_model(endpoint.url, tmp_path, json_mode="json_object").structured(ASK, Answer)
    fmt = endpoint.requests[0]["body"]["response_format"]
    assert fmt["type"] == "json_object" and fmt["schema"]["required"] == ["city", "confidence"]


def test_recorded_failover_to_a_second_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "recorded")
    with recorded_endpoint() as primary, recorded_endpoint() as secondary:
        primary.default = (500, {"error": {"message": "down"}}, 0.0)
        secondary.queue(200, anthropic_tool_use({"city": "Lisbon", "confidence": 0.5}))
        model = FailoverModel(
            openai_model(primary.url, tmp_path, retry_budget_seconds=1.0),
            AnthropicModel("recorded-model", base_url=secondary.url, retry_budget_seconds=1.0),
        )
        assert model.structured(ASK, Answer) == Answer(city="Lisbon", confidence=0.5)
    body = secondary.requests[0]["body"]
    assert body["tool_choice"] == {"type": "tool", "name": "answer"} and body["system"] == "Answer in JSON."


def test_recorded_anthropic_schema_violation_is_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "recorded")
    with recorded_endpoint() as endpoint:
        endpoint.queue(200, anthropic_tool_use({"city": "Lisbon"}))
        endpoint.queue(200, anthropic_tool_use({"city": "Lisbon", "confidence": 1.0}))
        model = AnthropicModel("recorded-model", base_url=endpoint.url, usage=UsageLog(tmp_path / "u.jsonl"))
        assert model.structured(ASK, Answer).confidence == 1.0
    assert len(endpoint.requests) == 2


def test_missing_api_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from heedful.errors import InputError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(InputError, match="ANTHROPIC_API_KEY"):
        AnthropicModel("any")
