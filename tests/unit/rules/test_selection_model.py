"""The learned selection scorer (pure Python): cue table, readings, gates, and the shipped model."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from array import array

from heedful.rules.selection_model import (
    CueTable,
    Reading,
    SelectionModel,
    SentenceReader,
    Weights,
    load_model,
    load_service_model,
    stem,
    tokens,
    with_general_reach,
)


def tiny_model() -> SelectionModel:
    """Two facets besides EVERY, cues for a handful of words."""
    words = sorted(["answers", "commit", "delete", "purge", "push", "short"])
    rows = {
        "answers": (100, 0, 0),
        "short": (60, 0, 0),
        "commit": (0, 100, 0),
        "push": (0, 80, 0),
        "delete": (0, 0, 100),
        "purge": (0, 0, 90),
    }
    cues = array("b", [v for w in words for v in rows[w]])
    table = CueTable(words, cues, [0.1, 0.1, 0.1])
    weights = Weights(
        ("facet_max", "facet_sum", "keyword", "cosine", "language_match"), (8.0, 0.0, 2.0, 2.0, 0.0), -4.0, 0.5, 0.7
    )
    hook = Weights(("facet_max", "facet_sum", "keyword", "language_match"), (8.0, 0.0, 2.0, 0.0), -4.0, 0.5, 0.7)
    return SelectionModel(["every", "git", "delete"], [-3.0, -3.0, -3.0], [-30.0, -3.0, -3.0], table, weights, hook)


def code_model() -> SelectionModel:
    """EVERY, git, shell and code: cues for a few words, "names" carries none."""
    words = sorted(["answers", "commit", "function", "names", "script", "shell"])
    rows = {
        "answers": (100, 0, 0, 0),
        "commit": (0, 100, 0, 0),
        "function": (0, 0, 0, 100),
        "names": (0, 0, 0, 0),
        "script": (0, 0, 90, 40),
        "shell": (0, 0, 100, 50),
    }
    table = CueTable(words, array("b", [v for w in words for v in rows[w]]), [0.1] * 4)
    hook = Weights(("facet_max", "facet_sum", "keyword", "language_match"), (8.0, 0.0, 2.0, 0.0), -4.0, 0.5, 0.7)
    weights = Weights((*hook.names, "cosine"), (*hook.values, 0.0), -4.0, 0.5, 0.7)
    return SelectionModel(
        ["every", "git", "shell", "code"], [-3.0] * 4, [-30.0, -3.0, -3.0, -3.0], table, weights, hook
    )


def test_general_reach_default_only_without_a_particular_activity() -> None:
    assert with_general_reach([0.1, 0.05, 0.1, 0.2], 3) == [0.1, 0.05, 0.1, 0.9]
    assert with_general_reach([0.1, 0.8, 0.1, 0.2], 3) == [0.1, 0.8, 0.1, 0.2]  # reads as committing
    assert with_general_reach([0.9, 0.0, 0.0, 0.0], 3) == [0.9, 0.0, 0.0, 0.0]  # reads as every answer
    assert with_general_reach([0.1, 0.0, 0.0, 0.0], -1) == [0.1, 0.0, 0.0, 0.0]  # no code facet


def test_reach_and_the_code_kind() -> None:
    model = code_model()
    habit, commit, shell = (model.read_rule(t) for t in ("names names", "commit commit", "shell shell"))
    assert [model.reach(r) for r in (habit, commit, shell)] == ["every_code_change", "topical", "topical"]
    assert model.reach(model.read_rule("answers answers")) == "every_answer"
    task = model.read_task("function function")
    assert model.decide(habit, task).kind == "code"
    assert not model.decide(commit, task).applies
    scripting = model.read_task("shell script")
    assert model.decide(shell, scripting).kind == "topical"  # a habit for a kind of file competes for the budget
    assert not model.decide(habit, model.read_task("commit commit")).applies


def test_cue_table_round_trips_through_bytes() -> None:
    table = tiny_model().cues
    again = CueTable.from_bytes(table.to_bytes())
    assert again.words == table.words and list(again.cues) == list(table.cues) and again.scales == table.scales
    assert again.row("commits") == again.row("commit") >= 0  # falls back to the stem
    assert again.row("unknown") == -1


def test_readings_and_decisions() -> None:
    model = tiny_model()
    task = model.read_task("purge purge the uploads", {"python"})
    assert task.facets[0] == 0.0 and task.facets[2] > 0.9 and task.facets[1] < 0.1
    delete_rule = model.read_rule("delete delete first")
    assert model.decide(delete_rule, task).applies
    assert not model.decide(model.read_rule("commit push"), task).applies
    every = model.decide(model.read_rule("short answers"), task)
    assert every.applies and every.kind == "every"


def test_language_gate_sets_aside_rules_for_other_languages() -> None:
    model = tiny_model()
    rule = model.read_rule("In Kotlin delete delete delete")
    decision = model.decide(rule, model.read_task("purge purge the old files", {"python"}))
    assert not decision.applies and decision.kind == "language"
    assert model.decide(rule, model.read_task("purge purge the old files", None)).applies  # languages unknown: no gate


def test_tokens_drop_stopwords_and_stem() -> None:
    assert tokens("Please ALWAYS run the tests!") == ["run", "tests"]
    assert stem("committing") == "committ" and stem("tests") == "test" and stem("pin") == "pin"


def test_shipped_model_reads_implied_activities() -> None:
    model = load_model()
    task = model.read_task("throw away my local changes and sync with origin", {"python"})
    assert model.decide(model.read_rule("Ask before deleting any file."), task).applies
    assert model.decide(model.read_rule("Keep answers under 100 words."), task).kind == "every"
    assert not model.decide(model.read_rule("Use pnpm, not npm, for JavaScript packages."), task).applies
    assert isinstance(task, Reading)


def test_hook_path_imports_no_heavy_library() -> None:
    code = (
        "import sys, heedful.enforce.select as s; s.select([{'id': 'a', 'text': 'Never push to main.'}], 'push');"
        "bad = {'numpy', 'pydantic', 'typer', 'onnxruntime'} & set(sys.modules); print(sorted(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_sentence_reader_reads_what_the_words_do_not_say() -> None:
    """With an embedding, the service path mixes a whole-text read-out into the per-word cues."""
    base = tiny_model()
    # dimension 1 of the (toy) embedding carries deleting; the cue weight is kept as it is
    sentence = SentenceReader(
        weights=((0.0, 0.0), (0.0, 0.0), (0.0, 12.0)),
        cue_mix=(1.0, 1.0, 1.0),
        sentence_mix=(1.0, 1.0, 1.0),
        rule_bias=(0.0, 0.0, 0.0),
        task_bias=(-30.0, 0.0, 0.0),
    )
    model = SelectionModel(
        base.facet_names, base.rule_bias, base.task_bias, base.cues, base.weights, base.hook_weights, sentence=sentence
    )
    words_only = model.read_task("start the staging database over from a clean slate")
    read_whole = model.read_task("start the staging database over from a clean slate", vector=(0.1, 1.0))
    assert words_only.facets[2] < 0.1 < 0.9 < read_whole.facets[2]
    assert read_whole.facets[0] == 0.0  # a task never reads as a rule about every answer
    rule = model.read_rule("delete delete first")
    assert model.decide(rule, read_whole, cosine=0.3).applies
    assert not model.decide(rule, words_only, cosine=0.3).applies
    assert SentenceReader.from_json(sentence.to_json()) == sentence
    # an embedding of another width (another embedder) is not read: words alone, no error
    other = model.read_task("start the staging database over from a clean slate", vector=(0.1, 1.0, 0.0))
    assert other.facets == words_only.facets
    named = dataclasses.replace(sentence, embedder="minilm")
    assert named.reads((0.1, 1.0), "minilm") and named.reads((0.1, 1.0)) and not named.reads((0.1, 1.0), "hashing")


def test_shipped_service_model_has_a_sentence_reader_of_the_embedder_width() -> None:
    model = load_service_model()
    assert model.sentence is not None
    assert len(model.sentence.weights) == len(model.facet_names)
    assert {len(row) for row in model.sentence.weights} == {384}
    assert load_model().sentence is None  # the hook path reads words only


def test_answer_form_rules_read_as_every_answer_however_phrased() -> None:
    model = load_model()
    for text in ("Always be concise.", "Always use plain text, no markdown.", "No filler, ever.", "Don't be verbose."):
        assert model.reach(model.read_rule(text)) == "every_answer", text
    for text in ("Never use emojis in commit messages.", "Ask before deleting any file."):
        assert model.reach(model.read_rule(text)) != "every_answer", text
    first = model.read_rule("Always be concise.")
    assert model.read_rule("Always be concise.") == first and load_model().read_rule("Always be concise.") == first
