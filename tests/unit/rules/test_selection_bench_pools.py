"""`bench selection --within` / `--train-on`: what is evaluated and what each fold's scorer is trained on."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

from typer.testing import CliRunner

from heedful.bench.selection import evaluate_fold, fold_model
from heedful.cli import app
from heedful.rules.selection_corpus import Corpus
from unit.rules.test_selection_train import corpus, word_table


def two_sources() -> tuple[Corpus, Any]:
    """The toy corpus twice: as source `core` and as source `other` (ids prefixed)."""
    data, rule_vectors, task_vectors = corpus()
    rules = data.rules + [dataclasses.replace(r, id=f"o{r.id}", source="other") for r in data.rules]
    tasks = data.tasks + [dataclasses.replace(t, id=f"o{t.id}", source="other") for t in data.tasks]
    table = word_table([r.text for r in rules] + [t.text for t in tasks])
    vectors = SimpleNamespace(
        words=table,
        rules={**rule_vectors, **{f"o{k}": v for k, v in rule_vectors.items()}},
        tasks={**task_vectors, **{f"o{k}": v for k, v in task_vectors.items()}},
        embedder="toy",
    )
    return Corpus(rules, tasks), vectors


def test_train_on_limits_each_fold_to_the_named_sources_less_the_left_out_one() -> None:
    data, vectors = two_sources()
    everything = fold_model(data, vectors, "rules", "other")
    assert (everything.train_rules, everything.train_tasks) == (19, 48)  # core's rules, both sources' tasks
    only_core = fold_model(data, vectors, "rules", "other", trained=frozenset({"core"}))
    assert (only_core.train_rules, only_core.train_tasks) == (19, 24)
    assert {r.source for r in only_core.first} == {"other"}  # the left-out rules are still what is counted


def test_within_evaluates_only_the_pooled_sources_rules_and_tasks() -> None:
    data, vectors = two_sources()
    pool = Corpus([r for r in data.rules if r.source == "core"], [t for t in data.tasks if t.source == "core"])
    result = evaluate_fold(data, vectors, "rules", "core", (50,), 1, pool=pool)
    assert result["eval_tasks"] == 24 and result["50"]["library"] == 19
    assert result["train_rules"] == 19  # trained on the other source's rules, which the test never shows
    everything = evaluate_fold(data, vectors, "rules", "core", (50,), 1)
    assert everything["eval_tasks"] == 48 and everything["50"]["library"] == 38


def test_unknown_sources_are_one_error_line_and_nothing_runs() -> None:
    result = CliRunner().invoke(app, ["bench", "selection", "--within", "core,nosuch", "--train-on", "elsewhere"])
    assert result.exit_code == 2
    assert "name unknown sources: elsewhere, nosuch" in result.output
