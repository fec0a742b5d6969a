"""The two rule benchmarks run end to end and report measured numbers."""

from __future__ import annotations

from pathlib import Path

from heedful.bench import corrections, selection


def test_corrections_benchmark_reports_every_split(tmp_path: Path) -> None:
    report = corrections.run(data=tmp_path / "absent", embedder="hashing", timing=True, loso=False)
    compiled = report["compilation"]
    assert {"instruction_files", "voices_a", "voices_b"} <= set(compiled["sources"])
    assert compiled["kinds"]["forbidden_command"]["labelled"] >= 100
    # held out: only the sources the compiler was not developed on (fresh evaluation sets, once they land)
    held = [s for s in compiled["sources"] if s not in corrections.COMPILER_TUNED]
    assert compiled["held_out"]["checkable"] == sum(compiled["sources"][s]["checkable"] for s in held)
    assert 0 <= compiled["held_out"]["right"] <= compiled["held_out"]["checkable"]
    assert all(0 <= v["right"] <= v["checkable"] for v in compiled["sources"].values())
    assert all(compiled["sources"][s]["right"] > 0 for s in ("instruction_files", "voices_a", "voices_b"))
    assert set(report["splits"]) == set(corrections.SPLITS) >= {"tune", "heldout"}
    for split in report["splits"].values():
        assert split["messages"] >= 50
        assert 0 <= split["structural_correct"] <= split["messages"]
        assert split["persist_recall"] is not None
    assert sum(len(corrections.load_split(s)) for s in corrections.SPLITS) >= 200
    assert "skipped" in report["swe_together"]
    assert report["learning_step"]["steps"] > 0 and report["learning_step"]["median_ms"] > 0


def test_swe_together_reader_on_a_small_copy(tmp_path: Path) -> None:
    task = tmp_path / "tasks" / "demo"
    task.mkdir(parents=True)
    (task / "oracle_intents.json").write_text(
        '{"intents": [{"intent_kind": "request", "text": "Fix the login bug."},'
        ' {"intent_kind": "correction", "text": "From now on, never push to main."}]}'
    )
    report = corrections.swe_together(tmp_path)
    assert report["intents"] == 2 and report["durable"] == 1
    assert report["durable_rules"][0]["text"] == "From now on, never push to main."


def test_selection_benchmark_leaves_one_source_out() -> None:
    report = selection.run(embedder="hashing", sizes=(50, 120), orders=1, folds=("tasks:core", "rules:core"))
    assert set(report["left_out"]) == {"tasks:core", "rules:core"}
    for fold in report["left_out"].values():
        assert fold["120"]["library"] == 120
        for size in ("50", "120"):
            for name in ("service", "hook"):
                row = fold[size][name]
                assert 0 <= row["recall"] <= 100 and 0 <= row["precision"] <= 100 and row["relevant_per_task"] > 0
