"""Admission measured leave-one-source-out over the labelled corpus.

For every source (real instruction-file lines, corrections derived from them, messages written in
several voices, the previous team's set, SWE-Together intents, LoCoMo turns), the admission model
is trained on all the other sources and scored on the left-out one: only those figures say how
the learner does on words it never saw. Beside them, for comparison, the hand-written lexicon
alone and the shipped model (trained on every source, so a development figure on each).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from heedful.bench.admission_corpus import CorpusRow, all_rows
from heedful.rules import admission_model as am
from heedful.rules import admission_train as at
from heedful.rules.detect import admit as lexicon_admit

# The sources whose words shaped the hand-written lexicon: their lexicon figures are development figures.
LEXICON_TUNED = ("team",)


def _lexicon(rows: list[CorpusRow]) -> at.AdmissionScore:
    result = at.AdmissionScore()
    for row in rows:
        admission = lexicon_admit(row.text)
        result.add(row, admission.decision, admission.scope if admission.decision == "persist" else None)
    return result


def _pooled(scores: list[at.AdmissionScore]) -> at.AdmissionScore:
    pooled = at.AdmissionScore()
    for s in scores:
        for name in ("messages", "persist", "persist_admitted", "non_persist", "wrongly_persisted", "underspecified",
                     "underspecified_recognised", "scope_total", "scope_right", "exact"):
            setattr(pooled, name, getattr(pooled, name) + getattr(s, name))
        for gold, row in s.confusion.items():
            for got, n in row.items():
                pooled.confusion.setdefault(gold, {}).setdefault(got, 0)
                pooled.confusion[gold][got] += n
    return pooled


def run(shared: Path | None = None, embedder_name: str = "minilm", config: at.TrainConfig | None = None,
        misses: int = 0) -> dict[str, Any]:
    """The leave-one-source-out report (needs the embedder the shipped model was trained with)."""
    from heedful.embed import load_embedder

    rows = all_rows(shared)
    embedder = load_embedder(embedder_name)
    vectors = at.embed_texts([r.text for r in rows], embedder, at.cache_dir())
    config = config or at.TrainConfig()
    loso = at.leave_one_source_out(rows, vectors, config, embedder.name)
    shipped = am.shipped()
    per_source: dict[str, Any] = {}
    lexicon_scores = []
    for source, score in loso.items():
        idx = [i for i, r in enumerate(rows) if r.source == source]
        subset = [rows[i] for i in idx]
        lexicon = _lexicon(subset)
        lexicon_scores.append(lexicon)
        entry: dict[str, Any] = {
            "messages": len(subset),
            "left_out": score.summary(),
            "confusion": score.confusion,
            "lexicon": {**lexicon.summary(), "tuned_on_this_source": source in LEXICON_TUNED},
        }
        if shipped is not None and shipped.embedder == embedder.name:
            entry["shipped_model_dev"] = at.score(shipped, subset, np.asarray(vectors[idx])).summary()
        if misses:
            entry["left_out_misses"] = score.misses[:misses]
        per_source[source] = entry
    pooled = _pooled(list(loso.values()))
    return {
        "embedder": embedder.name,
        "config": {"seed": config.seed, "hidden": config.hidden, "epochs": config.epochs, "l2": config.l2},
        "sources": per_source,
        "overall_left_out": pooled.summary(),
        "overall_confusion": pooled.confusion,
        "overall_lexicon": _pooled(lexicon_scores).summary(),
    }


def render(report: dict[str, Any]) -> list[str]:
    header = (f"{'left-out source':<22}{'msgs':>6}  {'persist recall':>16}  {'wrongly persisted':>18}  "
              f"{'underspec. recog.':>18}  {'scope':>7}  | lexicon alone: recall / wrongly persisted")
    lines = ["Admission, leave one source out (model trained without the source):", header]
    for source, entry in report["sources"].items():
        s, lx = entry["left_out"], entry["lexicon"]
        lines.append(
            f"{source:<22}{entry['messages']:>6}  {_pct(s['persist_recall']):>7} {s['persist']:>8}  "
            f"{_pct(s['wrongly_persisted_pct']):>7} {s['wrongly_persisted']:>10}  "
            f"{_pct(s['underspecified_recognised_pct']):>7} {s['underspecified_recognised']:>10}  "
            f"{_pct(s['scope_accuracy']):>7}  | {_pct(lx['persist_recall'])} / {lx['wrongly_persisted']}"
            + (" (tuned)" if lx["tuned_on_this_source"] else "")
        )
    o, lx = report["overall_left_out"], report["overall_lexicon"]
    lines.append(
        f"{'overall':<22}{o['messages']:>6}  {_pct(o['persist_recall']):>7} {o['persist']:>8}  "
        f"{_pct(o['wrongly_persisted_pct']):>7} {o['wrongly_persisted']:>10}  "
        f"{_pct(o['underspecified_recognised_pct']):>7} {o['underspecified_recognised']:>10}  "
        f"{_pct(o['scope_accuracy']):>7}  | {_pct(lx['persist_recall'])} / {lx['wrongly_persisted']}"
    )
    lines.append("per class (gold -> predicted, pooled over left-out sources):")
    for gold, row in report["overall_confusion"].items():
        lines.append(f"  {gold:<15} " + "  ".join(f"{k} {v}" for k, v in sorted(row.items())))
    return lines


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"
