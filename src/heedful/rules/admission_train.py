"""Training of the admission model: settings chosen by source-held-out folds (numpy, fixed seed).

`train(rows, vectors, candidates)` fits the classifier on `[embedding, lexicon signals, structure]`
with class- and source-balanced weights. Every candidate setting is scored on out-of-fold predictions
with the sources as folds; the best is kept, calibrated by temperature on those predictions, given
the persist threshold that keeps wrongly persisted messages rare on them, and refitted on all rows
with its scope head. The evaluation (nested leave-one-source-out) is in `heedful.bench.generalization`.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from heedful.bench.admission_corpus import CorpusRow
from heedful.embed import Embedder
from heedful.rules import admission_operating as operating
from heedful.rules.admission_embeddings import embed_texts
from heedful.rules.admission_model import (
    CLASSES,
    AdmissionWeights,
    Layer,
    decide,
    feature_matrix,
    feature_names,
    forward,
    lexicon_says_persist,
    softmax,
)

# Operating points, fixed before any source is left out: the share of non-lasting messages (pooled over
# every such message of the held-out sources: real traffic is mostly requests, and a per-source average
# let the largest real source run at twice the budget) that the persist threshold and the lexicon's lift
# may let through on out-of-fold predictions. The chosen point is precision first, bounded by the
# contract: when no point within the budget keeps the replays' taught corrections, the most precise one
# that keeps them is taken (`admission_operating.choose`). The precision-first point is the target.
MAX_FALSE_PERSIST = 0.05
PRECISION_FIRST = 0.01


@dataclass(frozen=True)
class TrainConfig:
    seed: int = 0
    # "ridge": closed-form least squares on the one-hot classes; "stages": three ridge heads, one per decision
    # stage (instruction or not, lasting or this task, behaviour named or vague); "adam": the network below
    solver: str = "ridge"
    hidden: int = 0  # adam only; 0: multinomial logistic regression
    l2: float = 0.1
    epochs: int = 200
    learning_rate: float = 0.05
    folds: int = 3
    ngram_buckets: int = 0  # hashed n-grams memorised their sources' words: no gain left out
    lexicon_override: bool = True
    max_false_persist: float = MAX_FALSE_PERSIST
    embedding_penalty: float = 1.0  # ridge: the embedding's penalty relative to the read features'
    # The scope head leans on the read anchors (this repo, a directory, a version, the setup) more than on
    # what the sentence's topic resembles: instruction files are project-scoped whatever their topic.
    scope_l2: float = 1.0
    scope_embedding_penalty: float = 30.0

    def label(self) -> str:
        model = self.solver if self.solver in ("ridge", "stages") else f"adam hidden={self.hidden}"
        return (
            f"{model} l2={self.l2} embedding_penalty={self.embedding_penalty} ngrams={self.ngram_buckets} "
            f"lexicon_override={self.lexicon_override}"
        )


# What the inner selection chooses among (in order of preference when two score the same). The
# lexicon's agreement lifting a most-probable persist is a design decision kept from the start, not a
# setting: it keeps the rules people state in the lexicon's own words ("keep replies under 100 words").
CANDIDATES: tuple[TrainConfig, ...] = (
    TrainConfig(l2=0.03, embedding_penalty=10.0),
    TrainConfig(l2=0.1),
    TrainConfig(l2=0.1, embedding_penalty=10.0),
    TrainConfig(l2=0.01, embedding_penalty=30.0),
    TrainConfig(l2=1.0),
)


# -- fitting ----------------------------------------------------------------------------------
def _class_weights(y: np.ndarray, sources: Sequence[str] | None = None, classes: int = len(CLASSES)) -> np.ndarray:
    """Every class weighs the same in total, and so does every source: no source's register
    (or size) dominates what the model learns."""
    counts = np.bincount(y, minlength=classes).astype(np.float64)
    per_class = np.where(counts > 0, len(y) / (classes * np.maximum(counts, 1)), 0.0)
    weights: np.ndarray = per_class[y]
    if sources is not None:
        names = np.asarray(sources)
        kinds = sorted(set(sources))
        for name in kinds:
            mask = names == name
            weights[mask] *= len(y) / (len(kinds) * mask.sum())
    return weights


def _init(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    return (rng.standard_normal(shape) * np.sqrt(2.0 / shape[0])).astype(np.float32)


def fit_network(
    x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, config: TrainConfig, classes: int = len(CLASSES)
) -> tuple[Layer, ...]:
    """Full-batch Adam on weighted cross-entropy; deterministic for a seed."""
    rng = np.random.default_rng(config.seed)
    sizes = [x.shape[1], *([config.hidden] if config.hidden else []), classes]
    params = []
    for a, b in itertools.pairwise(sizes):
        params += [_init((a, b), rng), np.zeros(b, dtype=np.float32)]
    moments = [np.zeros_like(p) for p in params]
    velocities = [np.zeros_like(p) for p in params]
    onehot = np.eye(classes, dtype=np.float32)[y]
    w = (sample_weight / sample_weight.sum()).astype(np.float32)
    inputs = x.astype(np.float32)
    for step in range(1, config.epochs + 1):
        activations = [inputs]
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
    return tuple(
        Layer(params[i].astype(np.float32), params[i + 1].astype(np.float32)) for i in range(0, len(params), 2)
    )


def fit_ridge(
    x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, l2: float | np.ndarray, classes: int = len(CLASSES)
) -> Layer:
    """Weighted least squares on the one-hot classes with an L2 penalty (the intercept unpenalised):
    one linear solve, so that choosing among settings by nested folds stays affordable."""
    w = (sample_weight / sample_weight.sum())[:, None]
    inputs = np.hstack([x.astype(np.float64), np.ones((len(x), 1))])
    gram = inputs.T @ (inputs * w)
    penalty = np.zeros(inputs.shape[1])
    penalty[:-1] = l2
    target = np.eye(classes)[y]
    coef = np.linalg.solve(gram + np.diag(penalty), inputs.T @ (target * w))
    return Layer(coef[:-1].astype(np.float32), coef[-1].astype(np.float32))


@dataclass(frozen=True)
class GroupStats:
    """Sufficient statistics of weighted least squares per (source, class) group: every row of a group
    weighs the same, so a fit on any union of sources is a sum of their groups' Gram matrices (the
    source-held-out folds then cost one pass over the rows instead of one per fold)."""

    keys: tuple[tuple[str, int], ...]
    grams: np.ndarray  # (groups, d+1, d+1): the rows with an intercept column
    sums: np.ndarray  # (groups, d+1)
    weights: np.ndarray  # (groups,): the weight of each row of the group
    counts: np.ndarray  # (groups,)

    @staticmethod
    def of(x: np.ndarray, y: np.ndarray, sources: np.ndarray, sample_weight: np.ndarray) -> GroupStats:
        keys = sorted({(str(s), int(c)) for s, c in zip(sources, y, strict=True)})
        inputs = np.hstack([x.astype(np.float64), np.ones((len(x), 1))])
        grams, sums, weights, counts = [], [], [], []
        for source, label in keys:
            mask = (sources == source) & (y == label)
            part = inputs[mask]
            grams.append(part.T @ part)
            sums.append(part.sum(axis=0))
            weights.append(float(sample_weight[mask][0]))
            counts.append(int(mask.sum()))
        return GroupStats(tuple(keys), np.stack(grams), np.stack(sums), np.array(weights), np.array(counts))

    def fit(self, held_out: str | None, l2: float | np.ndarray, classes: int = len(CLASSES)) -> Layer:
        """`fit_ridge` on every group but the held-out source's, with the rows' weights as given."""
        keep = np.array([source != held_out for source, _ in self.keys])
        total = float((self.weights[keep] * self.counts[keep]).sum())
        w = self.weights[keep] / total
        gram = np.einsum("g,gij->ij", w, self.grams[keep])
        rhs = np.zeros((gram.shape[0], classes))
        for (_, label), weight, row_sum in zip(
            [k for k, kept in zip(self.keys, keep, strict=True) if kept], w, self.sums[keep], strict=True
        ):
            rhs[:, label] += weight * row_sum
        penalty = np.zeros(gram.shape[0])
        penalty[:-1] = l2
        coef = np.linalg.solve(gram + np.diag(penalty), rhs)
        return Layer(coef[:-1].astype(np.float32), coef[-1].astype(np.float32))


def _binary_head(x: np.ndarray, target: np.ndarray, sample_weight: np.ndarray, penalty: np.ndarray) -> Layer:
    """One ridge head for a yes/no question as a single calibrated log-odds (the score difference scaled
    by the temperature that fits the rows best)."""
    layer = fit_ridge(x, target, sample_weight, penalty, classes=2)
    weight = (layer.weight[:, 1] - layer.weight[:, 0]).astype(np.float64)
    bias = float(layer.bias[1] - layer.bias[0])
    z = x @ weight + bias
    scale = 1.0 / fit_temperature(np.stack([np.zeros_like(z), z], axis=1), target)
    return Layer((weight * scale).astype(np.float32)[:, None], np.array([bias * scale], dtype=np.float32))


def fit_stages(x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, penalty: np.ndarray) -> Layer:
    """The two-stage decision: is it an instruction (all rows), is it lasting (instructions only: this
    task's requests against lasting ones, vague or not), does it name a behaviour (lasting ones only).
    Each head learns one distinction from the rows where it is the open question."""
    persist, vague, none = (CLASSES.index(c) for c in ("persist", "underspecified", "none"))
    heads = []
    for rows, positive in (
        (np.ones(len(y), dtype=bool), y != none),
        (y != none, (y == persist) | (y == vague)),
        ((y == persist) | (y == vague), y == persist),
    ):
        target = positive[rows].astype(np.int64)
        if len(np.unique(target)) < 2:  # a fold without one side: the head stays neutral
            heads.append(Layer(np.zeros((x.shape[1], 1), dtype=np.float32), np.zeros(1, dtype=np.float32)))
            continue
        weights = sample_weight[rows] * _class_weights(target, classes=2)
        heads.append(_binary_head(x[rows], target, weights, penalty))
    return Layer(np.hstack([h.weight for h in heads]), np.concatenate([h.bias for h in heads]))


def fit_model(
    x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, config: TrainConfig, classes: int = len(CLASSES)
) -> tuple[Layer, ...]:
    if config.solver == "stages" and classes == len(CLASSES):
        penalty = np.full(x.shape[1], config.l2)
        penalty[: x.shape[1] - _tail_width(config.ngram_buckets)] *= config.embedding_penalty
        return (fit_stages(x, y, sample_weight, penalty),)
    if config.solver in ("ridge", "stages"):
        # The embedding's columns pay `embedding_penalty` times the penalty of the read features: a
        # larger factor leans on the sentence's form rather than on what its words resemble.
        penalty = np.full(x.shape[1], config.l2)
        penalty[: x.shape[1] - _tail_width(config.ngram_buckets)] *= config.embedding_penalty
        return (fit_ridge(x, y, sample_weight, penalty, classes),)
    return fit_network(x, y, sample_weight, config, classes)


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature that minimises the negative log-likelihood (grid search)."""
    best, best_nll = 1.0, float("inf")
    for t in np.exp(np.linspace(np.log(0.01), np.log(8.0), 91)):
        p = softmax(logits / t)
        nll = -float(np.mean(np.log(np.maximum(p[np.arange(len(y)), y], 1e-12))))
        if nll < best_nll:
            best, best_nll = float(t), nll
    return best


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
    weights = _class_weights(target, [rows[i].source for i in scoped], classes=2)
    linear = dataclasses.replace(
        config, hidden=0, l2=config.scope_l2, embedding_penalty=config.scope_embedding_penalty, solver="ridge"
    )
    (layer,) = fit_model(x[scoped], target, weights, linear, classes=2)
    # Two classes as one logit: log p(project) - log p(global) for the network; for least squares the
    # score difference, scaled to a log-odds by the temperature that fits the training rows best.
    weight = (layer.weight[:, 1] - layer.weight[:, 0])[:, None]
    bias = np.array([layer.bias[1] - layer.bias[0]], dtype=np.float32)
    if config.solver in ("ridge", "stages"):
        z = (x[scoped] @ weight + bias)[:, 0]
        pair = np.stack([np.zeros_like(z), z], axis=1)
        scale = 1.0 / fit_temperature(pair, target)
        weight, bias = weight * scale, bias * scale
    return Layer(weight.astype(np.float32), bias.astype(np.float32)), 0.5


@dataclass(frozen=True)
class Calibration:
    """What the out-of-fold predictions of one configuration say: its temperature, its operating curve,
    the points within the two budgets and how it scored there (the selection objective)."""

    config: TrainConfig
    temperature: float
    curve: operating.Curve
    point: operating.OperatingPoint
    precision_point: operating.OperatingPoint
    objective: float
    persist_recall: float
    false_persist: float
    underspecified_recall: float


def _folds(rows: Sequence[CorpusRow], config: TrainConfig) -> list[np.ndarray]:
    sources = sorted({r.source for r in rows})
    if len(sources) >= 3:
        return [np.array([i for i, r in enumerate(rows) if r.source == s]) for s in sources]
    order = np.random.default_rng(config.seed).permutation(len(rows))
    return [order[fold :: config.folds] for fold in range(config.folds)]


def calibrate(features: np.ndarray, rows: Sequence[CorpusRow], config: TrainConfig) -> Calibration:
    """Out-of-fold predictions with the sources as folds (random folds when there are fewer than three):
    what the threshold must hold on is a source the model never saw."""
    y = _labels(rows)
    sources = np.array([r.source for r in rows])
    sample_weight = _class_weights(y, list(sources))
    mean, scale = _standardiser(features)
    x = (features - mean) / scale
    out_of_fold = np.zeros((len(rows), len(CLASSES)))
    folds = _folds(rows, config)
    by_source = len({r.source for r in rows}) >= 3
    stats = GroupStats.of(x, y, sources, sample_weight) if by_source and config.solver == "ridge" else None
    for held in folds:
        if stats is not None:
            penalty = np.full(x.shape[1], config.l2)
            penalty[: x.shape[1] - _tail_width(config.ngram_buckets)] *= config.embedding_penalty
            layers: tuple[Layer, ...] = (stats.fit(str(sources[held[0]]), penalty),)
        else:
            kept = np.setdiff1d(np.arange(len(rows)), held)
            layers = fit_model(x[kept], y[kept], sample_weight[kept], config)
        out_of_fold[held] = forward(layers, x[held])
    temperature = fit_temperature(out_of_fold, y)
    probabilities = softmax(out_of_fold / temperature)
    dim = len(features[0]) - _tail_width(config.ngram_buckets)
    lexicon = lexicon_says_persist(features, dim) if config.lexicon_override else None
    curve = operating.curve(probabilities, y, sources, lexicon)
    point = operating.choose(curve, config.max_false_persist)
    strict = operating.choose(curve, min(PRECISION_FIRST, config.max_false_persist), stricter_than=point)
    floor = point.floor if lexicon is not None else None
    decided = np.array([CLASSES.index(d) for d in decide(probabilities, point.threshold, lexicon, floor)])
    vague = CLASSES.index("underspecified")
    underspecified = float(np.mean(decided[y == vague] == vague)) if (y == vague).any() else 0.0
    return Calibration(
        config=config,
        temperature=temperature,
        curve=curve,
        point=point,
        precision_point=strict,
        objective=point.persist_recall + 0.5 * underspecified,
        persist_recall=point.persist_recall,
        false_persist=point.false_persist,
        underspecified_recall=underspecified,
    )


def _tail_width(buckets: int) -> int:
    return len(feature_names(0, buckets))


@dataclass(frozen=True)
class Contract:
    """Messages the operating point must keep persisted, with their sentence vectors."""

    texts: tuple[str, ...]
    vectors: np.ndarray
    scopes: tuple[str | None, ...] = ()  # the scope each message must get, where known

    def scope_of(self, i: int) -> str | None:
        return self.scopes[i] if i < len(self.scopes) else None


def contract_of(items: Sequence[tuple[str, str | None]], embedder: Embedder, cache: Path | None = None) -> Contract:
    texts = [text for text, _ in items]
    return Contract(tuple(texts), embed_texts(texts, embedder, cache), tuple(scope for _, scope in items))


def feature_matrices(
    rows: Sequence[CorpusRow], vectors: np.ndarray, configs: Sequence[TrainConfig]
) -> dict[int, np.ndarray]:
    """The feature matrix of `rows` for every n-gram width the configurations use."""
    texts = [r.text for r in rows]
    return {b: feature_matrix(texts, vectors, b) for b in sorted({c.ngram_buckets for c in configs})}


@dataclass(frozen=True)
class _Fitted:
    """One candidate refitted on every row, with its operating point under the contract."""

    calibration: Calibration
    mean: np.ndarray
    scale: np.ndarray
    layers: tuple[Layer, ...]
    scope: Layer
    scope_threshold: float
    point: operating.OperatingPoint
    lexicon_floor: float | None

    @property
    def within_budget(self) -> bool:
        return self.point.false_persist <= self.calibration.config.max_false_persist + 1e-12


def _refit(
    calibration: Calibration, features: np.ndarray, rows: Sequence[CorpusRow], contract: Contract | None
) -> _Fitted:
    config = calibration.config
    mean, scale = _standardiser(features)
    x = (features - mean) / scale
    y = _labels(rows)
    layers = fit_model(x, y, _class_weights(y, [r.source for r in rows]), config)
    scope, scope_threshold = _fit_scope(x, rows, config)
    point = calibration.point
    if config.lexicon_override and contract is not None and len(contract.texts):
        # The contract is read by the final model, at the temperature the folds calibrated.
        contract_features = feature_matrix(list(contract.texts), contract.vectors, config.ngram_buckets)
        standardised = ((contract_features - mean) / scale).astype(np.float32)
        p_persist = softmax(forward(layers, standardised) / calibration.temperature)[:, CLASSES.index("persist")]
        lexicon = lexicon_says_persist(contract_features, contract.vectors.shape[1])
        holds = operating.contract_holds(calibration.curve, p_persist, lexicon)
        point = operating.choose(calibration.curve, config.max_false_persist, holds)
        z_scope = (standardised @ scope.weight + scope.bias)[:, 0]
        p_project = np.exp(-np.logaddexp(0.0, -z_scope))
        scopes = [contract.scope_of(i) for i in range(len(contract.texts))]
        scope_threshold = operating.scope_threshold(p_project, scopes, scope_threshold)
    floor = point.floor if config.lexicon_override else None
    return _Fitted(calibration, mean, scale, layers, scope, scope_threshold, point, floor)


def train(
    rows: Sequence[CorpusRow],
    vectors: np.ndarray,
    config: TrainConfig | Sequence[TrainConfig],
    embedder: str,
    meta: dict[str, object] | None = None,
    matrices: dict[int, np.ndarray] | None = None,
    contract: Contract | None = None,
) -> AdmissionWeights:
    """Fit on `rows`. Given several configurations, the one whose out-of-fold predictions (sources as
    folds) score best is kept: the choice never sees anything outside `rows`. `matrices` are the
    rows' features when already computed (`feature_matrices`). The operating point must keep every
    `contract` message persisted (see `admission_operating`); a configuration whose point stays within
    the false-persist budget under the contract is preferred to one the contract pushes past it (then
    the one it pushes least)."""
    candidates = [config] if isinstance(config, TrainConfig) else list(config)
    matrices = matrices or feature_matrices(rows, vectors, candidates)
    calibrations = [calibrate(matrices[c.ngram_buckets], rows, c) for c in candidates]
    fitted = [_refit(c, matrices[c.config.ngram_buckets], rows, contract) for c in calibrations]
    within = [f for f in fitted if f.within_budget]
    if within:  # the first of equals: the order is the preference
        pick = max(within, key=lambda f: f.calibration.objective)
    else:
        pick = min(fitted, key=lambda f: (f.point.false_persist, -f.calibration.objective))
    best, chosen, point = pick.calibration, pick.calibration.config, pick.point
    mean, scale, layers, scope = pick.mean, pick.scale, pick.layers, pick.scope
    scope_threshold, lexicon_floor = pick.scope_threshold, pick.lexicon_floor
    strict = operating.choose(best.curve, min(PRECISION_FIRST, chosen.max_false_persist), stricter_than=point)
    record = dict(meta or {})
    record["selection"] = [
        {
            "config": f.calibration.config.label(),
            "objective": round(f.calibration.objective, 4),
            "persist_recall": round(f.calibration.persist_recall, 4),
            "false_persist": round(f.calibration.false_persist, 4),
            "underspecified_recall": round(f.calibration.underspecified_recall, 4),
            "false_persist_under_contract": round(f.point.false_persist, 4),
            "within_budget": f.within_budget,
        }
        for f in fitted
    ]
    record["chosen"] = chosen.label()
    record["operating_point"] = {
        "threshold": point.threshold,
        "lexicon_floor": point.floor,
        "false_persist_out_of_fold": round(point.false_persist, 4),
        "persist_recall_out_of_fold": round(point.persist_recall, 4),
        "contract": 0 if contract is None else len(contract.texts),
        "scope_threshold": scope_threshold,
    }
    record["precision_first_threshold"] = strict.threshold
    record["precision_first_floor"] = strict.floor
    record["precision_first_false_persist_out_of_fold"] = round(strict.false_persist, 4)
    return AdmissionWeights(
        embedder=embedder,
        feature_names=feature_names(vectors.shape[1], chosen.ngram_buckets),
        mean=mean,
        scale=scale,
        layers=layers,
        temperature=best.temperature,
        persist_threshold=point.threshold,
        scope=scope,
        scope_threshold=scope_threshold,
        lexicon_override=chosen.lexicon_override,
        lexicon_floor=lexicon_floor,
        meta=record,
    )
