"""Load on `heedful serve`: K concurrent clients on loopback, each its own user and API key, adding
and recalling until N requests are done or T seconds have passed.

The server is a real `heedful serve --workers W` child process on a fresh home (the store it opens
follows the environment, so the same run measures any backend). Reported: throughput, latency
percentiles per operation, errors, and afterwards, read from the store itself, whether every add
the server acknowledged is there (its messages and the facts its answer named).
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.bench.report import percentile
from heedful.errors import HeedfulError

PLACES = ["Lisbon", "Porto", "Kyoto", "Oslo", "Quito", "Dakar", "Hanoi", "Perth", "Tartu", "Cusco"]
HOBBIES = ["the cello", "chess", "climbing", "pottery", "rowing", "go", "sailing", "baking", "judo", "tango"]


@dataclass(frozen=True)
class OpStats:
    count: int
    errors: int
    p50_ms: float
    p95_ms: float
    p99_ms: float


@dataclass(frozen=True)
class ServeBenchReport:
    clients: int
    workers: int
    embedder: str
    requests: int
    seconds: float
    throughput_rps: float
    errors: int
    error_samples: list[str]
    ops: dict[str, OpStats]
    acknowledged_adds: int
    missing_adds: int  # acknowledged by the server but not in the store afterwards: must be 0


@dataclass
class _Run:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"add": [], "recall": []})
    errors: dict[str, int] = field(default_factory=lambda: {"add": 0, "recall": 0})
    samples: list[str] = field(default_factory=list)
    acknowledged: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # user -> add answers
    started: int = 0


def _message(rng: random.Random, n: int) -> str:
    templates = [
        "I moved to {p} last spring",
        "I have been learning {h} for {n} years",
        "My sister lives in {p}",
        "On Sundays I practise {h}",
        "I flew to {p} for work in week {n}",
    ]
    return rng.choice(templates).format(p=rng.choice(PLACES), h=rng.choice(HOBBIES), n=n % 40 + 1)


def _question(rng: random.Random) -> str:
    return rng.choice(
        [
            "where do I live?",
            "what hobbies do I have?",
            "where does my sister live?",
            f"when did I go to {rng.choice(PLACES)}?",
            f"how long have I done {rng.choice(HOBBIES)}?",
        ]
    )


async def _client(
    url: str, user: str, key: str, run: _Run, limit: int, deadline: float, recall_share: float, flush: bool, seed: int
) -> None:
    import httpx

    rng = random.Random(seed)
    acknowledged = run.acknowledged.setdefault(user, [])
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as http:
        n = 0
        while run.started < limit and time.monotonic() < deadline:
            run.started += 1  # one event loop: no lock needed
            op = "recall" if acknowledged and rng.random() < recall_share else "add"
            began = time.perf_counter()
            try:
                if op == "add":
                    response = await http.post("/v1/memory/messages", json={"text": _message(rng, n), "flush": flush})
                else:
                    response = await http.post("/v1/memory/recall", json={"query": _question(rng), "limit": 10})
            except httpx.HTTPError as exc:
                run.errors[op] += 1
                run.samples.append(f"{op}: {type(exc).__name__}: {exc}"[:200])
                continue
            run.latencies[op].append((time.perf_counter() - began) * 1000)
            if response.status_code != 200:
                run.errors[op] += 1
                run.samples.append(f"{op}: {response.status_code} {response.text}"[:200])
            elif op == "add":
                acknowledged.append(response.json())
            n += 1


def _missing(home: Path, acknowledged: dict[str, list[dict[str, Any]]], overrides: dict[str, str]) -> int:
    """Acknowledged adds whose message, or a fact the answer named, is not in the store."""
    from heedful.api import Heedful

    missing = 0
    with Heedful.open(home, **overrides) as hf:
        for user, answers in acknowledged.items():
            stored = {m.id for m in hf.store.memory.messages(user)} if answers else set()
            named = [e["fact_id"] for a in answers for e in a["events"] if e["op"] == "add"]
            facts = hf.store.memory.get_facts(user, named) if named else {}
            for answer in answers:
                added = [e["fact_id"] for e in answer["events"] if e["op"] == "add"]
                if not set(answer["message_ids"]) <= stored or any(f not in facts for f in added):
                    missing += 1
    return missing


def measure(
    clients: int = 8,
    requests: int = 400,
    seconds: float = 60.0,
    workers: int = 2,
    recall_share: float = 0.5,
    flush: bool = True,
    embedder: str | None = None,
) -> ServeBenchReport:
    from heedful.api import Heedful
    from heedful.server.keys import create_key
    from heedful.server.process import served

    with tempfile.TemporaryDirectory(prefix="heedful-bench-serve-") as scratch:
        home = Path(scratch) / "home"
        overrides = {"embedder": embedder} if embedder else {}
        with Heedful.open(home, **overrides) as hf:
            used_embedder = hf.settings.embedder.name
            keys = {f"client-{n}": create_key(hf.store.keys, f"client-{n}").key for n in range(clients)}
        run = _Run()
        # The limit is per key and per process; the clients are the load, not abusers to slow down.
        with served(home, workers=workers, rate=1e6, burst=1_000_000, embedder=embedder, clean_env=False) as url:
            began = time.monotonic()

            async def load() -> None:
                deadline = began + seconds
                await asyncio.gather(
                    *(
                        _client(url, user, key, run, requests, deadline, recall_share, flush, seed)
                        for seed, (user, key) in enumerate(keys.items())
                    )
                )

            asyncio.run(load())
            elapsed = time.monotonic() - began
        acknowledged = sum(len(answers) for answers in run.acknowledged.values())
        missing = _missing(home, run.acknowledged, overrides)
    done = sum(len(v) for v in run.latencies.values())
    ops = {
        op: OpStats(
            len(values),
            run.errors[op],
            round(percentile(values, 50), 1),
            round(percentile(values, 95), 1),
            round(percentile(values, 99), 1),
        )
        for op, values in run.latencies.items()
    }
    return ServeBenchReport(
        clients=clients,
        workers=workers,
        embedder=used_embedder,
        requests=done,
        seconds=round(elapsed, 2),
        throughput_rps=round(done / elapsed, 1) if elapsed else 0.0,
        errors=sum(run.errors.values()),
        error_samples=run.samples[:5],
        ops=ops,
        acknowledged_adds=acknowledged,
        missing_adds=missing,
    )


def print_report(report: ServeBenchReport) -> None:
    typer.echo(
        f"heedful serve: {report.clients} clients, {report.workers} worker(s), embedder {report.embedder}:"
        f" {report.requests} requests in {report.seconds:.1f} s = {report.throughput_rps:.1f} req/s,"
        f" {report.errors} error(s)"
    )
    typer.echo(f"  {'op':<8} {'count':>6} {'errors':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for name, op in report.ops.items():
        typer.echo(f"  {name:<8} {op.count:>6} {op.errors:>6} {op.p50_ms:>8.1f} {op.p95_ms:>8.1f} {op.p99_ms:>8.1f}")
    verdict = "all present" if report.missing_adds == 0 else f"{report.missing_adds} MISSING"
    typer.echo(f"  acknowledged adds: {report.acknowledged_adds}, afterwards in the store: {verdict}")
    for sample in report.error_samples:
        typer.echo(f"  error: {sample}")


def cli(
    clients: Annotated[int, typer.Option("--clients", "-k", min=1, max=256, help="Concurrent clients (users).")] = 8,
    requests: Annotated[int, typer.Option("--requests", "-n", min=1, help="Stop after this many requests.")] = 400,
    seconds: Annotated[float, typer.Option("--seconds", "-t", min=1, help="Or after this many seconds.")] = 60.0,
    workers: Annotated[int, typer.Option("--workers", min=1, max=32, help="Server worker processes.")] = 2,
    recall_share: Annotated[
        float, typer.Option("--recall-share", min=0, max=1, help="Share of requests that recall (the rest add).")
    ] = 0.5,
    flush: Annotated[bool, typer.Option("--flush/--no-flush", help="Extract facts on every add.")] = True,
    embedder: Annotated[str | None, typer.Option("--embedder", help="minilm or hashing (default: configured).")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on any error or missing add.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """K concurrent clients adding and recalling through `heedful serve`: throughput, p50/p95/p99, errors."""
    try:
        import httpx  # noqa: F401

        from heedful.server import app  # noqa: F401  (the serve extra)
    except ImportError as exc:
        raise HeedfulError("bench serve needs the serve extra: pip install 'heedful[serve]'") from exc
    report = measure(clients, requests, seconds, workers, recall_share, flush, embedder)
    if json_output:
        typer.echo(json.dumps(asdict(report), indent=2))
    else:
        print_report(report)
    if strict and (report.errors or report.missing_adds):
        raise typer.Exit(1)
