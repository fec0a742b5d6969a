"""`heedful bench corrections`: admission and compilation on other people's words, and learning time.

1. Admission, leave one source out over the labelled corpus (`bench/corpus/`, plus SWE-Together
   intents and LoCoMo turns read from the shared data): the model is trained without each source
   and scored on it (see `heedful.bench.generalization`). Slow (it trains a model per source):
   `--no-loso` skips it.
2. Compilation coverage per source and check kind: every labelled atomic rule compiled offline
   and compared with its expected check (kind and key parameters; `heedful.rules.coverage`).
3. The previous team's labelled set (`bench/data/corrections_*.jsonl`) through the whole learner:
   decision, scope, number of atomic rules and condition (the paper's D.1 structural score).
4. Real-world precision: every SWE-Together intent through admission; how many would become
   durable rules, listed. Skipped cleanly when the data is absent.
5. The time of one offline learning step (admission to a committed library version).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.embed import Embedder
from heedful.llm import Model, OfflineModel, run_step
from heedful.rules.interpret import verify_evidence
from heedful.rules.steps import AdmitInput, AdmitStep, InterpretInput, InterpretStep

DEFAULT_DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "swe_together"
DATA_DIR = Path(__file__).resolve().parent / "data"
SPLITS = ("tune", "heldout", "heldout2")


def load_split(split: str) -> list[dict[str, Any]]:
    text = (DATA_DIR / f"corrections_{split}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def predict(text: str, model: Model | None = None, embedder: Embedder | None = None) -> dict[str, Any]:
    """What the learner (offline, or the given model) makes of one message."""
    model = model or OfflineModel()
    try:
        admission = run_step(model, AdmitStep(embedder), AdmitInput(text=text))
        rules = []
        if admission.decision == "persist" and not admission.retraction:
            candidates = run_step(model, InterpretStep(), InterpretInput(text=text)).candidates
            rules = [c for c in candidates if not c.vague and verify_evidence(c, [text])]
    except Exception as exc:  # a model that cannot answer scores as wrong, and the run goes on
        return {
            "decision": "error",
            "scope": None,
            "retraction": False,
            "rules": 0,
            "condition": False,
            "texts": [f"model failed: {exc}"],
        }
    return {
        "decision": admission.decision,
        "scope": admission.scope if admission.decision == "persist" else None,
        "retraction": admission.retraction,
        "rules": len(rules),
        "condition": any(c.condition for c in rules),
        "texts": [c.text for c in rules],
    }


def _rate(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else round(100.0 * numerator / denominator, 1)


def score(rows: list[dict[str, Any]], model: Model | None = None, embedder: Embedder | None = None) -> dict[str, Any]:
    decisions = ("persist", "task_local", "underspecified", "none")
    by_gold: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {d: [] for d in decisions}
    errors = []
    structural = 0
    exact = 0
    for row in rows:
        got = predict(row["text"], model, embedder)
        by_gold[row["decision"]].append((row, got))
        exact += got["decision"] == row["decision"]
        ok = got["decision"] == row["decision"]
        if ok and row["decision"] == "persist":
            ok = got["scope"] == row["scope"] and got["rules"] == row["rules"] and got["condition"] == row["condition"]
        structural += ok
        if not ok:
            fields = ("decision", "scope", "rules", "condition")
            errors.append(
                {
                    "id": row["id"],
                    "text": row["text"],
                    "gold": {k: row[k] for k in fields},
                    "got": {k: got[k] for k in fields},
                    "rules": got["texts"],
                }
            )
    persist = by_gold["persist"]
    admitted = [(r, g) for r, g in persist if g["decision"] == "persist"]
    local = by_gold["task_local"]
    vague = by_gold["underspecified"]
    none = by_gold["none"]
    return {
        "messages": len(rows),
        "gold": {k: len(v) for k, v in by_gold.items()},
        "persist_recall": _rate(len(admitted), len(persist)),
        "task_local_wrongly_persisted": sum(g["decision"] == "persist" for _, g in local),
        "task_local_wrongly_persisted_pct": _rate(sum(g["decision"] == "persist" for _, g in local), len(local)),
        "underspecified_deferred": sum(g["decision"] == "underspecified" for _, g in vague),
        "underspecified_wrongly_persisted": sum(g["decision"] == "persist" for _, g in vague),
        "none_wrongly_persisted": sum(g["decision"] == "persist" for _, g in none),
        "scope_accuracy": _rate(sum(g["scope"] == r["scope"] for r, g in admitted), len(admitted)),
        "decision_accuracy": _rate(exact, len(rows)),
        "structural_correct": structural,
        "structural_accuracy": _rate(structural, len(rows)),
        "errors": errors,
    }


def swe_together(
    data: Path, model: Model | None = None, limit: int | None = None, embedder: Embedder | None = None
) -> dict[str, Any]:
    tasks = data / "tasks"
    files = sorted(tasks.glob("*/oracle_intents.json")) if tasks.is_dir() else []
    if not files:
        return {"skipped": f"no SWE-Together intents under {tasks}"}
    intents: list[dict[str, Any]] = []
    for path in files:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for intent in doc.get("intents", []):
            if isinstance(intent, dict) and isinstance(intent.get("text"), str):
                intents.append({"task": path.parent.name, **intent})
    intents = intents[:limit]
    durable = []
    decisions: dict[str, int] = {}
    verbatim_durable = 0
    for intent in intents:
        got = predict(intent["text"], model, embedder)
        decisions[got["decision"]] = decisions.get(got["decision"], 0) + 1
        excerpt = intent.get("verbatim_excerpt")
        if isinstance(excerpt, str) and excerpt.strip() and predict(excerpt, model, embedder)["decision"] == "persist":
            verbatim_durable += 1
        if got["decision"] == "persist":
            durable.append(
                {
                    "task": intent["task"],
                    "kind": intent.get("intent_kind"),
                    "text": intent["text"],
                    "scope": got["scope"],
                    "rules": got["texts"],
                }
            )
    return {
        "intents": len(intents),
        "tasks": len(files),
        "decisions": decisions,
        "durable": len(durable),
        "durable_pct": _rate(len(durable), len(intents)),
        "durable_from_verbatim_excerpts": verbatim_durable,
        "durable_rules": durable,
    }


def time_learning(embedder: str, repeats: int = 3) -> dict[str, Any]:
    """Milliseconds per offline learning step on a fresh home (embedder loaded beforehand)."""
    from heedful.api import Heedful

    rows = [r for r in load_split("tune") if r["decision"] == "persist"]
    samples: list[float] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        Heedful.open(Path(tmp) / "home", embedder=embedder, store_url="sqlite") as hf,
    ):
        hf.embedder.embed(["warm up"])
        for repeat in range(repeats):
            for row in rows:
                started = time.perf_counter()
                hf.rules.learn(f"bench-{repeat}", row["text"], project="/bench/project")
                samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return {
        "embedder": embedder,
        "steps": len(samples),
        "median_ms": round(statistics.median(samples), 2),
        "p95_ms": round(samples[int(0.95 * (len(samples) - 1))], 2),
        "max_ms": round(samples[-1], 2),
    }


def compilation(sources: list[str] | None = None) -> dict[str, Any]:
    """Compilation coverage of the labelled rules, per source and pooled per check kind."""
    from heedful.bench.admission_corpus import corpus_rows
    from heedful.rules.coverage import coverage

    rows = corpus_rows()
    by_source: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if sources is None or row.source in sources:
            raw = {"id": row.id, "decision": row.decision, "retraction": row.retraction, "rules": list(row.rules)}
            by_source.setdefault(row.source, []).append(raw)
    per_source: dict[str, Any] = {}
    kinds: dict[str, dict[str, int]] = {}
    for source, source_rows in sorted(by_source.items()):
        report = coverage(source_rows)
        per_source[source] = {
            "checkable": report.checkable,
            "right": report.right,
            "rate": round(100 * report.rate, 1),
            "guidance_labelled": report.guidance_labelled,
            "guidance_checked": report.guidance_checked,
            "tuned_on": source in COMPILER_TUNED,
        }
        for kind, k in report.kinds.items():
            pooled = kinds.setdefault(
                kind,
                {
                    "labelled": 0,
                    "right": 0,
                    "wrong_kind": 0,
                    "wrong_params": 0,
                    "stayed_guidance": 0,
                    "held_out_labelled": 0,
                    "held_out_right": 0,
                },
            )
            pooled["labelled"] += k.labelled
            pooled["right"] += k.right
            pooled["wrong_kind"] += k.wrong_kind
            pooled["wrong_params"] += k.wrong_params
            pooled["stayed_guidance"] += k.missed
            if source not in COMPILER_TUNED:
                pooled["held_out_labelled"] += k.labelled
                pooled["held_out_right"] += k.right
    held = [v for s, v in per_source.items() if s not in COMPILER_TUNED]
    return {
        "sources": per_source,
        "kinds": kinds,
        "held_out": {
            "checkable": sum(v["checkable"] for v in held),
            "right": sum(v["right"] for v in held),
            "rate": _rate(sum(v["right"] for v in held), sum(v["checkable"] for v in held)),
        },
    }


# The sources the compiler's vocabulary was developed on: their coverage is a development figure. voices_a
# first; voices_b and the instruction-file sources were read and developed on in the second round; the kinds of
# the misses of instructions_b, tracker_quotes and voices_c in the third; instructions_c, instructions_d and
# instructions_e in later rounds, instructions_f and tracker_quotes_b in the latest. Only sources nobody read
# the compiler's misses on count as held out.
COMPILER_TUNED = (
    "voices_a",
    "voices_b",
    "instruction_files",
    "instructions_derived",
    "instructions_b",
    "tracker_quotes",
    "voices_c",
    "instructions_c",
    "instructions_d",
    "instructions_e",
    "instructions_f",
    "tracker_quotes_b",
    "instructions_g",
    "instructions_h",
)


def run(
    data: Path | None = None,
    embedder: str = "minilm",
    timing: bool = True,
    model: str = "offline",
    limit: int | None = None,
    loso: bool = True,
    sources: list[str] | None = None,
) -> dict[str, Any]:
    """The whole report; `limit` keeps the first N messages of each split and N SWE-Together intents
    (a slow model can be compared on a sample)."""
    from heedful.embed import load_embedder
    from heedful.llm.factory import build_model

    learner = build_model(model)
    vectors = load_embedder(embedder)
    report: dict[str, Any] = {"model": learner.name, "embedder": vectors.name, "limit": limit}
    if loso and learner.offline:
        from heedful.bench import generalization

        shared = data.parent if data is not None else None
        report["admission_left_out"] = generalization.run(shared, embedder)
    if learner.offline:
        report["compilation"] = compilation(sources)
    report["splits"] = {split: score(load_split(split)[:limit], learner, vectors) for split in SPLITS}
    report["swe_together"] = swe_together(data or DEFAULT_DATA, learner, limit, vectors)
    if timing:
        report["learning_step"] = time_learning(embedder)
    return report


def _render(report: dict[str, Any]) -> None:
    if "admission_left_out" in report:
        from heedful.bench.generalization import render

        for line in render(report["admission_left_out"]):
            typer.echo(line)
    if "compilation" in report:
        comp = report["compilation"]
        typer.echo("Compilation coverage (labelled checkable rules compiled to the right kind and parameters):")
        for source, v in comp["sources"].items():
            typer.echo(
                f"  {source:<22} {v['right']:>4}/{v['checkable']:<4} {v['rate']:>5}%  labelled guidance "
                f"given a check {v['guidance_checked']}/{v['guidance_labelled']}"
                + ("  (compiler developed on it)" if v["tuned_on"] else "")
            )
        for kind, k in sorted(comp["kinds"].items(), key=lambda item: -item[1]["labelled"]):
            typer.echo(
                f"    {kind:<22} {k['right']:>4}/{k['labelled']:<4} (held-out sources "
                f"{k['held_out_right']}/{k['held_out_labelled']}; wrong kind {k['wrong_kind']}, "
                f"wrong params {k['wrong_params']}, stayed guidance {k['stayed_guidance']})"
            )
        held = comp["held_out"]
        if held["checkable"]:
            typer.echo(f"  held-out sources: {held['right']}/{held['checkable']} ({held['rate']}%)")
        else:
            typer.echo("  held-out sources: none (every source here was developed on)")
    for split, result in report["splits"].items():
        typer.echo(
            f"{split:>8}: {result['messages']} messages  persist recall {result['persist_recall']}%  "
            f"task-local wrongly persisted {result['task_local_wrongly_persisted']}/{result['gold']['task_local']}  "
            f"underspecified deferred {result['underspecified_deferred']}/{result['gold']['underspecified']}  "
            f"scope {result['scope_accuracy']}%  structural {result['structural_correct']}/{result['messages']}"
        )
    swe = report["swe_together"]
    if "skipped" in swe:
        typer.echo(f"SWE-Together: skipped ({swe['skipped']})")
    else:
        typer.echo(
            f"SWE-Together: {swe['durable']} of {swe['intents']} intents become durable rules ({swe['durable_pct']}%)"
        )
        for item in swe["durable_rules"]:
            typer.echo(f"  [{item['kind']}] {item['text']}")
    if "learning_step" in report:
        step = report["learning_step"]
        typer.echo(f"learning step ({step['embedder']}): median {step['median_ms']} ms, p95 {step['p95_ms']} ms")


def cli(
    data: Annotated[
        Path | None, typer.Option("--data", help="SWE-Together folder (holds tasks/*/oracle_intents.json).")
    ] = None,
    embedder: Annotated[str, typer.Option("--embedder", help="Embedder of the learner and the timing run.")] = "minilm",
    no_timing: Annotated[bool, typer.Option("--no-timing", help="Skip timing the learning step.")] = False,
    no_loso: Annotated[bool, typer.Option("--no-loso", help="Skip the leave-one-source-out admission report.")] = False,
    model: Annotated[str, typer.Option("--model", help="offline, local, openai:MODEL or anthropic:MODEL.")] = "offline",
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N messages of each split.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    sources: Annotated[
        str | None,
        typer.Option("--sources", help="Compilation coverage on these corpus sources only (comma-separated)."),
    ] = None,
) -> None:
    """Admission left out per source, compilation coverage, the team's set, SWE-Together precision, timing."""
    chosen = [s.strip() for s in sources.split(",") if s.strip()] if sources else None
    report = run(
        data=data, embedder=embedder, timing=not no_timing, model=model, limit=limit, loso=not no_loso, sources=chosen
    )
    if as_json:
        typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _render(report)
