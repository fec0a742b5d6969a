"""The learned selection scorer: which rules apply to a task, read from words alone (pure Python).

Both selectors use it: `heedful.rules.select` (API, CLI, MCP; adds the embedding cosine) and
`heedful.enforce.select` (the UserPromptSubmit hook: stdlib only, no embedder). A text is read
into activity facets (committing, installing, deleting, writing shell, ...) through a table of
per-word cues: each cue is a word's MiniLM embedding projected onto a facet classifier trained on
the selection corpus, so words the corpus never used still carry meaning ("purge" cues deleting).
A rule applies to a task when

- it names a language or platform, the task or project uses one, and they do not meet: never;
- it governs every answer (length, language, format, tone): always, and first in the hook's budget;
- otherwise a logistic scorer over facet agreement, keyword overlap and cosine clears its threshold.

On the service path, which has the embedder, the facets are read from the whole text as well: a
linear read-out of the text's MiniLM embedding per facet (`SentenceReader`, shipped as
`selection_sentence.json` and loaded only by `load_service_model`) is mixed with the per-word cue
logit, so "ship it" can read as committing and releasing although no single word says so. The hook
path reads words alone and stays stdlib-only.

A rule's reach (`SelectionModel.reach`) is read once per text and cached: `every_answer`,
`every_code_change` (a general coding habit: naming, comments, types, small diffs; shown for every
coding task in a block of its own, before topical rules claim the rest of the hook's budget) or `topical` (an
activity: committing, installing, deleting, writing shell ...). A rule that reads as no particular
activity and not as the form of answers is taken for a general coding habit: the libraries of coding
agents are mostly that, and a missed habit costs more than an extra line.

Worked example (the shipped model)::

    >>> model = load_model()
    >>> task = model.read_task("nuke the old uploads dir")
    >>> model.decide(model.read_rule("Ask before deleting any file."), task).applies
    True
    >>> model.decide(model.read_rule("Keep answers under 100 words."), task).kind
    'every'
    >>> model.reach(model.read_rule("Avoid global state at almost all cost."))
    'every_code_change'

Train with `heedful bench selection --train` (see `heedful.rules.selection_train`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from heedful.rules.facets import answer_form, facets, governs_every_answer, languages

DATA_DIR = Path(__file__).resolve().parent / "data"
MODEL_FILE = "selection_model.json"
CUES_FILE = "selection_cues.bin"
SENTENCE_FILE = "selection_sentence.json"
EVERY = "every"
CODE = "code"
GENERAL_FLOOR = 0.3  # below this for every activity (and not every answer), a rule is a general coding habit
GENERAL_CODE = 0.9  # the code reading given to such a rule
ANSWER_FORM_EVERY = 0.95  # the every-answer reading of a rule the answer-form lexicon reads as one
_WORD = re.compile(r"[a-z][a-z0-9+#]*")
_SUFFIXES = ("ing", "ed", "es", "s")
STOPWORDS = frozenset(
    "a an the and or but if then so to of in on at by for with from as is are was were be been it its this that"
    " these those there here i me my we our you your please always never dont don't do does did not no make sure"
    " should must can could would will just also any all every each some when whenever instead than into about"
    " up out over only them they he she his her what which who how why where very really too like get got"
    " let lets ok okay hey thanks".split()
)


def tokens(text: str) -> list[str]:
    """Lower-case content words, stopwords dropped."""
    return [w for w in _WORD.findall(text.lower().replace("'", "")) if len(w) > 1 and w not in STOPWORDS]


def stem(word: str) -> str:
    if len(word) > 4:
        for suffix in _SUFFIXES:
            if word.endswith(suffix):
                return word[: -len(suffix)]
    return word


@dataclass(frozen=True)
class Reading:
    """What the scorer knows about one text (a rule or a task)."""

    facets: tuple[float, ...]  # probability of each activity facet (rules: the first is EVERY)
    languages: frozenset[str]
    words: frozenset[str]  # stems, for keyword overlap
    lexicon: frozenset[str] = frozenset()  # activities named in the hand-written facet lexicon


@dataclass(frozen=True)
class Decision:
    applies: bool
    kind: str  # "every", "code" (a general coding habit), "topical", "language", "unrelated"
    score: float
    why: str


@dataclass(frozen=True)
class Weights:
    """The pair scorer: logistic weights over `pair_features`, and its thresholds."""

    names: tuple[str, ...]
    values: tuple[float, ...]
    bias: float
    threshold: float
    every_threshold: float


class CueTable:
    """Per-word facet cues (int8, one row per word), words sorted for bisect look-up."""

    def __init__(self, words: list[str], cues: array, scales: list[float]) -> None:
        self.words = words
        self.cues = cues
        self.scales = scales
        self.width = len(scales)
        self._index: dict[str, int] | None = None

    @classmethod
    def from_bytes(cls, blob: bytes) -> CueTable:
        header_end = blob.index(b"\n")
        header = json.loads(blob[:header_end])
        words_end = header_end + 1 + int(header["words_bytes"])
        words = blob[header_end + 1 : words_end].decode("utf-8").split("\n")
        cues = array("b")
        cues.frombytes(blob[words_end:])
        return cls(words, cues, [float(s) for s in header["scales"]])

    def to_bytes(self) -> bytes:
        words = "\n".join(self.words).encode("utf-8")
        header = json.dumps({"words_bytes": len(words), "scales": self.scales}).encode("utf-8")
        return header + b"\n" + words + self.cues.tobytes()

    def row(self, word: str) -> int:
        """Row index of `word` (or its stem), -1 when unknown."""
        if self._index is not None:
            found = self._index.get(word)
            return self._index.get(stem(word), -1) if found is None else found
        # a hook reads one task per process: a few bisects cost less than indexing 22k words
        found = self._find(word)
        return self._find(stem(word)) if found < 0 else found

    def _find(self, word: str) -> int:
        i = bisect_left(self.words, word)
        return i if i < len(self.words) and self.words[i] == word else -1

    def index_all(self) -> None:
        """Index every word (for a process that reads many texts: training, the benchmark, the service)."""
        if self._index is None:
            self._index = dict(zip(self.words, range(len(self.words)), strict=True))

    def pool(self, words: list[str]) -> tuple[list[float], list[float]]:
        """Mean cue over `words` (unknown words count as zeros) and the strongest positive cue, per facet."""
        width = self.width
        total = [0] * width
        peak = [0] * width
        for word in words:
            i = self.row(word)
            if i >= 0:
                row = self.cues[i * width : (i + 1) * width]
                total = list(map(int.__add__, total, row))
                peak = list(map(max, peak, row))
        n = max(len(words), 1)
        return (
            [t * scale / n for t, scale in zip(total, self.scales, strict=True)],
            [p * scale for p, scale in zip(peak, self.scales, strict=True)],
        )


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -500.0 else 0.0


def with_answer_form(probs: list[float], text: str) -> list[float]:
    """A rule's facet reading with the answer-form lexicon applied: a rule about the form of every answer
    (length, language, tone, format) is read as one whatever the learned reader says, since it learns that
    reading from the few such rules of its training libraries (`facets.governs_every_answer`)."""
    if probs[0] < ANSWER_FORM_EVERY and governs_every_answer(text):
        probs = list(probs)
        probs[0] = ANSWER_FORM_EVERY
    return probs


def with_general_reach(probs: list[float], code: int) -> list[float]:
    """A rule's facet reading with the general-habit default applied (see the module docstring)."""
    if code < 0 or probs[0] >= 0.5:
        return probs
    if max((p for i, p in enumerate(probs) if i not in (0, code)), default=0.0) < GENERAL_FLOOR:
        probs = list(probs)
        probs[code] = max(probs[code], GENERAL_CODE)
    return probs


