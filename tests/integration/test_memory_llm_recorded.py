"""The memory write path with a model, against recorded OpenAI-compatible responses (a test
double for a paid API): invented ids, malformed answers and failures take the documented path."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.llm.structured import ModelError
from pg_backend import add_settings

pytest.importorskip("openai")

from recorded_endpoint import RecordedEndpoint, openai_chat, recorded_endpoint


@pytest.fixture
def endpoint() -> Iterator[RecordedEndpoint]:
    with recorded_endpoint() as server:
        yield server


@pytest.fixture
def hf_model(home: Path, endpoint: RecordedEndpoint) -> Iterator[Heedful]:
    add_settings(
        home,
        f'[model]\nname = "openai:recorded-model"\nbase_url = "{endpoint.url}/v1"\nretry_budget_seconds = 1.0\n'
        '[embedder]\nname = "hashing"\n',
    )
    with Heedful.open(home) as opened:
        yield opened


def extraction(*candidates: dict[str, object]) -> dict[str, object]:
    return openai_chat(json.dumps({"candidates": list(candidates)}))


def fact(statement: str, predicate: str, obj: str, sources: list[str], **extra: object) -> dict[str, object]:
    return {
        "kind": "fact",
        "statement": statement,
        "entity": "user",
        "predicate": predicate,
        "object": obj,
        "source_message_ids": sources,
        **extra,
    }


def test_recorded_model_extracts_and_supersedes(hf_model: Heedful, endpoint: RecordedEndpoint) -> None:
    first = hf_model.memory.add("alice", "I live in Berlin")
    endpoint.queue(200, extraction(fact("The user lives in Berlin", "lives_in", "Berlin", first.message_ids)))
    assert [e.op for e in hf_model.memory.flush("alice")] == ["add"]
    berlin = hf_model.memory.list("alice")[0]

    second = hf_model.memory.add("alice", "I moved to Lisbon")
    endpoint.queue(
        200, extraction(fact("The user lives in Lisbon", "lives_in", "Lisbon", second.message_ids, single_valued=True))
    )
    endpoint.queue(
        200,
        openai_chat(
            json.dumps(
                {"decisions": [{"index": 0, "action": "replacement", "target_ids": [berlin.id], "reason": "moved"}]}
            )
        ),
    )
    (event,) = hf_model.memory.flush("alice")
    assert event.op == "supersede" and event.related_ids == [berlin.id]
    assert [f.statement for f in hf_model.memory.list("alice")] == ["The user lives in Lisbon"]
    assert "lives in Berlin" in json.dumps(endpoint.requests[-1]["body"]["messages"])  # the neighbour was shown


def test_recorded_model_invented_ids_are_ignored(hf_model: Heedful, endpoint: RecordedEndpoint) -> None:
    hf_model.memory.add("alice", "I love hiking")
    endpoint.queue(200, extraction(fact("The user likes hiking", "likes", "hiking", ["m-invented"])))
    hf_model.memory.flush("alice")
    hf_model.memory.add("alice", "I love chess")
    endpoint.queue(200, extraction(fact("The user likes chess", "likes", "chess", ["m-invented"])))
    endpoint.queue(
        200,
        openai_chat(
            json.dumps(
                {"decisions": [{"index": 0, "action": "replacement", "target_ids": ["f-invented"], "reason": "?"}]}
            )
        ),
    )
    (event,) = hf_model.memory.flush("alice")
    assert event.op == "add" and "no stored target" in event.reason  # nothing closed on a made-up id
    assert sorted(f.statement for f in hf_model.memory.list("alice")) == [
        "The user likes chess",
        "The user likes hiking",
    ]
    assert all(f.source_message_ids == [] for f in hf_model.memory.list("alice"))


def test_recorded_model_failed_adjudication_keeps_candidates_as_new(
    hf_model: Heedful, endpoint: RecordedEndpoint
) -> None:
    hf_model.memory.add("alice", "I love hiking")
    endpoint.queue(200, extraction(fact("The user likes hiking", "likes", "hiking", [])))
    hf_model.memory.flush("alice")
    hf_model.memory.add("alice", "I really love hiking in the Alps")
    endpoint.queue(200, extraction(fact("The user likes hiking in the Alps", "likes", "hiking in the Alps", [])))
    endpoint.queue(200, openai_chat("not json at all"))
    endpoint.queue(200, openai_chat('{"decisions": "none"}'))
    (event,) = hf_model.memory.flush("alice")
    assert event.op == "add" and "adjudication failed" in event.reason
    assert len(hf_model.memory.list("alice")) == 2  # duplicated perhaps, never lost


def test_recorded_model_failed_extraction_keeps_messages_buffered(
    hf_model: Heedful, endpoint: RecordedEndpoint
) -> None:
    hf_model.memory.add("alice", "I adopted a greyhound named Pixel")
    endpoint.default = (503, {"error": {"message": "down"}}, 0.0)
    with pytest.raises(ModelError):
        hf_model.memory.flush("alice")
    assert len(hf_model.store.memory.buffered_messages("alice")) == 1  # still waiting for extraction
    assert "Pixel" in hf_model.memory.recall("alice", "greyhound").items[0].text  # and recallable raw
