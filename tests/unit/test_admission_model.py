"""The learned admission model: shipped weights, features, decisions, and reproducible training."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from heedful.bench import generalization
from heedful.bench.admission_corpus import corpus_rows, team_rows
from heedful.rules import admission_features, admission_model
from heedful.rules.detect import admit as lexicon_admit


def test_signals_are_named_and_bounded() -> None:
    for text in ("From now on never use pip.", "", "thanks!", "x" * 5000, "\udfff odd"):
        values = admission_features.signals(text)
        assert len(values) == len(admission_features.NAMES)
        assert all(0.0 <= v <= 1.5 for v in values)


def test_ngram_buckets_are_deterministic_and_in_range() -> None:
    first = admission_features.ngram_buckets("Never push to main, ever.")
    assert first == admission_features.ngram_buckets("never   push to MAIN, ever.")
    assert first and all(0 <= b < admission_features.NGRAM_BUCKETS for b in first)
    assert admission_features.ngram_buckets("") == []


def test_stage_probabilities_multiply_down_the_stages() -> None:
    # log-odds: surely an instruction, surely lasting, even odds on naming a behaviour
    z = np.array([[20.0, 20.0, 0.0], [-20.0, 0.0, 0.0]])
    p = np.exp(admission_model.stage_log_probabilities(z))
    assert np.allclose(p.sum(axis=1), 1.0)
    assert np.allclose(p[0], [0.5, 0.0, 0.5, 0.0], atol=1e-6)
    assert p[1].argmax() == admission_model.CLASSES.index("none")


def test_stages_solver_learns_each_stage_from_its_own_rows() -> None:
    from heedful.rules import admission_train

    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 60)
    x = rng.standard_normal((len(y), 6))
    x[:, 0] += np.where(y == 3, -3.0, 3.0)  # instruction or not
    x[:, 1] += np.where(np.isin(y, (0, 2)), 3.0, -3.0)  # lasting or this task
    x[:, 2] += np.where(y == 0, 3.0, -3.0)  # names a behaviour or vague
    layers = admission_train.fit_model(x, y, np.ones(len(y)), admission_train.TrainConfig(solver="stages"))
    assert layers[-1].weight.shape == (6, len(admission_model.STAGES))
    predicted = admission_model.forward(layers, x).argmax(axis=1)
    assert float(np.mean(predicted == y)) > 0.95


def test_decide_needs_the_threshold_for_persist() -> None:
    probabilities = np.array([[0.6, 0.3, 0.05, 0.05], [0.9, 0.05, 0.03, 0.02], [0.1, 0.2, 0.6, 0.1]])
    assert admission_model.decide(probabilities, 0.75) == ["task_local", "persist", "underspecified"]
    assert admission_model.decide(probabilities, 0.5) == ["persist", "persist", "underspecified"]


def test_decide_reads_the_threshold_not_the_argmax() -> None:
    probabilities = np.array([[0.4, 0.45, 0.1, 0.05], [0.5, 0.1, 0.1, 0.3]])
    assert admission_model.decide(probabilities, 0.35) == ["persist", "persist"]
    assert admission_model.decide(probabilities, 0.6) == ["task_local", "none"]
    # The lexicon's agreement lifts a most-probable persist below the threshold, never a runner-up.
    agreed = np.array([True, True])
    assert admission_model.decide(probabilities, 0.6, agreed) == ["task_local", "persist"]


@pytest.mark.parametrize(
    ("text", "fired", "silent"),
    [
        ("No force pushes. Ever.", {"verbless_no", "unbounded", "short"}, {"bounded", "path"}),
        (
            "This repo is on Python 3.8, don't use walrus operators",
            {"prohibition_any", "repo", "stack_fact"},
            {"prohibition_first", "bounded"},
        ),
        ("ok so, please never push to main", {"prohibition_first", "unbounded"}, {"imperative_first"}),
        ("fix the failing test in foo.py", {"imperative_first", "path", "instance"}, {"unbounded", "habitual"}),
        ("skip the lint step just this once", {"imperative_first", "bounded"}, {"unbounded"}),
        ("you keep using pip, stop", {"habit_complaint"}, {"bounded", "path"}),
        ("whenever you add a migration, run the tests", {"habitual", "imperative_any"}, {"bounded"}),
        (
            "could you rename foo_bar() on line 12?",
            {"request_question", "call", "line_number", "identifier"},
            {"wh_question"},
        ),
        ("be careful with that", {"imperative_first", "few_content_words", "vague_object"}, {"anchors"}),
        ("Thanks, that worked!", {"thanks", "few_content_words"}, {"imperative_any"}),
    ],
)
def test_structure_reads_the_form_of_the_sentence(text: str, fired: set[str], silent: set[str]) -> None:
    values = dict(zip(admission_features.STRUCTURE_NAMES, admission_features.structure(text), strict=True))
    assert {name for name in fired if values[name] <= 0} == set()
    assert {name for name in silent if values[name] > 0} == set()


@pytest.mark.parametrize(
    ("text", "fired", "silent"),
    [
        ("run ruff format before every commit", {"cue_recurring", "pair_imperative_recurring"}, {"cue_one_off"}),
        ("No force pushes. Ever.", {"cue_durable", "cue_verbless_ban", "pair_prohibition_durable"}, {"cue_one_off"}),
        (
            "This repo is on Python 3.8, don't use walrus operators",
            {"cue_repo_fact", "pair_prohibition_repo_fact"},
            {"cue_durable"},
        ),
        ("you keep adding print statements, stop", {"cue_habit_complaint"}, {"cue_one_off"}),
        ("make that a rule", {"cue_rule_request"}, {"cue_recurring"}),
        ("skip the lint step just this once", {"cue_one_off", "pair_one_off_imperative"}, {"cue_durable"}),
        ("what does this function do?", {"cue_info_request"}, {"cue_durable", "cue_recurring"}),
        # a word inside another word is no cue: "forever" is not "ever", "eachother" not "each"
        ("forevermore eachother", set(), {"cue_durable", "cue_recurring"}),
    ],
)
def test_cue_families_read_the_vocabulary(text: str, fired: set[str], silent: set[str]) -> None:
    values = dict(zip(admission_features.STRUCTURE_NAMES, admission_features.structure(text), strict=True))
    assert {name for name in fired if values[name] <= 0} == set()
    assert {name for name in silent if values[name] > 0} == set()


def test_group_statistics_fit_what_the_rows_fit() -> None:
    """Folds fitted from per-(source, class) sums are the fits on the kept rows themselves."""
    from heedful.rules import admission_train

    rng = np.random.default_rng(3)
    x = rng.standard_normal((240, 5))
    y = rng.integers(0, 4, 240)
    sources = np.array([f"s{i % 4}" for i in range(240)])
    weights = admission_train._class_weights(y, list(sources))
    stats = admission_train.GroupStats.of(x, y, sources, weights)
    kept = sources != "s1"
    direct = admission_train.fit_ridge(x[kept], y[kept], weights[kept], 0.3)
    summed = stats.fit("s1", 0.3)
    assert np.allclose(direct.weight, summed.weight, atol=1e-5) and np.allclose(direct.bias, summed.bias, atol=1e-5)


def test_structure_is_total_and_bounded() -> None:
    for text in ("", "   ", "x" * 5000, "\udfff odd", "- **Bold.** `code` here\n- second line", "???"):
        values = admission_features.structure(text)
        assert len(values) == len(admission_features.STRUCTURE_NAMES)
        assert all(0.0 <= v <= 1.5 for v in values)


def test_shipped_weights_are_small_and_match_the_features() -> None:
    weights = admission_model.shipped()
    assert weights is not None
    assert admission_model.WEIGHTS_PATH.stat().st_size < 2 * 1024 * 1024
    assert weights.embedder == "all-MiniLM-L6-v2-int8"
    assert weights.feature_names == admission_model.feature_names(384, weights.buckets)
    assert 0.0 < weights.persist_threshold < 1.0 and weights.temperature > 0


@pytest.mark.slow
def test_a_message_of_every_class_with_the_shipped_model() -> None:
    from heedful.embed import load_embedder

    weights = admission_model.shipped()
    assert weights is not None
    embedder = load_embedder("minilm")
    cases = {
        "From now on, never use pip in this repo; we use uv.": ("persist", "project"),
        "Fix the failing test in utils.py please.": ("task_local", None),
        "ugh, be more careful with that stuff": ("underspecified", None),
        "thanks, that worked!": ("none", None),
        # the classes read wrongly before the cue vocabulary: a recurring trigger, a terse durable marker,
        # a rule motivated by a fact about the repository
        "run ruff format before every commit": ("persist", None),
        "No force pushes. Ever.": ("persist", "global"),
        "This repo is on Python 3.8, don't use walrus operators": ("persist", "project"),
        # scope from an anchor: a habit about a program or a flag holds everywhere, a rule said of this
        # monorepo binds to it
        "no --privileged containers. if it needs a capability, add that one with --cap-add": ("persist", "global"),
        "when you're searching the code use rg, not grep -r. grep takes forever on this monorepo": (
            "persist",
            "project",
        ),
        # a complaint that counts the recurrence ("the third time today") is about a habit, not bound to today
        "why do you keep rm -rf'ing whole directories?? thats the third time today. use trash": ("persist", None),
        # real task requests and program output are not rules
        "initialize a bun typescript project for a CLI tool": ("task_local", None),
    }
    for text, (decision, scope) in cases.items():
        vector = embedder.embed([text])[0]
        first = admission_model.admit(text, vector, weights, lexicon_admit(text))
        again = admission_model.admit(text, vector, weights, lexicon_admit(text))
        assert first == again
        assert first.decision == decision, (text, first)
        if scope is not None:
            assert first.scope == scope, (text, first)
        assert first.reasons


@pytest.mark.slow
def test_shipped_weights_reproduce_their_recorded_fit_on_the_team_slice() -> None:
    """The metrics recorded at training time are what the shipped weights give on the committed slice."""
    from heedful.embed import load_embedder

    weights = admission_model.shipped()
    assert weights is not None
    rows = team_rows()
    vectors = load_embedder("minilm").embed([r.text for r in rows])
    summary = generalization.score(weights, rows, vectors).summary()
    assert summary == weights.meta["training_fit"]["team"]


@pytest.mark.slow
def test_training_command_is_reproducible(tmp_path: Path) -> None:
    """Two runs of `heedful train admission` on a fixed slice with the same seed give the same weights."""
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HEEDFUL_EMBEDDER": "hashing",
        "HEEDFUL_HOME": str(tmp_path / "home"),
    }
    outputs = []
    for run in (1, 2):
        out = tmp_path / f"w{run}.npz"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "heedful",
                "train",
                "admission",
                "--sources",
                "team,voices_b",
                "--epochs",
                "40",
                "--out",
                str(out),
                "--json",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["sources"] == {
            "team": len(team_rows()),
            "voices_b": sum(r.source == "voices_b" for r in corpus_rows()),
        }
        outputs.append((admission_model.load(out), report))
    (a, report_a), (b, report_b) = outputs
    assert report_a["training_fit"] == report_b["training_fit"]
    assert a.persist_threshold == b.persist_threshold and a.temperature == b.temperature
    for left, right in zip(a.layers, b.layers, strict=True):
        assert np.array_equal(left.weight, right.weight) and np.array_equal(left.bias, right.bias)
    assert report_a["training_fit"]["team"]["persist_recall"] > 50


def test_the_shipped_model_is_scored_on_the_held_out_sources_it_never_saw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from heedful.bench.admission_corpus import HELD_OUT_SOURCES, all_rows
    from heedful.bench.generalization import score_unseen
    from heedful.embed import load_embedder

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # the embedding cache of this test only
    rows = all_rows(sources=HELD_OUT_SOURCES)
    persisting = [r for r in rows if r.source == "dialogues_b" and r.decision == "persist"][:5]
    rows = (
        [r for r in rows if r.decision != "persist"][:20]
        + persisting
        + [r for r in rows if r.source == "instructions_c"][:10]
        + [r for source in HELD_OUT_SOURCES[2:] for r in [r for r in rows if r.source == source][:5]]
    )
    unseen = score_unseen(admission_model.shipped(), rows, load_embedder("minilm"))
    assert set(unseen) == set(HELD_OUT_SOURCES)
    assert unseen["dialogues_b"]["persist"].endswith("/5")  # type: ignore[union-attr]
    assert unseen["instructions_c"]["messages"] == 10
    assert all(0 <= float(u["decision_accuracy"] or 0) <= 100 for u in unseen.values())  # type: ignore[arg-type]
    # not the embedder the shipped model was trained with: nothing to score
    assert score_unseen(admission_model.shipped(), rows, load_embedder("hashing")) == {}


def test_a_damaged_embedding_cache_is_rebuilt(tmp_path: Path) -> None:
    """Another process may have been cut off writing the cache: it is read as empty and written whole."""
    from heedful.embed import load_embedder
    from heedful.rules import admission_embeddings

    embedder = load_embedder("hashing")
    cache = tmp_path / "cache"  # a folder of its own: the PostgreSQL pass writes a home beside it
    cache.mkdir()
    (cache / f"embeddings-{embedder.name}.npz").write_bytes(b"PK\x03\x04 cut off")
    vectors = admission_embeddings.embed_texts(["never push to main", "thanks"], embedder, cache)
    assert vectors.shape == (2, embedder.dim)
    again = admission_embeddings.embed_texts(["never push to main"], embedder, cache)
    assert np.array_equal(again[0], vectors[0])
    assert [p.name for p in cache.iterdir()] == [f"embeddings-{embedder.name}.npz"]
