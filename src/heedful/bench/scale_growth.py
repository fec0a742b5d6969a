"""One user's recall as their memory grows: per-route p50/p95, memory and ingest rate at each size.

The user's items are LoCoMo turns (read from the shared data at run time, when present) and
generated notes, in turn. Texts repeat once the pool is used up (about 10,000 distinct texts);
their embeddings are then taken from a cache instead of recomputed, so a 100k-item store builds
in minutes. Ingest is measured without that cache: at each size, fresh notes are added in chunks
and the embedder alone runs on the very same texts, chunk by chunk, interleaved with the adds.

A copy of the store is kept at each size, and recall is measured on all of them side by side,
query by query, so that load from other work on the machine falls on every size alike.
"""

from __future__ import annotations

import gc
import json
import os
import random
import resource
import sqlite3
import tempfile
import time
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from heedful.api import Heedful
from heedful.bench.report import SHARED_DATA, percentile
from heedful.bench.scale import PEOPLE, PLACES, QUERIES, THINGS, VERBS
from heedful.memory.write import NewMessage

USER = "grown-user"
NOTE_POOL = 4000
SESSION_TURNS = 20
INGEST_CHUNK = 100
INGEST_CHUNKS = 5
LOCOMO_QUESTIONS = 24
TARGET_P95_MS = {10_000: 25.0, 100_000: 60.0}
TARGET_INGEST_RATIO = 0.9
START = datetime(2023, 1, 1, tzinfo=UTC)


