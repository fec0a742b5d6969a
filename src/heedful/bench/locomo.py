"""LoCoMo-10 recall benchmark: raw ingest of every turn, then turn-level evidence recall@k.

    heedful bench locomo [--data PATH] [--json] [--limit-conversations N] [--peer mem0 [--peer-scale N]]

Each conversation becomes one user in a temporary heedful home; its turns are added with
`memory.add(..., extract=False)` (speaker names as speakers, session dates as message times,
image captions in the text). Every question is then recalled and scored: the share of its
evidence turns among the first k items (k = 5, 10, 25, 50; a question without evidence counts as
1), overall, per category and for the tuning (0-4) and held-out (5-9) conversations, plus
session-level any@k, ingest throughput against the embedder's own batch throughput on the same
texts, and recall latency. With the audit file next to the data, scores against its corrected
evidence are reported as well, beside the original ones.

With `--peer mem0` another memory system ingests and answers the same conversations in the same
process, with the same embedder, interleaved with heedful conversation by conversation and
question by question, and is scored with the same metric (see `peer_mem0`).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import asdict
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
from heedful.errors import InputError

DEFAULT_DATA = SHARED_DATA / "locomo" / "locomo10.json"
AUDIT_FILE = "locomo_audit_errors.json"
KS = (5, 10, 25, 50)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
TUNING_CONVERSATIONS = range(5)
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
PEERS = ("mem0",)


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


def conversation_messages(sample: dict[str, Any]) -> tuple[list[Any], list[str]]:
    """A conversation's turns as messages (speaker, session time plus 30 s a turn) and their dia ids."""
    from heedful.memory.write import NewMessage

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
    return messages, dia_ids


class _Tally:
    """One system's scores and timings over the run."""

    def __init__(self) -> None:
        self.scores, self.audited, self.sessions_any = Scores(KS), Scores(KS), Scores(KS)
        self.latencies: list[float] = []
        self.ingest_seconds = 0.0

    def score(self, ranked: list[str], qa: dict[str, Any], index: int, corrected: list[str] | None) -> None:
        category = CATEGORIES.get(int(qa.get("category", 0)), str(qa.get("category")))
        split = "tuning (conv 0-4)" if index in TUNING_CONVERSATIONS else "held-out (conv 5-9)"
        groups = ("overall", category, split)
        evidence = parse_evidence(qa.get("evidence", []))
        self.scores.add(groups, {k: recall_at_k(ranked, evidence, k) for k in KS})
        corrected = evidence if corrected is None else corrected
        self.audited.add(groups, {k: recall_at_k(ranked, corrected, k) for k in KS})
        ranked_sessions = dedupe(d.split(":")[0] for d in ranked)
        evidence_sessions = dedupe(d.split(":")[0] for d in evidence)
        self.sessions_any.add(groups, {k: any_at_k(ranked_sessions, evidence_sessions, k) for k in KS})

    def tables(self, with_audit: bool) -> dict[str, Any]:
        order = ["overall", *CATEGORIES.values(), "tuning (conv 0-4)", "held-out (conv 5-9)"]
        return {
            "recall": {g: self.scores.summary(g) for g in order if g in self.scores.groups},
            "recall_audited": {g: self.audited.summary(g) for g in order if g in self.audited.groups}
            if with_audit
            else None,
            "session_any": {g: self.sessions_any.summary(g) for g in order if g in self.sessions_any.groups},
        }

    def latency(self) -> dict[str, float]:
        return {
            "p50": round(percentile(self.latencies, 50), 2),
            "p95": round(percentile(self.latencies, 95), 2),
            "max": round(max(self.latencies, default=0.0), 2),
        }


