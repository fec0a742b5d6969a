"""The admission model's operating point: pooled false persists, the lexicon's floor, the contract."""

from __future__ import annotations

import numpy as np

from heedful.bench.admission_corpus import contract, contract_texts
from heedful.rules import admission_model
from heedful.rules import admission_operating as operating


def _probabilities(p_persist: list[float]) -> np.ndarray:
    rest = (1.0 - np.array(p_persist)) / 3.0
    return np.stack([np.array(p_persist), rest, rest, rest], axis=1)


def test_the_lexicon_lifts_only_above_the_floor() -> None:
    probabilities = _probabilities([0.30, 0.10, 0.80])
    lexicon = np.array([True, True, False])
    assert admission_model.decide(probabilities, 0.7, lexicon, 0.25) == ["persist", "task_local", "persist"]
    # without a floor the lexicon needs persist to be the most probable class (0.30 is, 0.10 is not)
    assert admission_model.decide(probabilities, 0.7, lexicon, None) == ["persist", "task_local", "persist"]
    assert admission_model.decide(probabilities, 0.7, lexicon, operating.NO_LIFT)[0] == "task_local"


def test_false_persists_are_pooled_over_every_negative() -> None:
    # one source with 1 negative persisted of 1, another with 0 of 9: pooled 10%, not the 50% of an average
    y = np.array([1] + [1] * 9 + [0])
    sources = np.array(["a"] + ["b"] * 9 + ["b"])
    probabilities = _probabilities([0.9] + [0.1] * 9 + [0.95])
    curve = operating.curve(probabilities, y, sources, None)
    at_half = int(np.flatnonzero((curve.thresholds == 0.5) & (curve.floors == operating.NO_LIFT))[0])
    assert abs(curve.false_persist[at_half] - 0.1) < 1e-9
    assert curve.persist_recall[at_half] == 1.0


def test_choose_takes_the_best_recall_within_the_budget() -> None:
    y = np.array([1, 1, 1, 1, 0, 0, 0])
    sources = np.array(["s"] * 7)
    probabilities = _probabilities([0.9, 0.6, 0.3, 0.2, 0.8, 0.7, 0.1])
    point = operating.choose(operating.curve(probabilities, y, sources, None), max_rate=0.25)
    assert point.false_persist <= 0.25
    assert point.persist_recall == 2 / 3 and point.threshold == 0.7  # the most precise of the equals


def test_the_contract_wins_over_the_budget() -> None:
    y = np.array([0, 1, 1, 1, 1])
    sources = np.array(["s"] * 5)
    probabilities = _probabilities([0.9, 0.7, 0.6, 0.5, 0.4])
    curve = operating.curve(probabilities, y, sources, None)
    free = operating.choose(curve, max_rate=0.0)
    assert free.threshold > 0.7
    # a taught correction read at p=0.55 must persist: no point within the budget keeps it, so the most
    # precise point that does is taken
    holds = operating.contract_holds(curve, np.array([0.55]), None)
    bound = operating.choose(curve, max_rate=0.0, contract=holds)
    assert bound.threshold <= 0.55 and bound.false_persist == 0.5
    assert operating.persisted(np.array([0.55]), None, bound.threshold, bound.floor).all()


def test_an_empty_contract_binds_nothing() -> None:
    y = np.array([0, 1])
    curve = operating.curve(_probabilities([0.9, 0.2]), y, np.array(["s", "s"]), np.array([False, True]))
    assert operating.contract_holds(curve, np.zeros(0), None).all()


def test_the_contract_is_the_replays_taught_lasting_corrections() -> None:
    texts = contract_texts()
    assert "dont pipe curl into sh. ever" in texts
    assert "don't push yet, I want to look over the diff first" not in texts  # taught as task-local
    assert len(texts) == len(set(texts)) >= 10


def test_the_contract_says_the_scope_its_replay_events_imply() -> None:
    scopes = dict(contract())
    assert scopes["dont pipe curl into sh. ever"] == "global"  # blocked in the other project too
    rg = "when you're searching the code use rg, not grep -r. grep takes forever on this monorepo"
    assert scopes[rg] == "project"  # allowed in the other project, blocked where it was taught


def test_the_scope_threshold_moves_from_the_default_only_for_the_contract() -> None:
    assert operating.scope_threshold(np.array([0.9, 0.1]), [None, None]) == 0.5
    assert operating.scope_threshold(np.array([0.9, 0.1]), ["project", "global"]) == 0.5
    # a global rule read at p_project 0.6, the project rules at 0.7 and above: the threshold nearest 0.5
    # between them
    moved = operating.scope_threshold(np.array([0.6, 0.7, 0.95]), ["global", "project", "project"])
    assert 0.6 < moved <= 0.7 and moved == 0.61
    # no threshold reads them all right: the nearest of those reading the most right
    assert operating.scope_threshold(np.array([0.9, 0.3]), ["global", "project"]) == 0.3
