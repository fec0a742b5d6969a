"""LoCoMo-10 recall benchmark: raw ingest of every turn, then turn-level evidence recall@k.

    heedful bench locomo [--data PATH] [--json] [--limit-conversations N]

Each conversation becomes one user in a temporary heedful home; its turns are added with
`memory.add(..., extract=False)` (speaker names as speakers, session dates as message times,
image captions in the text). Every question is then recalled and scored: the share of its
evidence turns among the first k items (k = 5, 10, 25, 50; a question without evidence counts as
1), overall, per category and for the tuning (0-4) and held-out (5-9) conversations, plus
session-level any@k, ingest throughput against the embedder's own batch throughput on the same
texts, and recall latency. With the audit file next to the data, scores against its corrected
evidence are reported as well, beside the original ones.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.bench.report import (
    SHARED_DATA,
    Scores,
    any_at_k,
    dedupe,
    percentile,
    print_table,
    progress,
    recall_at_k,
    resolve_data,
)

DEFAULT_DATA = SHARED_DATA / "locomo" / "locomo10.json"
AUDIT_FILE = "locomo_audit_errors.json"
KS = (5, 10, 25, 50)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
TUNING_CONVERSATIONS = range(5)
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def parse_session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware datetime (UTC)."""
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def parse_evidence(evidence: list[str]) -> list[str]:
    """Evidence ids, normalised ('D8:6; D9:17' and 'D:11:26' occur in the data)."""
    found: list[str] = []
    for entry in evidence:
        found.extend(f"D{a}:{b}" for a, b in _EVIDENCE.findall(entry))
    return dedupe(found)


def turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def sessions(conversation: dict[str, Any]) -> list[tuple[int, datetime, list[dict[str, Any]]]]:
    numbers = sorted(
        int(key.split("_")[1])
        for key, value in conversation.items()
        if re.fullmatch(r"session_\d+", key) and isinstance(value, list) and value
    )
    return [
        (n, parse_session_time(conversation[f"session_{n}_date_time"]), conversation[f"session_{n}"]) for n in numbers
    ]


def load_audit(data_path: Path) -> dict[tuple[int, str], list[str]]:
    """(conversation index, question) -> corrected evidence, for items the audit re-cites."""
    path = data_path.parent / AUDIT_FILE
    if not path.exists():
        return {}
    corrections = {}
    for item in json.loads(path.read_text(encoding="utf-8")):
        match = re.fullmatch(r"locomo_(\d+)_qa\d+", str(item.get("question_id", "")))
        if match and item.get("correct_evidence"):
            corrections[(int(match.group(1)), item["question"])] = parse_evidence(item["correct_evidence"])
    return corrections


