"""BEAM-100K recall benchmark: message-level recall@k on each probing question's source messages.

    heedful bench beam [--data PATH] [--json] [--limit-conversations N]

Each of the 20 conversations becomes one user; its messages are added raw (`extract=False`),
each batch as one session dated by the batch's time anchor. Every probing question is recalled
and scored against its `source_chat_ids` (recall@5/10/20, overall and per ability; questions
with no source messages, the abstention ones, are left out of the averages and counted). For
knowledge-update questions it also reports how often the updated message ranks above the
original one.
"""

from __future__ import annotations

import gzip
import json
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.bench.report import (
    SHARED_DATA,
    Scores,
    dedupe,
    percentile,
    print_table,
    progress,
    recall_at_k,
    resolve_data,
)

DEFAULT_DATA = SHARED_DATA / "beam" / "100K"
KS = (5, 10, 20)
PUBLISHED_BM25 = {"@5": 32.0, "@10": 40.5, "@20": 48.3}


def parse_anchor(text: str | None) -> datetime | None:
    """'March-15-2024' -> an aware datetime, or None."""
    if not text:
        return None
    try:
        return datetime.strptime(text.strip(), "%B-%d-%Y").replace(tzinfo=UTC)
    except ValueError:
        return None


def source_ids(value: object) -> list[str]:
    """Message ids from `source_chat_ids` (a list, or a dict of lists, or None)."""
    if value is None:
        return []
    if isinstance(value, dict):
        return dedupe(i for part in value.values() for i in source_ids(part))
    if isinstance(value, list):
        return dedupe(str(i) for i in value if isinstance(i, int | str))
    return [str(value)] if isinstance(value, int | str) else []


def conversation_dirs(root: Path) -> list[Path]:
    dirs = [p for p in root.iterdir() if p.is_dir() and (p / "chat.json.gz").exists()]
    return sorted(dirs, key=lambda p: int(p.name) if p.name.isdigit() else p.name)


def messages_of(chat: list[dict[str, Any]]) -> list[tuple[str, str, str, datetime, int]]:
    """(message id, role, text, time, batch number) in order; a batch is dated by its time anchor (on the
    batch, or on its first message), each message 30 seconds after the one before."""
    out = []
    fallback = datetime(2024, 1, 1, tzinfo=UTC)
    for number, batch in enumerate(chat, start=1):
        # The data puts a batch's date on the batch or, in the released files, on its first message.
        stated = batch.get("time_anchor") or next(
            (m.get("time_anchor") for turn in batch.get("turns", []) for m in turn if m.get("time_anchor")), None
        )
        anchor = parse_anchor(stated) or fallback
        fallback = anchor
        position = 0
        for turn in batch.get("turns", []):
            for message in turn:
                moment = anchor + timedelta(seconds=30 * position)
                position += 1
                role = "assistant" if message.get("role") == "assistant" else "user"
                out.append((str(message["id"]), role, str(message.get("content", "")), moment, number))
    return out


