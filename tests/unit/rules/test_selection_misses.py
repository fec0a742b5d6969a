"""The misses report: each missed relevant rule counted once, by path and cause, and the task-oracle bound."""

from __future__ import annotations

from heedful.bench.selection_misses import CAUSES, cause, labelled, path, tally
from heedful.enforce import select as hook_select
from heedful.rules.selection_corpus import Corpus, RuleItem, TaskItem
from heedful.rules.selection_model import Reading
from heedful.rules.selection_train import train
from unit.rules.test_selection_train import corpus, word_table


def trained() -> tuple[Corpus, object]:
    data, rule_vectors, task_vectors = corpus()
    table = word_table([r.text for r in data.rules] + [t.text for t in data.tasks])
    return data, train(data, table, data.rules, data.tasks, rule_vectors, task_vectors)


def test_path_tells_every_answer_coding_habits_and_topical_rules_apart() -> None:
    data = Corpus([], [])
    task = TaskItem("t", "x", "fix the parser and commit", ["code", "git"], [])
    assert path(data, task, RuleItem("a", "x", "Keep answers short.", ["every"], [])) == "every"
    assert path(data, task, RuleItem("b", "x", "Name things well.", ["code"], [])) == "code"
    assert path(data, task, RuleItem("c", "x", "Sign commits.", ["git", "code"], [])) == "topical"


def test_labelled_task_reading_follows_the_labels_and_keeps_the_words() -> None:
    data, model = trained()
    task = data.tasks[0]
    read = model.read_task(task.text)  # type: ignore[attr-defined]
    oracle = labelled(model, task, read)  # type: ignore[arg-type]
    names = model.facet_names  # type: ignore[attr-defined]
    assert oracle.facets[names.index("git")] == 1.0 and oracle.facets[names.index("delete")] == 0.0
    assert oracle.facets[0] == 0.0 and oracle.words == read.words


def test_cause_names_the_reading_below_half() -> None:
    _, model = trained()
    names = model.facet_names  # type: ignore[attr-defined]
    git = names.index("git")

    def reading(value: float) -> Reading:
        facets = [0.0] * len(names)
        facets[git] = value
        return Reading(tuple(facets), frozenset(), frozenset())

    item = RuleItem("g", "x", "Never push to main.", ["git"], [])
    assert cause(model, reading(0.2), reading(0.9), item, ["git"]) == "rule"  # type: ignore[arg-type]
    assert cause(model, reading(0.9), reading(0.2), item, ["git"]) == "task"  # type: ignore[arg-type]
    assert cause(model, reading(0.2), reading(0.2), item, ["git"]) == "both"  # type: ignore[arg-type]
    assert cause(model, reading(0.9), reading(0.9), item, ["git"]) == "scorer"  # type: ignore[arg-type]


def test_tally_counts_each_missed_relevant_rule_once() -> None:
    data, model = trained()
    counted = {r.id for r in data.rules}
    report = tally(data, model, {}, data.tasks, counted, [data.rules])  # type: ignore[arg-type]
    gold = sum(data.relevant(t, r) for t in data.tasks for r in data.rules)
    missed = sum(n for causes in report["misses"].values() for n in causes.values())
    hits = round(report["hook"]["recall"] * gold / 100)
    assert missed == gold - hits
    assert all(c in CAUSES for causes in report["misses"].values() for c in causes)
    # with the tasks read as labelled, nothing relevant is missed on this corpus, and the bound is reported
    assert report["task_oracle_uncapped"]["recall"] >= report["hook_uncapped"]["recall"]


def test_select_takes_a_reading_of_the_request_made_elsewhere() -> None:
    data, model = trained()
    rules = [{"id": r.id, "text": r.text, "condition": None, "status": "guidance"} for r in data.rules]
    names = model.facet_names  # type: ignore[attr-defined]
    told = Reading(tuple(1.0 if n == "delete" else 0.0 for n in names), frozenset(), frozenset())

    def best(chosen: list[dict[str, object]]) -> str:
        topical = [r for r in chosen if r["reach"] != "every_answer"]
        return str(max(topical, key=lambda r: (r["score"], str(r["id"])))["id"])[0]

    request = "commit and push the fix"
    assert best(hook_select.select(rules, request, scorer=model)) == "g"  # type: ignore[arg-type]
    assert best(hook_select.select(rules, request, scorer=model, task=told)) == "d"  # type: ignore[arg-type]
