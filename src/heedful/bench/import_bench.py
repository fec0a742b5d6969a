"""`heedful bench import`: directive detection and compilation over real, hand-labelled instruction files.

The files are `bench/corpus/instruction_files/` (verbatim, with `SOURCES.jsonl`); the labels are
`bench/corpus/instructions.jsonl`: one row per non-blank line outside code fences, its kind
(directive, heading, prose, example, other), wrapped lines pointing at their first line, and for
directives the atomic rules with the check a correct compiler would produce. The directive
detector was tuned on the repositories in `TUNE_REPOS`; the others are held out. A second batch
(`instruction_files_b/`, `instructions_b.jsonl`: other repositories, labelled later and read by
nobody who changed the detector or the compiler) is reported as its own held-out column.

Detection is scored per labelled unit: a predicted directive on a wrapped line counts for the line
it continues; a prediction on a line with no label (none should exist) counts as a false positive.
Compilation runs the real import (`--dry-run`, offline) and scores, per labelled directive, whether
a validated check came out, and per labelled checkable rule, whether a check of the same kind with
the same key parameters did.
"""

from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.bench.import_labels import check_matches

CORPUS = Path(__file__).resolve().parent / "corpus"
FILES = CORPUS / "instruction_files"
# A second batch of files from other repositories, labelled after the importer's last tuning: a
# held-out half of its own, read by nobody who changed the detector or the compiler.
BATCHES = (
    ("instructions.jsonl", FILES),
    ("instructions_b.jsonl", CORPUS / "instruction_files_b"),
    ("instructions_c.jsonl", CORPUS / "instruction_files_c"),
    ("instructions_d.jsonl", CORPUS / "instruction_files_d"),
    ("instructions_e.jsonl", CORPUS / "instruction_files_e"),
    ("instructions_f.jsonl", CORPUS / "instruction_files_f"),
    ("instructions_g.jsonl", CORPUS / "instruction_files_g"),
    ("instructions_h.jsonl", CORPUS / "instruction_files_h"),
    ("instructions_i.jsonl", CORPUS / "instruction_files_i"),
    ("instructions_j.jsonl", CORPUS / "instruction_files_j"),
    ("instructions_k.jsonl", CORPUS / "instruction_files_k"),
)
# The halves reported: the first batch split by repository, then each later batch whole.
HALVES = (
    "tune",
    "heldout",
    "heldout_b",
    "heldout_c",
    "heldout_d",
    "heldout_e",
    "heldout_f",
    "heldout_g",
    "heldout_h",
    "heldout_i",
    "heldout_j",
    "heldout_k",
)
# The tuning half, by repository (every other repository in name order); the rest is held out.
TUNE_REPOS = (
    "0xIntuition/intuition-ts",
    "PatrickJS/awesome-cursorrules",
    "astral-sh/uv",
    "cline/cline",
    "dlt-hub/dlt",
    "gohugoio/hugo",
    "helm/helm",
    "huggingface/smolagents",
    "marimo-team/marimo",
    "nushell/nushell",
    "oxc-project/oxc",
    "pulumi/pulumi",
    "ratatui/ratatui",
    "triggerdotdev/trigger.dev",
    "vercel/ai",
)


@dataclass
class Half:
    files: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    directives: int = 0
    with_check: int = 0
    checkable: int = 0
    matched: int = 0
    checks: int = 0
    wrong_checks: int = 0
    unlabelled: list[dict[str, Any]] = field(default_factory=list)  # the checks produced that match no label
    label_text_matched: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        def share(a: int, b: int) -> float | None:
            return round(a / b, 3) if b else None

        return {
            "files": self.files,
            "directives": self.directives,
            "true_positives": self.tp,
            "false_positives": self.fp,
            "false_negatives": self.fn,
            "precision": share(self.tp, self.tp + self.fp),
            "recall": share(self.tp, self.tp + self.fn),
            "compiled_to_check": share(self.with_check, self.directives),
            "directives_with_check": self.with_check,
            "checkable_rules": self.checkable,
            "check_matches_label": share(self.matched, self.checkable),
            "matched_rules": self.matched,
            "checks_produced": self.checks,
            "checks_not_in_labels": self.wrong_checks,
            "label_text_check_matches": share(self.label_text_matched, self.checkable),
        }