def pair_features(rule: Reading, task: Reading, keyword: float, cosine: float) -> dict[str, float]:
    """Features of one (rule, task) pair, before the language gate."""
    products = [r * t for r, t in zip(rule.facets[1:], task.facets[1:], strict=True)]
    missed = 1.0
    for p in products:
        missed *= 1.0 - p
    return {
        "facet_max": max(products) if products else 0.0,
        "facet_sum": min(sum(products), 2.0),
        "facet_any": 1.0 - missed,  # the chance that some activity is both governed and involved
        "keyword": keyword,
        "cosine": cosine,
        "every": rule.facets[0],
        "language_match": 1.0 if rule.languages and rule.languages & task.languages else 0.0,
        "lexicon": 1.0 if rule.lexicon & task.lexicon else 0.0,
    }


@dataclass(frozen=True)
class SentenceReader:
    """The service path's facet reading from a whole text: a linear read-out of its MiniLM embedding
    per facet, mixed with the per-word cue logit by a small logistic fitted on held-out readings.

    logit_k = cue_mix_k * cue_logit_k + sentence_mix_k * (embedding . weights_k) + bias_k (rule or task)
    """

    weights: tuple[tuple[float, ...], ...]  # (facets, embedding dimensions)
    cue_mix: tuple[float, ...]
    sentence_mix: tuple[float, ...]
    rule_bias: tuple[float, ...]
    task_bias: tuple[float, ...]
    embedder: str = ""  # the embedder it was trained on ("" when not recorded)

    def reads(self, vector: Sequence[float], embedder: str | None = None) -> bool:
        """Whether `vector` is one this reader was trained on: same width, and same embedder when named."""
        width = len(self.weights[0]) if self.weights else 0
        return len(vector) == width and (embedder is None or not self.embedder or embedder == self.embedder)

    @cached_property
    def _matrix(self) -> Any:
        import numpy as np  # the service path only: the hook never passes an embedding

        return np.asarray(self.weights, dtype=np.float32)

    def logits(self, cue_logits: list[float], vector: Sequence[float], is_task: bool) -> list[float]:
        import numpy as np

        sentence = (self._matrix @ np.asarray(vector, dtype=np.float32)).tolist()
        bias = self.task_bias if is_task else self.rule_bias
        return [
            a * c + b * s + z
            for a, c, b, s, z in zip(self.cue_mix, cue_logits, self.sentence_mix, sentence, bias, strict=True)
        ]

    @classmethod
    def from_json(cls, raw: dict[str, object]) -> SentenceReader:
        def floats(key: str) -> tuple[float, ...]:
            return tuple(float(v) for v in raw[key])  # type: ignore[attr-defined]

        rows = tuple(tuple(float(v) for v in row) for row in raw["weights"])  # type: ignore[attr-defined]
        parts = (floats("cue_mix"), floats("sentence_mix"), floats("rule_bias"), floats("task_bias"))
        return cls(rows, *parts, embedder=str(raw.get("embedder") or ""))

    def to_json(self) -> dict[str, object]:
        return {
            "weights": [[round(v, 4) for v in row] for row in self.weights],
            "cue_mix": [round(v, 5) for v in self.cue_mix],
            "sentence_mix": [round(v, 5) for v in self.sentence_mix],
            "rule_bias": [round(v, 5) for v in self.rule_bias],
            "task_bias": [round(v, 5) for v in self.task_bias],
            "embedder": self.embedder,
        }


