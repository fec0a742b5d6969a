"""Admission and scope as a learned model: the sentence embedding plus the lexicon's signals.

A small network (one hidden layer, or none) reads `[embedding, signals]` and gives calibrated
probabilities for persist / task_local / underspecified / none; a second, linear head gives the
probability that a lasting rule binds to the project. The weights ship with the package
(`rules/data/admission.npz`, trained by `heedful train admission`); inference is numpy only.
The lexicon still writes the human-readable reasons and flags retractions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np

from heedful.rules import admission_features, admission_request
from heedful.rules.models import Admission, Decision

WEIGHTS_PATH = Path(__file__).resolve().parent / "data" / "admission.npz"
CLASSES: tuple[Decision, ...] = ("persist", "task_local", "underspecified", "none")


@dataclass(frozen=True)
class Layer:
    weight: np.ndarray  # (in, out)
    bias: np.ndarray  # (out,)


@dataclass(frozen=True)
class AdmissionWeights:
    """Everything inference needs; `meta` records how the weights were trained."""

    embedder: str
    feature_names: tuple[str, ...]
    mean: np.ndarray  # feature standardisation, fitted on the training rows
    scale: np.ndarray
    layers: tuple[Layer, ...]  # hidden layers (ReLU) then the output layer
    temperature: float
    persist_threshold: float
    scope: Layer  # (features, 1): logit of "project"
    scope_threshold: float
    lexicon_override: bool = True  # the lexicon's own persist lifts a persist below the threshold
    # The model's agreement the lexicon's lift needs: p(persist) at least this (None: persist most probable)
    lexicon_floor: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def buckets(self) -> int:
        return sum(1 for name in self.feature_names if name.startswith("g") and name[1:].isdigit())

    @property
    def dim(self) -> int:
        return sum(1 for name in self.feature_names if name.startswith("e") and name[1:].isdigit())

    def features(self, texts: list[str], vectors: np.ndarray) -> np.ndarray:
        return feature_matrix(texts, vectors, self.buckets)

    def decisions(self, features: np.ndarray, threshold: float | None = None) -> list[Decision]:
        lexicon = lexicon_says_persist(features, self.dim) if self.lexicon_override else None
        chosen = self.persist_threshold if threshold is None else threshold
        return decide(self.probabilities(features), chosen, lexicon, self.lexicon_floor)

    def standardise(self, features: np.ndarray) -> np.ndarray:
        return ((features - self.mean) / self.scale).astype(np.float32)

    def logits(self, features: np.ndarray) -> np.ndarray:
        return forward(self.layers, self.standardise(features))

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        return softmax(self.logits(features) / self.temperature)

    def project_probability(self, features: np.ndarray) -> np.ndarray:
        z = self.standardise(features) @ self.scope.weight + self.scope.bias
        result: np.ndarray = np.exp(-np.logaddexp(0.0, -z[:, 0]))  # the sigmoid, without overflow
        return result


def forward(layers: tuple[Layer, ...], x: np.ndarray) -> np.ndarray:
    """Class logits from standardised features. A last layer with one output per stage is the two-stage
    decision (instruction or not, lasting or this task, behaviour named or not): its log-odds become the
    classes' log-probabilities, p(persist) = p(instruction) p(lasting) p(named)."""
    hidden = x
    for layer in layers[:-1]:
        hidden = np.maximum(hidden @ layer.weight + layer.bias, 0.0)
    out: np.ndarray = hidden @ layers[-1].weight + layers[-1].bias
    return stage_log_probabilities(out) if out.shape[1] == len(STAGES) else out


# The two-stage decision's heads, in the order of its last layer's outputs.
STAGES = ("instruction", "lasting", "named")


def _log_sigmoid(z: np.ndarray) -> np.ndarray:
    result: np.ndarray = -np.logaddexp(0.0, -z)
    return result


def stage_log_probabilities(z: np.ndarray) -> np.ndarray:
    """Per-class log-probabilities (in `CLASSES` order) from the three stages' log-odds."""
    instruction, lasting, named = z[:, 0], z[:, 1], z[:, 2]
    yes_i, no_i = _log_sigmoid(instruction), _log_sigmoid(-instruction)
    yes_l, no_l = _log_sigmoid(lasting), _log_sigmoid(-lasting)
    yes_n, no_n = _log_sigmoid(named), _log_sigmoid(-named)
    return np.stack([yes_i + yes_l + yes_n, yes_i + no_l, yes_i + yes_l + no_n, no_i], axis=1)


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    result: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return result


def feature_matrix(
    texts: list[str], vectors: np.ndarray, buckets: int = admission_features.NGRAM_BUCKETS
) -> np.ndarray:
    """`[embedding, lexicon signals, structure, request and anchor flags, hashed n-grams]` per text (vectors
    from the embedder)."""
    signal_rows = np.array([admission_features.signals(t) for t in texts], dtype=np.float32)
    structure_rows = np.array([admission_features.structure(t) for t in texts], dtype=np.float32)
    request_rows = np.array([admission_request.values(t) for t in texts], dtype=np.float32)
    grams = np.zeros((len(texts), buckets), dtype=np.float32)
    if buckets:
        for i, text in enumerate(texts):
            grams[i, admission_features.ngram_buckets(text, buckets)] = 1.0
    return np.hstack(
        [
            np.asarray(vectors, dtype=np.float32),
            signal_rows.reshape(len(texts), -1),
            structure_rows.reshape(len(texts), -1),
            request_rows.reshape(len(texts), -1),
            grams,
        ]
    )


