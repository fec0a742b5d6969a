"""Training the selection scorer on the selection corpus (numpy + the MiniLM embedder).

One command, fixed seed: `heedful bench selection --train` writes `rules/data/selection_model.json`
and `rules/data/selection_cues.bin`. Steps:

1. The vocabulary is every whole word of the MiniLM tokenizer plus the words of the training
   texts; each word is embedded alone by MiniLM.
2. One logistic classifier per facet reads the mean word vector of a text (rules and tasks share
   the classifier, with their own bias); projecting each word's vector onto the classifier gives
   the word's cue, so the shipped table holds one int8 per word and facet, and a text's facet
   logit at run time is the mean of its words' cues plus the bias.
3. The pair scorer (logistic over facet agreement, keyword overlap and, on the API path, cosine)
   is fitted on (task, rule) pairs whose facet readings come from classifiers that did not see
   that text (5-fold cross-fitting), and its threshold is the best F2 (recall weighs four times
   precision) on those pairs. A rule read as governing every answer skips the pair scorer.
4. With the corpus embeddings (the service path): a ridge read-out of the whole text's MiniLM
   embedding per facet, cross-fitted on the same folds, is mixed with the cue logit by a per-facet
   logistic fitted on the held-out logits of both; the service's pair scorer is fitted on those
   mixed readings, the hook's on the cue readings alone, and the hook's scorer for stored readings
   (`stored_weights`) on mixed rule readings against cue task readings: the hook reads a rule once,
   with its embedding, when it is learned (`heedful.rules.selection_readings`), but a task from its words.
"""

from __future__ import annotations

import json
import re
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from heedful.rules.facets import answer_form
from heedful.rules.facets import facets as lexicon
from heedful.rules.selection_corpus import Corpus, RuleItem, TaskItem
from heedful.rules.selection_model import (
    CODE,
    EVERY,
    CueTable,
    Reading,
    SelectionModel,
    SentenceReader,
    Weights,
    overlap,
    pair_features,
    stem,
    tokens,
    with_general_reach,
)

SEED = 13
BETA = 2.0  # recall weighs four times precision: a missed rule costs more than an extra line
DIMENSIONS = 64
FACET_L2 = 0.01
TOPICAL_FEATURES = ("facet_max", "facet_sum", "facet_any", "keyword", "cosine", "language_match", "lexicon")
HOOK_FEATURES = ("facet_max", "facet_sum", "facet_any", "keyword", "language_match", "lexicon")
SENTENCE_L2 = 1.0  # ridge penalty of the embedding read-outs (unit vectors, a few hundred texts)
SENTENCE_L2_GRID = (0.1, 0.3, 1.0, 3.0, 10.0)  # chosen per training set by cross-fitted error
TOKENIZER = Path(__file__).resolve().parents[1] / "embed" / "data" / "tokenizer.json"


@dataclass
class WordVectors:
    """Unit MiniLM vectors of single words, rows aligned with the sorted `words`."""

    words: list[str]
    vectors: np.ndarray

    def index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}


