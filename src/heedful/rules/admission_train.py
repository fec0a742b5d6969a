"""Training and leave-one-source-out evaluation of the admission model (numpy, fixed seed).

`train(rows, vectors)` fits the classifier on `[embedding, lexicon signals]` with class-balanced
weights, calibrates it by temperature on out-of-fold predictions, picks the persist threshold that
keeps wrongly persisted messages rare on those predictions, and fits the scope head on the lasting
rows. `leave_one_source_out` trains without each source in turn and scores it.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from heedful.bench.admission_corpus import CorpusRow
from heedful.embed import Embedder
from heedful.rules.admission_model import (
    CLASSES,
    AdmissionWeights,
    Layer,
    decide,
    feature_matrix,
    feature_names,
    lexicon_says_persist,
    softmax,
)

MAX_FALSE_PERSIST = 0.10  # the share of non-lasting out-of-fold messages the threshold may persist


@dataclass(frozen=True)
class TrainConfig:
    seed: int = 0
    hidden: int = 0  # 0: multinomial logistic regression
    l2: float = 0.3
    epochs: int = 200
    learning_rate: float = 0.05
    folds: int = 3


# -- embeddings -------------------------------------------------------------------------------
def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "heedful"


def embed_texts(texts: Sequence[str], embedder: Embedder, cache: Path | None = None) -> np.ndarray:
    """Vectors for `texts`, reusing a per-embedder cache file keyed by each text's hash."""
    keys = [hashlib.sha1(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
    store: dict[str, np.ndarray] = {}
    path = None if cache is None else cache / f"embeddings-{embedder.name}.npz"
    if path is not None and path.is_file():
        with np.load(path, allow_pickle=False) as data:
            store = {k: data[k] for k in data.files}
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in store}.items())
    if missing:
        fresh = embedder.embed([t for _, t in missing])
        for (k, _), vector in zip(missing, fresh, strict=True):
            store[k] = vector.astype(np.float32)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as handle:
                np.savez(handle, **store)
    return np.stack([store[k] for k in keys]) if keys else np.zeros((0, embedder.dim), dtype=np.float32)


# -- fitting ----------------------------------------------------------------------------------
def _class_weights(y: np.ndarray, sources: Sequence[str] | None = None) -> np.ndarray:
    """Every class weighs the same in total, and so does every source: no source's register
    (or size) dominates what the model learns."""
    counts = np.bincount(y, minlength=len(CLASSES)).astype(np.float64)
    per_class = np.where(counts > 0, len(y) / (len(CLASSES) * np.maximum(counts, 1)), 0.0)
    weights: np.ndarray = per_class[y]
    if sources is not None:
        names = np.asarray(sources)
        kinds = sorted(set(sources))
        for name in kinds:
            mask = names == name
            weights[mask] *= len(y) / (len(kinds) * mask.sum())
    return weights


