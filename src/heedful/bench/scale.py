"""`heedful bench scale`: one user's recall latency alone, and with many other users in the store.

Two homes are built from the same generated notes: one holds only the measured user, the other
the same user plus `--other-users` users of `--items` notes each (drawn from the same vocabulary,
so every query word also occurs in other users' rows). The same queries then run against both,
interleaved, and the p50/p95 of each and their ratio are reported. A user's recall should cost
what their own data costs: the target ratio is at most 1.25.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Annotated

import typer

from heedful.api import Heedful
from heedful.memory.write import NewMessage

TARGET_RATIO = 1.25
TARGET_USER = "measured-user"
PEOPLE = ["Anna", "Tom", "Maria", "Kofi", "Lena", "Ravi", "Sofia", "Jonas", "Mei", "Omar"]
PLACES = ["Lisbon", "Berlin", "Porto", "Nairobi", "Osaka", "Denver", "Krakow", "Lima", "Oslo", "Hanoi"]
THINGS = ["hiking", "chess", "painting", "the piano", "sourdough", "climbing", "pottery", "running", "jazz", "tennis"]
VERBS = ["talked about", "went to", "planned", "tried", "read about", "practised", "booked", "enjoyed"]
QUERIES = [
    "What did I plan in Lisbon?",
    "When did Anna go climbing?",
    "Tell me about chess with Tom",
    "pottery in Osaka",
    "Which trips did I book last month?",
    "What do I enjoy about jazz?",
    "Where did Maria practise the piano?",
    "sourdough and Kofi",
]


def notes(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [
        f"Note {n}: I {rng.choice(VERBS)} {rng.choice(THINGS)} with {rng.choice(PEOPLE)} in {rng.choice(PLACES)}"
        f" on day {rng.randint(1, 365)}."
        for n in range(count)
    ]


def _fill(hf: Heedful, user: str, seed: int, items: int) -> None:
    messages = [NewMessage(text, session_id=f"s{n // 20}") for n, text in enumerate(notes(seed, items))]
    hf.memory.add(user, messages, extract=False)


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
    }


def run(items: int = 100, other_users: int = 300, runs: int = 5, embedder: str = "hashing") -> dict[str, object]:
    """Build both homes, time the measured user's recall in each (interleaved), and report."""
    with tempfile.TemporaryDirectory(prefix="heedful-scale-") as folder:
        alone_home, shared_home = Path(folder) / "alone", Path(folder) / "shared"
        started = time.perf_counter()
        with Heedful.open(alone_home, embedder=embedder) as alone:
            _fill(alone, TARGET_USER, 0, items)
        with Heedful.open(shared_home, embedder=embedder) as shared:
            _fill(shared, TARGET_USER, 0, items)
            for index in range(other_users):
                _fill(shared, f"user-{index:05d}", index + 1, items)
        build_s = time.perf_counter() - started
        timings: dict[str, list[float]] = {"alone": [], "shared": []}
        with (
            Heedful.open(alone_home, embedder=embedder) as alone,
            Heedful.open(shared_home, embedder=embedder) as shared,
        ):
            homes = {"alone": alone, "shared": shared}
            for hf in homes.values():  # warm: the embedder, the per-user caches
                for query in QUERIES:
                    hf.memory.recall(TARGET_USER, query)
            for _ in range(runs):
                for query in QUERIES:
                    for name, hf in homes.items():
                        began = time.perf_counter()
                        hf.memory.recall(TARGET_USER, query)
                        timings[name].append((time.perf_counter() - began) * 1000)
    alone_ms, shared_ms = _percentiles(timings["alone"]), _percentiles(timings["shared"])
    ratio = round(shared_ms["p50"] / alone_ms["p50"], 3) if alone_ms["p50"] else 0.0
    return {
        "items_per_user": items,
        "other_users": other_users,
        "rows_in_shared_store": items * (other_users + 1),
        "queries": len(QUERIES) * runs,
        "embedder": embedder,
        "alone_ms": alone_ms,
        "shared_ms": shared_ms,
        "ratio_p50": ratio,
        "target_ratio": TARGET_RATIO,
        "meets_target": ratio <= TARGET_RATIO,
        "build_seconds": round(build_s, 1),
    }


def cli(
    items: Annotated[int, typer.Option("--items", help="Notes per user (the measured one and each other).")] = 100,
    other_users: Annotated[int, typer.Option("--other-users", help="Users sharing the store.")] = 300,
    runs: Annotated[int, typer.Option("--runs", help="Passes over the query set.")] = 5,
    embedder: Annotated[str, typer.Option("--embedder", help="hashing (fast to build) or minilm.")] = "hashing",
    sizes: Annotated[
        str | None,
        typer.Option("--sizes", help="Grow one user to these sizes (e.g. 1000,10000,100000) instead."),
    ] = None,
    data: Annotated[Path | None, typer.Option("--data", help="locomo10.json for --sizes")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """One user's recall p50 alone and with --other-users users of --items notes each; or, with
    --sizes, one user's per-route latency, memory and ingest rate as their memory grows."""
    if sizes is not None:
        _growth(sizes, runs, embedder, data, as_json)
        return
    if items < 1 or other_users < 0 or runs < 1:
        typer.echo("error: --items and --runs must be >= 1 and --other-users >= 0", err=True)
        raise typer.Exit(2)
    report = run(items=items, other_users=other_users, runs=runs, embedder=embedder)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    alone, shared = report["alone_ms"], report["shared_ms"]
    typer.echo(f"recall of one user with {items} notes ({report['queries']} queries, {embedder} embedder)")
    typer.echo(f"  alone                      p50 {alone['p50']} ms  p95 {alone['p95']} ms")  # type: ignore[index]
    typer.echo(
        f"  with {other_users} other users       p50 {shared['p50']} ms  p95 {shared['p95']} ms"  # type: ignore[index]
    )
    typer.echo(
        f"  ratio {report['ratio_p50']}x; target <= {TARGET_RATIO}: {'met' if report['meets_target'] else 'not met'}"
    )


def _growth(sizes: str, runs: int, embedder: str, data: Path | None, as_json: bool) -> None:
    from heedful.bench import scale_growth

    try:
        chosen = [int(part) for part in sizes.split(",") if part.strip()]
    except ValueError:
        chosen = []
    if not chosen or min(chosen) < 1 or runs < 1:
        typer.echo("error: --sizes takes positive whole numbers separated by commas (e.g. 1000,10000)", err=True)
        raise typer.Exit(2)
    report = scale_growth.run(chosen, runs=runs, embedder=embedder, data=data)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        scale_growth.print_report(report, typer.echo)


__all__ = ["cli", "run"]
