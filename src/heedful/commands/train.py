"""`heedful train admission`: fit the shipped admission model from the labelled corpus (fixed seed)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from heedful.commands.common import emit, fail, load_cli_settings

if TYPE_CHECKING:
    from heedful.bench.admission_corpus import CorpusRow

app = typer.Typer(help="Train the learned parts of the offline learner from the labelled corpus.", no_args_is_help=True)


def corpus_digest(rows: Sequence[CorpusRow]) -> str:
    digest = hashlib.sha256()
    for row in rows:
        digest.update(
            json.dumps([row.id, row.text, row.decision, row.scope], ensure_ascii=False).encode("utf-8", "surrogatepass")
        )
    return digest.hexdigest()[:16]


@app.command("admission")
def admission(
    data: Annotated[
        Path | None, typer.Option("--data", help="Shared data folder (holds swe_together/, locomo/).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Where to write the weights (default: the packaged file).")
    ] = None,
    sources: Annotated[str | None, typer.Option("--sources", help="Comma-separated sources to train on (all).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Random seed.")] = 0,
    solver: Annotated[
        str | None,
        typer.Option(
            "--solver",
            help="ridge, stages or adam (default: chosen by held-out sources among the standard candidates).",
        ),
    ] = None,
    hidden: Annotated[
        int | None, typer.Option("--hidden", help="Hidden units for adam (0: logistic regression).")
    ] = None,
    epochs: Annotated[int, typer.Option("--epochs", help="Full-batch training steps (adam).")] = 200,
    l2: Annotated[float | None, typer.Option("--l2", help="L2 penalty on the weights.")] = None,
    ngrams: Annotated[int | None, typer.Option("--ngrams", help="Hashed n-gram buckets (0: none).")] = None,
    loso: Annotated[bool, typer.Option("--loso", help="Also report nested leave-one-source-out figures.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Train admission and scope on every source (or `--sources`) and write the weights."""
    from heedful.bench import generalization
    from heedful.bench.admission_corpus import all_rows
    from heedful.bench.admission_corpus import contract as contract_items
    from heedful.embed import load_embedder
    from heedful.rules import admission_embeddings as ae
    from heedful.rules import admission_model as am
    from heedful.rules import admission_train as at

    wanted = [s.strip() for s in sources.split(",") if s.strip()] if sources else None
    rows = all_rows(data, wanted)
    if not rows:
        fail(f"no labelled messages found for sources {sources!r}")
    absent = [
        s
        for s in ("swe_together", "locomo")
        if (wanted is None or s in wanted) and not any(r.source == s for r in rows)
    ]
    if absent:
        # The real negatives are read from the shared data at run time; without them the threshold is
        # fitted on written negatives only and persists far more of real traffic.
        typer.echo(f"warning: no {', '.join(absent)} messages found (pass --data): training without them", err=True)
    settings = load_cli_settings(None)
    embedder = load_embedder(settings.embedder.name, settings.embedder.batch_size)
    if solver not in (None, "ridge", "stages", "adam"):
        fail(f"unknown solver {solver!r} (ridge, stages or adam)")
    # Settings given on the command line narrow the standard candidates; the rest is chosen by
    # source-held-out folds inside the training rows.
    candidates = [
        dataclasses.replace(
            c,
            seed=seed,
            epochs=epochs,
            solver=solver or c.solver,
            hidden=c.hidden if hidden is None else hidden,
            l2=c.l2 if l2 is None else l2,
            ngram_buckets=c.ngram_buckets if ngrams is None else ngrams,
        )
        for c in at.CANDIDATES
    ]
    candidates = list(dict.fromkeys(candidates))
    if not as_json:
        typer.echo(f"embedding {len(rows)} messages with {embedder.name} ...", err=True)
    vectors = ae.embed_texts([r.text for r in rows], embedder, ae.cache_dir())
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.source] = counts.get(row.source, 0) + 1
    meta: dict[str, object] = {
        "seed": seed,
        "candidates": [c.label() for c in candidates],
        "sources": counts,
        "corpus_digest": corpus_digest(rows),
    }
    # The replays' taught corrections bound the operating point (never a training row).
    contract = at.contract_of(contract_items(), embedder, ae.cache_dir())
    weights = at.train(rows, vectors, candidates, embedder.name, meta, contract=contract)
    per_source = {}
    for source in sorted(counts):
        idx = [i for i, r in enumerate(rows) if r.source == source]
        per_source[source] = generalization.score(weights, [rows[i] for i in idx], vectors[idx]).summary()
    weights.meta["training_fit"] = per_source
    target = out or am.WEIGHTS_PATH
    am.save(weights, target)
    am.shipped.cache_clear()
    report: dict[str, object] = {
        "weights": str(target),
        "bytes": target.stat().st_size,
        **meta,
        "chosen": weights.meta["chosen"],
        "temperature": weights.temperature,
        "persist_threshold": weights.persist_threshold,
        "lexicon_floor": weights.lexicon_floor,
        "training_fit": per_source,
    }
    if loso:
        report["leave_one_source_out"] = {
            s: {"config": v.config, **v.chosen.summary()}
            for s, v in generalization.leave_one_source_out(
                rows, vectors, candidates, embedder.name, contract=contract
            ).items()
        }
    if as_json:
        emit(report, True)
        return
    typer.echo(
        f"wrote {target} ({report['bytes']} bytes); chosen {report['chosen']}; temperature "
        f"{weights.temperature:.3f}, persist threshold {weights.persist_threshold:.2f}"
    )
    for source, summary in per_source.items():
        typer.echo(f"  fit {source}: {summary}")
    for source, summary in dict(report.get("leave_one_source_out") or {}).items():  # type: ignore[call-overload]
        typer.echo(f"  left out {source}: {summary}")