def _init(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    return (rng.standard_normal(shape) * np.sqrt(2.0 / shape[0])).astype(np.float64)


def fit_network(x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, config: TrainConfig,
                classes: int = len(CLASSES)) -> tuple[Layer, ...]:
    """Full-batch Adam on weighted cross-entropy; deterministic for a seed."""
    rng = np.random.default_rng(config.seed)
    sizes = [x.shape[1], *([config.hidden] if config.hidden else []), classes]
    params = []
    for a, b in itertools.pairwise(sizes):
        params += [_init((a, b), rng), np.zeros(b)]
    moments = [np.zeros_like(p) for p in params]
    velocities = [np.zeros_like(p) for p in params]
    onehot = np.eye(classes)[y]
    w = sample_weight / sample_weight.sum()
    x64 = x.astype(np.float64)
    for step in range(1, config.epochs + 1):
        activations = [x64]
        for i in range(0, len(params) - 2, 2):
            activations.append(np.maximum(activations[-1] @ params[i] + params[i + 1], 0.0))
        probabilities = softmax(activations[-1] @ params[-2] + params[-1])
        delta = (probabilities - onehot) * w[:, None]
        grads: list[np.ndarray] = [np.zeros(0)] * len(params)
        for i in range(len(params) - 2, -1, -2):
            layer_input = activations[i // 2]
            grads[i] = layer_input.T @ delta + config.l2 * params[i]
            grads[i + 1] = delta.sum(axis=0)
            if i > 0:
                delta = (delta @ params[i].T) * (layer_input > 0)
        for j, grad in enumerate(grads):
            moments[j] = 0.9 * moments[j] + 0.1 * grad
            velocities[j] = 0.999 * velocities[j] + 0.001 * grad * grad
            m_hat = moments[j] / (1 - 0.9**step)
            v_hat = velocities[j] / (1 - 0.999**step)
            params[j] = params[j] - config.learning_rate * m_hat / (np.sqrt(v_hat) + 1e-8)
    return tuple(Layer(params[i].astype(np.float32), params[i + 1].astype(np.float32))
                 for i in range(0, len(params), 2))


def _forward(layers: tuple[Layer, ...], x: np.ndarray) -> np.ndarray:
    hidden = x
    for layer in layers[:-1]:
        hidden = np.maximum(hidden @ layer.weight + layer.bias, 0.0)
    result: np.ndarray = hidden @ layers[-1].weight + layers[-1].bias
    return result


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature that minimises the negative log-likelihood (grid search)."""
    best, best_nll = 1.0, float("inf")
    for t in np.exp(np.linspace(np.log(0.25), np.log(8.0), 61)):
        p = softmax(logits / t)
        nll = -float(np.mean(np.log(np.maximum(p[np.arange(len(y)), y], 1e-12))))
        if nll < best_nll:
            best, best_nll = float(t), nll
    return best


def persist_threshold(probabilities: np.ndarray, y: np.ndarray, max_rate: float = MAX_FALSE_PERSIST) -> float:
    """The lowest persist threshold whose false-persist rate on `probabilities` is within `max_rate`."""
    persist = CLASSES.index("persist")
    negatives = probabilities[y != persist, persist]
    for threshold in np.linspace(0.0, 0.95, 96):
        if negatives.size == 0 or float(np.mean(negatives >= threshold)) <= max_rate:
            return float(threshold)
    return 0.95


def _folds(rows: Sequence[CorpusRow], config: TrainConfig) -> list[np.ndarray]:
    sources = sorted({r.source for r in rows})
    if len(sources) >= 3:
        return [np.array([i for i, r in enumerate(rows) if r.source == s]) for s in sources]
    order = np.random.default_rng(config.seed).permutation(len(rows))
    return [order[fold :: config.folds] for fold in range(config.folds)]


def _standardiser(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    return mean.astype(np.float32), np.where(scale < 1e-6, 1.0, scale).astype(np.float32)


def _labels(rows: Sequence[CorpusRow]) -> np.ndarray:
    return np.array([CLASSES.index(r.decision) for r in rows], dtype=np.int64)  # type: ignore[arg-type]


def _fit_scope(x: np.ndarray, rows: Sequence[CorpusRow], config: TrainConfig) -> tuple[Layer, float]:
    scoped = [i for i, r in enumerate(rows) if r.decision in ("persist", "underspecified") and r.scope]
    if not scoped:
        return Layer(np.zeros((x.shape[1], 1), dtype=np.float32), np.zeros(1, dtype=np.float32)), 0.5
    target = np.array([1 if rows[i].scope == "project" else 0 for i in scoped], dtype=np.int64)
    weights = np.ones(len(scoped))
    for value in (0, 1):
        count = int((target == value).sum())
        if count:
            weights[target == value] = len(scoped) / (2 * count)
    linear = TrainConfig(seed=config.seed, hidden=0, l2=config.l2, epochs=config.epochs,
                         learning_rate=config.learning_rate)
    (layer,) = fit_network(x[scoped], target, weights, linear, classes=2)
    # Two-class softmax as one logit: log p(project) - log p(global).
    weight = (layer.weight[:, 1] - layer.weight[:, 0])[:, None]
    bias = np.array([layer.bias[1] - layer.bias[0]], dtype=np.float32)
    return Layer(weight.astype(np.float32), bias), 0.5


def train(rows: Sequence[CorpusRow], vectors: np.ndarray, config: TrainConfig, embedder: str,
          meta: dict[str, object] | None = None) -> AdmissionWeights:
    features = feature_matrix([r.text for r in rows], vectors)
    mean, scale = _standardiser(features)
    x = (features - mean) / scale
    y = _labels(rows)
    sample_weight = _class_weights(y, [r.source for r in rows])
    # Out-of-fold logits for the temperature and the persist threshold. The folds are the sources
    # (random folds when there are fewer than three): what the threshold must hold on is a source
    # the model never saw, and random folds are far more optimistic than that.
    out_of_fold = np.zeros((len(rows), len(CLASSES)))
    for held in _folds(rows, config):
        kept = np.setdiff1d(np.arange(len(rows)), held)
        layers = fit_network(x[kept], y[kept], sample_weight[kept], config)
        out_of_fold[held] = _forward(layers, x[held])
    temperature = fit_temperature(out_of_fold, y)
    threshold = persist_threshold(softmax(out_of_fold / temperature), y)
    layers = fit_network(x, y, sample_weight, config)
    scope, scope_threshold = _fit_scope(x, rows, config)
    return AdmissionWeights(
        embedder=embedder, feature_names=feature_names(vectors.shape[1]),
        mean=mean, scale=scale, layers=layers, temperature=temperature, persist_threshold=threshold,
        scope=scope, scope_threshold=scope_threshold, meta=dict(meta or {}),
    )


# -- evaluation -------------------------------------------------------------------------------
@dataclass
class AdmissionScore:
    """Figures for one set of messages, as the paper's D.1 and the issue define them."""

    messages: int = 0
    persist: int = 0
    persist_admitted: int = 0
    non_persist: int = 0
    wrongly_persisted: int = 0
    underspecified: int = 0
    underspecified_recognised: int = 0
    scope_total: int = 0
    scope_right: int = 0
    exact: int = 0
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    misses: list[dict[str, str]] = field(default_factory=list)

    def add(self, row: CorpusRow, decision: str, scope: str | None) -> None:
        self.messages += 1
        self.exact += decision == row.decision
        self.confusion.setdefault(row.decision, {}).setdefault(decision, 0)
        self.confusion[row.decision][decision] += 1
        if row.decision == "persist":
            self.persist += 1
            self.persist_admitted += decision == "persist"
            if decision == "persist" and row.scope:
                self.scope_total += 1
                self.scope_right += scope == row.scope
        else:
            self.non_persist += 1
            self.wrongly_persisted += decision == "persist"
        if row.decision == "underspecified":
            self.underspecified += 1
            self.underspecified_recognised += decision == "underspecified"
        wrong = decision != row.decision or (decision == "persist" and row.scope and scope != row.scope)
        if wrong and len(self.misses) < 400:
            self.misses.append({"id": row.id, "text": row.text[:200], "gold": row.decision, "got": decision,
                                "gold_scope": row.scope or "", "got_scope": scope or ""})

    @staticmethod
    def rate(numerator: int, denominator: int) -> float | None:
        return None if denominator == 0 else round(100.0 * numerator / denominator, 1)

    def summary(self) -> dict[str, object]:
        return {
            "messages": self.messages,
            "persist_recall": self.rate(self.persist_admitted, self.persist),
            "persist": f"{self.persist_admitted}/{self.persist}",
            "wrongly_persisted_pct": self.rate(self.wrongly_persisted, self.non_persist),
            "wrongly_persisted": f"{self.wrongly_persisted}/{self.non_persist}",
            "underspecified_recognised_pct": self.rate(self.underspecified_recognised, self.underspecified),
            "underspecified_recognised": f"{self.underspecified_recognised}/{self.underspecified}",
            "scope_accuracy": self.rate(self.scope_right, self.scope_total),
            "decision_accuracy": self.rate(self.exact, self.messages),
        }


def predict(weights: AdmissionWeights, rows: Sequence[CorpusRow], vectors: np.ndarray
            ) -> list[tuple[str, str | None]]:
    features = feature_matrix([r.text for r in rows], vectors)
    decisions = decide(weights.probabilities(features), weights.persist_threshold, lexicon_says_persist(features))
    project = weights.project_probability(features)
    return [(d, ("project" if p >= weights.scope_threshold else "global") if d in ("persist", "underspecified")
             else None) for d, p in zip(decisions, project, strict=True)]


def score(weights: AdmissionWeights, rows: Sequence[CorpusRow], vectors: np.ndarray) -> AdmissionScore:
    result = AdmissionScore()
    for row, (decision, scope) in zip(rows, predict(weights, rows, vectors), strict=True):
        result.add(row, decision, scope)
    return result


def leave_one_source_out(rows: Sequence[CorpusRow], vectors: np.ndarray, config: TrainConfig, embedder: str
                         ) -> dict[str, AdmissionScore]:
    """For each source: train on all the others, score the left-out one."""
    sources = sorted({r.source for r in rows})
    out: dict[str, AdmissionScore] = {}
    for source in sources:
        train_idx = [i for i, r in enumerate(rows) if r.source != source]
        test_idx = [i for i, r in enumerate(rows) if r.source == source]
        weights = train([rows[i] for i in train_idx], vectors[train_idx], config, embedder)
        out[source] = score(weights, [rows[i] for i in test_idx], vectors[test_idx])
    return out