def run(
    data: Path | str | None = None,
    *,
    limit_conversations: int | None = None,
    embedder: str = "minilm",
    home: Path | str | None = None,
    show_progress: bool = True,
    weights: dict[str, float] | None = None,
    config: str = "default",
    peer: str | None = None,
    peer_scale: int | None = None,
    peer_store: str = "disk",
) -> dict[str, Any]:
    """heedful's row, and with `peer` a peer system's row measured beside it, interleaved (see peer_mem0)."""
    from heedful.api import Heedful

    check_peer(peer, peer_scale, peer_store)
    data_path = resolve_data(data, DEFAULT_DATA, "LoCoMo")
    conversations = json.loads(data_path.read_text(encoding="utf-8"))
    if limit_conversations is not None:
        conversations = conversations[:limit_conversations]
    audit = load_audit(data_path)
    load_at_start = os.getloadavg()[0]
    ours, theirs = _Tally(), _Tally()
    turns_total, embed_seconds = 0, 0.0
    route_ms: dict[str, list[float]] = {}
    timed_out = 0
    peer_report: dict[str, Any] | None = None

    with tempfile.TemporaryDirectory(prefix="heedful-locomo-") as tmp:
        hf = Heedful.open(home or tmp, embedder=embedder)
        from heedful.memory.recall.engine import Recaller

        recaller = Recaller(hf.store, lambda: hf.embedder, config=config, weights=weights)
        hf.embedder.embed(["warm up"])  # load the model before anything is timed
        other = None
        if peer is not None:
            from heedful.bench.peer_mem0 import Mem0Peer

            other = Mem0Peer(hf.embedder, Path(tmp) / "peer-mem0", peer_store)
        peer_turns: list[Any] = []
        peer_questions: list[str] = []
        questions_total = sum(len(c["qa"]) for c in conversations)
        with progress(show_progress) as bar:
            ingest_task = bar.add_task(
                "ingest", total=sum(len(turns) for c in conversations for _, _, turns in sessions(c["conversation"]))
            )
            recall_task = bar.add_task("recall", total=questions_total)
            for index, sample in enumerate(conversations):
                user = f"locomo-{index}"
                messages, dia_ids = conversation_messages(sample)
                embed_texts = _embedding_texts(messages)
                # With a peer, who goes first alternates, so that load from outside falls on both alike.
                ingest_order = (True, False) if index % 2 == 0 else (False, True)
                for heedful_turn in ingest_order:
                    if heedful_turn:
                        started_at = time.perf_counter()
                        added = hf.memory.add(user, messages, extract=False)
                        ours.ingest_seconds += time.perf_counter() - started_at
                        dia_of = dict(zip(added.message_ids, dia_ids, strict=True))
                    elif other is not None:
                        from heedful.bench.peer_mem0 import SCALE_LOCOMO_QUESTIONS, PeerTurn

                        turns = [PeerTurn(m.text, session=m.session_id, speaker=m.speaker) for m in messages]
                        started_at = time.perf_counter()
                        peer_ids = other.add(user, turns)
                        theirs.ingest_seconds += time.perf_counter() - started_at
                        peer_dia_of = dict(zip(peer_ids, dia_ids, strict=True))
                        peer_turns.extend(turns)
                        peer_questions.extend(str(qa["question"]) for qa in sample["qa"][:SCALE_LOCOMO_QUESTIONS])
                # The embedder alone on the very same texts, for the throughput comparison.
                started_at = time.perf_counter()
                hf.embedder.embed(embed_texts)
                embed_seconds += time.perf_counter() - started_at
                turns_total += len(messages)
                bar.advance(ingest_task, len(messages))

                for number, qa in enumerate(sample["qa"]):
                    question = str(qa["question"])
                    corrected = audit.get((index, question))
                    for heedful_turn in (True, False) if number % 2 == 0 else (False, True):
                        if heedful_turn:
                            started_at = time.perf_counter()
                            result = recaller.recall(user, question, limit=max(KS), budget_tokens=10**9)
                            ours.latencies.append((time.perf_counter() - started_at) * 1000)
                            timed_out += bool(result.timed_out)
                            for name, ms in result.route_ms.items():
                                route_ms.setdefault(name, []).append(ms)
                            ranked = dedupe(
                                dia_of[m] for item in result.items for m in item.source_message_ids if m in dia_of
                            )
                            ours.score(ranked, qa, index, corrected)
                        elif other is not None:
                            started_at = time.perf_counter()
                            found = other.search(user, question, max(KS))
                            theirs.latencies.append((time.perf_counter() - started_at) * 1000)
                            theirs.score(
                                dedupe(peer_dia_of[m] for m in found if m in peer_dia_of), qa, index, corrected
                            )
                    bar.advance(recall_task)
        embedder_name = hf.embedder.name
        recaller_config = recaller.config.name
        recaller.close()
        hf.close()
        if other is not None:
            other.close()
            peer_report = {
                "system": other.name,
                "version": other.version,
                "store": peer_store,
                **theirs.tables(bool(audit)),
                "ingest": {
                    "turns_per_s": round(turns_total / theirs.ingest_seconds, 1) if theirs.ingest_seconds else 0.0
                },
                "latency_ms": theirs.latency(),
                "notes": other.notes,
                "grown_user": None,
            }
            if peer_scale:
                from heedful.bench.peer_mem0 import grown_user

                grown = grown_user(
                    peer_scale,
                    peer_turns,
                    peer_questions,
                    embedder_name=embedder,
                    folder=Path(tmp) / "grown",
                    k=max(KS),
                    config=config,
                    store=peer_store,
                )
                peer_report["grown_user"] = asdict(grown)

    ingest_rate = turns_total / ours.ingest_seconds if ours.ingest_seconds else 0.0
    embed_rate = turns_total / embed_seconds if embed_seconds else 0.0
    return {
        "benchmark": "locomo",
        "data": str(data_path),
        "embedder": embedder_name,
        "recall_config": recaller_config,
        "conversations": len(conversations),
        "questions": len(ours.latencies),
        "turns": turns_total,
        **ours.tables(bool(audit)),
        "audit_corrections": len(audit),
        "ingest": {
            "turns_per_s": round(ingest_rate, 1),
            "embedder_batch_turns_per_s": round(embed_rate, 1),
            "ratio": round(ingest_rate / embed_rate, 3) if embed_rate else None,
        },
        "latency_ms": ours.latency(),
        "route_ms_p95": {name: round(percentile(v, 95), 2) for name, v in route_ms.items()},
        "timed_out_queries": timed_out,
        "load_average": {"start": round(load_at_start, 2), "end": round(os.getloadavg()[0], 2)},
        "published": {
            "bm25_turns": {"@5": 51.9, "@10": 58.8, "@25": 67.0, "@50": 71.9},
            "dragon": {"@5": 56.7, "@10": 66.2, "@25": 76.7, "@50": 82.7},
        },
        "peer": peer_report,
    }