def vocabulary(texts: list[str]) -> list[str]:
    raw = json.loads(TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
    words = {w for w in raw if re.fullmatch(r"[a-z][a-z]+", w)}
    for text in texts:
        words.update(tokens(text))
    return sorted(words)


def embed_words(embedder: Any, words: list[str], cache: Path | None = None) -> WordVectors:
    """Single-word MiniLM vectors, centred (the direction all words share carries no facet) and
    reduced to their leading principal directions. Vectors are cached on disk per embedder, since
    embedding twenty thousand words takes a minute or more; only new words are embedded."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", str(getattr(embedder, "name", type(embedder).__name__)))
    path = (cache or Path.home() / ".cache" / "heedful") / f"selection-words-{name}.npz"
    known: dict[str, np.ndarray] = {}
    if path.exists():
        stored = np.load(path)
        known = dict(zip(stored["words"].tolist(), stored["vectors"], strict=True))
    missing = [w for w in words if w not in known]
    if missing:
        known.update(zip(missing, np.asarray(embedder.embed(missing), dtype=np.float32), strict=True))
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, words=np.array(list(known)), vectors=np.vstack(list(known.values())))
    vectors = np.vstack([known[w] for w in words])
    centred = vectors - vectors.mean(axis=0)
    # the leading principal directions of the vocabulary: enough for a few dozen facets, and a
    # classifier of this width fits a few hundred labelled texts without memorising them
    _, _, basis = np.linalg.svd(centred[:: max(1, len(words) // 8000)], full_matrices=False)
    return WordVectors(words, (centred @ basis[:DIMENSIONS].T).astype(np.float32))


@dataclass
class Pool:
    """Texts as the run-time reader sees them: the mean word vector (unknown words count as zeros)
    and the table rows of the known words (for the strongest cue per facet)."""

    means: np.ndarray
    rows: list[np.ndarray]
    answer_form: np.ndarray  # 1 where the text speaks about the form of answers

    def subset(self, mask: np.ndarray) -> Pool:
        return Pool(self.means[mask], [r for r, m in zip(self.rows, mask, strict=True) if m], self.answer_form[mask])

    @staticmethod
    def concat(a: Pool, b: Pool) -> Pool:
        return Pool(np.vstack([a.means, b.means]), a.rows + b.rows, np.r_[a.answer_form, b.answer_form])


def pool(texts: list[str], table: WordVectors) -> Pool:
    index = table.index()
    means = np.zeros((len(texts), table.vectors.shape[1]), dtype=np.float32)
    rows = []
    for i, text in enumerate(texts):
        words = tokens(text)
        known = np.array([r for r in (index.get(w, index.get(stem(w), -1)) for w in words) if r >= 0], dtype=int)
        rows.append(known)
        if words and len(known):
            means[i] = table.vectors[known].sum(axis=0) / len(words)
    return Pool(means, rows, np.array([answer_form(t) for t in texts], dtype=float))


def peaks(texts: Pool, table: WordVectors, directions: np.ndarray) -> np.ndarray:
    """The strongest cue of each facet among a text's known words (0 when it has none)."""
    out = np.zeros((len(texts.rows), len(directions)))
    for i, rows in enumerate(texts.rows):
        if len(rows):
            cues = table.vectors[rows] @ directions.T
            out[i] = np.maximum(cues.max(axis=0), 0.0)
    return out


def fit_logistic(
    x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 25, balanced: bool = False
) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method (optionally with balanced class weights)."""
    n, d = x.shape
    pos = max(float(y.sum()), 1.0)
    neg = max(float(n - y.sum()), 1.0)
    sample = np.where(y > 0, n / (2 * pos), n / (2 * neg)) if balanced else np.ones(n)
    design = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(design @ w, -30, 30)))
        grad = design.T @ (sample * (p - y)) + reg * w
        hess = (design * (sample * p * (1 - p))[:, None]).T @ design + np.diag(reg + 1e-6)
        w -= np.linalg.solve(hess, grad)
    return w[:-1], float(w[-1])


@dataclass
class FacetReader:
    """logit = mean_weight * mean cue + peak_weight * strongest cue + bias (rule or task)."""

    facets: list[str]
    directions: np.ndarray  # (facets, dim)
    mean_weight: np.ndarray
    peak_weight: np.ndarray
    rule_bias: np.ndarray
    task_bias: np.ndarray
    answer_form_weight: float

    def logits(self, texts: Pool, table: WordVectors, is_task: bool) -> np.ndarray:
        mean = texts.means @ self.directions.T
        peak = peaks(texts, table, self.directions)
        bias = self.task_bias if is_task else self.rule_bias
        out = self.mean_weight * mean + self.peak_weight * peak + bias
        if not is_task:
            out[:, 0] += self.answer_form_weight * texts.answer_form
        return out


def fit_facets(
    facets: list[str],
    table: WordVectors,
    rule_texts: Pool,
    rules: list[RuleItem],
    task_texts: Pool,
    tasks: list[TaskItem],
) -> FacetReader:
    """Directions from the mean word vectors, then each facet's mix of mean and strongest cue."""
    k_count = len(facets)
    directions = np.zeros((k_count, rule_texts.means.shape[1]))
    every = np.array([EVERY in r.governs for r in rules], dtype=float)
    both = Pool.concat(rule_texts, task_texts)
    is_task = np.r_[np.zeros(len(rules)), np.ones(len(tasks))][:, None]
    labels = {
        f: np.r_[[f in r.governs for r in rules], [f in t.involves for t in tasks]].astype(float)
        for f in facets
        if f != EVERY
    }
    for k, facet in enumerate(facets):
        if facet == EVERY:
            directions[k], _ = fit_logistic(rule_texts.means, every, l2=FACET_L2)
        else:
            w, _ = fit_logistic(np.hstack([both.means, is_task]), labels[facet], l2=FACET_L2)
            directions[k] = w[:-1]
    mean = both.means @ directions.T
    peak = peaks(both, table, directions)
    mean_weight, peak_weight = np.zeros(k_count), np.zeros(k_count)
    rule_bias, task_bias = np.zeros(k_count), np.full(k_count, -30.0)
    answer_weight = 0.0
    for k, facet in enumerate(facets):
        if facet == EVERY:
            n = len(rules)
            w, b = fit_logistic(np.c_[mean[:n, k], peak[:n, k], rule_texts.answer_form], every, l2=1e-3)
            mean_weight[k], peak_weight[k], rule_bias[k], answer_weight = w[0], w[1], b, float(w[2])
            continue
        w, b = fit_logistic(np.c_[mean[:, k], peak[:, k], is_task], labels[facet], l2=1e-3)
        mean_weight[k], peak_weight[k], rule_bias[k], task_bias[k] = w[0], w[1], b, b + w[2]
    return FacetReader(facets, directions, mean_weight, peak_weight, rule_bias, task_bias, answer_weight)


def cross_fitted_logits(
    facets: list[str],
    table: WordVectors,
    rule_texts: Pool,
    rules: list[RuleItem],
    task_texts: Pool,
    tasks: list[TaskItem],
    folds: int = 5,
) -> tuple[np.ndarray, np.ndarray]:
    """Facet logits of every training text from readers that did not see it."""
    rule_fold, task_fold = fold_ids(len(rules), len(tasks), folds)
    rule_out = np.zeros((len(rules), len(facets)))
    task_out = np.zeros((len(tasks), len(facets)))
    for f in range(folds):
        r_in, t_in = rule_fold != f, task_fold != f
        reader = fit_facets(
            facets,
            table,
            rule_texts.subset(r_in),
            [r for r, m in zip(rules, r_in, strict=True) if m],
            task_texts.subset(t_in),
            [t for t, m in zip(tasks, t_in, strict=True) if m],
        )
        rule_out[~r_in] = reader.logits(rule_texts.subset(~r_in), table, is_task=False)
        task_out[~t_in] = reader.logits(task_texts.subset(~t_in), table, is_task=True)
    return rule_out, task_out


def fold_ids(rules: int, tasks: int, folds: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The cross-fitting fold of each rule and task (seed fixed)."""
    rng = np.random.default_rng(SEED)
    return rng.integers(0, folds, rules), rng.integers(0, folds, tasks)


def _ridge(x: np.ndarray, y: np.ndarray, l2: float = SENTENCE_L2) -> np.ndarray:
    """Least squares with an L2 penalty (the last column of `x` is the unpenalised intercept)."""
    reg = np.full(x.shape[1], l2)
    reg[-1] = 0.0
    return np.linalg.solve(x.T @ x + np.diag(reg), x.T @ y)


def _sentence_scores(
    r_train: np.ndarray, rule_y: np.ndarray, t_train: np.ndarray, task_y: np.ndarray, l2: float = SENTENCE_L2
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Linear read-outs of the embedding, all facets at once: (weights (dim, F), intercepts, task shifts).
    The every-answer column is fitted on rules alone (tasks have no such label)."""
    ones_r, ones_t = np.ones((len(r_train), 1)), np.ones((len(t_train), 1))
    x = np.vstack([np.hstack([r_train, np.zeros_like(ones_r), ones_r]), np.hstack([t_train, ones_t, ones_t])])
    beta = _ridge(x, np.vstack([rule_y, task_y]), l2)
    every = _ridge(np.hstack([r_train, ones_r]), rule_y[:, :1], l2)
    beta[:, 0] = 0.0
    beta[:-2, 0], beta[-1, 0] = every[:-1, 0], every[-1, 0]
    return beta[:-2], beta[-1], beta[-2]


def fit_sentence(
    facets: list[str],
    rules: list[RuleItem],
    tasks: list[TaskItem],
    rule_vectors: dict[str, np.ndarray],
    task_vectors: dict[str, np.ndarray],
    rule_cues: np.ndarray,
    task_cues: np.ndarray,
) -> tuple[SentenceReader, np.ndarray, np.ndarray]:
    """The sentence reader, and the mixed logits of every training text from read-outs that did not see it.

    `rule_cues` / `task_cues` are the cross-fitted per-word cue logits (same folds)."""
    r_vec = np.vstack([rule_vectors[r.id] for r in rules]).astype(float)
    t_vec = np.vstack([task_vectors[t.id] for t in tasks]).astype(float)
    rule_y = np.array([[f in r.governs for f in facets] for r in rules], dtype=float)
    task_y = np.array([[f != EVERY and f in t.involves for f in facets] for t in tasks], dtype=float)
    rule_fold, task_fold = fold_ids(len(rules), len(tasks))
    best: tuple[float, float, np.ndarray, np.ndarray] | None = None
    for l2 in SENTENCE_L2_GRID:  # the penalty with the least held-out squared error, within the training texts
        r_score, t_score = np.zeros(rule_y.shape), np.zeros(task_y.shape)
        for f in range(int(max(rule_fold.max(initial=0), task_fold.max(initial=0))) + 1):
            r_in, t_in = rule_fold != f, task_fold != f
            w, c, shift = _sentence_scores(r_vec[r_in], rule_y[r_in], t_vec[t_in], task_y[t_in], l2)
            r_score[~r_in] = r_vec[~r_in] @ w + c
            t_score[~t_in] = t_vec[~t_in] @ w + c + shift
        error = float(((r_score - rule_y) ** 2).mean() + ((t_score - task_y)[:, 1:] ** 2).mean())
        if best is None or error < best[0]:
            best = (error, l2, r_score, t_score)
    assert best is not None
    _, l2, r_score, t_score = best
    k_count = len(facets)
    cue_mix, sentence_mix = np.zeros(k_count), np.zeros(k_count)
    mix_rule, mix_task = np.zeros(k_count), np.full(k_count, -30.0)
    is_task = np.r_[np.zeros(len(rules)), np.ones(len(tasks))]
    for k, facet in enumerate(facets):
        if facet == EVERY:
            w, b = fit_logistic(np.c_[rule_cues[:, k], r_score[:, k]], rule_y[:, k], l2=1e-3)
            cue_mix[k], sentence_mix[k], mix_rule[k] = w[0], w[1], b
            continue
        x = np.c_[np.r_[rule_cues[:, k], task_cues[:, k]], np.r_[r_score[:, k], t_score[:, k]], is_task]
        w, b = fit_logistic(x, np.r_[rule_y[:, k], task_y[:, k]], l2=1e-3)
        cue_mix[k], sentence_mix[k], mix_rule[k], mix_task[k] = w[0], w[1], b, b + w[2]
    rule_mixed = cue_mix * rule_cues + sentence_mix * r_score + mix_rule
    task_mixed = cue_mix * task_cues + sentence_mix * t_score + mix_task
    # the shipped read-out is fitted on every text; its intercepts move into the mix's biases
    w, c, shift = _sentence_scores(r_vec, rule_y, t_vec, task_y, l2)
    reader = SentenceReader(
        tuple(tuple(float(v) for v in row) for row in w.T),
        tuple(float(v) for v in cue_mix),
        tuple(float(v) for v in sentence_mix),
        tuple(float(v) for v in mix_rule + sentence_mix * c),
        tuple(float(v) for v in np.where(mix_task <= -30.0, -30.0, mix_task + sentence_mix * (c + shift))),
    )
    return reader, rule_mixed, task_mixed


def _readings(
    logits: np.ndarray, texts: list[str], is_task: bool, langs: list[frozenset[str]], code: int
) -> list[Reading]:
    """Readings as the run-time model makes them (rules get the general-habit default)."""
    probs = 1 / (1 + np.exp(-np.clip(logits, -30, 30)))
    out = []
    for row, text, lang in zip(probs, texts, langs, strict=True):
        facets = tuple(float(p) for p in row)
        if is_task:
            facets = (0.0, *facets[1:])
        else:
            # not `with_answer_form`: fitted without the rules the lexicon reads as answer-wide (the easiest
            # positives), the pair scorer's threshold grew stricter and a left-out library lost recall
            facets = tuple(with_general_reach(list(facets), code))
        out.append(Reading(facets, lang, frozenset(stem(w) for w in tokens(text)), lexicon(text, task=is_task)))
    return out


def fit_pair_scorer(
    names: tuple[str, ...], rows: list[dict[str, float]], labels: list[bool], every_threshold: float
) -> Weights:
    x = np.array([[row[n] for n in names] for row in rows], dtype=float)
    y = np.array(labels, dtype=float)
    w, b = fit_logistic(x, y, l2=0.1, steps=40)
    scores = 1 / (1 + np.exp(-np.clip(x @ w + b, -30, 30)))
    return Weights(names, tuple(float(v) for v in w), b, best_threshold(scores, y), every_threshold)


def best_threshold(scores: np.ndarray, y: np.ndarray, beta: float = BETA) -> float:
    """The score threshold with the best F-beta on the training pairs (beta > 1 favours recall)."""
    order = np.argsort(-scores)
    hits = np.cumsum(y[order])
    precision = hits / np.arange(1, len(y) + 1)
    recall = hits / max(float(y.sum()), 1.0)
    f = (1 + beta**2) * precision * recall / np.maximum(beta**2 * precision + recall, 1e-9)
    return float(scores[order][int(np.argmax(f))]) if len(y) else 0.5


def train(
    corpus: Corpus,
    table: WordVectors,
    rules: list[RuleItem],
    tasks: list[TaskItem],
    rule_vectors: dict[str, np.ndarray] | None = None,
    task_vectors: dict[str, np.ndarray] | None = None,
) -> SelectionModel:
    """A model trained on `rules` x `tasks` only (the leave-one-source-out folds pass subsets)."""
    facets = [EVERY, *corpus.activities]
    rule_texts = pool([r.matching_text for r in rules], table)
    task_texts = pool([t.text for t in tasks], table)
    reader = fit_facets(facets, table, rule_texts, rules, task_texts, tasks)
    rule_logits, task_logits = cross_fitted_logits(facets, table, rule_texts, rules, task_texts, tasks)
    code = facets.index(CODE) if CODE in facets else -1
    rule_read = _readings(rule_logits, [r.matching_text for r in rules], False, [r.named for r in rules], code)
    task_read = _readings(task_logits, [t.text for t in tasks], True, [t.available for t in tasks], code)
    hook_weights = _pair_scorer(corpus, HOOK_FEATURES, rules, tasks, rule_read, task_read)
    sentence = None
    weights = hook_weights
    stored_weights = None
    if rule_vectors is not None and task_vectors is not None:
        sentence, rule_mixed, task_mixed = fit_sentence(
            facets, rules, tasks, rule_vectors, task_vectors, rule_logits, task_logits
        )
        rule_read = _readings(rule_mixed, [r.matching_text for r in rules], False, [r.named for r in rules], code)
        # the hook: rules read once with their embedding (stored at learning time), tasks from their words
        stored_weights = _pair_scorer(corpus, HOOK_FEATURES, rules, tasks, rule_read, task_read)
        task_read = _readings(task_mixed, [t.text for t in tasks], True, [t.available for t in tasks], code)
        cosines = np.vstack([task_vectors[t.id] for t in tasks]) @ np.vstack([rule_vectors[r.id] for r in rules]).T
        weights = _pair_scorer(corpus, TOPICAL_FEATURES, rules, tasks, rule_read, task_read, cosines)
    return SelectionModel(
        facets,
        [float(b) for b in reader.rule_bias],
        [float(b) for b in reader.task_bias],
        cue_table(reader, table),
        weights,
        hook_weights,
        [float(w) for w in reader.mean_weight],
        [float(w) for w in reader.peak_weight],
        reader.answer_form_weight,
        sentence,
        stored_weights,
    )


def _pair_scorer(
    corpus: Corpus,
    names: tuple[str, ...],
    rules: list[RuleItem],
    tasks: list[TaskItem],
    rule_read: list[Reading],
    task_read: list[Reading],
    cosines: np.ndarray | None = None,
) -> Weights:
    """The pair scorer over held-out readings; the language gate and every-answer rules decide their own pairs."""
    every_probs = np.array([r.facets[0] for r in rule_read])
    every_threshold = _every_threshold(every_probs, np.array([EVERY in r.governs for r in rules]))
    rows: list[dict[str, float]] = []
    labels: list[bool] = []
    for i, (task, t_read) in enumerate(zip(tasks, task_read, strict=True)):
        for j, (rule, r_read) in enumerate(zip(rules, rule_read, strict=True)):
            if r_read.languages and t_read.languages and not r_read.languages & t_read.languages:
                continue
            if r_read.facets[0] >= every_threshold:
                continue
            cosine = float(cosines[i, j]) if cosines is not None else 0.0
            rows.append(pair_features(r_read, t_read, overlap(r_read.words, t_read.words), cosine))
            labels.append(corpus.relevant(task, rule))
    return fit_pair_scorer(names, rows, labels, every_threshold)


def _every_threshold(probs: np.ndarray, gold: np.ndarray) -> float:
    """The lowest threshold that keeps false 'every' readings at most a tenth of the true ones."""
    best = 0.5
    for threshold in np.linspace(0.95, 0.2, 16):
        chosen = probs >= threshold
        if (chosen & ~gold).sum() <= max(1, 0.1 * (chosen & gold).sum()):
            best = float(threshold)
    return best


def cue_table(reader: FacetReader, table: WordVectors, keep: float = 0.02) -> CueTable:
    """Each word's projection on each facet direction, int8 with a per-facet scale."""
    cues = table.vectors @ reader.directions.T  # (words, facets)
    scales = np.maximum(np.abs(cues).max(axis=0), 1e-6) / 127.0
    quantised = np.clip(np.round(cues / scales), -127, 127).astype(np.int8)
    strong = np.abs(cues).max(axis=1) >= keep * np.abs(cues).max()
    words = [w for w, s in zip(table.words, strong, strict=True) if s]
    flat = array("b")
    flat.frombytes(quantised[strong].tobytes())
    return CueTable(words, flat, [float(s) for s in scales])


def save(model: SelectionModel, directory: Path, summary: dict[str, Any]) -> None:
    def weights(w: Weights) -> dict[str, Any]:
        return {
            "names": list(w.names),
            "values": [round(v, 5) for v in w.values],
            "bias": round(w.bias, 5),
            "threshold": round(w.threshold, 5),
            "every_threshold": round(w.every_threshold, 5),
        }

    directory.mkdir(parents=True, exist_ok=True)
    body = {
        "facets": model.facet_names,
        "rule_bias": [round(b, 5) for b in model.rule_bias],
        "mean_weight": [round(w, 5) for w in model.mean_weight],
        "peak_weight": [round(w, 5) for w in model.peak_weight],
        "answer_form_weight": round(model.answer_form_weight, 5),
        "task_bias": [round(b, 5) for b in model.task_bias],
        "weights": weights(model.weights),
        "hook_weights": weights(model.hook_weights),
        "stored_weights": weights(model.stored_weights),
        "trained_on": summary,
    }
    (directory / "selection_model.json").write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    (directory / "selection_cues.bin").write_bytes(model.cues.to_bytes())
    if model.sentence is not None:
        text = json.dumps(model.sentence.to_json(), separators=(",", ":")) + "\n"
        (directory / "selection_sentence.json").write_text(text, encoding="utf-8")
