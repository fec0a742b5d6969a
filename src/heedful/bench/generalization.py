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

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from heedful.bench.admission_corpus import CorpusRow, all_rows
from heedful.rules import admission_model as am
from heedful.rules import admission_train as at
from heedful.rules.detect import admit as lexicon_admit

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


def _lexicon(rows: list[CorpusRow]) -> at.AdmissionScore:
    result = at.AdmissionScore()
    for row in rows:
        admission = lexicon_admit(row.text)
        result.add(row, admission.decision, admission.scope if admission.decision == "persist" else None)
    return result


def pooled(scores: Sequence[at.AdmissionScore]) -> at.AdmissionScore:
    total = at.AdmissionScore()
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
    vectors = at.embed_texts([r.text for r in rows], embedder, at.cache_dir())
    candidates = list(candidates or at.CANDIDATES)
    loso = at.leave_one_source_out(rows, vectors, candidates, embedder.name)
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
            "thresholds": {"chosen": round(left.threshold, 3), "precision_first": round(left.precision_threshold, 3)},
            "left_out": left.chosen.summary(),
            "left_out_precision_first": left.precision_first.summary(),
            "confusion": left.chosen.confusion,
            "lexicon": {**lexicon.summary(), "tuned_on_this_source": source in LEXICON_TUNED},
        }
        if shipped is not None and shipped.embedder == embedder.name:
            entry["shipped_model_dev"] = at.score(shipped, subset, np.asarray(vectors[idx])).summary()
        if misses:
            entry["left_out_misses"] = left.chosen.misses[:misses]
        per_source[source] = entry
    chosen = pooled([v.chosen for v in loso.values()])
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
    }


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
        f"Operating points (fixed a priori, on inner held-out sources): chosen <= "
        f"{100 * report['operating_points']['chosen_max_false_persist']:.0f}% false persist, precision-first "
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
            f"{entry['thresholds']['precision_first']}"
        )
    lines.append("per class (gold -> predicted, pooled over left-out sources, chosen point):")
    for gold, row in report["overall_confusion"].items():
        lines.append(f"  {gold:<15} " + "  ".join(f"{k} {v}" for k, v in sorted(row.items())))
    return lines


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"
