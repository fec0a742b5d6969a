"""A version's extraction and retraction parameters: validated, keyed, obeyed by the write path of the evaluator."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from heedful.api import Heedful
from heedful.evolve import evaluator as ev
from heedful.harness import HarnessParams
from heedful.llm.prompts.extract_facts import ExtractionContext, SourceMessage
from heedful.memory.extract import ExtractionRules, extract_offline


def read(text: str, rules: ExtractionRules | None = None, role: str = "user") -> list[tuple[str | None, str | None]]:
    context = ExtractionContext(
        user_id="u", messages=[SourceMessage(id="m1", role=role, text=text, at="2024-03-01T10:00:00+00:00")]
    )  # type: ignore[arg-type]
    return [(c.predicate, c.object) for c in extract_offline(context, rules).candidates]


def test_extraction_rules_switch_pattern_groups_and_how_sentences_are_read() -> None:
    text = "I work as a nurse now and I'm hoping to sail around Crete"
    assert read(text) == [("occupation", "nurse"), ("plans", "sail around Crete")]
    assert read(text, ExtractionRules(groups=("plans",))) == [("plans", "sail around Crete")]
    assert read(text, ExtractionRules(split_clauses=False)) == [
        ("occupation", "nurse now and I'm hoping to sail around Crete")
    ]
    assert read("I work as a nurse now", ExtractionRules(trim_time_words=False)) == [("occupation", "nurse now")]
    assert read("Please forget my address") == [("forget", "my address")]
    assert read("Please forget my address", ExtractionRules(groups=("work",))) == []
    assert read("I'll remind you to call the bank", role="assistant") == [("reminder", "call the bank")]
    assert (
        read("I'll remind you to call the bank", ExtractionRules(assistant_commitments=False), role="assistant") == []
    )


def test_extraction_and_retraction_parameters_are_validated_and_keyed() -> None:
    with pytest.raises(ValidationError, match="unknown extraction groups"):
        HarnessParams.model_validate({"extraction": {"groups": ["telepathy"]}})
    with pytest.raises(ValidationError, match="snake_case"):
        HarnessParams.model_validate({"retraction": {"single_valued": ["Lives In"]}})
    with pytest.raises(ValidationError):
        HarnessParams.model_validate({"retraction": {"duplicate_cosine": 0.1}})
    with pytest.raises(ValidationError):
        HarnessParams.model_validate({"extraction": {"min_sentence_chars": 0}})
    # Raw memory whatever the rules say while extraction is off; one key per distinct way of writing.
    assert HarnessParams().ingest_key() == HarnessParams(extraction=ExtractionRules(groups=("work",))).ingest_key()
    on = HarnessParams(extract_facts=True)
    assert (
        on.ingest_key() != "raw" and on.ingest_key() == HarnessParams(extract_facts=True, max_excerpts=9).ingest_key()
    )
    reordered = HarnessParams.model_validate({"extract_facts": True, "extraction": {"groups": ["work", "name"]}})
    assert (
        reordered.ingest_key()
        == HarnessParams.model_validate(
            {"extract_facts": True, "extraction": {"groups": ["name", "work"]}}
        ).ingest_key()
    )
    assert reordered.ingest_key() != on.ingest_key()


def unit(*texts: str) -> ev.Unit:
    start = datetime(2024, 3, 1, tzinfo=UTC)
    messages = [
        ev.BenchMessage(turn=f"D1:{n}", text=t, session="session-1", at=start + timedelta(days=n))
        for n, t in enumerate(texts, start=1)
    ]
    return ev.Unit(0, "someone", [], [], {m.turn: m.text for m in messages}, messages)


def facts(hf: Heedful, user: str) -> list[tuple[str, bool]]:
    rows = hf.store.memory.list_facts(user, kinds=["fact"], current_only=False)
    return sorted((r.statement, r.valid_to is None) for r in rows)


def test_the_evaluator_writes_memory_through_a_versions_extraction_and_retraction(hf: Heedful) -> None:
    said = unit("I live in Leeds.", "The weather was fine.", "I moved to Ghent last week.", "I work as a baker.")
    [raw] = ev.ingest(hf, [said])
    assert sorted(raw.dia_of.values()) == ["D1:1", "D1:2", "D1:3", "D1:4"] and facts(hf, "someone") == []

    extracted = HarnessParams(extract_facts=True)
    [stored] = ev.ingest(hf, [dataclass_copy(said, "mover")], extracted)
    assert sorted(stored.dia_of.values()) == ["D1:1", "D1:2", "D1:3", "D1:4"]
    assert facts(hf, "mover") == [
        ("The user lives in Ghent", True),
        ("The user lives in Leeds", False),  # retired by the move: one city at a time
        ("The user works as baker", True),
    ]
    kept = HarnessParams.model_validate(
        {
            "extract_facts": True,
            "extraction": {"groups": ["residence"]},
            "retraction": {"single_valued_retracts": False},
        }
    )
    ev.ingest(hf, [dataclass_copy(said, "keeper")], kept)
    assert facts(hf, "keeper") == [("The user lives in Ghent", True), ("The user lives in Leeds", True)]


def dataclass_copy(original: ev.Unit, user: str) -> ev.Unit:
    import dataclasses

    return dataclasses.replace(original, user=user)
