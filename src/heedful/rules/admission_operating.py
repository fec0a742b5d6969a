"""The admission model's operating point: the persist threshold and the floor of the lexicon's lift.

A message persists when the model's p(persist) reaches the threshold, or when the hand-written lexicon
reads it as lasting *and* the model agrees above a floor (the lexicon alone never forces a persist:
at any threshold it kept about 2% of real task requests persisted). Both are chosen on out-of-fold
predictions (sources as folds): the pair with the best persist recall whose share of non-lasting
messages persisted, pooled over every such message, stays within a budget, and under which a contract
of corrections still persists (the corrections the end-to-end replays teach: a point that loses one of
them is not taken, whatever it gains on the curve).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

PERSIST = 0  # the index of persist in the model's classes
NO_LIFT = 1.01  # a floor no probability reaches: the lexicon lifts nothing
_THRESHOLDS = np.round(np.linspace(0.05, 0.99, 95), 2)
_FLOORS = np.round(np.linspace(0.05, 0.95, 19), 2)


@dataclass(frozen=True)
class OperatingPoint:
    threshold: float
    floor: float
    false_persist: float  # pooled over the non-lasting messages the point was chosen on
    persist_recall: float  # averaged over the sources that have lasting messages


@dataclass(frozen=True)
class Curve:
    """Every (threshold, floor) pair with its pooled false-persist rate and its persist recall."""

    thresholds: np.ndarray
    floors: np.ndarray
    false_persist: np.ndarray
    persist_recall: np.ndarray

    def point(self, i: int) -> OperatingPoint:
        values = (self.thresholds[i], self.floors[i], self.false_persist[i], self.persist_recall[i])
        return OperatingPoint(*(float(v) for v in values))


def persisted(p_persist: np.ndarray, lexicon: np.ndarray | None, threshold: float, floor: float) -> np.ndarray:
    """Which messages persist at (threshold, floor), as `admission_model.decide` reads them."""
    lifted = np.zeros(len(p_persist), dtype=bool) if lexicon is None else lexicon & (p_persist >= floor)
    result: np.ndarray = (p_persist >= threshold) | lifted
    return result


def curve(probabilities: np.ndarray, y: np.ndarray, sources: np.ndarray, lexicon: np.ndarray | None) -> Curve:
    p = probabilities[:, PERSIST]
    negative = y != PERSIST
    groups = [(y == PERSIST) & (sources == s) for s in np.unique(sources[y == PERSIST])]
    pairs = [(t, NO_LIFT) for t in _THRESHOLDS]
    if lexicon is not None:
        pairs += [(t, f) for t in _THRESHOLDS for f in _FLOORS if f < t]
    fp, recall = [], []
    for t, f in pairs:
        decided = persisted(p, lexicon, t, f)
        fp.append(float(decided[negative].mean()) if negative.any() else 0.0)
        recall.append(float(np.mean([decided[g].mean() for g in groups])) if groups else 0.0)
    thresholds, floors = (np.array(v) for v in zip(*pairs, strict=True))
    return Curve(thresholds, floors, np.array(fp), np.array(recall))


def contract_holds(curve_: Curve, p_persist: np.ndarray, lexicon: np.ndarray | None) -> np.ndarray:
    """Per pair of the curve: does every contract message persist there?"""
    if len(p_persist) == 0:
        return np.ones(len(curve_.thresholds), dtype=bool)
    return np.array(
        [bool(persisted(p_persist, lexicon, t, f).all()) for t, f in zip(curve_.thresholds, curve_.floors, strict=True)]
    )


def choose(
    curve_: Curve, max_rate: float, contract: np.ndarray | None = None, stricter_than: OperatingPoint | None = None
) -> OperatingPoint:
    """The best recall within the budget among the pairs that keep the contract; when none is within the
    budget, the contract-keeping pair that persists the fewest non-lasting messages. Ties go to the
    higher threshold, then the higher floor (the more precise of equals). `stricter_than` keeps to the
    pairs no looser in either part than a point, so that they persist a subset of what it persists."""
    keeps = np.ones(len(curve_.thresholds), dtype=bool) if contract is None else contract.copy()
    if not keeps.any():
        keeps = np.ones(len(curve_.thresholds), dtype=bool)
    if stricter_than is not None:
        keeps &= (curve_.thresholds >= stricter_than.threshold) & (curve_.floors >= stricter_than.floor)
    within = keeps & (curve_.false_persist <= max_rate + 1e-12)
    if within.any():
        order = np.lexsort((curve_.floors, curve_.thresholds, curve_.persist_recall))
    else:
        within = keeps
        order = np.lexsort((curve_.floors, curve_.thresholds, curve_.persist_recall, -curve_.false_persist))
    best = [i for i in order if within[i]][-1]
    return curve_.point(int(best))


_SCOPE_THRESHOLDS = np.round(np.linspace(0.2, 0.8, 61), 2)


def scope_threshold(p_project: np.ndarray, scopes: Sequence[str | None], default: float = 0.5) -> float:
    """The p(project) from which a rule binds to its project: the default unless the contract's rules of a
    known scope need another; then the one nearest the default that reads the most of them right."""
    known = [(p, s) for p, s in zip(p_project, scopes, strict=True) if s in ("global", "project")]
    if not known:
        return default
    right = np.array([sum((p >= t) == (s == "project") for p, s in known) for t in _SCOPE_THRESHOLDS])
    best = _SCOPE_THRESHOLDS[right == right.max()]
    return float(best[np.argmin(np.abs(best - default))])
