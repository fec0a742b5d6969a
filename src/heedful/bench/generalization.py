"""Admission measured by nested leave-one-source-out over the labelled corpus.

For every source (real instruction-file lines, corrections derived from them, messages written in
several voices, the previous team's set, SWE-Together intents, LoCoMo turns), the admission model
is trained on all the other sources and scored on the left-out one: only those figures say how
the learner does on words it never saw. Nothing is chosen with the left-out source in view: the
configuration (hidden units, penalty, n-gram width, lexicon override), the temperature and the
persist thresholds are all chosen by an inner leave-one-source-out over the remaining sources.
Two operating points are reported, both fixed before any source is left out: the chosen one and a
precision-first one. Beside them, for comparison, the hand-written lexicon alone and the shipped
model (trained on every source, so a development figure on each).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from heedful.bench.admission_corpus import HELD_OUT_SOURCES, CorpusRow, all_rows
from heedful.bench.admission_corpus import contract as contract_items
from heedful.rules import admission_embeddings as ae
from heedful.rules import admission_model as am
from heedful.rules import admission_train as at
from heedful.rules.detect import admit as lexicon_admit

if TYPE_CHECKING:
    from heedful.embed import Embedder

# The sources whose words shaped the hand-written lexicon: their lexicon figures are development figures.
LEXICON_TUNED = ("team",)
PROTOCOL = (
    "nested leave-one-source-out: per left-out source, the configuration, temperature and thresholds "
    "are chosen by an inner leave-one-source-out over the other sources only"
)
_COUNTS = (
    "messages",
    "persist",
    "persist_admitted",
    "non_persist",
    "wrongly_persisted",
    "underspecified",
    "underspecified_recognised",
    "scope_total",
    "scope_right",
    "exact",
)


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
            self.misses.append(
                {
                    "id": row.id,
                    "text": row.text[:200],
                    "gold": row.decision,
                    "got": decision,
                    "gold_scope": row.scope or "",
                    "got_scope": scope or "",
                }
            )

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


def predict(
    weights: am.AdmissionWeights,
    rows: Sequence[CorpusRow],
    vectors: np.ndarray,
    threshold: float | None = None,
    features: np.ndarray | None = None,
    floor: float | None = None,
) -> list[tuple[str, str | None]]:
    features = weights.features([r.text for r in rows], vectors) if features is None else features
    if floor is not None:
        weights = dataclasses.replace(weights, lexicon_floor=floor)
    decisions = weights.decisions(features, threshold)
    project = weights.project_probability(features)
    return [
        (d, ("project" if p >= weights.scope_threshold else "global") if d in ("persist", "underspecified") else None)
        for d, p in zip(decisions, project, strict=True)
    ]


def score(
    weights: am.AdmissionWeights,
    rows: Sequence[CorpusRow],
    vectors: np.ndarray,
    threshold: float | None = None,
    features: np.ndarray | None = None,
    floor: float | None = None,
) -> AdmissionScore:
    result = AdmissionScore()
    decided = predict(weights, rows, vectors, threshold, features, floor)
    for row, (decision, scope) in zip(rows, decided, strict=True):
        result.add(row, decision, scope)
    return result


@dataclass
class LeftOut:
    """One left-out source: scored at the chosen and at the precision-first operating point, with the
    configuration the inner selection (on the other sources only) chose."""

    chosen: AdmissionScore
    precision_first: AdmissionScore
    config: str
    threshold: float
    precision_threshold: float
    floor: float | None = None  # the model's p(persist) the lexicon's lift needs (None: persist most probable)


def leave_one_source_out(
    rows: Sequence[CorpusRow],
    vectors: np.ndarray,
    config: at.TrainConfig | Sequence[at.TrainConfig],
    embedder: str,
    matrices: dict[int, np.ndarray] | None = None,
    contract: at.Contract | None = None,
) -> dict[str, LeftOut]:
    """Nested leave-one-source-out: for each source, train (and choose among the configurations by
    source-held-out folds) on all the other sources, then score the left-out one. The contract (the
    replays' taught corrections, never a corpus source) constrains every fold's operating point alike."""
    candidates = [config] if isinstance(config, at.TrainConfig) else list(config)
    matrices = matrices or at.feature_matrices(rows, vectors, candidates)
    out: dict[str, LeftOut] = {}
    for source in sorted({r.source for r in rows}):
        kept = np.array([i for i, r in enumerate(rows) if r.source != source])
        held = np.array([i for i, r in enumerate(rows) if r.source == source])
        weights = at.train(
            [rows[i] for i in kept],
            vectors[kept],
            candidates,
            embedder,
            matrices={b: m[kept] for b, m in matrices.items()},
            contract=contract,
        )
        test_rows, features = [rows[i] for i in held], matrices[weights.buckets][held]
        strict = float(weights.meta["precision_first_threshold"])  # type: ignore[arg-type]
        strict_floor = float(weights.meta["precision_first_floor"])  # type: ignore[arg-type]
        out[source] = LeftOut(
            chosen=score(weights, test_rows, vectors[held], features=features),
            precision_first=score(weights, test_rows, vectors[held], strict, features, strict_floor),
            config=str(weights.meta["chosen"]),
            threshold=weights.persist_threshold,
            precision_threshold=strict,
            floor=weights.lexicon_floor,
        )
    return out


def _lexicon(rows: list[CorpusRow]) -> AdmissionScore:
    result = AdmissionScore()
    for row in rows:
        admission = lexicon_admit(row.text)
        result.add(row, admission.decision, admission.scope if admission.decision == "persist" else None)
    return result


def pooled(scores: Sequence[AdmissionScore]) -> AdmissionScore:
    total = AdmissionScore()
    for s in scores:
        for name in _COUNTS:
            setattr(total, name, getattr(total, name) + getattr(s, name))
        for gold, row in s.confusion.items():
            for got, n in row.items():
                total.confusion.setdefault(gold, {}).setdefault(got, 0)
                total.confusion[gold][got] += n
    return total


def run(
    shared: Path | None = None,
    embedder_name: str = "minilm",
    candidates: Sequence[at.TrainConfig] | None = None,
    misses: int = 0,
) -> dict[str, Any]:
    """The nested leave-one-source-out report (needs the embedder the shipped model was trained with)."""
    from heedful.embed import load_embedder

    rows = all_rows(shared)
    embedder = load_embedder(embedder_name)
    vectors = ae.embed_texts([r.text for r in rows], embedder, ae.cache_dir())
    candidates = list(candidates or at.CANDIDATES)
    contract = at.contract_of(contract_items(), embedder, ae.cache_dir())
    loso = leave_one_source_out(rows, vectors, candidates, embedder.name, contract=contract)
    shipped = am.shipped()
    per_source: dict[str, Any] = {}
    lexicon_scores = []
    for source, left in loso.items():
        idx = [i for i, r in enumerate(rows) if r.source == source]
        subset = [rows[i] for i in idx]
        lexicon = _lexicon(subset)
        lexicon_scores.append(lexicon)
        entry: dict[str, Any] = {
            "messages": len(subset),
            "chosen_config": left.config,
            "thresholds": {
                "chosen": round(left.threshold, 3),
                "precision_first": round(left.precision_threshold, 3),
                "lexicon_floor": left.floor,
            },
            "left_out": left.chosen.summary(),
            "left_out_precision_first": left.precision_first.summary(),
            "confusion": left.chosen.confusion,
            "lexicon": {**lexicon.summary(), "tuned_on_this_source": source in LEXICON_TUNED},
        }
        if shipped is not None and shipped.embedder == embedder.name:
            entry["shipped_model_dev"] = score(shipped, subset, np.asarray(vectors[idx])).summary()
        if misses:
            entry["left_out_misses"] = left.chosen.misses[:misses]
        per_source[source] = entry
    chosen = pooled([v.chosen for v in loso.values()])
    unseen = score_unseen(shipped, all_rows(shared, HELD_OUT_SOURCES), embedder)
    return {
        "protocol": PROTOCOL,
        "embedder": embedder.name,
        "candidates": [c.label() for c in candidates],
        "operating_points": {
            "chosen_max_false_persist": at.MAX_FALSE_PERSIST,
            "precision_first_max_false_persist": at.PRECISION_FIRST,
        },
        "sources": per_source,
        "overall_left_out": chosen.summary(),
        "overall_left_out_precision_first": pooled([v.precision_first for v in loso.values()]).summary(),
        "overall_confusion": chosen.confusion,
        "overall_lexicon": pooled(lexicon_scores).summary(),
        "unseen": unseen,  # the shipped model on sources it was never trained or tuned on
    }


def score_unseen(
    shipped: am.AdmissionWeights | None, rows: Sequence[CorpusRow], embedder: Embedder
) -> dict[str, dict[str, object]]:
    """The shipped model on sources it was never trained or tuned on (`HELD_OUT_SOURCES`), per source."""
    if not rows or shipped is None or shipped.embedder != embedder.name:
        return {}
    vectors = ae.embed_texts([r.text for r in rows], embedder, ae.cache_dir())
    unseen: dict[str, dict[str, object]] = {}
    for source in dict.fromkeys(r.source for r in rows):
        idx = [i for i, r in enumerate(rows) if r.source == source]
        unseen[source] = score(shipped, [rows[i] for i in idx], np.asarray(vectors[idx])).summary()
    return unseen


def _row(name: str, messages: int, s: dict[str, Any], strict: dict[str, Any], tail: str) -> str:
    return (
        f"{name:<22}{messages:>6}  {_pct(s['persist_recall']):>7} {s['persist']:>10}  "
        f"{_pct(s['wrongly_persisted_pct']):>6} {s['wrongly_persisted']:>10}  "
        f"{_pct(s['underspecified_recognised_pct']):>6} {s['underspecified_recognised']:>8}  "
        f"{_pct(s['scope_accuracy']):>6}  | {_pct(strict['persist_recall']):>6} / "
        f"{_pct(strict['wrongly_persisted_pct']):>5}  | {tail}"
    )


def render(report: dict[str, Any]) -> list[str]:
    header = (
        f"{'left-out source':<22}{'msgs':>6}  {'persist recall':>18}  {'wrongly persisted':>17}  "
        f"{'underspec.':>15}  {'scope':>6}  | precision-first  | lexicon alone"
    )
    lines = [
        f"Admission, {report['protocol']}.",
        f"Operating points (fixed a priori, on inner held-out sources, pooled over non-lasting messages): chosen "
        f"<= {100 * report['operating_points']['chosen_max_false_persist']:.0f}% false persist unless the replays' "
        f"taught corrections need more, precision-first "
        f"<= {100 * report['operating_points']['precision_first_max_false_persist']:.0f}%.",
        header,
    ]
    for source, entry in report["sources"].items():
        lx = entry["lexicon"]
        lines.append(
            _row(
                source,
                entry["messages"],
                entry["left_out"],
                entry["left_out_precision_first"],
                f"{_pct(lx['persist_recall'])} / {lx['wrongly_persisted']}"
                + (" (tuned)" if lx["tuned_on_this_source"] else ""),
            )
        )
    o, lx = report["overall_left_out"], report["overall_lexicon"]
    lines.append(
        _row(
            "overall",
            o["messages"],
            o,
            report["overall_left_out_precision_first"],
            f"{_pct(lx['persist_recall'])} / {lx['wrongly_persisted']}",
        )
    )
    lines.append("chosen configuration per left-out source (inner selection):")
    for source, entry in report["sources"].items():
        lines.append(
            f"  {source:<22} {entry['chosen_config']}  thresholds {entry['thresholds']['chosen']} / "
            f"{entry['thresholds']['precision_first']}, lexicon floor {entry['thresholds'].get('lexicon_floor')}"
        )
    lines.append("per class (gold -> predicted, pooled over left-out sources, chosen point):")
    for gold, row in report["overall_confusion"].items():
        lines.append(f"  {gold:<15} " + "  ".join(f"{k} {v}" for k, v in sorted(row.items())))
    if report.get("unseen"):
        lines.append("the shipped model on sources it never saw (persist recall, wrongly persisted, scope):")
        for source, u in report["unseen"].items():
            lines.append(
                f"  {source:<22} {_pct(u['persist_recall'])} ({u['persist']})  "
                f"{_pct(u['wrongly_persisted_pct'])} ({u['wrongly_persisted']})  {_pct(u['scope_accuracy'])}"
            )
    return lines


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"
