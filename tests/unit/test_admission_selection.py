"""Nested selection: settings are chosen by source-held-out folds inside the training rows only."""

from __future__ import annotations

import numpy as np

from heedful.bench import generalization
from heedful.bench.admission_corpus import CorpusRow, corpus_rows, team_rows
from heedful.embed import load_embedder
from heedful.rules import admission_train as at


def _slice() -> list[CorpusRow]:
    """A fixed, small slice of three sources (every class present)."""
    rows = team_rows()[:90] + [r for r in corpus_rows() if r.source in ("voices_a", "voices_b")][::8]
    return sorted(rows, key=lambda r: r.id)


def test_train_chooses_the_candidate_with_the_best_held_out_objective() -> None:
    rows = _slice()
    vectors = load_embedder("hashing").embed([r.text for r in rows])
    candidates = [at.TrainConfig(l2=0.1), at.TrainConfig(l2=1000.0), at.TrainConfig(l2=0.1, lexicon_override=True)]
    weights = at.train(rows, vectors, candidates, "hashing-256")
    selection = weights.meta["selection"]
    assert [s["config"] for s in selection] == [c.label() for c in candidates]
    # the best objective among the candidates whose operating point keeps to the budget (all, if none does)
    pool = [s for s in selection if s["within_budget"]] or selection
    if any(s["within_budget"] for s in selection):
        best = max(pool, key=lambda s: s["objective"])
    else:
        best = min(pool, key=lambda s: (s["false_persist_under_contract"], -s["objective"]))
    assert weights.meta["chosen"] == best["config"]
    assert 0.0 <= weights.persist_threshold <= float(weights.meta["precision_first_threshold"]) <= 0.99
    again = at.train(rows, vectors, candidates, "hashing-256")
    assert np.array_equal(again.layers[0].weight, weights.layers[0].weight)
    assert again.meta["selection"] == selection


def test_nested_leave_one_source_out_scores_every_source_at_both_points() -> None:
    rows = _slice()
    vectors = load_embedder("hashing").embed([r.text for r in rows])
    candidates = [at.TrainConfig(l2=0.1), at.TrainConfig(l2=1.0)]
    result = generalization.leave_one_source_out(rows, vectors, candidates, "hashing-256")
    assert sorted(result) == ["team", "voices_a", "voices_b"]
    for source, left in result.items():
        held = sum(r.source == source for r in rows)
        assert left.chosen.messages == left.precision_first.messages == held
        assert left.config in {c.label() for c in candidates}
        assert left.threshold <= left.precision_threshold
        # The stricter threshold can only persist fewer messages.
        assert left.precision_first.persist_admitted <= left.chosen.persist_admitted
        assert left.precision_first.wrongly_persisted <= left.chosen.wrongly_persisted