class GcClock:
    """Time spent in Python's garbage collector (all generations), read around each recall."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = 0
        self.full = 0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        self.seconds += time.perf_counter() - self._started
        self.collections += 1
        self.full += info.get("generation") == 2

    def __enter__(self) -> GcClock:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self)


class CachedEmbedder:
    """The real embedder, with a cache by text that can be switched off (ingest is timed without it)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.cache: dict[str, np.ndarray] = {}
        self.enabled = True

    def embed(self, texts: list[str]) -> np.ndarray:
        if not self.enabled:
            return self.inner.embed(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            self.cache.update(zip(missing, self.inner.embed(missing), strict=True))
        return np.stack([self.cache[t] for t in texts]) if texts else self.inner.embed([])


def _locomo(path: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """(speaker, text) of every LoCoMo turn and a sample of its questions; empty when absent."""
    if not path.exists():
        return [], []
    turns: list[tuple[str, str]] = []
    questions: list[str] = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        for key in sorted(k for k in conversation if k.startswith("session_") and isinstance(conversation[k], list)):
            turns.extend((str(t.get("speaker")), str(t.get("text", "")).strip() or ".") for t in conversation[key])
        questions.extend(str(qa["question"]) for qa in sample["qa"][:3])
    return turns, questions[:LOCOMO_QUESTIONS]


def _notes(seed: int, count: int, numbered: bool) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{f'Note {n}: ' if numbered else ''}I {rng.choice(VERBS)} {rng.choice(THINGS)} with {rng.choice(PEOPLE)}"
        f" in {rng.choice(PLACES)} on day {rng.randint(1, 365)}."
        for n in range(count)
    ]


def _pool(turns: list[tuple[str, str]]) -> list[tuple[str | None, str]]:
    """The repeating pool of (speaker, text): LoCoMo turns and generated notes, in turn."""
    notes: list[tuple[str | None, str]] = [(None, text) for text in _notes(7, NOTE_POOL, numbered=False)]
    pool: list[tuple[str | None, str]] = []
    for n in range(max(len(turns), len(notes))):
        if n < len(turns):
            pool.append(turns[n])
        if n < len(notes):
            pool.append(notes[n])
    return pool


def _messages(pool: list[tuple[str | None, str]], start: int, count: int) -> list[NewMessage]:
    """Items `start`.. of the user's history: one a minute, twenty to a session."""
    return [
        NewMessage(
            pool[n % len(pool)][1],
            session_id=f"s{n // SESSION_TURNS}",
            at=START + timedelta(minutes=n),
            speaker=pool[n % len(pool)][0],
        )
        for n in range(start, start + count)
    ]


def _rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def _ingest(hf: Heedful, embedder: CachedEmbedder, seed: int) -> dict[str, float]:
    """Fresh notes added without the cache, chunk by chunk, beside the embedder alone on the same texts."""
    from heedful.memory.recall.indexing import excerpt_embedding_text

    texts = _notes(seed, INGEST_CHUNK * INGEST_CHUNKS, numbered=True)
    spent = {"embed": 0.0, "add": 0.0}
    embedder.enabled = False
    try:
        for chunk in range(INGEST_CHUNKS):
            part = texts[chunk * INGEST_CHUNK : (chunk + 1) * INGEST_CHUNK]
            session = f"ingest-{seed}-{chunk}"
            previous: str | None = None
            alone = []
            for text in part:
                alone.append(excerpt_embedding_text(text, None, previous))
                previous = text
            messages = [NewMessage(text, session_id=session) for text in part]
            calls = [
                ("embed", partial(embedder.inner.embed, alone)),
                ("add", partial(hf.memory.add, USER, messages, extract=False)),
            ]
            # who goes first alternates: the first of two calls in a row pays the embedder's wake-up
            for name, call in calls if chunk % 2 == 0 else calls[::-1]:
                began = time.perf_counter()
                call()
                spent[name] += time.perf_counter() - began
    finally:
        embedder.enabled = True
    count = len(texts)
    return {
        "items_per_s": round(count / spent["add"], 1),
        "embedder_alone_per_s": round(count / spent["embed"], 1),
        "ratio": round(spent["embed"] / spent["add"], 3),
    }


def _agreement(hf: Heedful, queries: list[str], depths: tuple[int, ...] = (10, 200)) -> dict[str, float] | None:
    """Past the exact-scan threshold, the share of the exact scan's top k that the vector route's projected
    scan and exact re-score keep, over `queries` (None below the threshold: the scan is exact)."""
    search = hf.store.search
    index = search.index(USER)
    if index.coarse() is None:
        return None
    kept = {depth: 0 for depth in depths}
    for vector in hf.embedder.embed(queries):
        query = np.asarray(vector, dtype=np.float32)
        exact = np.sort(index.matrix[index.has_vector] @ query)[::-1]
        for depth in depths:
            # a row counts when it scores at least the exact k-th best: texts repeat, and which of several
            # equal rows fills the last places is not a loss
            floor = exact[min(depth, len(exact)) - 1] - 1e-5
            kept[depth] += sum(score >= floor for _, score in search.vector_positions(index, query, depth))
    return {f"top_{depth}": round(kept[depth] / (depth * len(queries)), 4) for depth in depths}


def _copy(source: Path, target: Path) -> None:
    target.mkdir(parents=True)
    with sqlite3.connect(source / "heedful.db") as src, sqlite3.connect(target / "heedful.db") as dst:
        src.backup(dst)


def run(sizes: list[int], runs: int = 3, embedder: str = "minilm", data: Path | None = None) -> dict[str, Any]:
    """Grow one user to each size (keeping a copy), then time recall on every copy side by side."""
    locomo_path = data or SHARED_DATA / "locomo" / "locomo10.json"
    turns, locomo_questions = _locomo(locomo_path)
    pool = _pool(turns)
    queries = QUERIES + locomo_questions
    sizes = sorted(set(sizes))
    report: dict[str, Any] = {
        "user_items": sizes,
        "locomo_text": bool(turns),
        "distinct_texts": len(pool),
        "queries": len(queries),
        "runs": runs,
        "load_average_at_start": os.getloadavg()[0],
    }
    rows: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="heedful-growth-") as folder:
        main_home = Path(folder) / "grow"
        with Heedful.open(main_home, embedder=embedder) as hf:
            cached = CachedEmbedder(hf.embedder)
            hf.__dict__["embedder"] = cached  # the facade's cached property, replaced for this store only
            cached.embed(["warm up"])
            held = 0
            for size in sizes:
                began = time.perf_counter()
                while held < size:
                    count = min(1000, size - held)
                    hf.memory.add(USER, _messages(pool, held, count), extract=False)
                    held += count
                fill_s = time.perf_counter() - began
                ingest = _ingest(hf, cached, seed=size)
                rows[size] = {"fill_seconds": round(fill_s, 1), "ingest": ingest}
                _copy(main_home, Path(folder) / f"at-{size}")
        report["load_average_after_build"] = os.getloadavg()[0]
        homes = {size: Heedful.open(Path(folder) / f"at-{size}", embedder=embedder) for size in sizes}
        try:
            timings: dict[int, dict[str, list[float]]] = {size: {"total": []} for size in sizes}
            for size, hf in homes.items():
                before = _rss_mb()
                began = time.perf_counter()
                hf.memory.recall(USER, queries[0])  # builds the user's index: measured once, apart
                rows[size]["first_recall_ms"] = round((time.perf_counter() - began) * 1000, 1)
                rows[size]["index_rss_mb"] = round(_rss_mb() - before, 1)
                rows[size]["projected_scan_keeps"] = _agreement(hf, queries)
                for query in queries:
                    hf.memory.recall(USER, query)
            collections = {size: [0, 0] for size in sizes}
            with GcClock() as clock:
                for _ in range(runs):
                    for query in queries:
                        for size, hf in homes.items():
                            before_gc, before_count, before_full = clock.seconds, clock.collections, clock.full
                            began, cpu = time.perf_counter(), time.process_time()
                            result = hf.memory.recall(USER, query)
                            timings[size]["total"].append((time.perf_counter() - began) * 1000)
                            # CPU time of the whole process (every thread): what one recall costs,
                            # apart from the time it waited for a core on a loaded machine.
                            timings[size].setdefault("cpu", []).append((time.process_time() - cpu) * 1000)
                            timings[size].setdefault("gc", []).append((clock.seconds - before_gc) * 1000)
                            collections[size][0] += clock.collections - before_count
                            collections[size][1] += clock.full - before_full
                            for route, ms in result.route_ms.items():
                                timings[size].setdefault(route, []).append(ms)
        finally:
            for hf in homes.values():
                hf.close()
    for size in sizes:
        rows[size]["recall_ms"] = {
            name: {"p50": round(percentile(v, 50), 2), "p95": round(percentile(v, 95), 2)}
            for name, v in timings[size].items()
        }
        rows[size]["gc_collections"], rows[size]["gc_full_collections"] = collections[size]
        target = TARGET_P95_MS.get(size)
        rows[size]["target_p95_ms"] = target
        rows[size]["meets_p95_target"] = None if target is None else rows[size]["recall_ms"]["total"]["p95"] <= target
    report["sizes"] = {str(size): rows[size] for size in sizes}
    report["rss_mb_end"] = _rss_mb()
    report["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    report["load_average_at_end"] = os.getloadavg()[0]
    return report


def print_report(report: dict[str, Any], echo: Any) -> None:
    echo(
        f"one user's recall as memory grows ({report['queries']} queries x {report['runs']} runs, sizes side by side;"
        f" LoCoMo text {'included' if report['locomo_text'] else 'absent: generated notes only'})"
    )
    routes = sorted(
        {r for row in report["sizes"].values() for r in row["recall_ms"] if r not in ("total", "cpu", "gc")}
    )
    echo("items    total p50/p95 ms  cpu p50/p95 ms  gc p50/p95 ms  " + "  ".join(f"{r} p50/p95" for r in routes))
    for size, row in report["sizes"].items():
        ms = row["recall_ms"]
        cells = "  ".join(f"{ms[r]['p50']}/{ms[r]['p95']}" if r in ms else "-" for r in routes)
        echo(
            f"{size:>7}  {ms['total']['p50']}/{ms['total']['p95']}  {ms['cpu']['p50']}/{ms['cpu']['p95']}"
            f"  {ms['gc']['p50']}/{ms['gc']['p95']}  {cells}"
        )
    echo("items    ingest items/s  embedder alone/s  ratio  index MB  first recall ms")
    for size, row in report["sizes"].items():
        ingest = row["ingest"]
        echo(
            f"{size:>7}  {ingest['items_per_s']:>14}  {ingest['embedder_alone_per_s']:>16}  {ingest['ratio']:>5}"
            f"  {row['index_rss_mb']:>8}  {row['first_recall_ms']:>15}"
        )
    for size, row in report["sizes"].items():
        if row.get("projected_scan_keeps"):
            kept = ", ".join(f"{k.replace('_', ' ')} {v:.1%}" for k, v in row["projected_scan_keeps"].items())
            echo(f"{size:>7}  vector route past the exact-scan threshold keeps of the exact scan's: {kept}")
    echo(
        f"max RSS {report['max_rss_mb']} MB; load average {report['load_average_at_start']} at start,"
        f" {report['load_average_at_end']} at end (2 cores)"
    )