def run(
    data: Path | str | None = None,
    *,
    limit_conversations: int | None = None,
    embedder: str = "minilm",
    home: Path | str | None = None,
    show_progress: bool = True,
    weights: dict[str, float] | None = None,
    config: str = "default",
) -> dict[str, Any]:
    from heedful.api import Heedful
    from heedful.memory.write import NewMessage

    data_path = resolve_data(data, DEFAULT_DATA, "LoCoMo")
    conversations = json.loads(data_path.read_text(encoding="utf-8"))
    if limit_conversations is not None:
        conversations = conversations[:limit_conversations]
    audit = load_audit(data_path)
    scores, audited, sessions_any = Scores(KS), Scores(KS), Scores(KS)
    latencies: list[float] = []
    turns_total, ingest_seconds, embed_seconds = 0, 0.0, 0.0
    route_ms: dict[str, list[float]] = {}
    timed_out = 0

    with tempfile.TemporaryDirectory(prefix="heedful-locomo-") as tmp:
        hf = Heedful.open(home or tmp, embedder=embedder)
        from heedful.memory.recall.engine import Recaller

        recaller = Recaller(hf.store, lambda: hf.embedder, config=config, weights=weights)
        hf.embedder.embed(["warm up"])  # load the model before anything is timed
        questions_total = sum(len(c["qa"]) for c in conversations)
        with progress(show_progress) as bar:
            ingest_task = bar.add_task(
                "ingest", total=sum(len(turns) for c in conversations for _, _, turns in sessions(c["conversation"]))
            )
            recall_task = bar.add_task("recall", total=questions_total)
            for index, sample in enumerate(conversations):
                user = f"locomo-{index}"
                messages, dia_ids = [], []
                for number, started, turns in sessions(sample["conversation"]):
                    for position, turn in enumerate(turns):
                        messages.append(
                            NewMessage(
                                text=turn_text(turn) or ".",
                                session_id=f"session-{number}",
                                at=started + timedelta(seconds=30 * position),
                                speaker=turn.get("speaker"),
                            )
                        )
                        dia_ids.append(str(turn.get("dia_id")))
                embed_texts = _embedding_texts(messages)
                started_at = time.perf_counter()
                added = hf.memory.add(user, messages, extract=False)
                ingest_seconds += time.perf_counter() - started_at
                # The embedder alone on the very same texts, for the throughput comparison.
                started_at = time.perf_counter()
                hf.embedder.embed(embed_texts)
                embed_seconds += time.perf_counter() - started_at
                turns_total += len(messages)
                bar.advance(ingest_task, len(messages))
                dia_of = dict(zip(added.message_ids, dia_ids, strict=True))

                for qa in sample["qa"]:
                    started_at = time.perf_counter()
                    result = recaller.recall(user, str(qa["question"]), limit=max(KS), budget_tokens=10**9)
                    latencies.append((time.perf_counter() - started_at) * 1000)
                    timed_out += bool(result.timed_out)
                    for name, ms in result.route_ms.items():
                        route_ms.setdefault(name, []).append(ms)
                    ranked = dedupe(dia_of[m] for item in result.items for m in item.source_message_ids if m in dia_of)
                    category = CATEGORIES.get(int(qa.get("category", 0)), str(qa.get("category")))
                    split = "tuning (conv 0-4)" if index in TUNING_CONVERSATIONS else "held-out (conv 5-9)"
                    groups = ("overall", category, split)
                    evidence = parse_evidence(qa.get("evidence", []))
                    scores.add(groups, {k: recall_at_k(ranked, evidence, k) for k in KS})
                    corrected = audit.get((index, str(qa["question"])), evidence)
                    audited.add(groups, {k: recall_at_k(ranked, corrected, k) for k in KS})
                    ranked_sessions = dedupe(d.split(":")[0] for d in ranked)
                    evidence_sessions = dedupe(d.split(":")[0] for d in evidence)
                    sessions_any.add(groups, {k: any_at_k(ranked_sessions, evidence_sessions, k) for k in KS})
                    bar.advance(recall_task)
        embedder_name = hf.embedder.name
        recaller_config = recaller.config.name
        recaller.close()
        hf.close()

    order = ["overall", *CATEGORIES.values(), "tuning (conv 0-4)", "held-out (conv 5-9)"]
    ingest_rate = turns_total / ingest_seconds if ingest_seconds else 0.0
    embed_rate = turns_total / embed_seconds if embed_seconds else 0.0
    return {
        "benchmark": "locomo",
        "data": str(data_path),
        "embedder": embedder_name,
        "recall_config": recaller_config,
        "conversations": len(conversations),
        "questions": len(latencies),
        "turns": turns_total,
        "recall": {g: scores.summary(g) for g in order if g in scores.groups},
        "recall_audited": {g: audited.summary(g) for g in order if g in audited.groups} if audit else None,
        "audit_corrections": len(audit),
        "session_any": {g: sessions_any.summary(g) for g in order if g in sessions_any.groups},
        "ingest": {
            "turns_per_s": round(ingest_rate, 1),
            "embedder_batch_turns_per_s": round(embed_rate, 1),
            "ratio": round(ingest_rate / embed_rate, 3) if embed_rate else None,
        },
        "latency_ms": {
            "p50": round(percentile(latencies, 50), 2),
            "p95": round(percentile(latencies, 95), 2),
            "max": round(max(latencies, default=0.0), 2),
        },
        "route_ms_p95": {name: round(percentile(v, 95), 2) for name, v in route_ms.items()},
        "timed_out_queries": timed_out,
        "published": {
            "bm25_turns": {"@5": 51.9, "@10": 58.8, "@25": 67.0, "@50": 71.9},
            "dragon": {"@5": 56.7, "@10": 66.2, "@25": 76.7, "@50": 82.7},
        },
    }


def _embedding_texts(messages: list[Any]) -> list[str]:
    """The texts the write path embeds for these messages (each turn with the one before it)."""
    from heedful.memory.recall.indexing import excerpt_embedding_text, excerpt_statement

    previous: dict[str, str] = {}
    texts = []
    for message in messages:
        texts.append(excerpt_embedding_text(message.text, message.speaker, previous.get(message.session_id)))
        previous[message.session_id] = excerpt_statement(message.text, message.speaker)
    return texts


def print_report(report: dict[str, Any]) -> None:
    title = f"LoCoMo recall@k ({report['questions']} questions, {report['embedder']}, {report['recall_config']})"
    print_table(title, report["recall"])
    if report.get("recall_audited"):
        print_table("with the audit's corrected evidence", report["recall_audited"])
    print_table("session any@k", report["session_any"])
    print_table("published (turn-level)", report["published"])
    ingest, latency = report["ingest"], report["latency_ms"]
    typer.echo(
        f"ingest {ingest['turns_per_s']} turns/s (embedder alone {ingest['embedder_batch_turns_per_s']}/s,"
        f" ratio {ingest['ratio']}); recall p50 {latency['p50']} ms, p95 {latency['p95']} ms"
    )


def cli(
    data: Annotated[Path | None, typer.Option("--data", help="locomo10.json (default: ../shared/data)")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    limit_conversations: Annotated[
        int | None, typer.Option("--limit-conversations", min=1, help="only the first N conversations")
    ] = None,
    embedder: Annotated[str, typer.Option("--embedder", help="minilm (default) or hashing")] = "minilm",
    config: Annotated[
        str, typer.Option("--config", help="named recall configuration: default, single-stage, restatements")
    ] = "default",
) -> None:
    """Recall benchmark on LoCoMo-10: turn-level evidence recall@k, throughput and latency."""
    from heedful.memory.recall.config import recall_config

    recall_config(config)  # an unknown name fails here, before any data is read
    report = run(
        data, limit_conversations=limit_conversations, embedder=embedder, show_progress=not json_output, config=config
    )
    if json_output:
        typer.echo(json.dumps(report, indent=2))
    else:
        print_report(report)
