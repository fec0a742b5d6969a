"""One user's recall on PostgreSQL as their memory grows, and what the HNSW switch costs.

    python -m heedful.bench.scale_postgres --database-url postgresql://... --sizes 10000,100000

For each size, a new user is filled through `heedful.memory` (the generated notes of `bench scale`,
each distinct) on a PostgresStore, timing the ingest; then, side by side across sizes, query by
query: full recall p50/p95 with each route's share, and the vector route alone both ways (exact
scan of the user's rows, and the HNSW index) with the HNSW answer's recall@10 against the exact one.
The database must be one heedful may write to; each run adds users named `scale-<size>-<tag>`
(`--tag` reuses an earlier run's users, adding only the notes they lack).
"""

from __future__ import annotations

import json
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.api import Heedful
from heedful.bench.scale import QUERIES, notes
from heedful.config import load_settings
from heedful.memory.write import NewMessage

BATCH = 500
VECTOR_QUERIES = 40  # stored notes used as vector queries, besides the bench's own questions
TOP = 10
DEPTH = 200  # what recall asks of the vector route (the engine's MIN_DEPTH)


def _open(url: str, home: Path, embedder: str) -> Heedful:
    from heedful.store.postgres import PostgresStore

    settings = load_settings(home)
    settings.embedder.name = embedder
    hf = Heedful(settings)
    hf.__dict__["store"] = PostgresStore(url)  # the facade's store, on the given database
    return hf


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    if not ordered:
        return {"p50": 0.0, "p95": 0.0}
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
    }


def _fill(hf: Heedful, user: str, size: int) -> float:
    """Bring `user` to `size` distinct notes (a run resumed with --tag adds only what is missing);
    items added per second (0 when nothing was added)."""
    texts = notes(size, size)
    have = hf.store.memory.count_facts(user)
    if have >= size:
        return 0.0
    started = time.perf_counter()
    for start in range(have, size, BATCH):
        messages = [
            NewMessage(text, session_id=f"s{(start + n) // 20}") for n, text in enumerate(texts[start : start + BATCH])
        ]
        hf.memory.add(user, messages, extract=False)
    return (size - have) / (time.perf_counter() - started)


def run(url: str, sizes: list[int], runs: int = 3, embedder: str = "hashing", tag: str | None = None) -> dict[str, Any]:
    tag = tag or secrets.token_hex(3)
    with tempfile.TemporaryDirectory(prefix="heedful-scale-pg-") as folder:
        hf = _open(url, Path(folder), embedder)
        try:
            users = {size: f"scale-{size}-{tag}" for size in sizes}
            ingest = {size: round(_fill(hf, user, size), 1) for size, user in users.items()}
            search: Any = hf.store.search
            for user in users.values():  # warm: the embedder and each user's index
                hf.memory.recall(user, QUERIES[0])
            recall_ms: dict[int, list[float]] = {size: [] for size in sizes}
            routes: dict[int, dict[str, list[float]]] = {size: {} for size in sizes}
            for _ in range(runs):
                for query in QUERIES:
                    for size, user in users.items():
                        began = time.perf_counter()
                        result = hf.memory.recall(user, query)
                        recall_ms[size].append((time.perf_counter() - began) * 1000)
                        for name, spent in result.route_ms.items():
                            routes[size].setdefault(name, []).append(spent)
            vector = _vector_route(hf, search, users)
        finally:
            hf.close()
    from heedful.store.postgres.search import EXACT_SCAN_UP_TO, HNSW_MIN_SHARE

    return {
        "database": "postgresql",
        "embedder": embedder,
        "exact_scan_up_to": EXACT_SCAN_UP_TO,
        "hnsw_min_share": HNSW_MIN_SHARE,
        "sizes": {
            size: {
                "ingest_items_per_s": ingest[size],
                "recall_ms": _percentiles(recall_ms[size]),
                "route_p50_ms": {name: _percentiles(spent)["p50"] for name, spent in sorted(routes[size].items())},
                **vector[size],
            }
            for size in sizes
        },
        "queries": len(QUERIES) * runs,
        "tag": tag,
    }


def _vector_route(hf: Heedful, search: Any, users: dict[int, str]) -> dict[int, dict[str, Any]]:
    """Exact scan against HNSW for each user, asked for recall's depth: latency of each, and the share of
    the exact top 10 that the HNSW answer's top 10 holds."""
    questions = list(QUERIES)
    found: dict[int, dict[str, Any]] = {}
    timings: dict[int, dict[str, list[float]]] = {size: {"exact": [], "hnsw": []} for size in users}
    kept: dict[int, list[float]] = {size: [] for size in users}
    probes = {size: questions + notes(size, size)[:: max(1, size // VECTOR_QUERIES)][:VECTOR_QUERIES] for size in users}
    for size, user in users.items():
        vectors = hf.embedder.embed(probes[size])
        for vector in vectors:
            answers = {}
            for mode in ("exact", "hnsw"):
                began = time.perf_counter()
                found_rows = search.nearest(user, vector, DEPTH, approximate=mode == "hnsw")
                answers[mode] = [seq for seq, _ in found_rows[:TOP]]
                timings[size][mode].append((time.perf_counter() - began) * 1000)
            kept[size].append(len(set(answers["exact"]) & set(answers["hnsw"])) / max(1, len(answers["exact"])))
        found[size] = {
            "vector_exact_ms": _percentiles(timings[size]["exact"]),
            "vector_hnsw_ms": _percentiles(timings[size]["hnsw"]),
            "hnsw_recall_at_10": round(statistics.mean(kept[size]), 4),
            "vector_queries": len(kept[size]),
        }
    return found


def cli(
    database_url: Annotated[str, typer.Option("--database-url", help="postgresql://... (heedful may write there)")],
    sizes: Annotated[str, typer.Option("--sizes", help="Items of each measured user, e.g. 10000,100000")] = "10000",
    runs: Annotated[int, typer.Option("--runs", help="Passes over the query set.")] = 3,
    embedder: Annotated[str, typer.Option("--embedder", help="hashing (fast to build) or minilm.")] = "hashing",
    tag: Annotated[str | None, typer.Option("--tag", help="Reuse (and complete) the users of an earlier run.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """One user's recall p50/p95 on PostgreSQL at each size, with the vector route exact and by HNSW."""
    try:
        chosen = [int(part) for part in sizes.split(",") if part.strip()]
    except ValueError:
        chosen = []
    if not chosen or min(chosen) < 1 or runs < 1:
        typer.echo("error: --sizes takes positive whole numbers separated by commas, --runs at least 1", err=True)
        raise typer.Exit(2)
    report = run(database_url, chosen, runs, embedder, tag)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    typer.echo(
        f"PostgreSQL, one user, {embedder} embedder; exact vector scan up to {report['exact_scan_up_to']} rows"
        f" or below {report['hnsw_min_share']:.0%} of the table"
    )
    for size, row in report["sizes"].items():
        typer.echo(
            f"  {size:>7} items: recall p50 {row['recall_ms']['p50']} ms p95 {row['recall_ms']['p95']} ms;"
            f" ingest {row['ingest_items_per_s']}/s; vector exact p50 {row['vector_exact_ms']['p50']} ms,"
            f" HNSW p50 {row['vector_hnsw_ms']['p50']} ms, HNSW recall@10 {row['hnsw_recall_at_10']}"
        )


if __name__ == "__main__":
    typer.run(cli)
