"""The selection corpus: sources, provenance and labels."""

from __future__ import annotations

import json
from pathlib import Path

from heedful.rules.selection_corpus import CORPUS_DIR, Corpus, RuleItem, TaskItem, load_corpus


def test_corpus_has_several_sources_and_provenance(tmp_path: Path) -> None:
    corpus = load_corpus(swe_dir=tmp_path)  # no dataset here: its tasks are skipped, and said so
    assert {"core", "voices", "instructions", "generated"} <= set(corpus.rule_sources())
    assert {"core", "everyday"} <= set(corpus.task_sources())
    assert "swe_together" in corpus.skipped
    assert len(corpus.rules) >= 500
    for path in CORPUS_DIR.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            assert row.get("provenance") or row.get("task_dir"), (path.name, row["id"])
            assert row.get("governs") or row.get("involves") or row["source"] == "instructions"


def test_labels_follow_activities_languages_and_every() -> None:
    corpus = Corpus([], [])
    task = TaskItem("t", "x", "start the staging database over from a clean slate", ["delete", "db"], ["python"])
    assert corpus.relevant(task, RuleItem("a", "x", "Ask before deleting any file.", ["delete"], []))
    assert corpus.relevant(task, RuleItem("b", "x", "Keep answers short.", ["every"], []))
    assert not corpus.relevant(task, RuleItem("c", "x", "Use pnpm for installs.", ["deps"], ["typescript"]))
    assert not corpus.relevant(task, RuleItem("d", "x", "Never drop tables in Go code.", ["db"], ["go"]))
    task.not_applies.append("a")
    assert not corpus.relevant(task, RuleItem("a", "x", "Ask before deleting any file.", ["delete"], []))
