"""The selection corpus: sources, provenance and labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heedful.rules import selection_corpus
from heedful.rules.selection_corpus import CORPUS_DIR, LEARNING_CORPUS, Corpus, RuleItem, TaskItem, load_corpus


def test_corpus_has_several_sources_and_provenance(tmp_path: Path) -> None:
    corpus = load_corpus(swe_dir=tmp_path)  # no dataset here: its tasks are skipped, and said so
    assert {"core", "voices", "instructions", "generated"} <= set(corpus.rule_sources())
    assert {"core", "everyday", "dialogues_a", "dialogues_f"} <= set(corpus.task_sources())
    assert {"instructions_c", "instructions_f"} <= set(corpus.rule_sources())
    assert "swe_together" in corpus.skipped
    assert len(corpus.rules) >= 1500 and len(corpus.tasks) >= 1000
    assert len({r.id for r in corpus.rules}) == len(corpus.rules)
    assert len({t.id for t in corpus.tasks}) == len(corpus.tasks)
    known = set(corpus.activities) | {"every"}
    learned: dict[str, str] = {}  # each learning-corpus file read once
    for path in CORPUS_DIR.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "ref" in row:  # drawn from the learning corpus: the line there carries the provenance
                source = row["source"]
                if source not in learned:
                    learned[source] = (LEARNING_CORPUS / f"{source}.jsonl").read_text(encoding="utf-8")
                assert f'"id": "{row["ref"]}"' in learned[source], (path.name, row["id"])
            else:
                assert row.get("provenance") or row.get("task_dir"), (path.name, row["id"])
            labels = row.get("governs") or row.get("involves")
            assert labels or row["source"] == "instructions"
            assert set(labels or []) <= known and ("every" not in (labels or []) or labels == ["every"]), row["id"]


def test_rows_drawn_from_the_learning_corpus_read_its_text_and_fail_clearly(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "rules_x.jsonl").write_text(
        json.dumps({"id": "r1", "source": "instructions_f", "ref": "inf-0001", "rule": 0, "governs": ["code"]}) + "\n"
    )
    monkeypatch.setattr(selection_corpus, "CORPUS_DIR", tmp_path)
    monkeypatch.setattr(selection_corpus, "RULE_FILES", ("rules_x.jsonl",))
    monkeypatch.setattr(selection_corpus, "TASK_FILES", ())
    line = json.loads((LEARNING_CORPUS / "instructions_f.jsonl").read_text(encoding="utf-8").splitlines()[0])
    (rule,) = [r for r in load_corpus(generated=False).rules]
    assert (rule.text, rule.condition) == (line["rules"][0]["text"], line["rules"][0]["condition"])
    (tmp_path / "rules_x.jsonl").write_text(
        json.dumps({"id": "r1", "source": "instructions_f", "ref": "inf-9999", "governs": ["code"]}) + "\n"
    )
    with pytest.raises(ValueError, match=r"r1 names inf-9999, not a line of instructions_f\.jsonl"):
        load_corpus(generated=False)
    (tmp_path / "rules_x.jsonl").write_text(
        json.dumps({"id": "r1", "source": "instructions_f", "ref": "inf-0001", "rule": 9, "governs": ["code"]}) + "\n"
    )
    with pytest.raises(ValueError, match="names rule 9 of inf-0001"):
        load_corpus(generated=False)


def test_labels_follow_activities_languages_and_every() -> None:
    corpus = Corpus([], [])
    task = TaskItem("t", "x", "start the staging database over from a clean slate", ["delete", "db"], ["python"])
    assert corpus.relevant(task, RuleItem("a", "x", "Ask before deleting any file.", ["delete"], []))
    assert corpus.relevant(task, RuleItem("b", "x", "Keep answers short.", ["every"], []))
    assert not corpus.relevant(task, RuleItem("c", "x", "Use pnpm for installs.", ["deps"], ["typescript"]))
    assert not corpus.relevant(task, RuleItem("d", "x", "Never drop tables in Go code.", ["db"], ["go"]))
    task.not_applies.append("a")
    assert not corpus.relevant(task, RuleItem("a", "x", "Ask before deleting any file.", ["delete"], []))