def _rows(labels: str = "instructions.jsonl") -> list[dict[str, Any]]:
    with (CORPUS / labels).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _sources(folder: Path = FILES) -> list[dict[str, Any]]:
    with (folder / "SOURCES.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def run(model: str = "offline", embedder: str = "hashing", limit: int | None = None) -> dict[str, Any]:
    from heedful.api import Heedful
    from heedful.rules.importer import import_rules

    halves = {name: Half() for name in HALVES}
    with tempfile.TemporaryDirectory(prefix="heedful-bench-import-") as scratch:
        project = Path(scratch) / "project"
        project.mkdir()
        with Heedful.open(Path(scratch) / "home", embedder=embedder, model=model, store_url="sqlite") as hf:
            for batch, (labels, folder) in enumerate(BATCHES):
                if not (CORPUS / labels).exists():
                    continue
                rows = _rows(labels)
                by_line = {(r["provenance"]["repo"], r["provenance"]["path"], r["provenance"]["line"]): r for r in rows}
                by_id = {r["id"]: r for r in rows}
                sources = _sources(folder)[:limit] if limit else _sources(folder)
                for source in sources:
                    first_half = "tune" if source["repo"] in TUNE_REPOS else "heldout"
                    name = HALVES[batch + 1] if batch else first_half
                    half = halves[name]
                    report = import_rules(hf, "bench", [folder / source["file"]], project=project, dry_run=True)
                    _score(half, source, report, by_line, by_id, rows)
                    half.label_text_matched += _label_text_matches(hf.model, source, rows)
    return {
        "model": model,
        "embedder": embedder,
        "tune_repos": list(TUNE_REPOS),
        "halves": {name: half.report() for name, half in halves.items()},
        "misses": {name: half.misses for name, half in halves.items()},
        "unlabelled_checks": {name: half.unlabelled for name, half in halves.items()},
    }


def _score(
    half: Half,
    source: dict[str, Any],
    report: Any,
    by_line: dict[tuple[str, str, int], dict[str, Any]],
    by_id: dict[str, dict[str, Any]],
    rows: list[dict[str, Any]],
) -> None:
    repo, path = source["repo"], source["path"]
    half.files += 1
    predicted: set[str] = set()
    produced: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in report.files[0].lines:
        if not line.directive:
            continue
        row = by_line.get((repo, path, line.line))
        head = by_id[row["continuation_of"]] if row is not None and row.get("continuation_of") else row
        key = head["id"] if head is not None else f"{source['file']}:{line.line}"
        predicted.add(key)
        produced[key].extend(
            r.check for r in line.rules if r.status == "checked" and r.check is not None and r.op != "skipped"
        )
    labelled = [r for r in rows if r["provenance"]["repo"] == repo and r["provenance"]["path"] == path]
    positives = {r["id"] for r in labelled if r["line_kind"] == "directive"}
    half.tp += len(predicted & positives)
    half.fp += len(predicted - positives)
    half.fn += len(positives - predicted)
    half.directives += len(positives)
    for key, checks in produced.items():
        half.checks += len(checks)
        labels = [
            rule["check"]
            for rule in (by_id[key]["rules"] if key in by_id else [])
            if isinstance(rule.get("check"), dict)
        ]
        wrong = [c for c in checks if not any(check_matches(label, c) for label in labels)]
        half.wrong_checks += len(wrong)
        half.unlabelled += [
            {"id": key, "text": by_id[key]["text"] if key in by_id else None, "check": c} for c in wrong
        ]
    for key in positives:
        half.with_check += bool(produced.get(key))
        for rule in by_id[key]["rules"]:
            if not isinstance(rule.get("check"), dict):
                continue
            half.checkable += 1
            if any(check_matches(rule["check"], c) for c in produced.get(key, [])):
                half.matched += 1
            else:
                half.misses.append(
                    {
                        "id": key,
                        "line": by_id[key]["provenance"]["line"],
                        "file": source["file"],
                        "label": rule["check"],
                        "produced": produced.get(key, []),
                        "detected": key in predicted,
                    }
                )


def _label_text_matches(model: Any, source: dict[str, Any], rows: list[dict[str, Any]]) -> int:
    """The compiler alone: labelled checkable rules whose labelled wording compiles to the labelled check."""
    from heedful.rules.library import compile_candidate
    from heedful.rules.models import Candidate

    matched = 0
    for row in rows:
        if row["provenance"]["repo"] != source["repo"] or row["provenance"]["path"] != source["path"]:
            continue
        for rule in row["rules"]:
            if isinstance(rule.get("check"), dict):
                outcome = compile_candidate(
                    model, Candidate(text=rule["text"], condition=rule.get("condition"), evidence=[rule["text"]])
                )
                produced = None if outcome.check is None else outcome.check.model_dump()
                matched += bool(produced and outcome.status == "checked" and check_matches(rule["check"], produced))
    return matched


def _render(report: dict[str, Any]) -> None:
    halves = report["halves"]
    typer.echo(f"heedful bench import (model {report['model']}, embedder {report['embedder']})")
    typer.echo(f"{'':28}{'tune':>12}{'held-out':>12}" + "".join(f"{'batch ' + h[-1]:>12}" for h in HALVES[2:]))
    for label, key in (
        ("files", "files"),
        ("labelled directives", "directives"),
        ("detection precision", "precision"),
        ("detection recall", "recall"),
        ("compiled to a validated check", "compiled_to_check"),
        ("labelled checkable rules", "checkable_rules"),
        ("check matches label", "check_matches_label"),
        ("checks produced", "checks_produced"),
        ("checks not in the labels", "checks_not_in_labels"),
        ("compiler on labelled wording", "label_text_check_matches"),
    ):
        values = [halves[h][key] for h in HALVES]
        typer.echo(f"{label:28}" + "".join(f"{'-' if v is None else v:>12}" for v in values))


def cli(
    model: Annotated[str, typer.Option("--model", help="offline, local, openai:MODEL or anthropic:MODEL.")] = "offline",
    embedder: Annotated[str, typer.Option("--embedder", help="Embedder for resolution (hashing is fast).")] = "hashing",
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N files.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Instruction-file import: directive precision/recall (tune, held-out, batches b and c), checks vs labels."""
    report = run(model=model, embedder=embedder, limit=limit)
    if as_json:
        typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _render(report)


__all__ = ["TUNE_REPOS", "cli", "run"]
