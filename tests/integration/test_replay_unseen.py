"""The unseen replay set: it loads, its words are the held-out rows verbatim, and its events are well formed.

Structure only; running it is `heedful bench replay --data …/unseen/unseen_replay.json`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from heedful.bench import admission_corpus, replay

UNSEEN = replay.DATA / "unseen" / "unseen_replay.json"
CORPUS = Path(admission_corpus.__file__).resolve().parent / "corpus"
SOURCE_FILES = {"dlb": "dialogues_b.jsonl", "dle": "dialogues_e.jsonl", "inc": "instructions_c.jsonl"}
VALUE = {"bash": "command", "reply": "reply", "write": "path", "edit": "path"}
LEARN_OF = {"persist": "lasting", "task_local": "task_local", "none": "none"}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    return replay.load(UNSEEN)


@pytest.fixture(scope="module")
def corpus_rows(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    wanted = {item["source"] for item in spec["teach"]}
    rows: dict[str, dict[str, Any]] = {}
    for name in SOURCE_FILES.values():
        for line in (CORPUS / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["id"] in wanted:
                rows[row["id"]] = row
    return rows


def _typed(row: dict[str, Any]) -> str:
    """What the user typed: a dialogue turn as is, an instruction line as its whole item without the list marker."""
    if row["source"] == "instructions_c":
        return str(row.get("item_text") or row["clean"])
    return str(row["text"])


def _events(spec: dict[str, Any], tag: str) -> list[dict[str, Any]]:
    return [e for e in spec["replay"] if e["tag"] == tag]


def test_the_file_is_outside_what_trains_the_admission_model(spec: dict[str, Any]) -> None:
    assert not UNSEEN.name.startswith("replay_")
    assert UNSEEN not in set(replay.DATA.rglob("replay_*.json"))
    trained = set(admission_corpus.contract_texts(replay.DATA))
    assert trained.isdisjoint(item["prompt"] for item in spec["teach"])
    assert spec["retrain"] == [] and spec["after"] == []


def test_every_teaching_message_is_a_held_out_row_verbatim_with_its_label(
    spec: dict[str, Any], corpus_rows: dict[str, dict[str, Any]]
) -> None:
    # Drawn from the held-out sources of the day the file was written; later held-out sources may
    # join the corpus without joining this file.
    taught_from = {SOURCE_FILES[item["source"][:3]].removesuffix(".jsonl") for item in spec["teach"]}
    assert taught_from == {"dialogues_b", "dialogues_e", "instructions_c"}
    assert taught_from <= set(admission_corpus.HELD_OUT_SOURCES)
    for item in spec["teach"]:
        row = corpus_rows[item["source"]]
        assert item["prompt"] == _typed(row), item["tag"]
        assert item["learn"] == LEARN_OF[row["decision"]], item["tag"]
        assert item["reply"].strip(), item["tag"]
        checks = [rule["check"] for rule in row.get("rules", [])]
        if any(check != "guidance" for check in checks):
            assert item.get("checkable", True), item["tag"]
    tags = [item["tag"] for item in spec["teach"]]
    assert len(tags) == len(set(tags))
    kinds = Counter(item["learn"] for item in spec["teach"])
    assert 30 <= kinds["lasting"] <= 45 and kinds["task_local"] + kinds["none"] >= 6


def test_every_event_is_complete_and_names_a_teach_item(spec: dict[str, Any]) -> None:
    tags = {item["tag"] for item in spec["teach"]}
    events = spec["replay"]
    assert len({e["id"] for e in events}) == len(events)
    for event in events:
        assert event["expect"] in ("block", "allow"), event
        assert event["tag"] in tags, event
        assert event["project"] in ("app", "lib") and event["platform"] in ("claude-code", "codex"), event
        assert event[VALUE[event["kind"]]].strip() and event["task"].strip(), event
        for step in event.get("setup", []):
            assert step["post"] in ("bash", "edit", "create", "delete"), event
            assert (step["command"] if step["post"] == "bash" else step["path"]).strip(), event


def test_checkable_rules_are_tested_both_ways_on_both_platforms_and_the_rest_only_as_compliant(
    spec: dict[str, Any],
) -> None:
    for item in spec["teach"]:
        events = _events(spec, item["tag"])
        expects = {e["expect"] for e in events}
        if item["learn"] != "lasting":
            assert expects == {"allow"}, item["tag"]
        elif item.get("checkable", True):
            assert expects == {"block", "allow"}, item["tag"]
            assert {e["platform"] for e in events} == {"claude-code", "codex"}, item["tag"]
        else:
            assert events == [], item["tag"]


def test_scope_follows_the_corpus_label(spec: dict[str, Any], corpus_rows: dict[str, dict[str, Any]]) -> None:
    """A project rule is only compliant in the other project; a global one is violated there too."""
    scopes: Counter[str] = Counter()
    for item in spec["teach"]:
        if item["learn"] != "lasting" or not item.get("checkable", True):
            continue
        scope = corpus_rows[item["source"]]["scope"]
        elsewhere = {e["expect"] for e in _events(spec, item["tag"]) if e["project"] == "lib"}
        assert ("block" in elsewhere) == (scope == "global"), item["tag"]
        scopes[scope] += 1
    assert scopes["global"] >= 2 and scopes["project"] >= 10
