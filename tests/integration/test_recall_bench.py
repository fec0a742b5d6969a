"""The recall benchmarks run end to end on tiny data sets in their formats (hashing embedder)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from heedful.bench import beam, locomo
from heedful.errors import InputError


def tiny_locomo(path: Path) -> Path:
    conversation = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a puppy called Biscuit!"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely. What breed is it?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "A beagle.", "blip_caption": "a photo of a beagle"},
        ],
        "session_2_date_time": "10:00 am on 20 June, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "I started pottery classes last week."},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Nice, I went hiking in the Alps."},
        ],
    }
    qa = [
        {"question": "What is the name of Ana's puppy?", "answer": "Biscuit", "evidence": ["D1:1"], "category": 4},
        {"question": "When did Ben start pottery?", "answer": "June 2023", "evidence": ["D2:1"], "category": 2},
        {"question": "What breed is Biscuit?", "answer": "beagle", "evidence": ["D1:3; D1:1"], "category": 1},
        {"question": "Did Ana go skiing?", "adversarial_answer": "no", "evidence": [], "category": 5},
    ]
    file = path / "locomo10.json"
    file.write_text(json.dumps([{"sample_id": "x", "conversation": conversation, "qa": qa}]))
    return file


def test_locomo_bench_scores_a_tiny_conversation(tmp_path: Path) -> None:
    report = locomo.run(tiny_locomo(tmp_path), embedder="hashing", show_progress=False)
    assert report["questions"] == 4 and report["turns"] == 5
    overall = report["recall"]["overall"]
    assert overall["n"] == 4 and overall["@50"] == 100.0
    assert set(report["recall"]) >= {"overall", "single-hop", "temporal", "multi-hop", "adversarial"}
    assert report["ingest"]["turns_per_s"] > 0 and report["ingest"]["embedder_batch_turns_per_s"] > 0
    assert report["latency_ms"]["p95"] >= report["latency_ms"]["p50"] > 0
    assert report["session_any"]["overall"]["@5"] == 100.0
    json.dumps(report)


def test_locomo_helpers() -> None:
    assert locomo.parse_evidence(["D8:6; D9:17", "D", "D:11:26"]) == ["D8:6", "D9:17", "D11:26"]
    assert locomo.parse_session_time("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00+00:00"


def test_missing_data_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--data"):
        locomo.run(tmp_path / "nowhere.json", embedder="hashing", show_progress=False)
    with pytest.raises(InputError, match="--data"):
        beam.run(tmp_path / "nowhere", embedder="hashing", show_progress=False)


def test_beam_bench_scores_a_tiny_conversation(tmp_path: Path) -> None:
    chat = [
        {
            "batch_number": 1,
            "time_anchor": "March-15-2024",
            "turns": [
                [
                    {"role": "user", "id": 0, "content": "My first sprint ends on March 29."},
                    {"role": "assistant", "id": 1, "content": "Noted, sprint one ends March 29."},
                ],
                [{"role": "user", "id": 2, "content": "The dashboard API answers in 400ms."}],
            ],
        },
        {
            "batch_number": 2,
            "time_anchor": "April-05-2024",
            "turns": [[{"role": "user", "id": 3, "content": "The dashboard API now answers in 250ms."}]],
        },
    ]
    questions = {
        "information_extraction": [{"question": "When does my first sprint end?", "source_chat_ids": [0]}],
        "knowledge_update": [
            {
                "question": "How fast is the dashboard API?",
                "source_chat_ids": {"original_info": [2], "updated_info": [3]},
            }
        ],
        "abstention": [{"question": "What is my cat called?", "source_chat_ids": None}],
    }
    folder = tmp_path / "100K" / "1"
    folder.mkdir(parents=True)
    (folder / "chat.json.gz").write_bytes(gzip.compress(json.dumps(chat).encode()))
    (folder / "probing_questions.json").write_text(json.dumps(questions))
    report = beam.run(tmp_path / "100K", embedder="hashing", show_progress=False)
    assert report["questions_scored"] == 2 and report["questions_without_sources"] == 1
    assert report["recall"]["overall"]["@20"] == 100.0
    assert report["knowledge_update_newer_first"]["n"] == 1
    assert beam.source_ids({"a": [1, 2], "b": [2]}) == ["1", "2"]


def test_beam_batches_are_dated_by_the_anchor_on_their_first_message() -> None:
    # The released files carry a batch's date on its first message, not on the batch.
    chat = [
        {
            "batch_number": 1,
            "time_anchor": None,
            "turns": [[{"role": "user", "id": 0, "time_anchor": "March-15-2024", "content": "a"}, {"id": 1}]],
        },
        {"batch_number": 2, "turns": [[{"role": "user", "id": 2, "time_anchor": "April-05-2024", "content": "b"}]]},
    ]
    rows = beam.messages_of(chat)
    assert [row[3].date().isoformat() for row in rows] == ["2024-03-15", "2024-03-15", "2024-04-05"]
    assert rows[1][3] > rows[0][3]