def feature_names(dim: int, buckets: int = admission_features.NGRAM_BUCKETS) -> tuple[str, ...]:
    return (
        *(f"e{i}" for i in range(dim)),
        *admission_features.NAMES,
        *admission_features.STRUCTURE_NAMES,
        *admission_request.NAMES,
        *(f"g{i}" for i in range(buckets)),
    )


def decide(
    probabilities: np.ndarray,
    persist_threshold: float,
    lexicon_persist: np.ndarray | None = None,
    lexicon_floor: float | None = None,
) -> list[Decision]:
    """Persist when its probability reaches `persist_threshold` (even when another class is a little
    more probable: the threshold, not the argmax, is what was calibrated on unseen sources), or when
    the lexicon, read independently, also says persist and the model agrees: its p(persist) reaches
    `lexicon_floor` (without a floor: persist is the most probable). Two readers agreeing is evidence
    enough; the lexicon alone is not. Otherwise the most probable of the other classes."""
    persist = CLASSES.index("persist")
    out: list[Decision] = []
    for i, row in enumerate(probabilities):
        agrees = int(np.argmax(row)) == persist if lexicon_floor is None else row[persist] >= lexicon_floor
        agreed = lexicon_persist is not None and bool(lexicon_persist[i]) and bool(agrees)
        if row[persist] >= persist_threshold or agreed:
            out.append("persist")
            continue
        others = row.copy()
        others[persist] = -1.0
        out.append(CLASSES[int(np.argmax(others))])
    return out


def lexicon_says_persist(features: np.ndarray, dim: int) -> np.ndarray:
    """The lexicon's own persist decision, read back from its one-hot signal in the features."""
    result: np.ndarray = features[:, dim + admission_features.NAMES.index("lexicon_persist")] == 1.0
    return result


def save(weights: AdmissionWeights, path: Path) -> None:
    arrays: dict[str, np.ndarray] = {
        "mean": weights.mean,
        "scale": weights.scale,
        "scope_weight": weights.scope.weight,
        "scope_bias": weights.scope.bias,
    }
    for i, layer in enumerate(weights.layers):
        arrays[f"w{i}"] = layer.weight.astype(np.float32)
        arrays[f"b{i}"] = layer.bias.astype(np.float32)
    header = {
        "embedder": weights.embedder,
        "feature_names": list(weights.feature_names),
        "layers": len(weights.layers),
        "temperature": weights.temperature,
        "persist_threshold": weights.persist_threshold,
        "scope_threshold": weights.scope_threshold,
        "lexicon_override": weights.lexicon_override,
        "lexicon_floor": weights.lexicon_floor,
        "meta": weights.meta,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        header_array = np.array(json.dumps(header, sort_keys=True))
        np.savez_compressed(handle, header=header_array, **arrays)  # type: ignore[arg-type]  # numpy's stub


def load(path: Path = WEIGHTS_PATH) -> AdmissionWeights:
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["header"]))
        layers = tuple(Layer(data[f"w{i}"], data[f"b{i}"]) for i in range(int(header["layers"])))
        return AdmissionWeights(
            embedder=header["embedder"],
            feature_names=tuple(header["feature_names"]),
            mean=data["mean"],
            scale=data["scale"],
            layers=layers,
            temperature=float(header["temperature"]),
            persist_threshold=float(header["persist_threshold"]),
            scope=Layer(data["scope_weight"], data["scope_bias"]),
            scope_threshold=float(header["scope_threshold"]),
            lexicon_override=bool(header.get("lexicon_override", True)),
            lexicon_floor=None if header.get("lexicon_floor") is None else float(header["lexicon_floor"]),
            meta=header.get("meta", {}),
        )


@lru_cache(maxsize=1)
def shipped() -> AdmissionWeights | None:
    """The packaged weights, or None when they are missing or were made for other features."""
    if not WEIGHTS_PATH.is_file():
        return None
    weights = load(WEIGHTS_PATH)
    if weights.dim <= 0 or weights.feature_names != feature_names(weights.dim, weights.buckets):
        return None
    return weights


def admit(text: str, vector: np.ndarray, weights: AdmissionWeights, lexicon: Admission) -> Admission:
    """The model's decision for one message, with the lexicon's reasons and retraction flag.

    An explicit retraction ("forget what I said about rg") is the lexicon's call: withdrawing a
    rule needs the user's explicit words, and a retraction is short and rare in any corpus."""
    if lexicon.retraction:
        return lexicon
    features = weights.features([text], vector.reshape(1, -1))
    probabilities = weights.probabilities(features)[0]
    decision = weights.decisions(features)[0]
    confidence = {c: round(float(p), 3) for c, p in zip(CLASSES, probabilities, strict=True)}
    reasons = [f"model: {decision} (p={confidence[decision]})"]
    if lexicon.decision == decision:
        reasons = [*lexicon.reasons, *reasons]
    scope: Literal["global", "project"] | None = None
    if decision in ("persist", "underspecified"):
        project = float(weights.project_probability(features)[0])
        scope = "project" if project >= weights.scope_threshold else "global"
        reasons.append(f"scope {scope} (p_project={project:.2f})")
    retraction = decision == "persist" and lexicon.retraction
    return Admission(decision=decision, scope=scope, retraction=retraction, reasons=reasons)