class SelectionModel:
    """Facet readers (per-facet biases over the cue table) and the pair scorer."""

    def __init__(
        self,
        facet_names: list[str],
        rule_bias: list[float],
        task_bias: list[float],
        cues: CueTable,
        weights: Weights,
        hook_weights: Weights,
        mean_weight: list[float] | None = None,
        peak_weight: list[float] | None = None,
        answer_form_weight: float = 0.0,
        sentence: SentenceReader | None = None,
        stored_weights: Weights | None = None,
        fingerprint: str = "",
    ) -> None:
        self.facet_names = facet_names  # facet_names[0] is EVERY
        self.mean_weight = mean_weight or [1.0] * len(facet_names)
        self.peak_weight = peak_weight or [0.0] * len(facet_names)
        self.answer_form_weight = answer_form_weight  # added to the every-answer logit of a rule
        self.rule_bias = rule_bias
        self.task_bias = task_bias
        self.cues = cues
        self.weights = weights
        self.hook_weights = hook_weights
        # the hook's pair scorer for rules read once with their embedding (stored at learning time)
        # against a task read from its words
        self.stored_weights = stored_weights or hook_weights
        self.fingerprint = fingerprint  # which model made a stored reading (`heedful.rules.selection_readings`)
        self.sentence = sentence  # None: facets from words alone, as on the hook path
        self._rules: dict[tuple[str, bool], Reading] = {}  # by text: a library repeats words, a bench repeats rules
        self.code_index = facet_names.index(CODE) if CODE in facet_names else -1

    def _read(self, text: str, bias: list[float], vector: Sequence[float] | None = None) -> Reading:
        is_rule = bias is self.rule_bias
        words = tokens(text)
        mean, peak = self.cues.pool(words)
        logits = [
            a * m + c * p + b
            for a, m, c, p, b in zip(self.mean_weight, mean, self.peak_weight, peak, bias, strict=True)
        ]
        if is_rule and answer_form(text):
            logits[0] += self.answer_form_weight
        if vector is not None and self.sentence is not None and self.sentence.reads(vector):
            logits = self.sentence.logits(logits, vector, is_task=not is_rule)
        probs = [_sigmoid(z) for z in logits]
        if is_rule:
            probs = with_general_reach(with_answer_form(probs, text), self.code_index)
        return Reading(tuple(probs), languages(text), frozenset(stem(w) for w in words), facets(text, task=not is_rule))

    def read_rule(self, text: str, condition: str | None = None, vector: Sequence[float] | None = None) -> Reading:
        """The rule's reading; with its embedding (`vector`, of the text and condition) on the service path."""
        matching = " ".join(p for p in (text, condition or "") if p)
        key = (matching, vector is not None and self.sentence is not None and self.sentence.reads(vector))
        found = self._rules.get(key)
        if found is None:
            found = self._rules[key] = self._read(matching, self.rule_bias, vector)
        return found

    def read_task(
        self,
        text: str,
        project_languages: set[str] | frozenset[str] | None = None,
        vector: Sequence[float] | None = None,
    ) -> Reading:
        reading = self._read(text, self.task_bias, vector)
        task_only = reading.facets[1:]
        available = reading.languages | frozenset(project_languages or ())
        return Reading((0.0, *task_only), available, reading.words, reading.lexicon)

    def reach(self, rule: Reading, every_threshold: float | None = None) -> str:
        """`every_answer`, `every_code_change` or `topical` (see the module docstring)."""
        if rule.facets[0] >= (self.weights.every_threshold if every_threshold is None else every_threshold):
            return "every_answer"
        k = self.code_index
        # a general habit only when writing code is what it is most about ("Shell scripts start with
        # set -euo pipefail" reads as code too, but it is about shell scripts: topical)
        if k >= 0 and rule.facets[k] >= 0.5 and rule.facets[k] >= max(rule.facets[1:]):
            return "every_code_change"
        return "topical"

    def decide(
        self,
        rule: Reading,
        task: Reading,
        keyword: float | None = None,
        cosine: float | None = None,
        weights: Weights | None = None,
    ) -> Decision:
        """Whether `rule` applies to `task`; without `cosine` the hook's weights are used (or `weights`)."""
        if rule.languages and task.languages and not rule.languages & task.languages:
            return Decision(
                False,
                "language",
                0.0,
                f"names {', '.join(sorted(rule.languages))}, which this task and project do not use",
            )
        if weights is None:
            weights = self.weights if cosine is not None else self.hook_weights
        if rule.facets[0] >= weights.every_threshold:
            return Decision(True, "every", rule.facets[0], "governs every answer")
        if keyword is None:
            keyword = overlap(rule.words, task.words)
        features = pair_features(rule, task, keyword, cosine or 0.0)
        z = weights.bias + sum(w * features[n] for n, w in zip(weights.names, weights.values, strict=True))
        score = _sigmoid(z)
        if score >= weights.threshold:
            kind = self._kind(rule, task, weights.every_threshold)
            return Decision(True, kind, score, self._why(rule, task, keyword, cosine))
        return Decision(False, "unrelated", score, f"not related (score {score:.2f})")

    def _kind(self, rule: Reading, task: Reading, every_threshold: float) -> str:
        """ "code" when a general coding habit applies because the task changes code, else "topical"."""
        k = self.code_index
        if k < 0 or self.reach(rule, every_threshold) != "every_code_change":
            return "topical"
        products = [r * t for r, t in zip(rule.facets[1:], task.facets[1:], strict=True)]
        return "code" if products[k - 1] >= max(products) else "topical"

    def _why(self, rule: Reading, task: Reading, keyword: float, cosine: float | None) -> str:
        pairs = zip(rule.facets[1:], task.facets[1:], self.facet_names[1:], strict=True)
        shared = sorted(((r * t, name) for r, t, name in pairs if r * t >= 0.1), reverse=True)
        if shared:
            return "governs " + ", ".join(name for _, name in shared[:3])
        if rule.lexicon & task.lexicon:
            return "governs " + ", ".join(sorted(rule.lexicon & task.lexicon))
        if keyword > 0:
            return f"shares key words (overlap {keyword:.2f})"
        if cosine is not None and cosine >= 0.45:
            return f"close in meaning (cosine {cosine:.2f})"
        return "may apply (weak activity match; recall is preferred)"