def run(
    data: Path | str | None = None,
    *,
    limit_conversations: int | None = None,
    embedder: str = "minilm",
    home: Path | str | None = None,
    show_progress: bool = True,
    config: str = "default",
) -> dict[str, Any]:
    from heedful.api import Heedful
    from heedful.memory.write import MAX_MESSAGE_CHARS, NewMessage

    root = resolve_data(data, DEFAULT_DATA, "BEAM-100K")
    dirs = conversation_dirs(root)[:limit_conversations]
    scores = Scores(KS)
    latencies: list[float] = []
    skipped = 0
    updates_total, updates_above = 0, 0
    messages_total, ingest_seconds = 0, 0.0

    with tempfile.TemporaryDirectory(prefix="heedful-beam-") as tmp:
        hf = Heedful.open(home or tmp, embedder=embedder)
        hf.embedder.embed(["warm up"])
        from heedful.memory.recall.engine import Recaller

        recaller = Recaller(hf.store, lambda: hf.embedder, config=config)
        with progress(show_progress) as bar:
            task = bar.add_task("conversations", total=len(dirs))
            for directory in dirs:
                user = f"beam-{directory.name}"
                chat = json.loads(gzip.decompress((directory / "chat.json.gz").read_bytes()))
                rows = messages_of(chat)
                # One message in the data is longer than the write path accepts: keep its beginning.
                new = [
                    NewMessage(
                        text=text.strip()[:MAX_MESSAGE_CHARS] or ".",
                        role="assistant" if role == "assistant" else "user",
                        session_id=f"batch-{batch}",
                        at=moment,
                    )
                    for _, role, text, moment, batch in rows
                ]
                started = time.perf_counter()
                added = hf.memory.add(user, new, extract=False)
                ingest_seconds += time.perf_counter() - started
                messages_total += len(new)
                chat_id_of = {mid: rows[i][0] for i, mid in enumerate(added.message_ids)}

                questions = json.loads((directory / "probing_questions.json").read_text(encoding="utf-8"))
                for ability, items in questions.items():
                    for item in items:
                        evidence = source_ids(item.get("source_chat_ids"))
                        if not evidence:
                            skipped += 1
                            continue
                        started = time.perf_counter()
                        result = recaller.recall(user, str(item["question"]), limit=50, budget_tokens=10**9)
                        latencies.append((time.perf_counter() - started) * 1000)
                        ranked = dedupe(
                            chat_id_of[m] for it in result.items for m in it.source_message_ids if m in chat_id_of
                        )
                        scores.add(("overall", ability), {k: recall_at_k(ranked, evidence, k) for k in KS})
                        sources = item.get("source_chat_ids")
                        if ability == "knowledge_update" and isinstance(sources, dict):
                            old = source_ids(sources.get("original_info"))
                            updated = source_ids(sources.get("updated_info"))
                            if old and updated:
                                updates_total += 1
                                updates_above += _ranks_above(ranked, updated, old)
                bar.advance(task)
        embedder_name = hf.embedder.name
        recaller_config = recaller.config.name
        recaller.close()
        hf.close()

    groups = ["overall", *sorted(g for g in scores.groups if g != "overall")]
    return {
        "benchmark": "beam-100k",
        "data": str(root),
        "embedder": embedder_name,
        "recall_config": recaller_config,
        "conversations": len(dirs),
        "questions_scored": len(latencies),
        "questions_without_sources": skipped,
        "messages": messages_total,
        "recall": {g: scores.summary(g) for g in groups if g in scores.groups},
        "knowledge_update_newer_first": {
            "share": round(100 * updates_above / updates_total, 1) if updates_total else None,
            "n": updates_total,
        },
        "ingest_messages_per_s": round(messages_total / ingest_seconds, 1) if ingest_seconds else None,
        "latency_ms": {"p50": round(percentile(latencies, 50), 2), "p95": round(percentile(latencies, 95), 2)},
        "published": {"bm25": PUBLISHED_BM25},
    }


def _ranks_above(ranked: list[str], updated: list[str], old: list[str]) -> int:
    """1 when the best-ranked updated message comes before the best-ranked original one."""
    position = {chat_id: i for i, chat_id in enumerate(ranked)}
    best_new = min((position[i] for i in updated if i in position), default=None)
    best_old = min((position[i] for i in old if i in position and i not in updated), default=None)
    if best_new is None:
        return 0
    return int(best_old is None or best_new < best_old)


def print_report(report: dict[str, Any]) -> None:
    print_table(
        f"BEAM-100K recall@k ({report['questions_scored']} questions, recall configuration {report['recall_config']})",
        report["recall"],
    )
    print_table("published", report["published"])
    update = report["knowledge_update_newer_first"]
    typer.echo(
        f"knowledge updates: the updated message ranks above the original in {update['share']}% "
        f"of {update['n']}; recall p50 {report['latency_ms']['p50']} ms, p95 {report['latency_ms']['p95']} ms"
    )


def cli(
    data: Annotated[Path | None, typer.Option("--data", help="BEAM 100K folder (default: ../shared/data)")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    limit_conversations: Annotated[
        int | None, typer.Option("--limit-conversations", min=1, help="only the first N conversations")
    ] = None,
    embedder: Annotated[str, typer.Option("--embedder", help="minilm (default) or hashing")] = "minilm",
    config: Annotated[
        str, typer.Option("--config", help="named recall configuration: default, single-stage, restatements")
    ] = "default",
) -> None:
    """Recall benchmark on BEAM-100K: message-level recall@k on the probing questions' sources."""
    from heedful.memory.recall.config import recall_config

    recall_config(config)  # an unknown name fails here, before any data is read
    report = run(
        data, limit_conversations=limit_conversations, embedder=embedder, show_progress=not json_output, config=config
    )
    if json_output:
        typer.echo(json.dumps(report, indent=2))
    else:
        print_report(report)
