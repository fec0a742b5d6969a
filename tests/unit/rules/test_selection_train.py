"""Training the selection scorer on a small labelled corpus (numpy; no embedder: toy vectors)."""

from __future__ import annotations

import numpy as np

from heedful.rules.selection_corpus import Corpus, RuleItem, TaskItem
from heedful.rules.selection_train import WordVectors, train

# Two activities; the toy "embedding" of a text says which one it is about even where its words do
# not (dimension 0: committing, dimension 1: deleting), as a sentence encoder would.
GIT_RULES = ["Never push to main.", "Write commit messages in the imperative.", "Rebase before merging."]
DELETE_RULES = ["Ask before deleting any file.", "Move files to the trash instead of removing them."]
GIT_TASKS = ["ship it", "send the work upstream", "commit and push the fix", "get my work onto the server"]
DELETE_TASKS = ["clear out the old uploads", "start over from a clean slate", "delete the temp folder", "wipe it"]


def corpus() -> tuple[Corpus, dict[str, np.ndarray], dict[str, np.ndarray]]:
    rules = [RuleItem(f"g{i}", "core", t, ["git"], []) for i, t in enumerate(GIT_RULES * 3)]
    rules += [RuleItem(f"d{i}", "core", t, ["delete"], []) for i, t in enumerate(DELETE_RULES * 3)]
    rules += [RuleItem(f"e{i}", "core", "Keep answers short.", ["every"], []) for i in range(4)]
    tasks = [TaskItem(f"tg{i}", "core", t, ["git"], []) for i, t in enumerate(GIT_TASKS * 3)]
    tasks += [TaskItem(f"td{i}", "core", t, ["delete"], []) for i, t in enumerate(DELETE_TASKS * 3)]
    rng = np.random.default_rng(0)

    def vector(axis: int) -> np.ndarray:
        v = rng.normal(0, 0.05, 8)
        v[axis] += 1.0
        return v / np.linalg.norm(v)

    axis = {"git": 0, "delete": 1, "every": 2}
    rule_vectors = {r.id: vector(axis[r.governs[0]]) for r in rules}
    task_vectors = {t.id: vector(axis[t.involves[0]]) for t in tasks}
    return Corpus(rules, tasks), rule_vectors, task_vectors


def word_table(texts: list[str]) -> WordVectors:
    from heedful.rules.selection_model import tokens

    words = sorted({w for t in texts for w in tokens(t)})
    rng = np.random.default_rng(1)
    return WordVectors(words, rng.normal(0, 1, (len(words), 6)).astype(np.float32))


def test_sentence_reader_is_trained_and_reads_tasks_the_words_do_not_name() -> None:
    data, rule_vectors, task_vectors = corpus()
    table = word_table([r.text for r in data.rules] + [t.text for t in data.tasks])
    model = train(data, table, data.rules, data.tasks, rule_vectors, task_vectors)
    assert model.sentence is not None and len(model.sentence.weights) == len(model.facet_names)
    assert "facet_any" in model.weights.names and "cosine" in model.weights.names
    assert "cosine" not in model.hook_weights.names
    git, delete = model.facet_names.index("git"), model.facet_names.index("delete")
    unseen = np.zeros(8)
    unseen[0] = 1.0  # a new task about committing, in words the corpus never used
    task = model.read_task("tidy things up for the reviewers", vector=unseen)
    assert task.facets[git] > 0.5 > task.facets[delete]
    push = model.read_rule("Never push to main.", vector=rule_vectors["g0"])
    ask = model.read_rule("Ask before deleting any file.", vector=rule_vectors["d0"])
    assert model.decide(push, task, cosine=float(rule_vectors["g0"] @ unseen)).applies
    assert not model.decide(ask, task, cosine=float(rule_vectors["d0"] @ unseen)).applies


def test_without_embeddings_only_the_word_reader_is_trained() -> None:
    data, _, _ = corpus()
    table = word_table([r.text for r in data.rules] + [t.text for t in data.tasks])
    model = train(data, table, data.rules, data.tasks)
    assert model.sentence is None
    assert model.weights == model.hook_weights