def overlap(rule_words: frozenset[str], task_words: frozenset[str]) -> float:
    """Share of the rule's words that the task mentions."""
    return len(rule_words & task_words) / len(rule_words) if rule_words else 0.0


def _weights(raw: dict[str, object]) -> Weights:
    names = tuple(str(n) for n in raw["names"])  # type: ignore[attr-defined]
    values = tuple(float(v) for v in raw["values"])  # type: ignore[attr-defined]
    return Weights(names, values, _number(raw["bias"]), _number(raw["threshold"]), _number(raw["every_threshold"]))


def _number(value: object) -> float:
    if not isinstance(value, int | float | str):
        raise ValueError(f"the selection model's weights hold {value!r} where a number belongs")
    return float(value)


def model_from_files(model_path: Path, cues_path: Path, sentence_path: Path | None = None) -> SelectionModel:
    blob = model_path.read_bytes()
    raw = json.loads(blob)
    cues = CueTable.from_bytes(cues_path.read_bytes())
    sentence = None
    if sentence_path is not None and sentence_path.exists():
        sentence = SentenceReader.from_json(json.loads(sentence_path.read_text(encoding="utf-8")))
    return SelectionModel(
        list(raw["facets"]),
        [float(b) for b in raw["rule_bias"]],
        [float(b) for b in raw["task_bias"]],
        cues,
        _weights(raw["weights"]),
        _weights(raw["hook_weights"]),
        [float(w) for w in raw["mean_weight"]],
        [float(w) for w in raw["peak_weight"]],
        float(raw["answer_form_weight"]),
        sentence,
        _weights(raw["stored_weights"]) if "stored_weights" in raw else None,
        hashlib.sha256(blob).hexdigest()[:16],  # as `selection_readings.model_fingerprint`
    )


@lru_cache(maxsize=1)
def load_model() -> SelectionModel:
    """The shipped model for the hook path: facets from words alone (read once per process)."""
    return model_from_files(DATA_DIR / MODEL_FILE, DATA_DIR / CUES_FILE)


@lru_cache(maxsize=1)
def load_service_model() -> SelectionModel:
    """The shipped model with its sentence reader (the service path, which has the embedder)."""
    model = model_from_files(DATA_DIR / MODEL_FILE, DATA_DIR / CUES_FILE, DATA_DIR / SENTENCE_FILE)
    model.cues.index_all()
    return model


@lru_cache(maxsize=1)
def load_reading_model() -> SelectionModel:
    """The service model for reading a few rules (the refresh after a learn or an edit): as `load_service_model`,
    without indexing all its cue words (about 6 ms, which pays only when many texts are read)."""
    if load_service_model.cache_info().currsize:
        return load_service_model()
    return model_from_files(DATA_DIR / MODEL_FILE, DATA_DIR / CUES_FILE, DATA_DIR / SENTENCE_FILE)
