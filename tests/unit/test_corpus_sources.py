"""The corpus sources written from public material: well-formed, traceable to where they came from."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "src" / "heedful" / "bench" / "corpus"
FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def _unfenced_lines(text: str) -> set[int]:
    """Numbers of the non-blank lines outside code fences (a fence closes only on its own marker or a longer one)."""
    lines, fence = set(), ""
    for number, raw in enumerate(text.split("\n"), 1):
        match = FENCE.match(raw)
        if match:
            mark, rest = match.groups()
            if not fence:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not rest.strip():
                fence = ""
            continue
        if not fence and raw.strip():
            lines.add(number)
    return lines


def test_validator_accepts_every_source() -> None:
    result = subprocess.run(
        [sys.executable, str(CORPUS / "validate_corpus.py")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert "0 problems" in result.stdout


def test_tracker_quotes_name_their_thread_and_stay_short_per_thread() -> None:
    rows = _rows("tracker_quotes.jsonl")
    assert len(rows) >= 150
    per_thread = Counter()
    for row in rows:
        provenance = row["provenance"]
        assert provenance["url"].startswith("https://github.com/"), row["id"]
        assert provenance["repository"] and provenance["url"].split("/")[4] == provenance["repository"].split("/")[1]
        assert provenance["quote_of"], row["id"]
        assert row["derived"] is False
        per_thread[provenance["url"]] += 1
    assert max(per_thread.values()) <= 5
    assert len(per_thread) >= 80
    assert {row["decision"] for row in rows} == {"persist", "task_local", "underspecified", "none"}


BATCHES = [
    ("instruction_files_b", "instructions_b.jsonl"),
    ("instruction_files_c", "instructions_c.jsonl"),
    ("instruction_files_d", "instructions_d.jsonl"),
    ("instruction_files_e", "instructions_e.jsonl"),
    ("instruction_files_f", "instructions_f.jsonl"),
    ("instruction_files_g", "instructions_g.jsonl"),
    ("instruction_files_h", "instructions_h.jsonl"),
    ("instruction_files_i", "instructions_i.jsonl"),
    ("instruction_files_j", "instructions_j.jsonl"),
    ("instruction_files_k", "instructions_k.jsonl"),
]


@pytest.mark.parametrize(
    ("folder", "labels", "source"),
    [(folder, labels, source) for folder, labels in BATCHES for source in _rows(f"{folder}/SOURCES.jsonl")],
    ids=lambda value: value["file"] if isinstance(value, dict) else value,
)
def test_every_instruction_line_is_labelled_as_written(folder: str, labels: str, source: dict) -> None:
    text = (CORPUS / folder / source["file"]).read_text(encoding="utf-8")
    lines = text.split("\n")
    labelled = {
        row["provenance"]["line"]: row
        for row in _rows(labels)
        if row["provenance"]["repo"] == source["repo"] and row["provenance"]["path"] == source["path"]
    }
    assert set(labelled) == _unfenced_lines(text)
    for number, row in labelled.items():
        assert row["text"] == lines[number - 1].strip()
        assert row["provenance"]["licence"] == source["licence"]
        assert (row["line_kind"] == "directive") == (row["decision"] == "persist")


def test_instruction_batches_share_no_repository() -> None:
    # each later batch: its folder and the fewest repositories it was collected from
    later = [
        ("b", 20),
        ("c", 15),
        ("d", 15),
        ("e", 12),
        ("f", 12),
        ("g", 12),
        ("h", 12),
        ("i", 12),
        ("j", 11),
        ("k", 12),
    ]
    seen = {source["repo"] for source in _rows("instruction_files/SOURCES.jsonl")}
    for letter, fewest in later:
        batch = {source["repo"] for source in _rows(f"instruction_files_{letter}/SOURCES.jsonl")}
        assert not seen & batch, letter
        assert len(batch) >= fewest, letter
        seen |= batch


def test_second_tracker_batch_is_traceable_and_shares_no_message_with_the_first() -> None:
    first = {row["text"].strip().lower() for row in _rows("tracker_quotes.jsonl")}
    rows = _rows("tracker_quotes_b.jsonl")
    assert len(rows) >= 200
    per_thread = Counter()
    for row in rows:
        provenance = row["provenance"]
        assert provenance["url"].startswith("https://github.com/"), row["id"]
        assert provenance["url"].split("/")[3:5] == provenance["repository"].split("/"), row["id"]
        assert provenance["quote_of"], row["id"]
        assert row["derived"] is False
        assert row["text"].strip().lower() not in first, row["id"]
        per_thread[provenance["url"]] += 1
    assert len(per_thread) >= 90
    assert max(per_thread.values()) <= 10
    assert {"persist", "task_local", "none"} <= {row["decision"] for row in rows}


@pytest.mark.parametrize("name", ["dialogues_a.jsonl", "dialogues_b.jsonl"])
def test_dialogue_turns_name_their_chat_history_and_previous_turn(name: str) -> None:
    rows = _rows(name)
    assert len(rows) >= 500
    repositories = Counter(row["provenance"]["repository"] for row in rows)
    assert len(repositories) >= 40
    by_history: dict[tuple[str, str, int], list[dict]] = {}
    for row in rows:
        provenance = row["provenance"]
        assert re.fullmatch(r"[0-9a-f]{40}", provenance["commit"]), row["id"]
        assert provenance["url"] == (
            f"https://github.com/{provenance['repository']}/blob/{provenance['commit']}/{provenance['path']}"
        )
        assert provenance["path"].endswith(".md") and (
            "aider" in provenance["path"] or ".specstory" in provenance["path"]
        )
        assert len(row["text"]) <= 500 and row["derived"] is False
        by_history.setdefault((provenance["repository"], provenance["path"], provenance["session"]), []).append(row)
    # The previous turn is the user's own prior message in the same session (the first turn has none).
    assert sum(row["previous"] is None for row in rows) <= len(by_history)
    assert all(row["previous"] for row in rows if row.get("points_back"))
    assert {row["decision"] for row in rows} == {"persist", "task_local", "underspecified", "none"}


def test_the_second_dialogue_batch_shares_no_repository_with_the_first() -> None:
    first = {row["provenance"]["repository"] for row in _rows("dialogues_a.jsonl")}
    second = {row["provenance"]["repository"] for row in _rows("dialogues_b.jsonl")}
    assert not first & second


def test_held_out_sources_stay_out_of_training_unless_named() -> None:
    from heedful.bench.admission_corpus import HELD_OUT_SOURCES, all_rows

    assert {r.source for r in all_rows()}.isdisjoint(HELD_OUT_SOURCES)
    assert {r.source for r in all_rows(sources=HELD_OUT_SOURCES)} == set(HELD_OUT_SOURCES)