def check_peer(peer: str | None, peer_scale: int | None, peer_store: str = "disk") -> None:
    """A one-line error, before any data is read, for an unknown peer or store, or a missing extra."""
    if peer is None:
        if peer_scale:
            raise InputError("--peer-scale needs --peer mem0")
        return
    if peer not in PEERS:
        raise InputError(f"unknown peer {peer!r}; choose one of: {', '.join(PEERS)}")
    from heedful.bench.peer_mem0 import STORES, import_mem0

    if peer_store not in STORES:
        raise InputError(f"unknown peer store {peer_store!r}; choose one of: {', '.join(STORES)}")
    import_mem0()


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
    load = report.get("load_average") or {}
    if load:
        typer.echo(f"load average {load['start']} at start, {load['end']} at end ({os.cpu_count()} cores)")
    if report.get("peer"):
        print_peer(report)


def print_peer(report: dict[str, Any]) -> None:
    """heedful and the peer side by side: recall@k, ingest, search latency, and the grown user."""
    peer = report["peer"]
    rows = {}
    for name, side in (("heedful", report), (peer["system"], peer)):
        overall = side["recall"].get("overall", {})
        rows[name] = {
            **{f"@{k}": overall.get(f"@{k}", "") for k in KS},
            "held-out @10": side["recall"].get("held-out (conv 5-9)", {}).get("@10", ""),
            "ingest turns/s": side["ingest"]["turns_per_s"],
            "search p50 ms": side["latency_ms"]["p50"],
            "search p95 ms": side["latency_ms"]["p95"],
        }
    title = f"heedful and {peer['system']} {peer['version']} ({peer['store']}), interleaved, {report['embedder']}"
    print_table(title, rows)
    print_table(f"{peer['system']} recall@k by category", peer["recall"])
    grown = peer.get("grown_user")
    if grown:
        print_table(
            f"one user of {grown['items']} items ({grown['queries']} queries x {grown['runs']} runs, interleaved)",
            {
                system: {**ms, "fill s": grown["fill_seconds"].get(system, "")}
                for system, ms in grown["latency_ms"].items()
            },
        )
    for note in peer["notes"]:
        typer.echo(f"note: {note}")


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
    peer: Annotated[
        str | None,
        typer.Option("--peer", help="measure another memory beside heedful, interleaved: mem0 (extra peer-mem0)"),
    ] = None,
    peer_scale: Annotated[
        int | None,
        typer.Option("--peer-scale", min=100, help="also time both on one user grown to N items (with --peer)"),
    ] = None,
    peer_store: Annotated[
        str, typer.Option("--peer-store", help="where the peer keeps its data: disk (default) or memory")
    ] = "disk",
) -> None:
    """Recall benchmark on LoCoMo-10: turn-level evidence recall@k, throughput and latency."""
    from heedful.memory.recall.config import recall_config

    recall_config(config)  # an unknown name fails here, before any data is read
    check_peer(peer, peer_scale, peer_store)
    report = run(
        data,
        limit_conversations=limit_conversations,
        embedder=embedder,
        show_progress=not json_output,
        config=config,
        peer=peer,
        peer_scale=peer_scale,
        peer_store=peer_store,
    )
    if json_output:
        typer.echo(json.dumps(report, indent=2))
    else:
        print_report(report)
